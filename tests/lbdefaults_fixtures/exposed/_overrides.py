"""Nothing public here: overrides and resolved callers decide the verdicts."""


class _Renderer:
    def render(self, text, width=None):
        if width is None:
            width = 8
        return text.center(width)


class _Wrapped(_Renderer):
    # forwards its own None to the base: the base's default must stay None
    def render(self, text, width=None):
        return "[" + super().render(text, width) + "]"


class _Formatter:
    def format(self, text, fill=None):
        if fill is None:
            fill = "*"
        return fill + text + fill


class _Strict(_Formatter):
    # passes its caller's argument on, whatever it is (None included)
    def format(self, text, fill):
        return super().format(text, fill)


class _Cache:
    def get(self, key=None):
        if key is None:
            key = "k"
        return key


class _Other:
    def get(self, key):
        return key

    def again(self):
        return self.get(None)       # self is an _Other: cannot reach _Cache.get


def _use_other():
    other = _Other()
    return other.get(None)          # an _Other instance: cannot reach _Cache.get


class _Store:
    def lookup(self, key=None):
        if key is None:
            key = "k"
        return key


def _use_unknown(obj):
    return obj.lookup(None)         # obj is not resolved: may be a _Store


def _use_cache():
    return _Cache().get(), _Wrapped().render("a"), _Strict().format("a", "-")


CALLS = {
    "_Cache.get": [((), {}), (("x",), {})],
    "_use_cache": [((), {})],
    "_use_other": [((), {})],
}
