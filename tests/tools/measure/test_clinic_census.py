"""tools.measure.clinic_census: the PEP's census of the C functions, on the baseline tree.

The tool runs as the Makefile runs tools, with the host python3 (Clinic of 3.13 runs on a
stock 3.11), on build/baseline, the unpatched tree `make pytest` builds first; the counts
are the ones PEP/pep-0671.rst states, and the tree is left as it was: Clinic writes
nothing, not even bytecode.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tools.common import scrubbed_env
from tools.measure import clinic_census
from tools.measure.clinic_census import COMPUTED, Census, OptionalParam
from tools.paths import BASELINE, REPO

PEP = REPO / "PEP" / "pep-0671.rst"

# What the PEP states ("Census of the C functions"), and its table's n column.
FUNCTIONS, OPTIONAL, SENTINEL, COMPUTED_N = 1939, 921, 433, 51
GROUP_N = [4, 21, 4, 6, 1, 1, 1, 6, 1, 4, 2]


def snapshot(tree: Path) -> dict[str, tuple[int, int]]:
    """Every path below tree with its size and mtime: what a write would change."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(tree):
        for name in [*dirnames, *filenames]:
            st = os.lstat(os.path.join(dirpath, name))
            found[os.path.join(dirpath, name)] = (st.st_size, st.st_mtime_ns)
    return found


@pytest.fixture(scope="module")
def census() -> dict[str, Any]:
    if not (BASELINE / "Tools" / "clinic" / "libclinic").is_dir():
        pytest.fail(f"{BASELINE} is missing: run `make baseline` (make pytest builds it)")
    python3 = shutil.which("python3")
    assert python3, "the host python3 is not on PATH"
    before = snapshot(BASELINE)
    proc = subprocess.run([python3, "-m", "tools.measure.clinic_census", "--json"],
                          capture_output=True, text=True, cwd=REPO, env=scrubbed_env(),
                          stdin=subprocess.DEVNULL, timeout=120)
    after = snapshot(BASELINE)
    assert proc.returncode == 0, proc.stderr
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    assert changed == set(), "the census wrote into the tree"
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def test_the_counts_the_pep_states(census: dict[str, Any]) -> None:
    assert census["tree"] == "build/baseline"
    assert census["functions"] == FUNCTIONS
    assert census["optional"] == OPTIONAL
    assert census["sentinel"]["n"] == SENTINEL
    assert census["sentinel"]["by_default"]["late (=>)"] == 0      # upstream has no =>
    assert census["computed"]["n"] == COMPUTED_N
    assert [g["n"] for g in census["computed"]["groups"]] == GROUP_N
    # Clinic did want to write its 'file' destinations: the guard is what kept them
    assert census["not_written"] and all("clinic/" in f for f in census["not_written"])


def test_the_pep_table_is_the_tool_table() -> None:
    text = PEP.read_text(encoding="utf-8")
    section = text.split("Census of the C functions\n~~~", 1)[1].split("\nThe four of", 1)[0]
    for figure in (f"{FUNCTIONS:,} functions", f"{OPTIONAL} optional", f"{SENTINEL} of those",
                   f"{COMPUTED_N} stand for"):
        assert figure in " ".join(section.split()), figure
    rows = re.findall(r"^     - (\d+)\n     - (.*)$", section, re.M)   # n, stands for
    assert [int(n) for n, _ in rows] == GROUP_N == [len(g.members) for g in COMPUTED]
    assert [s.replace("``", "") for _, s in rows] == [g.stands_for for g in COMPUTED]


def test_a_parameter_missing_or_with_another_default_is_reported() -> None:
    census = Census("t", optional=[OptionalParam("f.c", fn, p, "None", "Py_None", False)
                                   for g in COMPUTED for fn, p in g.members])
    groups, problems = clinic_census.computed(census)
    assert problems == [] and sum(g["n"] for g in groups) == COMPUTED_N
    census.optional[0].default = "0"
    del census.optional[-1]
    census.optional[5].late = True          # a late default is one of them too
    groups, problems = clinic_census.computed(census)
    assert problems == ["_bisect.bisect_left(hi): default 0 is not None, -1, sys.maxsize, "
                        "NULL or late",
                        "_io.TextIOWrapper.__init__(encoding): is not declared (or has no "
                        "optional parameter)"]
    assert sum(g["n"] for g in groups) == COMPUTED_N - 2


def test_clinic_cannot_write_into_the_tree() -> None:
    probe = BASELINE / "clinic_census_probe"
    with clinic_census.read_only_clinic(BASELINE.absolute(), Census("t")) as libclinic:
        libclinic.write_file(str(BASELINE.absolute() / "Modules" / "x.c.h"), "")  # skipped
        with pytest.raises(PermissionError):
            probe.write_text("")
        with pytest.raises(PermissionError):
            (BASELINE / "clinic_census_dir").mkdir()
    assert not probe.exists() and not (BASELINE / "clinic_census_dir").exists()
