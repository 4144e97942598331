"""A short tour of late-bound argument defaults (PEP 671) on pep671.

Run it with `make demo`, or `./python examples/tour.py`.
"""

import dis
import inspect
import pydoc
import sys


def section(title):
    print()
    print(f"== {title} ==")


print(f"pep671 on Python {sys.version.split()[0]}: {sys.executable}")

section("A default evaluated at call time, in the function's scope")


def bisect_right(a, x, lo=0, hi=>len(a), *, key=None):
    """Return the index after the last item <= x in the sorted list a."""
    while lo < hi:
        mid = (lo + hi) // 2
        if x < (a[mid] if key is None else key(a[mid])):
            hi = mid
        else:
            lo = mid + 1
    return lo


print("def bisect_right(a, x, lo=0, hi=>len(a), *, key=None): ...")
print(f"bisect_right([1, 2, 2, 3], 2)       -> {bisect_right([1, 2, 2, 3], 2)}")
print(f"bisect_right([1, 2, 2, 3], 2, hi=2) -> "
      f"{bisect_right([1, 2, 2, 3], 2, hi=2)}")

section("help() and inspect.signature() show the real default")
print(f"inspect.signature(bisect_right) -> {inspect.signature(bisect_right)}")
print(pydoc.render_doc(bisect_right, renderer=pydoc.plaintext).splitlines()[2])

section("The mutable default pitfall, fixed")


def append_early(item, target=[]):
    target.append(item)
    return target


def append_late(item, target=>[]):
    target.append(item)
    return target


print(f"with  target=[]:  {append_early(1)} then {append_early(2)}")
print(f"with  target=>[]: {append_late(1)} then {append_late(2)}")

section("Passing any value, None included, skips the default")


def greet(name, greeting=>f"Hello, {name}"):
    return greeting


print(f"greet('Ada')       -> {greet('Ada')!r}")
print(f"greet('Ada', None) -> {greet('Ada', None)!r}")

section("Defaults run left to right, after all passed arguments")


def puzzle(*, a=>b + 1, b=>a + 1):
    return a, b


print(f"puzzle(a=1) -> {puzzle(a=1)}")
print(f"puzzle(b=1) -> {puzzle(b=1)}")
try:
    puzzle()
except UnboundLocalError as exc:
    print(f"puzzle()    -> UnboundLocalError: {exc}")

section("Under the hood: a late-default object, and a prologue in the body")
print("__defaults__       =", bisect_right.__defaults__)
print("__defaults_extra__ =", bisect_right.__defaults_extra__)
late = bisect_right.__defaults__[1]
print(f"passing {late!r} is leaving hi out:",
      bisect_right([1, 2, 2, 3], 2, 0, late))
for instr in list(dis.get_instructions(bisect_right))[:6]:
    print(f"    {instr.opname:<20} {instr.argrepr}")
