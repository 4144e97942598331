"""Branch coverage of late-bound defaults (PEP 671), for coverage.py.

An input of the ecosystem checks, beside late_defaults.py: the coverage.py
probe runs this module under ``coverage run --branch``.  The calls at the end
never evaluate the late default of ``window``'s ``stop`` (a missed branch of
its ``def`` line, as the ``if stop is None:`` it replaces would be), and
evaluate ``bisect_right``'s ``hi`` in one call and pass it in the other (fully
covered).  Every other branch is taken.  Valid code for the patched
interpreter only.
"""


def window(a, start=0, stop=>len(a)):
    return a[start:stop]


def bisect_right(a, x, lo=0, hi=>len(a)):
    while lo < hi:
        mid = (lo + hi) // 2
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


assert window([1, 2, 3], 1, 2) == [2]
assert bisect_right([1, 2, 3], 2) == 2
assert bisect_right([1, 2, 3], 2, 0, 2) == 2
