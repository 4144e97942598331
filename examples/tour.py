"""A short tour of pep671: run with `make demo` (or ./python examples/tour.py)."""

import sys
import sysconfig

print(f"pep671 tour -- Python {sys.version}")
print(f"interpreter: {sys.executable}")
print(f"built from:  {sysconfig.get_config_var('srcdir')}")
print()
print("PEP 671 proposes late-bound argument defaults, evaluated at call time:")
print()
print("    def f(a, hi=>len(a)): ...")
print()
try:
    compile("def f(a, hi=>len(a)): return hi", "<tour>", "exec")
except SyntaxError:
    print("This interpreter does not accept that syntax yet: the patch series that")
    print("implements it is still being built up (see patches/series).")
else:
    ns: dict[str, object] = {}
    exec("def f(a, hi=>len(a)): return hi", ns)
    f = ns["f"]
    print(f"f([1, 2, 3]) -> {f([1, 2, 3])!r}   # hi defaults to len(a)")  # type: ignore[operator]
    print(f"f([1, 2, 3], 1) -> {f([1, 2, 3], 1)!r}")  # type: ignore[operator]
