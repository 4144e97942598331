"""Late-bound defaults (PEP 671) that a linter must judge right.

A second input of the ecosystem checks, beside late_defaults.py: each
function says in a comment what a checker that understands late defaults
reports for it (pylint's message names; other linters have their own).
A late default is evaluated at every call that omits the argument, in the
function's own scope, before the body runs.  Valid code for the patched
interpreter; the functions that would fail are never called.
"""

CACHE = {}


def shared_list(items=[]):  # dangerous-default-value: one list for all calls
    return items


def fresh_list(items=>[]):  # nothing: a new list at each call
    return items


def fresh_dict(*, table: dict[str, int] => {}):  # nothing
    return table


def named_mutable(table=>CACHE):  # nothing: evaluated per call, by choice
    return table


def undefined(value=>missing_name):  # undefined-variable 'missing_name'
    return value


def body_local(value=>later):  # used-before-assignment 'later'
    later = 1
    return value, later


calls = 0


def declared_global(value=>calls + later):  # used-before-assignment 'later'
    global calls  # the body's declaration applies to the default; its locals do not
    later = 1
    calls += later
    return value


def parameters(a, start=>stop - 1, stop=>len(a), step=>start and 1):  # nothing
    return a[start:stop:step]


class Counter:
    """Class-body names are not visible in a method's defaults."""

    step = 1

    def bump(self, by=>step):  # undefined-variable 'step'
        return self, by

    def own(self, by=>self.step, kind=>__class__.__name__):  # nothing
        return by, kind
