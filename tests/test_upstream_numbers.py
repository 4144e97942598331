"""The fork keeps every number upstream gave: tokens, instructions (specialized ones
included) and the marshal type codes it reads. The oracle is the unpatched baseline
built from the same tarball (build/baseline/python, which `make test` builds for the
parity run of the regression suite)."""

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
