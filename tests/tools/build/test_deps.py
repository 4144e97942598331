"""A fresh machine: `make` installs missing build dependencies itself when run as root, and
otherwise stops at once with the one command to run.

A package that is not installed here (a name no archive has) stands for a fresh machine's
missing ones; as root, --dry-run shows the apt-get commands instead of running them.
"""

from __future__ import annotations

import subprocess

import pytest

from conftest import REPO
from tools.build import deps

ABSENT = "pep671-test-package-that-is-not-installed"


def run_deps(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], euid: int,
             *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(deps.os, "geteuid", lambda: euid)
    try:
        code = deps.main(list(args))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_root_installs_the_missing_packages(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_deps(monkeypatch, capsys, 0, "install", "--dry-run",
                              "--package", "git", "--package", ABSENT)
    assert code == 0
    assert f"installing the missing build dependencies (Debian packages): {ABSENT}" in err
    assert out.splitlines() == [
        "would run: apt-get update -q",
        f"would run: apt-get install -y -q --no-install-recommends {ABSENT}",
    ]


def test_another_user_gets_the_one_command(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_deps(monkeypatch, capsys, 1000, "install", "--package", ABSENT)
    assert code == 1 and out == ""
    assert f"missing build dependencies (Debian packages): {ABSENT}" in err
    assert "`sudo make deps`" in err


def test_nothing_to_do_when_installed(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    for euid in (0, 1000):
        code, out, err = run_deps(monkeypatch, capsys, euid, "install", "--package", "git")
        assert code == 0 and out == "" and "all installed" in err


def test_check_never_installs(monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_deps(monkeypatch, capsys, 0, "check", "--package", ABSENT)
    assert code == 1 and ABSENT in err and "would run" not in out


def prerequisites() -> dict[str, list[str]]:
    """The Makefile's rules, from make's database (-q runs no recipe)."""
    out = subprocess.run(["make", "-pq", "--no-print-directory", "help"], cwd=REPO,
                         capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
    rules: dict[str, list[str]] = {}
    for line in out.splitlines():
        target, sep, prereqs = line.partition(":")
        if sep and target.replace("-", "").isalpha() and not prereqs.startswith("="):
            rules.setdefault(target, prereqs.split())
    return rules


@pytest.mark.parametrize("goal", ["all", "demo", "test", "install", "dist"])
def test_every_goal_starts_with_the_dependencies(goal: str) -> None:
    rules = prerequisites()
    todo, seen = [goal], set()
    while todo:
        target = todo.pop()
        if target not in seen:
            seen.add(target)
            todo += rules.get(target, [])
    assert {"deps", "fetch", "build"} <= seen
    assert rules["fetch"] == ["deps"] and rules["deps"] == []


@pytest.mark.parametrize("goal", ["all", "demo", "install", "dist"])
def test_make_runs_the_dependency_step_first(goal: str) -> None:
    """What `make -n` shows first is `tools.build.deps install` (make test is left out: -n
    would run its $(MAKE) line)."""
    out = subprocess.run(["make", "-n", "--no-print-directory", goal], cwd=REPO,
                         capture_output=True, text=True, check=True,
                         stdin=subprocess.DEVNULL).stdout
    commands = [line for line in out.splitlines() if line.strip()]
    assert "-m tools.build.deps install" in commands[0]
    assert any("-m tools.build.fetch_cpython" in c for c in commands[1:])
