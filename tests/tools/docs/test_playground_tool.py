"""tools.docs.playground without a browser: the examples menu it derives from examples/tour.py
and the PEP's doctests (the page's tests, tests/test_playground.py, run them in chromium
under `make playground-test`; here they run on this interpreter, in seconds)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tools.docs import playground
from tools.paths import REPO

EXAMPLES = playground.examples()


def test_the_tours_sections_come_in_order() -> None:
    tour = (REPO / "examples" / "tour.py").read_text(encoding="utf-8")
    titles = re.findall(r'^section\("(.+)"\)$', tour, flags=re.M)
    found = playground.tour_examples()
    assert [e["title"] for e in found] == titles
    # a section that calls a function of an earlier one is given its definition
    help_section = found[1]["code"]
    assert "def bisect_right(a, x, lo=0, hi=>len(a), *, key=None):" in help_section
    assert help_section.index("def bisect_right") < help_section.index("print(")


def test_the_peps_sections_with_examples_are_entries() -> None:
    titles = [e["title"] for e in playground.pep_examples()]
    assert {"Motivation", "Semantics", "Introspection"} <= set(titles)
    assert len(titles) == len(set(titles))


@pytest.mark.parametrize("source, kind", [
    ("f(1)", True), ("f(1), g(2)", "tuple"), ("x = 1", False), ("a, b = 1, 2", False),
    ("f(a=1)", True), ("x == 1", True), ("print(1)", False), ("import os", False),
    ("'a, b'", True), ("d['k'] = 1", False), ("f(lambda a=>1: a)", True),
])
def test_is_expression(source: str, kind: bool | str) -> None:
    assert playground._is_expression(source) == kind


@pytest.mark.parametrize("index", range(len(EXAMPLES)),
                         ids=[e["title"][:40] for e in EXAMPLES])
def test_each_example_runs_without_a_traceback(index: int, tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", EXAMPLES[index]["code"]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
