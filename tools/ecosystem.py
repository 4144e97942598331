"""make ecosystem: the third-party tools of ecosystem/patched/, stock and patched, on late defaults.

Every directory ecosystem/patched/<tool>/ holds a patch against a pinned PyPI release
(pin.toml, late-defaults.patch) and a probe (probe.py); ecosystem/README.md is
the contract. This program:

1. makes two venvs with the interpreter (default ./python): build/ecosystem/venv,
   with the patched build of every tool, and build/ecosystem/venv-stock, with the
   same releases unpatched. Each sdist is downloaded with pip and checked against
   its sha256; the patched tree gets the patch; wheels are built (pin.toml's
   install_env in the environment; kept per user in ~/.cache/pep671/ecosystem-wheels)
   in the order of pin.toml's `needs`, then all of a
   venv's wheels are installed by one pip run, so that a tool's dependency on another
   tool (Sphinx on Pygments, jedi on parso, pylint on astroid) is met by the build
   next to it, never by a release from PyPI; that is checked afterwards.
   Everything else is pinned by ecosystem/constraints.txt. The patched venv
   also gets the tools that need no patch (ecosystem/unpatched/<tool>/).
   A venv is reused while its inputs are unchanged, and remade whole otherwise.
2. runs each tool's probe.py against both venvs on the shared corpus
   ecosystem/corpus/late_defaults.py, the probes of the tools that need no
   patch against the patched venv, and tests/test_late_bound_frameworks.py (the
   libraries that handle late defaults through the run-time model) from build/venv;
3. writes build/ecosystem/report.md (and report.json): tool, version, stock result,
   patched result, evidence.

Exit status 1 when a patched probe fails, a tool that needs no patch fails, or (with
--tests) the upstream tests of a patch fail; stock results are recorded, not judged.
pip's output goes to build/ecosystem/logs/. Needs PyPI (sdists, dependencies, build
backends) until the venvs are built.

tests/test_third_party.py uses the same functions: the patched venv (reused when
current), the upstream tests of each patch (pin.toml [test]) and the patched probes.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import platform
import re
import shutil
import sys
import time
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.paths import ECOSYSTEM, ECOSYSTEM_OUT, PYTHON, REPO, TEST_REQUIREMENTS, TESTS, VENV
from tools import sdist
from tools.common import (ToolError, built_python, cache_dir, create_venv, ensure_venv,
                          exits_on_tool_error, rel, run, run_logged, say, scrubbed_env, tail,
                          verify_sha256)

THIRD_PARTY = ECOSYSTEM / "patched"
CORPUS = ECOSYSTEM / "corpus" / "late_defaults.py"
UNPATCHED = ECOSYSTEM / "unpatched"
CONSTRAINTS = ECOSYSTEM / "constraints.txt"
FRAMEWORK_TESTS = TESTS / "test_late_bound_frameworks.py"
# The libraries tests/test_late_bound_frameworks.py runs (pinned in tests/requirements.txt):
# each test names the one it covers.
FRAMEWORKS = ("cloudpickle", "dill", "pydantic", "fastapi")
# A test the patch adds has one of these in its name: the upstream run must pass them
# (not skip them: this interpreter has ast.LateDefault).
LATE_TEST = re.compile(r"late[-_ ]?(bound|default)|pep_?0?671", re.I)
PROBE_TIMEOUT = 900
TEST_TIMEOUT = 1800
VARIANTS = ("patched", "stock")


def norm(name: str) -> str:
    """A distribution's name as PEP 503 compares it."""
    return re.sub(r"[-_.]+", "-", name).lower()


def digest(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()


# -- the tools ------------------------------------------------------------------------

@dataclass(frozen=True)
class Tool:
    """ecosystem/patched/<name>/: a patch against a pinned release, and its probe."""
    name: str
    dir: Path
    version: str
    sdist_sha256: str
    patch: Path
    needs: tuple[str, ...]
    install_env: dict[str, str]
    pytest_args: tuple[str, ...]
    test_requirements: tuple[str, ...]
    test_env: dict[str, str]

    @property
    def probe(self) -> Path:
        return self.dir / "probe.py"

    def key(self, variant: str) -> str:
        """What a build of this variant depends on."""
        patch = self.patch.read_bytes() if variant == "patched" else b"stock"
        return digest(self.name, self.version, self.sdist_sha256, patch,
                      json.dumps(self.install_env, sort_keys=True))


@dataclass(frozen=True)
class Unpatched:
    """ecosystem/unpatched/<name>/: a tool that shows late defaults as they are."""
    name: str
    dir: Path
    version: str | None  # None: in the standard library

    @property
    def probe(self) -> Path:
        return self.dir / "probe.py"


def _table(data: dict[str, Any], key: str, where: Path) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise ToolError(f"{rel(where)}: no [{key}] table")
    return value


def _strings(value: Any, what: str, where: Path) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ToolError(f"{rel(where)}: {what} must be a list of strings")
    return tuple(value)


def _env(value: Any, what: str, where: Path) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ToolError(f"{rel(where)}: {what} must be a table of strings")
    return dict(value)


def _check_keys(table: dict[str, Any], allowed: set[str], what: str, where: Path) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise ToolError(f"{rel(where)}: unknown key(s) {', '.join(unknown)} in [{what}] "
                        f"(known: {', '.join(sorted(allowed))})")


def load_tool(directory: Path) -> Tool:
    """ecosystem/patched/<tool>/ as its pin.toml describes it; ToolError says what breaks the
    contract (ecosystem/README.md)."""
    pin = directory / "pin.toml"
    for needed in (pin, directory / "probe.py"):
        if not needed.is_file():
            raise ToolError(f"{rel(directory)} has no {needed.name} (ecosystem/README.md "
                            "says what a tool's directory holds)")
    try:
        data = tomllib.loads(pin.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ToolError(f"{rel(pin)}: {exc}") from None
    package, test = _table(data, "package", pin), _table(data, "test", pin)
    _check_keys(package, {"name", "version", "sdist_sha256", "patch", "needs", "install_env"},
                "package", pin)
    _check_keys(test, {"pytest_args", "requirements", "env"}, "test", pin)
    for key in ("name", "version", "sdist_sha256", "patch"):
        if not isinstance(package.get(key), str):
            raise ToolError(f"{rel(pin)}: [package] needs {key} = \"...\"")
    if package["name"] != directory.name or package["name"] != package["name"].lower():
        raise ToolError(f"{rel(pin)}: name = {package['name']!r}, but the directory is "
                        f"{directory.name!r}: both are the PyPI name in lower case")
    if not re.fullmatch(r"[0-9a-f]{64}", package["sdist_sha256"]):
        raise ToolError(f"{rel(pin)}: sdist_sha256 is not a sha256 in hex")
    patch = directory / package["patch"]
    if not patch.is_file():
        raise ToolError(f"{rel(pin)}: patch {package['patch']!r} does not exist")
    requirements = _strings(test.get("requirements", []), "[test] requirements", pin)
    for requirement in requirements:
        if not re.fullmatch(r"[A-Za-z0-9._-]+==[A-Za-z0-9.+!-]+", requirement):
            raise ToolError(f"{rel(pin)}: [test] requirements: {requirement!r} is not an "
                            "exact pin (name==version)")
    pytest_args = _strings(test.get("pytest_args"), "[test] pytest_args", pin)
    if not pytest_args:
        raise ToolError(f"{rel(pin)}: [test] pytest_args is empty")
    return Tool(name=package["name"], dir=directory, version=package["version"],
                sdist_sha256=package["sdist_sha256"], patch=patch,
                needs=_strings(package.get("needs", []), "needs", pin),
                install_env=_env(package.get("install_env", {}), "install_env", pin),
                pytest_args=pytest_args, test_requirements=requirements,
                test_env=_env(test.get("env", {}), "[test] env", pin))


def load_tools(root: Path = THIRD_PARTY) -> list[Tool]:
    """Every ecosystem/patched/<tool>/, each after the tools it needs (then by name)."""
    tools = {d.name: load_tool(d) for d in sorted(root.iterdir())
             if d.is_dir() and not d.name.startswith((".", "_"))}
    ordered: list[Tool] = []
    visiting: list[str] = []

    def visit(name: str, wanted_by: str) -> None:
        if name not in tools:
            raise ToolError(f"ecosystem/patched/{wanted_by}/pin.toml needs {name!r}, which is not "
                            "a directory of ecosystem/patched/")
        if tools[name] in ordered:
            return
        if name in visiting:
            raise ToolError(f"ecosystem/patched: the needs form a cycle: {' -> '.join(visiting)}"
                            f" -> {name}")
        visiting.append(name)
        for need in tools[name].needs:
            visit(need, name)
        visiting.pop()
        ordered.append(tools[name])

    for name in tools:
        visit(name, name)
    return ordered


def load_unpatched(root: Path = UNPATCHED) -> list[Unpatched]:
    found = []
    for directory in sorted(d for d in root.iterdir() if d.is_dir() and
                            not d.name.startswith((".", "_"))):
        pin = directory / "pin.toml"
        if not pin.is_file() or not (directory / "probe.py").is_file():
            raise ToolError(f"{rel(directory)} needs pin.toml and probe.py")
        package = _table(tomllib.loads(pin.read_text(encoding="utf-8")), "package", pin)
        _check_keys(package, {"name", "version", "stdlib"}, "package", pin)
        stdlib = package.get("stdlib", False) is True
        if package.get("name") != directory.name or stdlib == ("version" in package):
            raise ToolError(f"{rel(pin)}: [package] needs name = {directory.name!r} and "
                            "either version = \"...\" or stdlib = true")
        found.append(Unpatched(directory.name, directory, package.get("version")))
    return found


# -- building the venvs ----------------------------------------------------------------

@dataclass
class Layout:
    """Where the builds go (build/ecosystem/ by default)."""
    root: Path = ECOSYSTEM_OUT

    def venv(self, variant: str) -> Path:
        return self.root / ("venv" if variant == "patched" else f"venv-{variant}")

    def log(self, name: str) -> Path:
        return self.root / "logs" / f"{name}.log"

    def wheel_dir(self, tool: Tool, variant: str) -> Path:
        # Per user, like the tarball: a wheel depends only on the pin, the patch and
        # the build environment, which its key covers, so a fresh clone (CI) reuses it.
        return cache_dir() / "ecosystem-wheels" / variant / \
            f"{tool.name}-{tool.version}-{tool.key(variant)[:12]}"


def constraints_text(tools: list[Tool], extras: list[Unpatched]) -> str:
    """ecosystem/constraints.txt and the release every pin.toml names: so a tool
    is that release wherever it comes in (pytokens' build backend needs mypy, typer
    depends on rich), and the stock venv gets the same rich as the patched one."""
    pins = [f"{t.name}=={t.version}" for t in tools] + \
        [f"{u.name}=={u.version}" for u in extras if u.version]
    return CONSTRAINTS.read_text() + "\n# the pin.toml files\n" + "\n".join(pins) + "\n"


def constraints_env(layout: Layout, extra: dict[str, str] | None = None) -> dict[str, str]:
    """pip's environment: PIP_CONSTRAINT, build/ecosystem/constraints.txt, made from
    constraints_text(); it holds for the build backends too (pip passes the variable on
    to the pip that fills an isolated build environment)."""
    path = layout.root / "constraints.txt"
    text = constraints_text(load_tools(), load_unpatched())
    if not path.is_file() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return {"PIP_CONSTRAINT": str(path), **(extra or {})}


def fetch_sdist(pip_python: Path, tool: Tool, layout: Layout) -> Path:
    """The verified sdist of the pinned release, downloaded once."""
    dest = layout.root / "sdists" / tool.name
    stem = sdist.normalize(f"{tool.name}-{tool.version}")
    for candidate in dest.glob("*.tar.gz") if dest.is_dir() else ():
        if sdist.normalize(candidate.name.removesuffix(".tar.gz")) == stem:
            try:
                verify_sha256(candidate, tool.sdist_sha256)
                return candidate
            except ToolError:
                candidate.unlink()
    say(f"{tool.name}: downloading the {tool.version} sdist")
    dest.mkdir(parents=True, exist_ok=True)
    return sdist.download(pip_python, tool.name, tool.version, tool.sdist_sha256, dest,
                          env=constraints_env(layout, tool.install_env))


def patched_tree(pip_python: Path, tool: Tool, layout: Layout) -> Path:
    """build/ecosystem/src/<tool>/<top>: the unpacked sdist with the patch applied,
    made again when the patch or the pin changed."""
    root = layout.root / "src" / tool.name
    stamp = root / ".key"
    key = tool.key("patched")
    if stamp.is_file():
        recorded, _, top = stamp.read_text().partition("\n")
        if recorded == key and (root / top.strip()).is_dir():
            return root / top.strip()
    archive = fetch_sdist(pip_python, tool, layout)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    tree = sdist.unpack(archive, root)
    say(f"{tool.name}: applying {rel(tool.patch)}")
    try:
        sdist.apply_patch(tool.patch.read_text(encoding="utf-8"), tree)
    except ToolError as exc:
        raise ToolError(f"{rel(tool.patch)} does not apply to the {tool.name} "
                        f"{tool.version} sdist: {exc}") from None
    stamp.write_text(f"{key}\n{tree.name}\n")
    return tree


def tool_wheel(pip_python: Path, tool: Tool, variant: str, layout: Layout) -> Path:
    """The wheel of the tool's stock or patched build, built once per key."""
    dest = layout.wheel_dir(tool, variant)
    built = sorted(dest.glob("*.whl")) if dest.is_dir() else []
    if len(built) == 1:
        return built[0]
    for stale in dest.parent.glob(f"{tool.name}-*"):
        shutil.rmtree(stale)
    target = patched_tree(pip_python, tool, layout) if variant == "patched" \
        else fetch_sdist(pip_python, tool, layout)
    tmp = dest.with_name(dest.name + ".tmp")
    tmp.mkdir(parents=True)
    env = constraints_env(layout, tool.install_env)
    shown = " ".join(f"{k}={v}" for k, v in tool.install_env.items())
    say(f"{tool.name}: building the {variant} wheel{' with ' + shown if shown else ''}")
    wheel = sdist.build_wheel(pip_python, target, tmp, env=env)
    tmp.rename(dest)
    return dest / wheel.name


def venv_key(variant: str, tools: list[Tool], extras: list[Unpatched], layout: Layout) -> str:
    # the wheels' directory is an input too: a venv installed from another one (an older
    # layout, another cache) fails check_venv, so it is made anew instead
    return digest(variant, constraints_text(tools, extras),
                  *(f"{t.name} {t.key(variant)} {layout.wheel_dir(t, variant)}" for t in tools))


# Run by a venv's python: its distributions, and whether each tool imports.
_INVENTORY = r"""
import importlib, importlib.metadata as md, json, re, sys
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
dists = {}
for d in md.distributions():
    try:
        url = json.loads(d.read_text("direct_url.json") or "null")
    except ValueError:
        url = None
    tops = {str(f).split("/")[0].removesuffix(".py") for f in d.files or ()}
    dists[norm(d.metadata["Name"])] = {
        "name": d.metadata["Name"], "version": d.version, "url": url and url.get("url"),
        "scripts": sorted(ep.name for ep in d.entry_points if ep.group == "console_scripts"),
        "requires": sorted({norm(re.match(r"[A-Za-z0-9._-]+", r)[0]) for r in d.requires or ()
                            if "extra ==" not in r}),
        "tops": sorted(tops)}
imports = {}
for name in json.loads(sys.argv[1]):
    module = name.replace("-", "_")
    if module in dists.get(norm(name), {}).get("tops", ()):
        try:
            importlib.import_module(module)
            imports[name] = None
        except Exception as exc:
            imports[name] = "%s: %s" % (type(exc).__name__, exc)
print(json.dumps({"dists": dists, "imports": imports}))
"""


def check_venv(vpy: Path, variant: str, tools: list[Tool], extras: list[Unpatched],
               layout: Layout) -> dict[str, dict[str, Any]]:
    """The venv's distributions, after checking that each tool is the pinned release
    installed from this variant's wheel (so, in the patched venv, the patched build even
    where another tool depends on it), that it imports and that its scripts exist."""
    proc = run([vpy, "-c", _INVENTORY, json.dumps([t.name for t in tools])], capture=True,
               env=scrubbed_env(), check=False)
    if proc.returncode != 0:
        raise ToolError(f"{rel(vpy)} cannot list its distributions:\n{proc.stderr[-2000:]}")
    found = json.loads(proc.stdout)
    dists, problems = found["dists"], []
    for tool in tools:
        dist = dists.get(norm(tool.name))
        wanted = layout.wheel_dir(tool, variant).as_uri() + "/"
        if dist is None:
            problems.append(f"{tool.name} is not installed")
            continue
        if dist["version"] != tool.version:
            problems.append(f"{tool.name} is {dist['version']}, not {tool.version}")
        if not (dist["url"] or "").startswith(wanted):
            problems.append(f"{tool.name} {dist['version']} is not the {variant} build "
                            f"(installed from {dist['url'] or 'an index'}): a dependency "
                            "brought a release in")
        if found["imports"].get(tool.name):
            problems.append(f"import {tool.name.replace('-', '_')} fails: "
                            f"{found['imports'][tool.name]}")
        missing = [s for s in dist["scripts"] if not (vpy.parent / s).is_file()]
        if missing:
            problems.append(f"{tool.name}: script(s) {', '.join(missing)} missing")
    for extra in extras:
        dist = dists.get(norm(extra.name))
        if extra.version and (dist is None or dist["version"] != extra.version):
            problems.append(f"{extra.name} is {dist and dist['version']}, not {extra.version}")
    if problems:
        raise ToolError(f"{rel(vpy.parent.parent)} is not as built:\n  " +
                        "\n  ".join(problems))
    return dists


def unpinned(dists: dict[str, dict[str, Any]], tools: list[Tool],
             extras: list[Unpatched]) -> list[str]:
    """The distributions of a venv that neither constraints.txt nor a pin.toml pins."""
    pinned = set(requirement_versions(CONSTRAINTS)) | {"pip"} | \
        {norm(t.name) for t in tools} | {norm(u.name) for u in extras}
    return [f"{d['name']}=={d['version']}" for name, d in sorted(dists.items())
            if name not in pinned]


def prepare_venv(python: Path, variant: str, tools: list[Tool],
                 extras: list[Unpatched] = (), layout: Layout | None = None
                 ) -> tuple[Path, dict[str, dict[str, Any]]]:
    """The venv of this variant with every tool (and, for the patched one, the tools that
    need no patch), made by python -m venv; reused while its inputs are unchanged, made
    anew otherwise. Returns its python and its distributions. Raises ToolError."""
    layout = layout or Layout()
    extras = list(extras)
    installed = extras if variant == "patched" else []
    venv = layout.venv(variant)
    stamp = venv / ".ecosystem-key"
    key = venv_key(variant, tools, extras, layout)
    vpy = venv / "bin" / "python"
    if stamp.is_file() and stamp.read_text().strip() == key:
        create_venv(python, venv)  # made anew (without the stamp) if it no longer runs
        if stamp.is_file():
            say(f"{rel(venv)} is current ({len(tools)} {variant} tools)")
            return vpy, check_venv(vpy, variant, tools, installed, layout)
    if venv.exists():
        say(f"{rel(venv)}: its inputs changed, making it anew")
        shutil.rmtree(venv)
    log = layout.log(f"venv-{variant}")
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("")
    vpy = create_venv(python, venv, log=log)
    started = time.monotonic()
    wheels = []
    for number, tool in enumerate(tools, 1):
        say(f"[{number}/{len(tools)}] {tool.name} {tool.version} ({variant})")
        wheels.append(tool_wheel(vpy, tool, variant, layout))
    pins = [f"{u.name}=={u.version}" for u in installed if u.version]
    say(f"installing {len(wheels)} {variant} wheels{' and ' + ', '.join(pins) if pins else ''}"
        f" with their dependencies into {rel(venv)} (a minute or two)")
    sdist.install(vpy, *wheels, *pins, deps=True, env=constraints_env(layout), pip_python=vpy)
    proc = run([vpy, "-m", "pip", "check"], capture=True, check=False, env=scrubbed_env())
    if proc.returncode != 0:
        raise ToolError(f"pip check in {rel(venv)}: the dependencies do not fit:\n"
                        f"{proc.stdout}{proc.stderr}")
    dists = check_venv(vpy, variant, tools, installed, layout)
    loose = unpinned(dists, tools, extras)
    if loose:
        say(f"warning: {rel(CONSTRAINTS)} does not pin {', '.join(loose)}: pip chose "
            "these versions; add those lines to it")
    stamp.write_text(key + "\n")
    say(f"{rel(venv)}: {len(dists)} distributions in {time.monotonic() - started:.0f}s")
    return vpy, dists


# -- probes and tests -------------------------------------------------------------------

@dataclass
class ProbeResult:
    passed: bool
    evidence: str
    seconds: float


# Runs a probe in a process of its own (the probe is stdlib only), with the scrubbed
# environment; writes [passed, evidence] as JSON to argv[5].
_RUN_PROBE = r"""
import importlib.util, json, pathlib, sys, traceback
probe_file, python, corpus, workdir, out = sys.argv[1:6]
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
    rc = run_logged([sys.executable, "-c", _RUN_PROBE, probe, python, CORPUS, workdir, out],
                    log, env=scrubbed_env(), cwd=workdir, timeout=PROBE_TIMEOUT)
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
            found.append(f"pytest exited {self.returncode} (log: {rel(self.log)})")
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


def run_upstream_tests(vpy: Path, tool: Tool, layout: Layout) -> UpstreamRun:
    """pin.toml's [test]: `python -m pytest PYTEST_ARGS` of the venv, from the top of the
    patched tree, with the test requirements on PYTHONPATH."""
    tree = patched_tree(vpy, tool, layout)
    overlay = requirements_overlay(vpy, tool, layout)
    junit = layout.root / "tests" / f"{tool.name}.xml"
    junit.unlink(missing_ok=True)
    log = layout.log(f"tests-{tool.name}")
    say(f"{tool.name}: upstream tests ({' '.join(tool.pytest_args)}; log: {rel(log)})")
    started = time.monotonic()
    rc = run_logged([vpy, "-m", "pytest", "-p", "no:cacheprovider", f"--junitxml={junit}",
                     *tool.pytest_args], log,
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


def requirement_versions(path: Path) -> dict[str, str]:
    pins = re.findall(r"^([A-Za-z0-9._-]+)==(\S+)", path.read_text(), re.M)
    return {norm(name): version for name, version in pins}


# -- the report -------------------------------------------------------------------------

def render_report(data: dict[str, Any]) -> str:
    lines = [
        "# Third-party tools on late-bound defaults",
        "",
        f"Written by `make ecosystem` (`python3 -m tools.ecosystem`) on {data['date']}, "
        f"with {data['interpreter']}. Each tool of `ecosystem/patched/` is installed twice into "
        "venvs of that interpreter, as the pinned PyPI release (stock, "
        "`build/ecosystem/venv-stock`) and with `ecosystem/patched/<tool>/late-defaults.patch` "
        "(patched, `build/ecosystem/venv`), and its `probe.py` runs on "
        "`ecosystem/corpus/late_defaults.py` in both. Stock results are recorded, "
        "not judged.",
        "",
        "| tool | version | stock | patched | evidence |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in sorted(data["patched_tools"], key=lambda row: row["display"].lower()):
        stock, patched = row["stock"], row["patched"]
        evidence = "; ".join(f"{label}: {r['evidence']}" for label, r in
                             (("stock", stock), ("patched", patched)) if r)
        lines.append(f"| {row['display']} | {row['version']} | {verdict_of(stock)} | "
                     f"{verdict_of(patched)} | {evidence} |")
    lines += [
        "",
        "Tools that need no patch: the interpreter's late-default objects "
        "(`types.LateDefaultType` in `__defaults__`, `inspect.signature()` writing `=>`) "
        "are enough. The tools of `ecosystem/unpatched/` are installed, pinned, "
        "into `build/ecosystem/venv` next to the patched tools and probed there; the "
        "libraries that copy or wrap functions are the tests of "
        "`tests/test_late_bound_frameworks.py`, run from `build/venv`.",
        "",
        "| tool | version | result | evidence |",
        "| --- | --- | --- | --- |",
    ]
    for row in data["unpatched_tools"]:
        lines.append(f"| {row['display']} | {row['version']} | {verdict_of(row['result'])} | "
                     f"{row['result']['evidence'] if row['result'] else ''} |")
    if data.get("upstream_tests"):
        lines += ["", "Upstream tests of each patch (`pin.toml` [test], patched venv):", "",
                  "| tool | result |", "| --- | --- |"]
        lines += [f"| {name} | {text} |" for name, text in data["upstream_tests"].items()]
    lines += ["", "## How it was built", ""] + [f"- {note}" for note in data["notes"]]
    return "\n".join(lines) + "\n"


def verdict_of(result: dict[str, Any] | None) -> str:
    return "not run" if not result else ("passes" if result["passed"] else "**fails**")


# -- the program ------------------------------------------------------------------------

def patched_interpreter(python: Path) -> str:
    """python's version, after checking that it is the patched interpreter."""
    out = run([python, "-c", "import sys, types; print(sys.version.split()[0], "
               "hasattr(types, 'LateDefaultType'))"], capture=True, env=scrubbed_env(),
              check=False).stdout.split()
    if len(out) != 2:
        raise ToolError(f"{python} does not run (run `make`)")
    if out[1] != "True":
        raise ToolError(f"{python} has no types.LateDefaultType: it is not the patched interpreter "
                        "of this repository (run `make`)")
    return out[0]


def shown_path(path: Path) -> str:
    """path as a command line would give it: ./python, not python."""
    shown = rel(path)
    return shown if "/" in shown else f"./{shown}"


def say_result(what: str, result: ProbeResult) -> None:
    say(f"probe {what}: {'passes' if result.passed else 'FAILS'} in {result.seconds:.0f}s: "
        f"{result.evidence}")


def probe_tool(tool: Tool, venvs: dict[str, Path], layout: Layout, display: str,
               tests: bool, failed: list[str]) -> tuple[dict[str, Any], str | None]:
    """The report's row of a patched tool (its probe against each venv) and, with tests,
    the summary of its upstream tests; what fails is added to failed."""
    row: dict[str, Any] = {"tool": tool.name, "display": display, "version": tool.version}
    for variant in VARIANTS:
        row[variant] = None
        if variant in venvs:
            result = run_probe(tool.probe, venvs[variant],
                               layout.root / "probes" / tool.name / variant,
                               layout.log(f"probe-{tool.name}-{variant}"))
            say_result(f"{tool.name} ({variant})", result)
            row[variant] = dataclasses.asdict(result)
    if not row["patched"]["passed"]:
        failed.append(f"{tool.name} (patched probe)")
    if not tests:
        return row, None
    upstream = run_upstream_tests(venvs["patched"], tool, layout)
    problems = upstream.problems()
    summary = "; ".join([upstream.summary(), *problems])
    say(f"{tool.name}: upstream tests: {summary}")
    if problems:
        failed.append(f"{tool.name} (upstream tests)")
    return row, summary


def probe_unpatched(extra: Unpatched, vpy: Path, layout: Layout, display: str, version: str,
                    failed: list[str]) -> dict[str, Any]:
    result = run_probe(extra.probe, vpy, layout.root / "probes" / extra.name / "unpatched",
                       layout.log(f"probe-{extra.name}"))
    say_result(f"{extra.name} (no patch)", result)
    if not result.passed:
        failed.append(extra.name)
    return {"tool": extra.name, "display": display, "version": version,
            "result": dataclasses.asdict(result)}


def framework_rows(python: Path, layout: Layout, chosen: set[str],
                   failed: list[str]) -> list[dict[str, Any]]:
    versions = requirement_versions(TEST_REQUIREMENTS)
    rows = []
    for library, (passed, evidence) in run_frameworks(python, layout).items():
        if library in chosen:
            if not passed:
                failed.append(library)
            rows.append({"tool": library, "display": library,
                         "version": versions.get(library, "?"),
                         "result": {"passed": passed, "evidence": one_line(evidence),
                                    "seconds": 0.0}})
    return rows


def build_notes(inventories: dict[str, dict[str, dict[str, Any]]], tools: list[Tool],
                extras: list[Unpatched]) -> str:
    """What the report says of the patched venv: who depends on which patched build."""
    dists = inventories["patched"]
    users = {norm(t.name): sorted(d["name"] for d in dists.values()
                                  if norm(t.name) in d["requires"]) for t in tools}
    loose = sorted({x for inv in inventories.values() for x in unpinned(inv, tools, extras)})
    return (f"`build/ecosystem/venv`: {len(dists)} distributions, checked to have the "
            "patched build of every tool installed, also where other distributions depend "
            "on it (" + "; ".join(f"{dists[name]['name']} for {', '.join(by)}"
                                  for name, by in sorted(users.items()) if by)
            + "); everything else is pinned by `ecosystem/constraints.txt`"
            + (f", except {', '.join(loose)} (not pinned there yet)" if loose else "") + ".")


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.ecosystem",
                                 description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", type=Path, default=PYTHON,
                    help="the patched interpreter that makes the venvs (default: ./python)")
    ap.add_argument("--out", type=Path, default=ECOSYSTEM_OUT,
                    help="where the venvs, builds, logs and report go (default: "
                    "build/ecosystem)")
    ap.add_argument("--tool", action="append", default=[], metavar="NAME",
                    help="probe only these tools (repeatable; the venvs hold every tool)")
    ap.add_argument("--no-stock", action="store_true",
                    help="skip the stock venv and the stock probes")
    ap.add_argument("--tests", action="store_true",
                    help="also run the upstream tests of each patch (as make test does)")
    ap.add_argument("--venv-only", action="store_true",
                    help="make build/ecosystem/venv current and stop")
    ap.add_argument("--list", action="store_true", help="list the tools and stop")
    args = ap.parse_args(argv)

    tools, extras = load_tools(), load_unpatched()
    if args.list:
        for tool in tools:
            needs = f" (needs {', '.join(tool.needs)})" if tool.needs else ""
            print(f"{tool.name} {tool.version}: patched{needs}")
        for extra in extras:
            print(f"{extra.name} {extra.version or '(standard library)'}: no patch")
        print(", ".join(FRAMEWORKS) + f": no patch ({rel(FRAMEWORK_TESTS)})")
        return 0
    known = {t.name for t in tools} | {u.name for u in extras} | set(FRAMEWORKS)
    if set(args.tool) - known:
        raise ToolError(f"unknown tool(s) {', '.join(sorted(set(args.tool) - known))}; --list shows them")
    chosen = set(args.tool) or known

    python = built_python(args.python)
    version = patched_interpreter(python)
    layout = Layout(args.out.absolute())
    started = time.monotonic()
    venvs: dict[str, Path] = {}
    inventories: dict[str, dict[str, dict[str, Any]]] = {}
    failed: list[str] = []
    rows, extra_rows, upstream = [], [], {}
    for variant in VARIANTS:
        if variant == "patched" or not (args.no_stock or args.venv_only):
            venvs[variant], inventories[variant] = prepare_venv(python, variant, tools,
                                                                extras, layout)
    if args.venv_only:
        return 0
    built = time.monotonic() - started
    dists = inventories["patched"]
    for tool in tools:
        if tool.name in chosen:
            row, summary = probe_tool(tool, venvs, layout, dists[norm(tool.name)]["name"],
                                      args.tests, failed)
            rows.append(row)
            if summary is not None:
                upstream[tool.name] = summary
    for extra in extras:
        if extra.name in chosen:
            dist = dists.get(norm(extra.name))
            extra_rows.append(probe_unpatched(
                extra, venvs["patched"], layout, dist["name"] if dist else extra.name,
                extra.version or f"standard library ({version})", failed))
    if chosen & set(FRAMEWORKS):
        extra_rows += framework_rows(python, layout, chosen, failed)
    notes = [
        build_notes(inventories, tools, extras),
        f"Venvs ready in {built:.0f}s, whole run {time.monotonic() - started:.0f}s, on "
        f"{platform.machine()} with {len(os.sched_getaffinity(0))} CPU(s).",
        "Logs: `build/ecosystem/logs/`; each probe's work: `build/ecosystem/probes/`.",
    ]
    data = {"date": time.strftime("%Y-%m-%d"),
            "interpreter": f"`{shown_path(python)}` (Python {version} with the PEP 671 "
                           "series of `patches/`)",
            "patched_tools": rows, "unpatched_tools": extra_rows,
            "upstream_tests": upstream, "notes": notes, "failed": failed}
    report = layout.root / "report.md"
    report.write_text(render_report(data))
    (layout.root / "report.json").write_text(json.dumps(data, indent=1) + "\n")
    say(f"report: {rel(report)}")
    if failed:
        print(f"error: failed: {', '.join(failed)} (see {rel(report)})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
