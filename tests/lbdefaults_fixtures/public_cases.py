"""Candidates that need review: callers outside the tree may pass the marker."""

MISSING = object()


def public_func(x=None):
    if x is None:
        x = []
    return x


def _uses_public_sentinel(x=MISSING):
    if x is MISSING:
        x = 0
    return x


class Public:
    def __init__(self, items=None):
        if items is None:
            items = []
        self.items = items

    def method(self, n=None):
        n = len(self.items) if n is None else n
        return n

    def __exit__(self, exc_type=None, exc=None, tb=None):
        if exc_type is None:
            exc_type = type(exc)
        return False
