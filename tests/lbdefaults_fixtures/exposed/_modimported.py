"""A private module that the package imports as a module (`exposed._modimported`)."""


def via_module(x=None):
    if x is None:
        x = []
    return x
