"""The mkdocs page of `make docs` (tools/docs/build_mkdocs.py) shows late defaults as written.

It is built from examples/mkdocs/ with the patched mkdocstrings-python and griffe of
build/ecosystem/venv (made current as tests/test_third_party.py makes it: a few minutes
and PyPI the first time), with `mkdocs build --strict`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import tool
from tools import ecosystem, paths
from tools.docs import build_mkdocs
from tools.common import ToolError, scrubbed_env


@pytest.fixture(scope="module")
def venv_python() -> Path:
    try:
        python, _ = ecosystem.prepare_venv(paths.PYTHON, "patched", ecosystem.load_tools(),
                                           ecosystem.load_unpatched())
    except ToolError as exc:
        pytest.fail(str(exc), pytrace=False)
    return python


@pytest.fixture(scope="module")
def page(venv_python: Path) -> list[str]:
    """The rendered signatures of build/docs/mkdocs/index.html, built anew."""
    result = tool("docs.build_mkdocs", env=scrubbed_env())
    assert result.returncode == 0, result.stderr
    return build_mkdocs.page_signatures(build_mkdocs.OUT / "index.html")


def test_late_defaults_rendered_as_written(page: list[str]) -> None:
    assert "bisect_right(a, x, lo=0, hi=>len(a), *, key=None)" in page
    assert "insort_right(a, x, lo=0, hi=>len(a), *, key=None) -> None" in page
    assert "append_to(item, target: list[int] => []) -> list[int]" in page
    assert "Batches(items, size=>max(1, len(items)))" in page
    assert "batch(index, size=>self.size)" in page


def test_hi_not_shown_as_required(page: list[str]) -> None:
    # A stock griffe drops the default: `bisect_right(a, x, lo=0, hi, *, key=None)`.
    bisect = [s for s in page if s.startswith("bisect_right(")]
    assert len(bisect) == 1
    assert not re.search(r"\bhi\s*[,)]", bisect[0])
    assert "late default" not in " ".join(page)


def test_check_refuses_a_page_that_lost_a_default(venv_python: Path, page: list[str],
                                                  tmp_path: Path) -> None:
    # What `make docs` checks: the page as built passes; the stock rendering of
    # bisect_right, or an early default in place of a late one, does not.
    assert build_mkdocs.check_signatures(venv_python, page) == (5, [])
    stock = [s.replace("hi=>len(a)", "hi") if s.startswith("bisect_right(") else s
             for s in page]
    late, problems = build_mkdocs.check_signatures(venv_python, stock)
    assert late == 5 and len(problems) == 1
    assert "does not parse" in problems[0] and "bisect_right(" in problems[0]
    early = [s.replace("size=>self.size", "size=self.size") for s in page]
    assert build_mkdocs.check_signatures(venv_python, early)[1] == [
        "'batch(index, size=self.size)': size is shown with an early default"]
    html = tmp_path / "index.html"
    html.write_text('<div class="doc-signature highlight"><pre><code><span class="nf">'
                    'f</span>(a, hi=&gt;len(a))</code></pre></div>')
    assert build_mkdocs.page_signatures(html) == ["f(a, hi=>len(a))"]
