"""make migrate-check: lbdefaults' safe rewrites applied to pinned PyPI releases, tested.

Run with the patched interpreter, from the repo root:

    ./python -m tools.lbdefaults.migrate_check [--only NAME] [--out build/migrate]

For each library of the pinned corpus (tools/lbdefaults/migrate_corpus.toml,
small pure-Python sdists that carry their own test suites):

1. fetch    the sdist (pip download, cached in ~/.cache/pep671/migrate), its
            sha256 checked against the pin; unpacked twice under OUT/src/NAME/:
            `before/` as released, `after/` to be rewritten;
2. census   lbdefaults over the library's package directory (its tests are
            scanned too, with --callers-from, so that their calls count);
3. rewrite  every safe candidate of `after/` rewritten in place, as `--write`
            does (annotations included); the rewritten files must compile;
4. suite    the library's own tests, run by pytest in one venv of the patched
            interpreter (OUT/venv), on `before/` and then on `after/` (each tree
            pip-installed into the venv first); a test that fails after and not
            before is a new failure;
5. probes   one script per safe rewrite, from the corpus file, run before and
            after: it forwards None through a subclass or a wrapper of the
            public API that reaches the rewritten function; the output must not
            change. A safe rewrite without a probe stops the check;
6. guards   candidates that an earlier lbdefaults called safe wrongly: each must
            not be safe now, and its probe, run on a third tree (`forced/`)
            where that one rewrite is forced, shows the behaviour it changes.

The report goes to OUT/report.md (and OUT/results.json). The exit status is 1
when a suite has a new failure, a probe's output changed, or a probe is
missing; 2 when a step could not run (the message says what to do).

Not part of `make test`: it needs PyPI for the sdists, pytest and the
libraries' build backends, and it runs six test suites twice. It takes
minutes: about 8 on two busy cores, most of it click's and more-itertools'
suites (--only picks libraries); the report gives the time of each suite.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from tools.common import (PIP_QUIET, ToolError, cache_dir, ensure_venv, say,
                          scrubbed_env, sha256_file, unpack_sdist)

from tools.paths import MIGRATE_OUT

from .analysis import SAFE, VERDICTS, Candidate
from .cli import analyse
from .rewrite import RewriteError, write_file

CORPUS = Path(__file__).with_name("migrate_corpus.toml")
SUITE_TIMEOUT = 900     # seconds for one run of a library's suite


@dataclass
class Library:
    name: str
    version: str
    sha256: str
    package: str
    tests: list[str]
    probes: dict[str, dict[str, str]]
    guards: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass
class Suite:
    passed: int = 0
    failed: list[str] = field(default_factory=list)
    skipped: int = 0
    seconds: float = 0.0


@dataclass
class Result:
    name: str
    version: str
    files: int = 0
    files_with: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    rewrites: list[dict[str, Any]] = field(default_factory=list)
    before: Suite = field(default_factory=Suite)
    after: Suite = field(default_factory=Suite)
    new_failures: list[str] = field(default_factory=list)
    probes: list[dict[str, str]] = field(default_factory=list)
    guards: list[dict[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (not self.new_failures
                and all(p["status"] in ("same", "none") for p in self.probes)
                and all(g["status"] != "safe" and g["status"] != "missing"
                        for g in self.guards))


def load_corpus(path: Path) -> tuple[list[str], list[Library]]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        libs = [Library(d["name"], d["version"], d["sha256"], d["package"], list(d["tests"]),
                        dict(d.get("probes", {})), dict(d.get("guards", {})))
                for d in data["library"]]
        return list(data["runner"]["requires"]), libs
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError) as exc:
        raise ToolError(f"{path}: not a valid corpus file ({type(exc).__name__}: {exc}); "
                        f"see the comment at its top") from None


# -- fetching ----------------------------------------------------------------------


def fetch(python: Path, lib: Library) -> Path:
    """The verified sdist of the pin, downloaded once into the cache (by the pip
    of `python`, the venv's)."""
    dest = cache_dir() / "migrate" / f"{lib.name}-{lib.version}"
    for sdist in sorted(dest.glob("*.tar.gz")) if dest.is_dir() else ():
        if sha256_file(sdist) == lib.sha256:
            return sdist
        sdist.unlink()
    say(f"{lib.name}: downloading the {lib.version} sdist")
    dest.mkdir(parents=True, exist_ok=True)
    _pip(python, ["download", "--no-deps", "--no-binary", lib.name, "-d", str(dest),
                  f"{lib.name}=={lib.version}"], f"downloading {lib.name} {lib.version}")
    found = sorted(dest.glob("*.tar.gz"))
    if len(found) != 1:
        raise ToolError(f"pip download of {lib.name}=={lib.version} left "
                        f"{[p.name for p in found]} in {dest}; expected one sdist")
    actual = sha256_file(found[0])
    if actual != lib.sha256:
        found[0].unlink()
        raise ToolError(f"checksum mismatch for {lib.name} {lib.version}: expected "
                        f"{lib.sha256}, got {actual}; refusing to use it")
    return found[0]


def unpack(sdist: Path, dest: Path) -> Path:
    """sdist unpacked into dest, made anew; returns its top directory."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    return unpack_sdist(sdist, dest)


def _pip(python: Path, args: list[str], what: str) -> None:
    cmd = [str(python), "-m", "pip", *PIP_QUIET, *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=scrubbed_env(),
                          stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise ToolError(f"{what} failed (exit {proc.returncode}); it needs pip to reach "
                        f"the package index.\n$ {' '.join(cmd)}\n{proc.stderr[-3000:]}")


# -- census and rewrite ------------------------------------------------------------


def census_and_rewrite(lib: Library, tree: Path, result: Result) -> list[Candidate]:
    """Scan the package of `tree` (its tests as callers), rewrite the safe
    candidates in place; return them."""
    package = tree / lib.package
    if not package.is_dir():
        raise ToolError(f"{lib.name}: no directory {lib.package} in the sdist; fix "
                        f"`package` in {CORPUS.name}")
    callers = [tree / t for t in lib.tests if (tree / t).exists()]
    results, failed = analyse([package], exclude=["test", "tests"], callers_from=callers)
    cands = [c for r in results for c in r.candidates]
    result.files = len(results) + failed
    result.files_with = len({c.path for c in cands})
    result.verdicts = {v: sum(c.verdict == v for c in cands) for v in VERDICTS}
    safe = [c for c in cands if c.verdict == SAFE]
    for r in results:
        mine = [c for c in r.candidates if c.verdict == SAFE]
        if not mine or r.text is None:
            continue
        try:
            write_file(Path(r.path), r.path, r.text, r.encoding, mine)
        except RewriteError as exc:
            raise ToolError(f"{lib.name}: lbdefaults could not rewrite {r.path}: {exc}") \
                from None
    for c in safe:
        result.rewrites.append({
            "where": f"{Path(c.path).relative_to(tree)}:{c.line}",
            "key": f"{c.function}({c.parameter})", "expr": c.expr,
            "annotation": (None if c.annotation_change is None
                           else f"{c.annotation_change[0]} -> {c.annotation_change[1]}")})
    return safe


# -- suites and probes ---------------------------------------------------------------


def install(venv_python: Path, tree: Path, lib: Library) -> None:
    _pip(venv_python, ["install", "--no-deps", "--force-reinstall", str(tree)],
         f"installing {lib.name} from {tree}")


def run_suite(venv_python: Path, tree: Path, lib: Library, junit: Path, log: Path) -> Suite:
    start = time.monotonic()
    cmd = [str(venv_python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
           f"--junitxml={junit}", *lib.tests]
    with open(log, "w", encoding="utf-8") as out:
        try:
            subprocess.run(cmd, cwd=tree, env=scrubbed_env(), stdout=out,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                           timeout=SUITE_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise ToolError(f"{lib.name}: its suite ran over {SUITE_TIMEOUT}s; see {log}") \
                from None
    if not junit.is_file():
        raise ToolError(f"{lib.name}: pytest wrote no report; see {log}")
    suite = Suite(seconds=time.monotonic() - start)
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        if kinds & {"failure", "error"}:
            suite.failed.append(name)
        elif "skipped" in kinds:
            suite.skipped += 1
        else:
            suite.passed += 1
    return suite


def run_probe(venv_python: Path, code: str, where: Path) -> str:
    where.write_text(code, encoding="utf-8")
    proc = subprocess.run([str(venv_python), str(where.name)], cwd=where.parent,
                          capture_output=True, text=True, env=scrubbed_env(),
                          stdin=subprocess.DEVNULL, timeout=120)
    return f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}"


# -- the whole check ---------------------------------------------------------------


def check_library(venv_python: Path, lib: Library, out: Path) -> Result:
    result = Result(lib.name, lib.version)
    sdist = fetch(venv_python, lib)
    root = out / "src" / lib.name
    before = unpack(sdist, root / "before")
    after = unpack(sdist, root / "after")
    say(f"{lib.name}: census and safe rewrites")
    safe = census_and_rewrite(lib, after, result)
    missing = [f"{c.function}({c.parameter})" for c in safe
               if f"{c.function}({c.parameter})" not in lib.probes]
    outputs: dict[str, dict[str, str]] = {}
    for variant, tree in (("before", before), ("after", after)):
        say(f"{lib.name}: its suite on the {variant} tree")
        install(venv_python, tree, lib)
        suite = run_suite(venv_python, tree, lib, out / f"{lib.name}-{variant}.xml",
                          out / f"{lib.name}-{variant}.log")
        setattr(result, variant, suite)
        for n, c in enumerate(safe):
            key = f"{c.function}({c.parameter})"
            probe = lib.probes.get(key, {})
            if "code" in probe:
                probe_dir = out / "probes" / lib.name
                probe_dir.mkdir(parents=True, exist_ok=True)
                outputs.setdefault(key, {})[variant] = run_probe(
                    venv_python, probe["code"], probe_dir / f"probe_{n}.py")
    result.new_failures = sorted(set(result.after.failed) - set(result.before.failed))
    if lib.guards:
        say(f"{lib.name}: guards (rewrites that must not be called safe), forced")
        result.guards = check_guards(venv_python, lib, before, unpack(sdist, root / "forced"),
                                     out)
    for c in safe:
        key = f"{c.function}({c.parameter})"
        probe = lib.probes.get(key, {})
        if key in missing:
            result.probes.append({"key": key, "status": "missing",
                                  "detail": f"no probe in {CORPUS.name}"})
        elif "code" not in probe:
            result.probes.append({"key": key, "status": "none",
                                  "detail": probe.get("none", "")})
        else:
            got = outputs[key]
            same = got["before"] == got["after"]
            result.probes.append({"key": key, "status": "same" if same else "changed",
                                  "detail": got["before"] if same
                                  else f"before:\n{got['before']}\nafter:\n{got['after']}"})
    return result


def check_guards(venv_python: Path, lib: Library, before: Path, forced: Path,
                 out: Path) -> list[dict[str, str]]:
    """Each guard: its verdict (must not be safe), and its probe's output with the
    rewrite forced on `forced` vs the release (run from the trees, not installed)."""
    results, _ = analyse([forced / lib.package], exclude=["test", "tests"],
                         callers_from=[forced / t for t in lib.tests if (forced / t).exists()])
    by_key = {f"{c.function}({c.parameter})": (r, c) for r in results for c in r.candidates}
    found: list[dict[str, str]] = []
    for n, (key, guard) in enumerate(sorted(lib.guards.items())):
        if key not in by_key:
            found.append({"key": key, "status": "missing", "detail": "no such candidate"})
            continue
        r, c = by_key[key]
        if c.verdict == SAFE:
            found.append({"key": key, "status": "safe",
                          "detail": "called safe: the rewrite would change behaviour"})
            continue
        try:
            write_file(Path(r.path), r.path, r.text or "", r.encoding, [c], apply={c.verdict})
        except RewriteError as exc:
            raise ToolError(f"{lib.name}: forcing {key}: {exc}") from None
        probe_dir = out / "probes" / lib.name
        probe_dir.mkdir(parents=True, exist_ok=True)
        outputs = []
        for tree in (before, forced):
            where = probe_dir / f"guard_{n}.py"
            where.write_text(guard["code"], encoding="utf-8")
            env = scrubbed_env({"PYTHONPATH": str((tree / lib.package).parent)})
            proc = subprocess.run([str(venv_python), where.name],
                                  cwd=probe_dir, capture_output=True, text=True, env=env,
                                  stdin=subprocess.DEVNULL, timeout=120)
            outputs.append(f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}")
        changed = outputs[0] != outputs[1]
        reason = c.reason.replace(f"{forced}/", "")
        found.append({"key": key, "status": c.verdict,
                      "detail": (f"{reason}; forced, the probe "
                                 + ("changes: " + outputs[1].strip().splitlines()[-1]
                                    if changed else "does not change (a weak probe)"))})
        # leave the tree as released for the next guard
        Path(r.path).write_text(r.text or "", encoding=r.encoding)
    return found


def render(results: Sequence[Result], seconds: float) -> str:
    out = ["# make migrate-check: lbdefaults' safe rewrites on pinned PyPI releases", "",
           f"{len(results)} libraries, {seconds:.0f} s. Each library's package is scanned "
           f"(its tests as callers, `--callers-from`), its safe candidates rewritten, its own "
           f"suite run by pytest before and after, and one probe per safe rewrite run before "
           f"and after (it forwards None through a subclass or wrapper of the public API).", "",
           "| library | files scanned | with candidates | safe | needs review | unsafe "
           "| suite before (passed/failed/skipped) | after | new failures | probes | suite time "
           "before/after |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        probes = ", ".join(f"{p['status']}" for p in r.probes) or "-"
        out.append(
            f"| {r.name} {r.version} | {r.files} | {r.files_with} | {r.verdicts.get(SAFE, 0)} "
            f"| {r.verdicts.get('needs review', 0)} | {r.verdicts.get('unsafe', 0)} "
            f"| {r.before.passed}/{len(r.before.failed)}/{r.before.skipped} "
            f"| {r.after.passed}/{len(r.after.failed)}/{r.after.skipped} "
            f"| {len(r.new_failures)} | {probes} "
            f"| {r.before.seconds:.0f}/{r.after.seconds:.0f} s |")
    total = {v: sum(r.verdicts.get(v, 0) for r in results) for v in VERDICTS}
    out += ["", f"Total: {sum(total.values())} candidates in "
                f"{sum(r.files_with for r in results)} files "
                f"({sum(r.files for r in results)} scanned): "
                + ", ".join(f"{n} {v}" for v, n in total.items()) + ".", ""]
    for r in results:
        out.append(f"## {r.name} {r.version}")
        out.append("")
        if not r.rewrites:
            out.append("No safe rewrite.")
        for w, p in zip(r.rewrites, r.probes):
            ann = f"; annotation `{w['annotation']}`" if w["annotation"] else ""
            out.append(f"- `{w['where']}` {w['key']} => `{w['expr']}`{ann}: probe "
                       f"**{p['status']}**")
            if p["status"] != "same" and p["detail"]:
                out.append(f"  ({p['detail'].strip()})")
        for g in r.guards:
            out.append(f"- guard {g['key']}: **{g['status']}** ({g['detail']})")
        for name in r.new_failures:
            out.append(f"- NEW FAILURE after the rewrite: {name}")
        if r.before.failed:
            out.append(f"- failing before the rewrite too ({len(r.before.failed)}): "
                       + ", ".join(f"`{n}`" for n in r.before.failed[:10]))
        out.append("")
    return "\n".join(out)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="./python -m tools.lbdefaults.migrate_check",
        description=(__doc__ or "").split("\n", 1)[0],
        epilog=(__doc__ or "").split("\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="the pinned corpus (TOML)")
    ap.add_argument("--out", type=Path, default=MIGRATE_OUT,
                    help="where the trees, logs and report go (default: build/migrate)")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="check only this library (repeatable)")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    python = Path(sys.executable)
    start = time.monotonic()
    try:
        runner, libs = load_corpus(args.corpus)
        unknown = set(args.only) - {lib.name for lib in libs}
        if unknown:
            raise ToolError(f"--only {', '.join(sorted(unknown))}: not in {args.corpus}")
        if not hasattr(__import__("ast"), "LateDefault"):
            raise ToolError("run this with the patched interpreter (./python -m "
                            "tools.lbdefaults.migrate_check): it verifies the rewrites")
        args.out.mkdir(parents=True, exist_ok=True)
        say(f"venv {args.out / 'venv'} with {', '.join(runner)}")
        venv_python = ensure_venv(python, args.out / "venv", runner)
        results = []
        for n, lib in enumerate(libs, 1):
            if args.only and lib.name not in args.only:
                continue
            say(f"[{n}/{len(libs)}] {lib.name} {lib.version}")
            results.append(check_library(venv_python, lib, args.out.absolute()))
    except ToolError as exc:
        print(f"migrate-check: {exc}", file=sys.stderr)
        return 2
    seconds = time.monotonic() - start
    report = args.out / "report.md"
    report.write_text(render(results, seconds), encoding="utf-8")
    (args.out / "results.json").write_text(
        json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
    bad = [r.name for r in results if not r.ok]
    say(f"report: {os.path.relpath(report)}"
        + (f"; problems in {', '.join(bad)}" if bad else "; no new failure, probes unchanged"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
