"""Candidates the tool must find safe (all private, no caller passes None)."""

_missing = object()


def _if_basic(a, hi=None):
    if hi is None:
        hi = len(a)
    return a, hi


def _ifexp(a, n=None):
    n = a * 2 if n is None else n
    return n


def _ifexp_not(a, n=None):
    n = n if n is not None else a + 1
    return n


def _sentinel(x=_missing):
    if x is _missing:
        x = []
    x.append(1)
    return x


def _multi(a, b=None, c=None):
    """Two checks in a row; the second reads the first, normalized."""
    if b is None:
        b = a + 1
    if c is None:
        c = b * 2
    return a, b, c


def _annotated(a: int, b: list[int] | None = None) -> list[int]:
    """A docstring before the check."""
    if b is None:
        b = [a]
    return b


def _kwonly(a, *, key=None):
    if key is None:
        key = str(a)
    return key


def _posonly(a, b=None, /):
    if b is None:
        b = [a]
    return b


def _oneline(x=None):
    if x is None: x = {}  # noqa: E701
    return x


def _multiline(a, x=None):
    if x is None:
        x = (
            a +
            2
        )
    return x


def _only_check(x=None):
    if x is None:
        x = 1


def _tuple_expr(x=None):
    if x is None:
        x = 1, 2
    return x


def _unicode(s="é", t=None):
    if t is None:
        t = s + "ü"
    return t


class _Box:
    def __init__(self, size=3):
        self.size = size

    def _get(self, key=None):
        if key is None:
            key = self.size
        return key

    @staticmethod
    def _static(a, b=None):
        if b is None:
            b = a * 3
        return b


class Box:
    size = 7

    def _peek(self, n=None):
        if n is None:
            n = self.size
        return n


def _gen(n=None):
    if n is None:
        n = 3
    yield from range(n)


async def _coro(x=None):
    if x is None:
        x = 5
    return x


def _outer(a):
    def inner(b=None):
        if b is None:
            b = a
        return b
    return inner(), inner(2)


def _use_them():
    # callers that pass ordinary values
    _if_basic([1], 0)
    _ifexp(1, n=2)
    _Box()._get(key=1)
    _Box._static(1, 2)


CALLS = {
    "_if_basic": [(([1, 2],), {}), (([1, 2], 5), {}), (([],), {"hi": 1}), ((None,), {})],
    "_ifexp": [((2,), {}), ((2, 0), {}), (("x",), {})],
    "_ifexp_not": [((2,), {}), ((2, 7), {}), (("x",), {})],
    "_sentinel": [((), {}), (([0],), {}), ((), {}), ((None,), {})],
    "_multi": [((1,), {}), ((1, 10), {}), ((1,), {"c": 0}), ((1, 2, 3), {}), (("a",), {})],
    "_annotated": [((1,), {}), ((1, [2]), {}), ((1,), {"b": []})],
    "_kwonly": [((1,), {}), ((1,), {"key": "k"}), ((1, 2), {})],
    "_posonly": [((1,), {}), ((1, [5]), {}), ((1,), {"b": 2})],
    "_oneline": [((), {}), ((1,), {})],
    "_multiline": [((1,), {}), ((1, 0), {}), (("s",), {})],
    "_only_check": [((), {}), ((3,), {})],
    "_tuple_expr": [((), {}), ((0,), {})],
    "_unicode": [((), {}), (("a",), {}), (("a", "b"), {})],
    "_Box._get": [((), {}), ((4,), {}), ((), {"key": 0})],
    "_Box._static": [((2,), {}), ((2, 0), {})],
    "Box._peek": [((), {}), ((1,), {})],
    "_gen": [((), {}), ((0,), {}), ((2,), {})],
    "_coro": [((), {}), ((1,), {})],
    "_outer": [((1,), {}), ((None,), {})],
}
