"""The fork keeps every number upstream gave: tokens and instructions (specialized ones
included), and its own take numbers upstream left free: the FATARROW token, the
instructions QUERY_DEREF (119) and QUERY_FAST (120), and the specialized
CALL_PY_WITH_DEFAULTS (223), QUERY_FAST_JUMP (224) and QUERY_FAST_JUMP_LAST (225),
which QUERY_FAST makes of itself the first time it runs, CALL_PY_WITH_KWDEFAULTS
(226), and QUERY_DEREF_JUMP (227) and QUERY_DEREF_JUMP_LAST (228), which QUERY_DEREF
makes of itself. The oracle is the unpatched baseline built from the
same tarball (build/baseline/python, which `make test` builds for the parity run of
the regression suite)."""

from __future__ import annotations

import json
import subprocess

import pytest

from tools.common import scrubbed_env
from tools.paths import BASELINE_PYTHON, PYTHON

NUMBERS = """
import json, opcode, token, _opcode_metadata as m
print(json.dumps({
    "tokens": {name: value for value, name in token.tok_name.items()
               if name not in ("N_TOKENS", "NT_OFFSET")},
    "N_TOKENS": token.N_TOKENS,
    "opcodes": dict(opcode.opmap),
    "specialized": dict(m._specialized_opmap),
    "HAVE_ARGUMENT": opcode.HAVE_ARGUMENT,
    "MIN_INSTRUMENTED_OPCODE": m.MIN_INSTRUMENTED_OPCODE,
}))
"""


def numbers(python: str) -> dict[str, object]:
    out = subprocess.run([python, "-c", NUMBERS], capture_output=True, text=True,
                         check=True, env=scrubbed_env()).stdout
    return json.loads(out)


@pytest.fixture(scope="module")
def both() -> tuple[dict[str, object], dict[str, object]]:
    if not BASELINE_PYTHON.exists():
        pytest.fail(f"{BASELINE_PYTHON} is missing: run `make baseline` (make test builds it)")
    return numbers(str(BASELINE_PYTHON)), numbers(str(PYTHON))


@pytest.mark.parametrize("table", ["tokens", "opcodes", "specialized"])
def test_upstream_names_keep_their_numbers(both, table: str) -> None:
    upstream, patched = both
    changed = {name: (value, patched[table].get(name))  # type: ignore[union-attr]
               for name, value in upstream[table].items()  # type: ignore[union-attr]
               if patched[table].get(name) != value}  # type: ignore[union-attr]
    assert changed == {}, f"upstream {table} renumbered: {changed}"


def test_new_names_take_numbers_upstream_left_free(both) -> None:
    upstream, patched = both
    assert patched["HAVE_ARGUMENT"] == upstream["HAVE_ARGUMENT"]
    assert patched["MIN_INSTRUMENTED_OPCODE"] == upstream["MIN_INSTRUMENTED_OPCODE"]
    for table in ("tokens", "opcodes", "specialized"):
        new = set(patched[table]) - set(upstream[table])  # type: ignore[arg-type]
        taken = set(upstream[table].values())  # type: ignore[union-attr]
        for name in new:
            assert patched[table][name] not in taken, (table, name)  # type: ignore[index]
    assert "FATARROW" in patched["tokens"]  # type: ignore[operator]
    assert patched["N_TOKENS"] == upstream["N_TOKENS"] + 1


# The numbers the fork adds, and nothing else: CALL_PY_LATE_DEFAULTS is gone (a call
# that omits late-bound defaults is CALL_PY_WITH_DEFAULTS's), and no specialized
# instruction is numbered past QUERY_DEREF_JUMP_LAST.
NEW = {
    "opcodes": {"QUERY_DEREF": 119, "QUERY_FAST": 120},
    "specialized": {"CALL_PY_WITH_DEFAULTS": 223, "QUERY_FAST_JUMP": 224,
                    "QUERY_FAST_JUMP_LAST": 225, "CALL_PY_WITH_KWDEFAULTS": 226,
                    "QUERY_DEREF_JUMP": 227, "QUERY_DEREF_JUMP_LAST": 228},
}


@pytest.mark.parametrize("table", sorted(NEW))
def test_the_fork_s_own_numbers(both, table: str) -> None:
    upstream, patched = both
    new = {name: value for name, value in patched[table].items()  # type: ignore[union-attr]
           if name not in upstream[table]}  # type: ignore[operator]
    assert new == NEW[table]


def test_specialized_instructions_end_at_query_deref_jump_last(both) -> None:
    _, patched = both
    assert max(patched["specialized"].values()) == 228  # type: ignore[union-attr]
    assert patched["MIN_INSTRUMENTED_OPCODE"] > 228  # type: ignore[operator]
