"""tools.docs.build_docs without Sphinx: the link check of make docs-check is pinned, runs
from the repository root on the Markdown files, and fetches no web link."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

from tools.docs import build_docs
from tools.paths import REPO


def test_the_link_checker_is_pinned_in_the_docs_venv() -> None:
    assert re.fullmatch(r"md-dead-link-check==[0-9.]+", build_docs.MD_LINK_CHECK)


def test_web_links_are_not_fetched() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["md_dead_link_check"]["check_web_links"] is False


def test_the_link_check_runs_from_the_repository_root(tmp_path: Path) -> None:
    # a stand-in for the docs venv's python: it records how it was run, and fails as the
    # checker does when it finds a dead link
    seen = tmp_path / "seen.json"
    fake = tmp_path / "python"
    fake.write_text(f"#!{sys.executable}\n"
                    "import json, os, sys\n"
                    f"json.dump({{'argv': sys.argv[1:], 'cwd': os.getcwd()}}, open({str(seen)!r}, 'w'))\n"
                    "sys.exit(1)\n")
    fake.chmod(0o755)
    assert build_docs.check_links(fake) == 1
    ran = json.loads(seen.read_text())
    assert ran["argv"][:2] == ["-m", "md_dead_link_check"]
    assert Path(ran["cwd"]) == REPO


def test_the_manual_links_the_pages_it_has() -> None:
    # every page of docs/ is reachable from the manual's index, and the README points to it
    index = (REPO / "docs" / "README.md").read_text(encoding="utf-8")
    pages = {p.name for p in (REPO / "docs").glob("*.md")} - {"README.md"}
    assert pages and all(f"]({name})" in index for name in pages), pages
    assert "](docs/README.md)" in (REPO / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_one_screen() -> None:
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 100
