"""The constants and the runtime helpers the generated functions call (_rec, _chk, ...)."""

from __future__ import annotations

import types
from typing import Any


LATE_PROBE = "def _probe(a=>1): return a"

UNBOUND_MSG = "cannot access parameter {!r}: its late-bound default has not been evaluated yet"
FREE_MSG = ("cannot access free variable {!r} where it is not associated with a value "
            "in enclosing scope")

# _L is a late-default object: passed to a late-bound parameter it means "evaluate the
# default"; to any other parameter it is an ordinary value.
VALUES = ["0", "1", "-7", "None", "...", "'s'", "()", "(1, None)", "True", "2.5", "'...'",
          "_L"]


LOG: list[Any] = []


class Sentinel:
    def __repr__(self) -> str:
        return "_S"


_S = Sentinel()
# The type of the objects that __defaults__ holds for late-bound parameters (PEP 671);
# None on an interpreter without them, where this program cannot run anyway.
_LT = getattr(types, "LateDefaultType", None)
_L = _LT("fuzz") if _LT is not None else None


class Boom(Exception):
    """Raised by a late default chosen to fail."""


def _rec(name: str, *args: Any) -> tuple[Any, ...]:
    LOG.append((name, args))
    return (name,) + args


def _boom(name: str, *args: Any) -> Any:
    LOG.append(("boom", name, args))
    raise Boom(name)


def _chk(value: Any, name: str) -> Any:
    """Sentinel side: a direct read of a late parameter."""
    if value is _S or type(value) is _LT:
        raise UnboundLocalError(UNBOUND_MSG.format(name))
    return value


def _chkf(value: Any, name: str) -> Any:
    """Sentinel side: a read of a late parameter through a lambda."""
    if value is _S or type(value) is _LT:
        raise NameError(FREE_MSG.format(name))
    return value


async def _aid(value: Any) -> Any:
    LOG.append(("await",))
    return value


def helpers() -> dict[str, Any]:
    return {"_rec": _rec, "_boom": _boom, "_chk": _chk, "_chkf": _chkf, "_S": _S,
            "_L": _L, "_LT": _LT,
            "_aid": _aid, "__name__": "fuzzcase"}
