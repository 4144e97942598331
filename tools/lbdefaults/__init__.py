"""lbdefaults: find and rewrite sentinel-default idioms as PEP 671 late-bound defaults.

Scans Python files for parameters whose early default is ``None`` (or a
module-level ``_sentinel = object()``) and whose function body starts by
replacing that marker::

    def f(a, hi=None):          def f(a, hi=>len(a)):
        if hi is None:     ->       ...
            hi = len(a)
        ...

It reports every candidate with a verdict (``safe``, ``needs review``,
``unsafe``) and the reason, can show or apply the rewrite of the safe ones
(``--diff``, ``--write``), and prints or writes (as reStructuredText) a
census of the idiom.

Why this lives here and not in the patch series: it is a project tool for
users adopting the proposal, not part of the language change, so it stays out
of the patch series (which must remain a clean upstream proposal).  Scanning
works with any Python 3.11+; it needs the patched interpreter only to verify
that rewritten files compile (``--write`` refuses a file that does not
compile with the running interpreter).

The analysis is syntactic and conservative but it is not a proof: see
``LIMITATIONS`` below and the ``--help`` epilog.
"""

from __future__ import annotations

LIMITATIONS = """\
What a "safe" verdict does not prove:
  * callers are found in the scanned tree (plus --callers-from) and resolved
    by the syntax: `f(...)`, `self.m(...)`/`cls.m(...)` and `super().m(...)`
    within a class hierarchy, `C.m(...)`, `obj.m(...)` with `obj = C(...)`;
    any other receiver is not resolved and the call counts (the reason says
    so). Classes and modules are matched by name (a superset). Calls through
    getattr(), functools.partial, dispatch tables, or from code outside the
    tree are not seen; what code outside the tree can reach is computed
    (tools/lbdefaults/exposure.py) and is at most "needs review";
  * an argument is known to be None only when it is the literal None (or the
    sentinel name), or a parameter of the calling function whose default is
    None (the sentinel) and that is not normalized before the call; any other
    expression that evaluates to None at run time is not detected;
  * code that introspects the function (inspect.signature, __defaults__,
    __kwdefaults__) sees a different signature after the rewrite;
  * EXPR is assumed to have no side effects on the caller-visible order beyond
    what the check already had (the rewrite keeps the order of the checks).
"""

__all__ = ["LIMITATIONS"]
