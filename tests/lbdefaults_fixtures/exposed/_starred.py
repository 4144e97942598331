"""A private module whose public names the package imports with `*`."""


def via_star(x=None):
    if x is None:
        x = []
    return x
