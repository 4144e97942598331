"""The venvs of make ecosystem: each tool's wheel, stock or patched, built from its pinned
sdist (tools.ecosystem.sdist) and installed with everything else pinned; checked to be
the builds made. A tool from another registry (npm) has its build, made by its pin.toml's
build commands, copied into the venv's share/<tool>/."""

from __future__ import annotations

import json
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from tools.common import (ToolError, cache_dir, create_venv, rel, run, run_logged, say,
                          scrubbed_env, tail, verify_sha256)
from tools.ecosystem import sdist
from tools.ecosystem.manifest import (BUILD_TIMEOUT, CONSTRAINTS, PREPARE_TIMEOUT, Tool,
                                      Unpatched, digest, load_tools, load_unpatched, norm,
                                      requirement_versions)
from tools.paths import ECOSYSTEM_OUT

# In a tool's build directory and in share/<tool>/ of a venv: the key of that build
BUILD_STAMP = ".ecosystem-build"


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

    def build_dir(self, tool: Tool, variant: str) -> Path:
        # the build of a tool from another registry, kept per user like a wheel
        return cache_dir() / "ecosystem-builds" / variant / \
            f"{tool.name}-{tool.version}-{tool.key(variant)[:12]}"

    def made_dir(self, tool: Tool, variant: str) -> Path:
        """Where this variant of the tool is kept: its wheel's or its build's directory."""
        return self.wheel_dir(tool, variant) if tool.on_pypi else self.build_dir(tool, variant)

    def cargo_target(self) -> Path:
        """The cargo target directory that the wheel builds of one venv share (ruff and
        ty lock the same crates, so ty's build reuses what ruff's compiled). It lasts one
        prepare_venv: cargo tells a changed path crate by its files' times, and a tree
        unpacked anew has the sdist's older times, so a target kept across runs could
        hold a crate built from a patch since changed."""
        return self.root / "cargo-target"

    def source_root(self, tool: Tool, variant: str) -> Path:
        """Where a variant's tree is unpacked: src/<tool> (patched), src-stock/<tool>."""
        return self.root / ("src" if variant == "patched" else "src-stock") / tool.name


def share(vpy: Path, tool: Tool) -> Path:
    """share/<tool>/ of the venv of vpy: where the build of a tool from another registry
    is installed, for its probe."""
    return vpy.parent.parent / "share" / tool.name


def constraints_text(tools: list[Tool], extras: list[Unpatched]) -> str:
    """ecosystem/constraints.txt and the release every pin.toml names: so a tool
    is that release wherever it comes in (pytokens' build backend needs mypy, typer
    depends on rich), and the stock venv gets the same rich as the patched one."""
    pins = [f"{t.name}=={t.version}" for t in tools if t.on_pypi] + \
        [r for t in tools for r in t.requirements] + \
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
    pattern = "*.tar.gz" if tool.on_pypi else "*.tgz"
    for candidate in dest.glob(pattern) if dest.is_dir() else ():
        if not tool.on_pypi or sdist.is_sdist_of(candidate, tool.name, tool.version):
            try:
                verify_sha256(candidate, tool.sdist_sha256)
                return candidate
            except ToolError:
                candidate.unlink()
    dest.mkdir(parents=True, exist_ok=True)
    if not tool.on_pypi:
        say(f"{tool.name}: downloading the {tool.package} {tool.version} tarball (npm)")
        return sdist.download_npm(tool.package, tool.version, tool.sdist_sha256, dest)
    say(f"{tool.name}: downloading the {tool.version} sdist")
    return sdist.download(pip_python, tool.name, tool.version, tool.sdist_sha256, dest,
                          env=constraints_env(layout, tool.install_env),
                          pkg_info_backend=tool.pkg_info_backend)


def patched_tree(pip_python: Path, tool: Tool, layout: Layout,
                 variant: str = "patched") -> Path:
    """build/ecosystem/src/<tool>/<top>: the unpacked sdist with the patch applied,
    made again when the patch or the pin changed (variant "stock": the unpacked release
    in src-stock/<tool>/, for the build of a tool from another registry)."""
    root = layout.source_root(tool, variant)
    stamp = root / ".key"
    key = tool.key(variant)
    if stamp.is_file():
        recorded, _, top = stamp.read_text().partition("\n")
        if recorded == key and (root / top.strip()).is_dir():
            return root / top.strip()
    archive = fetch_sdist(pip_python, tool, layout)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    tree = sdist.unpack(archive, root)
    if variant == "stock":
        stamp.write_text(f"{key}\n{tree.name}\n")
        return tree
    say(f"{tool.name}: applying {rel(tool.patch)}")
    try:
        sdist.apply_patch(tool.patch, tree, tool.not_in_release)
    except ToolError as exc:
        raise ToolError(f"{rel(tool.patch)} does not apply to the {tool.name} "
                        f"{tool.version} sdist: {exc}") from None
    prepare_tree(tool, tree, layout)
    stamp.write_text(f"{key}\n{tree.name}\n")
    return tree


def prepare_tree(tool: Tool, tree: Path, layout: Layout) -> None:
    """pin.toml's [package] prepare, at the top of the patched tree: how this machine
    builds the tool where its own build bootstraps tools from elsewhere (a build
    environment adaptation, as overriding rust-toolchain.toml is; not part of the patch)."""
    log = layout.log(f"prepare-{tool.name}")
    log.unlink(missing_ok=True)
    for command in tool.prepare_commands(sys.executable):
        say(f"{tool.name}: preparing the build: {' '.join(command)} (log: {rel(log)})")
        status = run_logged(command, log, env=scrubbed_env(tool.install_env), cwd=tree,
                            append=True, timeout=PREPARE_TIMEOUT)
        if status != 0:
            raise ToolError(f"{tool.name}: preparing the build failed (exit {status}): "
                            f"{' '.join(command)}\n{tail(log, 20)}")


def tool_wheel(pip_python: Path, tool: Tool, variant: str, layout: Layout,
               cargo_target: Path | None = None) -> Path:
    """The wheel of the tool's stock or patched build, built once per key. A Rust build
    uses cargo_target as its target directory, where install_env names none."""
    dest = layout.wheel_dir(tool, variant)
    built = sorted(dest.glob("*.whl")) if dest.is_dir() else []
    if len(built) == 1:
        return built[0]
    for stale in dest.parent.glob(f"{tool.name}-*"):
        shutil.rmtree(stale)
    tmp = dest.with_name(dest.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    if variant == "stock" and tool.stock_wheels:
        say(f"{tool.name}: downloading the binary wheel of the {tool.version} release "
            "(stock_wheels in its pin.toml)")
        wheel = sdist.download_wheel(pip_python, tool.name, tool.version, tool.stock_wheels,
                                     tmp, env=constraints_env(layout))
    else:
        target = patched_tree(pip_python, tool, layout) if variant == "patched" \
            else fetch_sdist(pip_python, tool, layout)
        env = constraints_env(layout, tool.install_env)
        if cargo_target is not None:
            env.setdefault("CARGO_TARGET_DIR", str(cargo_target))
        shown = " ".join(f"{k}={v}" for k, v in tool.install_env.items())
        log = layout.log(f"wheel-{tool.name}-{variant}")
        say(f"{tool.name}: building the {variant} wheel{' with ' + shown if shown else ''} "
            f"(log: {rel(log)})")
        wheel = sdist.build_wheel(pip_python, target, tmp, log, env=env)
    tmp.rename(dest)
    return dest / wheel.name


def tool_build(pip_python: Path, tool: Tool, variant: str, layout: Layout) -> Path:
    """The build of a tool from another registry: pin.toml's [package] build commands,
    run at the top of the variant's tree, write it to a directory kept per user like a
    wheel (cache_dir()/ecosystem-builds), made once per key."""
    dest = layout.build_dir(tool, variant)
    if (dest / BUILD_STAMP).is_file():
        return dest
    for stale in dest.parent.glob(f"{tool.name}-*"):
        shutil.rmtree(stale)
    tmp = dest.with_name(dest.name + ".tmp")
    tmp.mkdir(parents=True)
    tree = patched_tree(pip_python, tool, layout, variant)
    log = layout.log(f"build-{tool.name}-{variant}")
    log.parent.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)
    for command in tool.build_commands(sys.executable, tmp):
        say(f"{tool.name}: building the {variant} variant: {' '.join(command)} "
            f"(log: {rel(log)})")
        status = run_logged(command, log, env=scrubbed_env(), cwd=tree, append=True,
                            timeout=BUILD_TIMEOUT)
        if status != 0:
            raise ToolError(f"{tool.name}: the {variant} build failed (exit {status}): "
                            f"{' '.join(command)}\n{tail(log, 20)}")
    (tmp / BUILD_STAMP).write_text(tool.key(variant) + "\n")
    tmp.rename(dest)
    return dest


def install_build(build: Path, vpy: Path, tool: Tool) -> None:
    """A tool's build (tool_build), copied into share/<tool>/ of the venv of vpy."""
    dest = share(vpy, tool)
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(build, dest, symlinks=True)


def venv_key(variant: str, tools: list[Tool], extras: list[Unpatched], layout: Layout) -> str:
    # the wheels' directory is an input too: a venv installed from another one (an older
    # layout, another cache) fails check_venv, so it is made anew instead
    return digest(variant, constraints_text(tools, extras),
                  *(f"{t.name} {t.key(variant)} {layout.made_dir(t, variant)}" for t in tools))


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
    proc = run([vpy, "-c", _INVENTORY, json.dumps([t.name for t in tools if t.on_pypi])],
               capture=True, env=scrubbed_env(), check=False)
    if proc.returncode != 0:
        raise ToolError(f"{rel(vpy)} cannot list its distributions:\n{proc.stderr[-2000:]}")
    found = json.loads(proc.stdout)
    dists, problems = found["dists"], []
    for tool in tools:
        if not tool.on_pypi:
            problems += check_build(vpy, variant, tool, dists)
            continue
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


def check_build(vpy: Path, variant: str, tool: Tool,
                dists: dict[str, dict[str, Any]]) -> list[str]:
    """What is wrong with the build of a tool from another registry in the venv of vpy:
    share/<tool>/ must be this variant's build, and its requirements installed."""
    problems = []
    stamp = share(vpy, tool) / BUILD_STAMP
    if not stamp.is_file() or stamp.read_text().strip() != tool.key(variant):
        problems.append(f"{tool.name}: {rel(share(vpy, tool))} is not its {variant} build")
    for requirement in tool.requirements:
        name, _, version = requirement.partition("==")
        dist = dists.get(norm(name))
        if dist is None or dist["version"] != version:
            problems.append(f"{tool.name} needs {requirement}, the venv has "
                            f"{dist and dist['version']}")
    return problems


def unpinned(dists: dict[str, dict[str, Any]], tools: list[Tool],
             extras: list[Unpatched]) -> list[str]:
    """The distributions of a venv that neither constraints.txt nor a pin.toml pins."""
    pinned = set(requirement_versions(CONSTRAINTS)) | {"pip"} | \
        {norm(t.name) for t in tools} | {norm(u.name) for u in extras} | \
        {norm(r.partition("==")[0]) for t in tools for r in t.requirements}
    return [f"{d['name']}=={d['version']}" for name, d in sorted(dists.items())
            if name not in pinned]


def prepare_venv(python: Path, variant: str, tools: list[Tool],
                 extras: Sequence[Unpatched] = (), layout: Layout | None = None
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
    wheels, builds = [], []
    cargo_target = layout.cargo_target()
    shutil.rmtree(cargo_target, ignore_errors=True)
    try:
        for number, tool in enumerate(tools, 1):
            say(f"[{number}/{len(tools)}] {tool.name} {tool.version} ({variant})")
            if tool.on_pypi:
                wheels.append(tool_wheel(vpy, tool, variant, layout, cargo_target))
            else:
                builds.append((tool, tool_build(vpy, tool, variant, layout)))
    finally:
        shutil.rmtree(cargo_target, ignore_errors=True)
    pins = [f"{u.name}=={u.version}" for u in installed if u.version] + \
        [r for t in tools for r in t.requirements]
    say(f"installing {len(wheels)} {variant} wheels{' and ' + ', '.join(pins) if pins else ''}"
        f" with their dependencies into {rel(venv)} (a minute or two)")
    sdist.install(vpy, *wheels, *pins, deps=True, env=constraints_env(layout), pip_python=vpy)
    for tool, build in builds:
        install_build(build, vpy, tool)
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
