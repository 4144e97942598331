"""The manifest of make ecosystem: ecosystem/patched/<tool>/ and ecosystem/unpatched/<tool>/
as their pin.toml files describe them (ecosystem/README.md is the contract)."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name

from tools.common import ToolError, cache_dir, rel
from tools.paths import ECOSYSTEM, TESTS


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
# cargo test compiles the tests first: a cold debug build of a large workspace on two cores
CARGO_TEST_TIMEOUT = 5400
# jest compiles each TypeScript test file (ts-jest, type-checked) before it runs it
JEST_TEST_TIMEOUT = 1800
# [package] prepare: commands run at the top of the patched tree before its wheel is built
PREPARE_TIMEOUT = 1800
# [package] build of a tool from another registry: a cold build may compile its generator
BUILD_TIMEOUT = 3600
# Where a tool's release comes from: a PyPI sdist (the default), or the npm registry's
# tarball of a package
REGISTRIES = ("pypi", "npm")
VARIANTS = ("patched", "stock")


def norm(name: str) -> str:
    """A distribution's name as pip compares it (PEP 503)."""
    return canonicalize_name(name)


def requirement_versions(path: Path) -> dict[str, str]:
    """name -> version of each `name==version` line of a requirements file."""
    pins = re.findall(r"^([A-Za-z0-9._-]+)==(\S+)", path.read_text(), re.M)
    return {norm(name): version for name, version in pins}


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
    # [test] cargo, for a tool whose tests are Rust's: `cargo test ARGS` for each ARGS
    cargo: tuple[tuple[str, ...], ...] = ()
    # [package] stock_wheels: the stock variant is the release's binary wheel (file name ->
    # sha256), not a build of its sdist
    stock_wheels: dict[str, str] = field(default_factory=dict)
    # [package] prepare: commands run at the top of the patched tree before pip builds its
    # wheel ({tool}: this directory, {python}: the interpreter running tools.ecosystem)
    prepare: tuple[tuple[str, ...], ...] = ()
    # [test] jest, for a tool whose tests are jest's: `node_modules/.bin/jest ARGS` for
    # each ARGS, in the directory jest_dir of the patched tree
    jest: tuple[tuple[str, ...], ...] = ()
    jest_dir: str = "."
    # [package] registry: "pypi", or "npm" for a tool whose release is an npm tarball
    # (sdist_sha256 is then that tarball's sha256, pin.toml's tarball_sha256)
    registry: str = "pypi"
    # [package] npm: the npm package, where it is not named as the tool
    npm: str = ""
    # [package] build, for a tool from another registry: commands run at the top of each
    # variant's tree that write its build to {out}, installed in the venv as share/<name>
    build: tuple[tuple[str, ...], ...] = ()
    # [package] requirements: PyPI distributions (exact pins) its probe uses, in both venvs
    requirements: tuple[str, ...] = ()
    # [test] commands: each run at the top of the patched tree, writing JUnit XML to {junit}
    commands: tuple[tuple[str, ...], ...] = ()
    # [package] pkg_info_backend: the sdist's build backend, which cannot prepare the
    # metadata that pip download asks for on this machine; a stand-in of that name reads
    # it from the sdist's PKG-INFO (tools/ecosystem/pkg_info_backend.py)
    pkg_info_backend: str = ""
    # [package] not_in_release, for a tool from another registry: the paths (git apply
    # --exclude patterns) that the patch changes in the tool's repository and that the
    # registry's package does not ship (its tests); their hunks are not applied
    not_in_release: tuple[str, ...] = ()

    @property
    def probe(self) -> Path:
        return self.dir / "probe.py"

    @property
    def on_pypi(self) -> bool:
        """Is the release a PyPI sdist (installed as a wheel), not another registry's?"""
        return self.registry == "pypi"

    @property
    def package(self) -> str:
        """The release's name in its registry."""
        return self.npm or self.name

    @property
    def runner(self) -> str:
        """What runs the tool's tests: "pytest" or "command" (in make test), "cargo" or
        "jest" (each opted into: their cold runs take many minutes)."""
        return "cargo" if self.cargo else "jest" if self.jest else \
            "command" if self.commands else "pytest"

    def prepare_commands(self, python: str) -> list[list[str]]:
        """[package] prepare with {tool}, {python} and {cache} filled in."""
        return fill(self.prepare, tool=str(self.dir), python=python, cache=str(cache_dir()))

    def build_commands(self, python: str, out: Path) -> list[list[str]]:
        """[package] build with {tool}, {python}, {out} and {cache} filled in."""
        return fill(self.build, tool=str(self.dir), python=python, out=str(out),
                    cache=str(cache_dir()))

    def test_commands(self, python: str, junit: Path) -> list[list[str]]:
        """[test] commands with {tool}, {python}, {junit} and {cache} filled in."""
        return fill(self.commands, tool=str(self.dir), python=python, junit=str(junit),
                    cache=str(cache_dir()))

    def _named_files(self, commands: tuple[tuple[str, ...], ...]) -> list[bytes | str]:
        """The files of this directory that commands name (every file of a directory
        they name), with their paths: inputs of a build."""
        named: set[Path] = set()
        for arg in {a.replace("{tool}", str(self.dir)) for c in commands for a in c}:
            path = Path(arg)
            if arg.startswith(str(self.dir)) and path.is_file():
                named.add(path)
            elif arg.startswith(str(self.dir)) and path.is_dir():
                named.update(p for p in path.rglob("*") if p.is_file())
        return [part for f in sorted(named)
                for part in (str(f.relative_to(self.dir)), f.read_bytes())]

    def key(self, variant: str) -> str:
        """What a build of this variant depends on."""
        if not self.on_pypi:
            # the patch, and where there are any, the paths left out of it and the
            # prepare commands with the files they name: inputs of the patched build only
            patch: list[bytes | str] = [b"stock"]
            if variant == "patched":
                patch = [self.patch.read_bytes()]
                if self.not_in_release or self.prepare:
                    patch += [json.dumps(self.not_in_release), json.dumps(self.prepare),
                              *self._named_files(self.prepare)]
            return digest(self.name, self.registry, self.package, self.version,
                          self.sdist_sha256, *patch, json.dumps(self.build),
                          *self._named_files(self.build))
        if variant == "patched":
            # prepare is an input only where there is one (the keys of the others stay),
            # with the files of this directory that its commands name
            named = sorted({arg for command in self.prepare_commands("") for arg in command
                            if arg.startswith(str(self.dir)) and Path(arg).is_file()})
            prepared: list[bytes | str] = \
                [json.dumps(self.prepare), *(Path(f).read_bytes() for f in named)] \
                if self.prepare else []
            return digest(self.name, self.version, self.sdist_sha256, self.patch.read_bytes(),
                          json.dumps(self.install_env, sort_keys=True), *prepared)
        if self.stock_wheels:
            return digest(self.name, self.version, "stock wheels",
                          json.dumps(self.stock_wheels, sort_keys=True))
        return digest(self.name, self.version, self.sdist_sha256, b"stock",
                      json.dumps(self.install_env, sort_keys=True))


def fill(commands: tuple[tuple[str, ...], ...], **values: str) -> list[list[str]]:
    """Argument lists with each {name} of values replaced."""
    filled = []
    for command in commands:
        args = []
        for arg in command:
            for name, value in values.items():
                arg = arg.replace("{" + name + "}", value)
            args.append(arg)
        filled.append(args)
    return filled


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
    registry = package.get("registry", "pypi")
    if registry not in REGISTRIES:
        raise ToolError(f"{rel(pin)}: [package] registry = {registry!r}; known: "
                        f"{', '.join(REGISTRIES)}")
    if registry == "pypi":
        _check_keys(package, {"name", "version", "registry", "sdist_sha256", "patch",
                              "needs", "install_env", "stock_wheels", "prepare",
                              "pkg_info_backend"}, "package", pin)
    else:
        _check_keys(package, {"name", "version", "registry", "npm", "tarball_sha256",
                              "patch", "not_in_release", "prepare", "build",
                              "requirements"}, "package", pin)
    _check_keys(test, {"pytest_args", "cargo", "jest", "jest_dir", "commands",
                       "requirements", "env"}, "test", pin)
    sha_key = "sdist_sha256" if registry == "pypi" else "tarball_sha256"
    for key in ("name", "version", sha_key, "patch"):
        if not isinstance(package.get(key), str):
            raise ToolError(f"{rel(pin)}: [package] needs {key} = \"...\"")
    if package["name"] != directory.name or package["name"] != package["name"].lower():
        raise ToolError(f"{rel(pin)}: name = {package['name']!r}, but the directory is "
                        f"{directory.name!r}: both are the "
                        f"{'PyPI' if registry == 'pypi' else 'tool'} name in lower case")
    if not re.fullmatch(r"[0-9a-f]{64}", package[sha_key]):
        raise ToolError(f"{rel(pin)}: {sha_key} is not a sha256 in hex")
    build = _commands(package.get("build", []), "[package] build", "command", pin)
    if registry != "pypi" and not build:
        raise ToolError(f"{rel(pin)}: a tool from the {registry} registry needs [package] "
                        "build: the commands that write its build to {out}")
    npm = package.get("npm", "")
    if not isinstance(npm, str):
        raise ToolError(f"{rel(pin)}: [package] npm is the npm package's name (a string)")
    package_requirements = _pins(package.get("requirements", []), "[package] requirements",
                                 pin)
    stock_wheels = _env(package.get("stock_wheels", {}), "[package] stock_wheels", pin)
    for wheel, sha256 in stock_wheels.items():
        if not wheel.startswith(f"{package['name']}-{package['version']}-") \
                or not wheel.endswith(".whl") or not re.fullmatch(r"[0-9a-f]{64}", sha256):
            raise ToolError(f"{rel(pin)}: [package] stock_wheels maps the file names of "
                            f"the release's wheels ({package['name']}-{package['version']}-"
                            f"...whl) to their sha256 in hex, not {wheel!r} = {sha256!r}")
    patch = directory / package["patch"]
    if not patch.is_file():
        raise ToolError(f"{rel(pin)}: patch {package['patch']!r} does not exist")
    requirements = _pins(test.get("requirements", []), "[test] requirements", pin)
    pytest_args = _strings(test.get("pytest_args", []), "[test] pytest_args", pin)
    cargo = _commands(test.get("cargo", []), "[test] cargo", "cargo test run", pin)
    jest = _commands(test.get("jest", []), "[test] jest", "jest run", pin)
    commands = _commands(test.get("commands", []), "[test] commands", "test run", pin)
    if [bool(pytest_args), bool(cargo), bool(jest), bool(commands)].count(True) != 1:
        raise ToolError(f"{rel(pin)}: [test] needs pytest_args, or cargo for a tool "
                        "whose tests are Rust's, or jest for one whose tests are jest's, "
                        "or commands that write JUnit XML, and not more than one")
    if (cargo or jest or commands) and requirements:
        raise ToolError(f"{rel(pin)}: [test] requirements are for pytest_args; "
                        f"{'cargo test' if cargo else 'jest' if jest else 'commands'} "
                        "needs none")
    jest_dir = test.get("jest_dir", ".")
    if not isinstance(jest_dir, str) or (jest_dir != "." and not jest):
        raise ToolError(f"{rel(pin)}: [test] jest_dir is the directory (a string) of the "
                        "jest runs, and only with jest")
    prepare = _commands(package.get("prepare", []), "[package] prepare", "command", pin)
    if prepare and registry == "pypi" and not stock_wheels:
        raise ToolError(f"{rel(pin)}: [package] prepare adapts the build of the patched "
                        "tree; the stock variant is then the release's wheel "
                        "(stock_wheels), not a build of the unprepared sdist")
    pkg_info_backend = package.get("pkg_info_backend", "")
    if not isinstance(pkg_info_backend, str) \
            or not re.fullmatch(r"([A-Za-z_]\w*)?", pkg_info_backend):
        raise ToolError(f"{rel(pin)}: [package] pkg_info_backend is the build-backend of "
                        "the sdist's pyproject.toml, a top-level module name")
    return Tool(name=package["name"], dir=directory, version=package["version"],
                sdist_sha256=package[sha_key], patch=patch,
                needs=_strings(package.get("needs", []), "needs", pin),
                install_env=_env(package.get("install_env", {}), "install_env", pin),
                pytest_args=pytest_args, test_requirements=requirements,
                test_env=_env(test.get("env", {}), "[test] env", pin), cargo=cargo,
                stock_wheels=stock_wheels, prepare=prepare, jest=jest, jest_dir=jest_dir,
                registry=registry, npm=npm, build=build, requirements=package_requirements,
                commands=commands, pkg_info_backend=pkg_info_backend,
                not_in_release=_strings(package.get("not_in_release", []),
                                        "[package] not_in_release", pin))


def _pins(value: Any, what: str, where: Path) -> tuple[str, ...]:
    """A list of exact pins (name==version) of PyPI distributions."""
    pins = _strings(value, what, where)
    for requirement in pins:
        if not re.fullmatch(r"[A-Za-z0-9._-]+==[A-Za-z0-9.+!-]+", requirement):
            raise ToolError(f"{rel(where)}: {what}: {requirement!r} is not an "
                            "exact pin (name==version)")
    return pins


def _commands(value: Any, what: str, one: str, where: Path) -> tuple[tuple[str, ...], ...]:
    """A list of argument lists (pin.toml's [test] cargo, [test] jest, [package] prepare)."""
    if not isinstance(value, list) or not all(isinstance(v, list) and v for v in value):
        raise ToolError(f"{rel(where)}: {what} must be a list of argument lists, one "
                        f"for each {one}")
    return tuple(_strings(v, what, where) for v in value)


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
