"""A private module: one of its functions is re-exported by the package."""


def reexported(x=None):
    if x is None:
        x = []
    return x


def not_reexported(x=None):
    if x is None:
        x = []
    return x
