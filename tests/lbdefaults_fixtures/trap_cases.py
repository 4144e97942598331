"""Candidates the tool must not call safe (one trap each)."""

flag = True


def helper():
    return "helper"


def _caller_none(x=None):
    if x is None:
        x = []
    return x


def _caller_kw(a, x=None):
    if x is None:
        x = a
    return x


def _conditional_none(x=None):
    if x is None:
        x = "default"
    return x


def _forwarded(x=None):
    if x is None:
        x = 0
    return x


def _wrapper(y=None):
    return _forwarded(y)


def _later(a, lo=None, hi=0):
    if lo is None:
        lo = hi - 1
    return a, lo, hi


def _reassigned(x=None):
    x = helper() if x == "h" else x
    if x is None:
        x = []
    return x


def _or_form(x=None):
    x = x or []
    return x


def _gen_two(a=None, b=None):
    if a is None:
        a = 1
    if b is None:
        b = 2
    yield a
    yield b


def _rebinds(x=None):
    if x is None:
        x = helper2()
    helper2 = len
    return x, helper2


def _rebind_before(x=None):
    limit = 5
    if x is None:
        x = limit
    return x


def _out_of_order(a=None, b=None):
    if b is None:
        b = 1
    if a is None:
        a = b + 1
    return a, b


def _after_unsafe(a=None, b=None):
    if a is None:
        a = b
    if b is None:
        b = 2
    return a, b


async def _await_expr(x=None):
    if x is None:
        x = await _helper_coro()
    return x


async def _helper_coro():
    return 1


def _locals_expr(a, x=None):
    if x is None:
        x = sorted(locals())
    return x


def _shares_line(x=None):
    x = [] if x is None else x; y = 1  # noqa: E702
    return x, y


def _escapes(x=None):
    if x is None:
        x = 0
    return x


handler = _escapes


def _star_caller(x=None):
    if x is None:
        x = 0
    return x


def deco(func):
    return func


@deco
def _decorated(x=None):
    if x is None:
        x = 0
    return x


_base_super = super


class _Linked:
    def __init__(self, parent=None, _link=None):
        if _link is None:
            _link = parent
        self.parent, self.link = parent, _link


class _LinkMixin:
    """Forwards its own None to the next __init__ of the MRO, through an alias of
    super (the shape of unittest.mock's CallableMixin and NonCallableMock)."""

    def __init__(self, parent=None, _link=None):
        _base_super(_LinkMixin, self).__init__(parent, _link)


class _LinkedChild(_LinkMixin, _Linked):
    pass


class _Stepper:
    """A caller passes a variable that one branch sets to None (the shape of
    bdb's set_until and pdb's do_until)."""

    def _set_until(self, frame, lineno=None):
        if lineno is None:
            lineno = frame + 1
        return lineno

    def do_until(self, arg):
        if arg:
            lineno = int(arg)
        else:
            lineno = None
        return self._set_until(0, lineno)


def _callers(*args):
    _caller_none(None)
    _caller_kw(1, x=None)
    _conditional_none("a" if flag else None)
    _star_caller(*args)
    return _wrapper()


CALLS = {
    "_later": [((1,), {}), ((1, 5), {}), ((1,), {"hi": 3})],
    "_reassigned": [((), {}), (("h",), {}), ((None,), {})],
    "_gen_two": [((), {}), ((5,), {}), ((5, 6), {})],
    "_rebinds": [((), {}), ((1,), {})],
    "_rebind_before": [((), {}), ((1,), {})],
    "_out_of_order": [((), {}), ((5,), {}), ((None, 3), {}), ((), {"b": 4})],
    "_after_unsafe": [((), {}), ((1,), {}), ((None, 3), {})],
    "_locals_expr": [((1,), {}), ((1, 2), {})],
    "_callers": [((), {}), ((1,), {})],
}
