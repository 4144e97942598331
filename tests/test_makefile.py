"""The manual's table of targets (docs/targets.md) and `make help` list the same targets,
in one order."""

from __future__ import annotations

import re
import subprocess

from conftest import REPO


def make_help_targets() -> list[str]:
    out = subprocess.run(["make", "--no-print-directory", "-s", "help"], cwd=REPO,
                         capture_output=True, text=True, check=True,
                         stdin=subprocess.DEVNULL).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def docs_targets() -> list[str]:
    text = (REPO / "docs" / "targets.md").read_text(encoding="utf-8")
    table = text.split("\n## ", 1)[0]
    # `make` alone is `make all`, the default goal
    return [name or "all" for name in re.findall(r"^\| `make ?([a-z0-9-]*)` \|", table, re.M)]


def test_docs_table_matches_make_help() -> None:
    help_targets = make_help_targets()
    assert "build" in help_targets and "deps-check" in help_targets
    assert docs_targets() == help_targets


def test_every_target_has_a_help_line() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    targets = re.findall(r"^([a-z][a-z0-9-]*):", makefile, re.M)
    assert targets and sorted(targets) == sorted(make_help_targets())
