"""Helpers for sorted lists and batches whose defaults are computed at each call.

The module behind the autodoc page of ``make docs``: every default that depends
on another argument, or must be a fresh object, is late-bound (PEP 671), and the
page shows each as it is written here, ``hi=>len(a)``. Importing it has no side
effects.
"""

import bisect

__all__ = ["bisect_right", "insort_right", "append_to", "Batches"]


def bisect_right(a, x, lo=0, hi=>len(a), *, key=None):
    """Return the index after the last item of the sorted list *a* that is <= *x*.

    :func:`bisect.bisect_right` with *hi* late-bound: ``len(a)`` unless given, read
    from the argument *a* of the same call, which an early default could not do.
    """
    return bisect.bisect_right(a, x, lo, hi, key=key)


def insort_right(a, x, lo=0, hi=>len(a), *, key=None) -> None:
    """Insert *x* into the sorted list *a*, after any items equal to it."""
    bisect.insort_right(a, x, lo, hi, key=key)


def append_to(item, target: list[int] => []) -> list[int]:
    """Append *item* to *target* and return it; a new list for each call without one."""
    target.append(item)
    return target


class Batches:
    """Split a sequence into batches of *size* items, the whole of it by default."""

    def __init__(self, items, size=>max(1, len(items))):
        self.items = items
        self.size = size

    def batch(self, index, size=>self.size):
        """The *index*-th batch; *size* defaults to the size given to the constructor."""
        return self.items[index * size:(index + 1) * size]
