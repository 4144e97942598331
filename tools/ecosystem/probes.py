"""What runs in the venvs: each tool's probe.py, the upstream tests of a patch (pin.toml
[test]), and tests/test_late_bound_frameworks.py."""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from tools.common import cache_dir, ensure_venv, rel, run_logged, say, scrubbed_env, tail
from tools.ecosystem import sdist
from tools.ecosystem.manifest import (CARGO_TEST_TIMEOUT, CORPUS, FRAMEWORK_TESTS, FRAMEWORKS,
                                      JEST_TEST_TIMEOUT, LATE_TEST, PROBE_TIMEOUT,
                                      TEST_TIMEOUT, Tool, digest)
from tools.ecosystem.venvs import Layout, patched_tree
from tools.paths import ECOSYSTEM, REPO, TEST_REQUIREMENTS, VENV


@dataclass
class ProbeResult:
    passed: bool
    evidence: str
    seconds: float


# Runs a probe in a process of its own (the probe is stdlib only), with the scrubbed
# environment and ecosystem/ (argv[6]) first on sys.path, so that the probe imports the
# helpers the probes share (ecosystem/probekit.py); writes [passed, evidence] as JSON to
# argv[5].
_RUN_PROBE = r"""
import importlib.util, json, pathlib, sys, traceback
probe_file, python, corpus, workdir, out, helpers = sys.argv[1:7]
sys.path.insert(0, helpers)
try:
    spec = importlib.util.spec_from_file_location("probe", probe_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    passed, evidence = module.probe(python, pathlib.Path(corpus), pathlib.Path(workdir))
    if not isinstance(passed, bool) or not isinstance(evidence, str):
        passed, evidence = False, "probe() returned %r, not (bool, str)" % ((passed, evidence),)
except Exception as exc:
    traceback.print_exc()
    passed, evidence = False, "probe.py raised %s: %s" % (type(exc).__name__, exc)
pathlib.Path(out).write_text(json.dumps([passed, evidence]))
"""


def one_line(text: str) -> str:
    """Evidence for a table cell: one line, paths relative to the repository."""
    return " ".join(text.replace(f"{REPO}/", "").split()).replace("|", "\\|")


def run_probe(probe: Path, python: Path, workdir: Path, log: Path) -> ProbeResult:
    """probe.py's probe(python, corpus, workdir), in a process of its own."""
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    out = workdir.parent / f"{workdir.name}.result.json"
    out.unlink(missing_ok=True)
    started = time.monotonic()
    rc = run_logged([sys.executable, "-c", _RUN_PROBE, probe, python, CORPUS, workdir, out,
                     ECOSYSTEM], log, env=scrubbed_env(), cwd=workdir, timeout=PROBE_TIMEOUT)
    seconds = time.monotonic() - started
    if not out.is_file():
        return ProbeResult(False, f"the probe did not finish (exit {rc}; {rel(log)}): "
                           f"{one_line(tail(log, 1))}", seconds)
    passed, evidence = json.loads(out.read_text())
    return ProbeResult(passed, one_line(evidence), seconds)


@dataclass
class UpstreamRun:
    """An upstream test run, as its JUnit XML tells it."""
    returncode: int
    log: Path
    cases: dict[str, str] = field(default_factory=dict)  # test id -> passed/failed/skipped
    seconds: float = 0.0

    def count(self, outcome: str) -> int:
        return sum(1 for o in self.cases.values() if o == outcome)

    @property
    def late(self) -> dict[str, str]:
        return {case: o for case, o in self.cases.items() if LATE_TEST.search(case)}

    def problems(self) -> list[str]:
        """Why this run does not show the patch's tests passing ([] when it does)."""
        found = []
        if self.returncode != 0:
            found.append(f"the tests exited {self.returncode} (log: {rel(self.log)})")
        bad = [c for c, o in self.cases.items() if o in ("failed", "error")]
        if bad:
            found.append(f"{len(bad)} failed: {', '.join(bad[:5])}")
        late = self.late
        if not late:
            found.append("no test with 'late_default', 'late_bound' or 'pep671' in its name "
                         "ran: the patch's own tests were not collected")
        not_run = [c for c, o in late.items() if o == "skipped"]
        if not_run:
            found.append(f"{len(not_run)} of the patch's tests skipped: {', '.join(not_run[:5])}")
        return found

    def summary(self) -> str:
        parts = [f"{self.count(o)} {o}" for o in ("passed", "failed", "error", "skipped")
                 if self.count(o)]
        return (", ".join(parts) or "no tests") + \
            f" ({len(self.late)} of them the patch's) in {self.seconds:.0f}s"


def parse_junit(path: Path) -> dict[str, str]:
    """test id -> outcome, from pytest's JUnit XML."""
    if not path.is_file():
        return {}
    cases = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed"}.get(child.tag, child.tag)
        cases[f"{case.get('classname')}::{case.get('name')}"] = outcome
    return cases


def requirements_overlay(vpy: Path, tool: Tool, layout: Layout) -> Path:
    """A directory with the tool's [test] requirements (pip install --target): on
    PYTHONPATH for its test run, so that each tool gets the pytest it pins while the venv
    stays as the tools need it."""
    dest = layout.root / "test-deps" / f"{tool.name}-{digest(*tool.test_requirements)[:12]}"
    if (dest / ".complete").is_file():
        return dest
    for stale in dest.parent.glob(f"{tool.name}-*"):
        shutil.rmtree(stale)
    say(f"{tool.name}: installing {', '.join(tool.test_requirements)} for its tests")
    sdist.pip([str(vpy), "-m", "pip", "install", *sdist.PIP_QUIET, *sdist.PIP_NETWORK,
               "--target", str(dest), *tool.test_requirements],
              f"installing the test requirements of {tool.name}")
    (dest / ".complete").write_text("")
    return dest


# cargo test: "     Running tests/fixtures.rs (target/debug/deps/fixtures-0123abcd)" or
# "   Doc-tests name", then a line per test: "test inline_ok::name.py ... ok" (some
# harnesses pad the name; "test x - should panic ... ok"; a doc test's name has spaces)
_CARGO_BINARY = re.compile(r"^\s+(?:Running .*\(.*?([^/\s]+?)(?:-[0-9a-f]{16})?(?:\.exe)?\)"
                           r"|Doc-tests (\S+))$")
_CARGO_CASE = re.compile(r"^test (.+?) +\.\.\. (ok|FAILED|ignored)\b")
_CARGO_OUTCOMES = {"ok": "passed", "FAILED": "failed", "ignored": "skipped"}


def parse_cargo_test(log: Path) -> dict[str, str]:
    """test id (binary::test) -> outcome, from the output of cargo test."""
    cases, binary = {}, "?"
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if match := _CARGO_BINARY.match(line):
            binary = match[1] or f"{match[2]} (doc)"
        elif match := _CARGO_CASE.match(line):
            cases[f"{binary}::{match[1]}"] = _CARGO_OUTCOMES[match[2]]
    return cases


def run_cargo_tests(tool: Tool, tree: Path, log: Path) -> UpstreamRun:
    """pin.toml's [test] cargo: `cargo test ARGS` for each ARGS, from the top of the
    patched tree, into one log; the target directory is kept per user
    (~/.cache/pep671/cargo-target/<tool>), so that only a changed patch compiles again."""
    target = cache_dir() / "cargo-target" / tool.name
    env = scrubbed_env({"CARGO_TARGET_DIR": str(target), **tool.test_env})
    say(f"{tool.name}: upstream tests ({len(tool.cargo)} cargo test run(s); the first "
        f"build of the tests takes long; log: {rel(log)})")
    started, rc = time.monotonic(), 0
    log.unlink(missing_ok=True)
    for args in tool.cargo:
        status = run_logged(["cargo", "test", *args], log, env=env, cwd=tree, append=True,
                            timeout=CARGO_TEST_TIMEOUT)
        rc = rc or status
    return UpstreamRun(rc, log, parse_cargo_test(log), time.monotonic() - started)


_JEST_OUTCOMES = {"passed": "passed", "failed": "failed", "pending": "skipped",
                  "skipped": "skipped", "todo": "skipped", "disabled": "skipped"}


def parse_jest_json(path: Path, filtered: bool = False) -> dict[str, str]:
    """test id (file::full name) -> outcome, from jest's --json output. filtered: the run
    chose tests by name (-t), so the pending ones are those it left out, not counted."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return {}
    cases = {}
    for suite in data.get("testResults", []):
        name = Path(suite.get("name", "?")).name
        if suite.get("status") == "failed" and not suite.get("assertionResults"):
            cases[f"{name}::(the file did not run)"] = "error"
        for case in suite.get("assertionResults", []):
            outcome = _JEST_OUTCOMES.get(case.get("status", ""), "error")
            if not (filtered and outcome == "skipped"):
                cases[f"{name}::{case.get('fullName')}"] = outcome
    return cases


def report_path(layout: Layout, name: str) -> Path:
    """build/ecosystem/tests/<name>: where a test run writes its report, emptied."""
    path = layout.root / "tests" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    return path


def run_jest_tests(tool: Tool, tree: Path, layout: Layout) -> UpstreamRun:
    """pin.toml's [test] jest: `node_modules/.bin/jest ARGS` for each ARGS in jest_dir
    of the patched tree (whose [package] prepare installed jest), one log; the outcomes
    come from jest's --json output."""
    cwd = tree / tool.jest_dir
    log = layout.log(f"tests-{tool.name}")
    say(f"{tool.name}: upstream tests ({len(tool.jest)} jest run(s), each file compiled "
        f"first; log: {rel(log)})")
    started, rc, cases = time.monotonic(), 0, {}
    log.unlink(missing_ok=True)
    for number, args in enumerate(tool.jest):
        out = report_path(layout, f"{tool.name}-jest-{number}.json")
        status = run_logged([cwd / "node_modules" / ".bin" / "jest", "--ci", "--json",
                             f"--outputFile={out}", *args], log,
                            env=scrubbed_env(tool.test_env), cwd=cwd, append=True,
                            timeout=JEST_TEST_TIMEOUT)
        rc = rc or status
        cases.update(parse_jest_json(out, filtered=any(
            a in ("-t", "--testNamePattern") or a.startswith("--testNamePattern=")
            for a in args)))
    return UpstreamRun(rc, log, cases, time.monotonic() - started)


def run_command_tests(vpy: Path, tool: Tool, tree: Path, layout: Layout) -> UpstreamRun:
    """pin.toml's [test] commands, for a tool whose tests run by a runner of its own (the
    editors' grammars, Nuitka): each run at the top of the patched tree ({python}: the
    venv's), into one log; each writes JUnit XML to {junit}, which gives the outcomes."""
    log = layout.log(f"tests-{tool.name}")
    say(f"{tool.name}: upstream tests ({len(tool.commands)} command(s); log: {rel(log)})")
    started, rc, cases = time.monotonic(), 0, {}
    log.unlink(missing_ok=True)
    for number, _ in enumerate(tool.commands):
        junit = report_path(layout, f"{tool.name}-{number}.xml")
        command = tool.test_commands(str(vpy), junit)[number]
        status = run_logged(command, log, env=scrubbed_env(tool.test_env), cwd=tree,
                            append=True, timeout=TEST_TIMEOUT)
        rc = rc or status
        cases.update(parse_junit(junit))
    return UpstreamRun(rc, log, cases, time.monotonic() - started)


# Where pytest finds its configuration in a tree, and the section that makes a file one.
_PYTEST_CONFIGS = {"pytest.ini": "", ".pytest.ini": "", "pytest.toml": "",
                   "pyproject.toml": "[tool.pytest", "tox.ini": "[pytest]",
                   "setup.cfg": "[tool:pytest]"}


def pytest_config_args(tree: Path, layout: Layout) -> list[str]:
    """pytest looks for its configuration from the tests upwards: in a tree that has none
    of its own (Sphinx's sdist ships none) it would reach this repository's pyproject.toml
    and run the tool's tests with our settings, their ids relative to our root. Such a
    tree gets an empty configuration and is its own rootdir."""
    for name, section in _PYTEST_CONFIGS.items():
        path = tree / name
        if path.is_file() and section in path.read_text(errors="replace"):
            return []
    empty = layout.root / "pytest-empty.ini"
    empty.parent.mkdir(parents=True, exist_ok=True)
    empty.write_text("# for a tool whose tree has no pytest configuration\n[pytest]\n")
    return ["-c", str(empty), f"--rootdir={tree}"]


def run_upstream_tests(vpy: Path, tool: Tool, layout: Layout) -> UpstreamRun:
    """pin.toml's [test]: `python -m pytest PYTEST_ARGS` of the venv, from the top of the
    patched tree, with the test requirements on PYTHONPATH (or cargo test, or jest, for
    a tool whose tests are theirs, or the commands of a tool with a runner of its own)."""
    tree = patched_tree(vpy, tool, layout)
    if tool.cargo:
        return run_cargo_tests(tool, tree, layout.log(f"tests-{tool.name}"))
    if tool.jest:
        return run_jest_tests(tool, tree, layout)
    if tool.commands:
        return run_command_tests(vpy, tool, tree, layout)
    overlay = requirements_overlay(vpy, tool, layout)
    junit = layout.root / "tests" / f"{tool.name}.xml"
    junit.unlink(missing_ok=True)
    log = layout.log(f"tests-{tool.name}")
    say(f"{tool.name}: upstream tests ({' '.join(tool.pytest_args)}; log: {rel(log)})")
    started = time.monotonic()
    rc = run_logged([vpy, "-m", "pytest", "-p", "no:cacheprovider", f"--junitxml={junit}",
                     *pytest_config_args(tree, layout), *tool.pytest_args], log,
                    env=scrubbed_env({"PYTHONPATH": str(overlay), **tool.test_env}),
                    cwd=tree, timeout=TEST_TIMEOUT)
    return UpstreamRun(rc, log, parse_junit(junit), time.monotonic() - started)


def run_frameworks(python: Path, layout: Layout) -> dict[str, tuple[bool, str]]:
    """tests/test_late_bound_frameworks.py from build/venv: library -> (passed, evidence)."""
    venv = VENV
    vpy = ensure_venv(python, venv.absolute(), [TEST_REQUIREMENTS],
                      log=layout.log("venv-tests"))
    junit = layout.root / "frameworks.xml"
    junit.unlink(missing_ok=True)
    say(f"{rel(FRAMEWORK_TESTS)} with {rel(vpy)}")
    run_logged([vpy, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--junitxml={junit}",
                FRAMEWORK_TESTS], layout.log("frameworks"), env=scrubbed_env(), cwd=REPO)
    cases = parse_junit(junit)
    results = {}
    for library in FRAMEWORKS:
        mine = {c.split("::")[-1]: o for c, o in cases.items() if library in c.lower()}
        passed = bool(mine) and all(o == "passed" for o in mine.values())
        shown = "; ".join(f"{name} {outcome}" for name, outcome in mine.items())
        results[library] = (passed, f"{rel(FRAMEWORK_TESTS)}: " +
                            (shown or f"no test names {library}"))
    return results
