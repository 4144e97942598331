"""make dogfood: the standard library rewritten with `=>`, run through CPython's
regression suite and the pyperformance subset.

    python3 -m tools.dogfood --verdicts safe[,needs-review] [options]   (from the repo root)

1. tree     build/dogfood/cpython: a clone of build/cpython (never that tree itself),
            at the same commit; the rewrites of an earlier run are undone first.
2. scan     `./python -m tools.lbdefaults --json --exclude test` over its Lib/: every
            candidate with its verdict (Lib/test/ is neither scanned nor rewritten).
3. rewrite  `./python -m tools.lbdefaults --write --apply VERDICTS` rewrites every
            candidate of the chosen verdicts in Lib/; the count written must be the
            count chosen.
4. build    tools.build of the clone (the frozen modules follow Lib/).
5. parity   tools.regrtest_parity: the full suite (or --tests) on the rewritten tree,
            each failing file rerun there, and a file that fails twice run on the
            unrewritten patched tree (--python, ./python): a regression is a file that
            fails twice rewritten and passes unrewritten.
6. bench    the pyperformance subset of `make bench` counted by callgrind
            (bench.timed.run_pyperformance_callgrind), rewritten vs unrewritten:
            instructions per benchmark loop, each in a venv of its interpreter.
7. bisect   for the regressions: which rewrite breaks which test file. The unit is a
            function (all its rewritten parameters: a check cannot move without the
            checks before it); the tree is rewritten with a subset of units
            (`lbdefaults --write --select`), rebuilt, and the failing files run on it;
            a subset that fails is halved until single functions are left. A file
            that fails only with several units together is reported as such.
8. report   build/dogfood/<set>/results.json, then build/dogfood/report.md from the
            results of every set run so far (safe; safe+needs-review).

Each failure is explained in the report by the culprit, the failing tests and their
error lines (from the log of the bisection step that applied that function alone), a
guess at its kind, and the note kept for it in tools/dogfood_notes.toml when there is
one (a culprit without a note is marked as unexplained). The tree is left rewritten
with the whole set.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from bench.timed import PYPERFORMANCE_SUBSET
from bench.model import bench_env
from tools import paths
from tools.paths import DOGFOOD_OUT, PYTHON, REPO, TREE
from tools.common import (ToolError, built_python, ensure_venv, exits_on_tool_error, run,
                          run_logged, say, scrubbed_env, tail)
from tools.lbdefaults.analysis import VERDICTS
from tools.lbdefaults.cli import VERDICT_WORDS, candidate_key, verdict_set
from tools.pq import git, is_generated
from tools.regrtest_parity import parse_summary, print_summary, run_parity

OUT = DOGFOOD_OUT
NOTES = REPO / "tools" / "dogfood_notes.toml"

Unit = tuple[str, int]   # (path of the file relative to the tree, line of the def)


# --------------------------------------------------------------------------
# the tree


def prepare_tree(source: Path, tree: Path) -> bool:
    """Make `tree` a clone of `source` at its HEAD, with Lib/ as committed. Returns
    True when the clone was made or moved to another commit (then it must be
    regenerated and built from scratch)."""
    if not (source / ".git").is_dir():
        raise ToolError(f"{source} is not a git tree (run `make`)")
    head = git(source, "rev-parse", "HEAD").stdout.strip()
    moved = False
    if not (tree / ".git").is_dir():
        say(f"cloning {os.path.relpath(source)} -> {os.path.relpath(tree)}")
        tree.parent.mkdir(parents=True, exist_ok=True)
        run(["git", "clone", "-q", str(source), str(tree)], capture=True)
        moved = True
    if git(tree, "rev-parse", "HEAD").stdout.strip() != head:
        say(f"{os.path.relpath(tree)}: moving to {head[:12]} (the HEAD of {source.name})")
        git(tree, "fetch", "-q", "origin")
        git(tree, "reset", "-q", "--hard", head)
        moved = True
    restore_lib(tree)
    return moved


def restore_lib(tree: Path) -> list[str]:
    """Undo every change to Lib/ outside Lib/test/ but the regenerated files (the
    rewrites of a run); their bytecode caches go too. Returns the files restored."""
    changed = [p for p in git(tree, "diff", "--name-only", "HEAD", "--", "Lib",
                              ":(exclude)Lib/test").stdout.splitlines()
               if p and not is_generated(p)]
    if changed:
        git(tree, "checkout", "HEAD", "--", *changed)
        drop_bytecode(tree, changed)
    return changed


def drop_bytecode(tree: Path, files: Iterable[str]) -> None:
    """Remove the .pyc files of these sources: a rewrite and its undoing can fall in
    the same second with the same size, which the mtime check of a .pyc misses."""
    for rel in files:
        src = tree / rel
        for pyc in (src.parent / "__pycache__").glob(f"{src.stem}.*.pyc"):
            pyc.unlink(missing_ok=True)


def build_tree(tree: Path, logs: Path, jobs: int, regen: bool) -> float:
    """tools.build of the tree; its duration in seconds."""
    t0 = time.monotonic()
    cmd = [sys.executable, "-m", "tools.build", "--tree", str(tree), "--name", "dogfood",
           "--jobs", str(jobs), "--logdir", str(logs)]
    run([*cmd, "--regen"] if regen else cmd, cwd=REPO)
    return time.monotonic() - t0


# --------------------------------------------------------------------------
# candidates and rewrites (through the lbdefaults command line, run by ./python)


def lbdefaults(python: Path, tree: Path, *args: str, log: Path | None = None
               ) -> subprocess.CompletedProcess[str]:
    cmd = [str(python), "-m", "tools.lbdefaults", "--exclude", "test", "-q", *args,
           str(tree / "Lib")]
    proc = subprocess.run(cmd, cwd=REPO, env=scrubbed_env(), capture_output=True,
                          text=True, stdin=subprocess.DEVNULL)
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(f"$ {shlex.join(cmd)}\n{proc.stdout}{proc.stderr}")
    return proc


def scan(python: Path, tree: Path) -> list[dict[str, Any]]:
    """Every candidate of Lib/ (outside Lib/test/), as lbdefaults --json gives it, with
    "file" (the path relative to the tree) added."""
    proc = lbdefaults(python, tree, "--json")
    if proc.returncode != 0:
        raise ToolError(f"lbdefaults --json failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    found: list[dict[str, Any]] = json.loads(proc.stdout)
    for c in found:
        c["file"] = os.path.relpath(c["path"], tree)
    return found


def chosen(candidates: Sequence[dict[str, Any]], verdicts: Iterable[str]) -> list[dict[str, Any]]:
    """The candidates whose verdict is one of `verdicts`, in scan order."""
    wanted = set(verdicts)
    return [c for c in candidates if c["verdict"] in wanted]


def units_of(candidates: Sequence[dict[str, Any]]) -> dict[Unit, list[dict[str, Any]]]:
    """The rewrites grouped by function: (file, line of the def) -> its candidates."""
    units: dict[Unit, list[dict[str, Any]]] = {}
    for c in candidates:
        units.setdefault((c["file"], c["def_line"]), []).append(c)
    return dict(sorted(units.items()))


def apply_rewrites(python: Path, tree: Path, selection: Sequence[dict[str, Any]],
                   verdicts: Iterable[str], log: Path) -> dict[str, int]:
    """Undo earlier rewrites, then rewrite exactly `selection` (candidates of the
    scan of the unrewritten Lib/). Returns file -> defaults rewritten; dies when
    lbdefaults refuses or writes another number than asked."""
    restore_lib(tree)
    if not selection:
        return {}
    select = log.with_suffix(".select.json")
    select.parent.mkdir(parents=True, exist_ok=True)
    select.write_text(json.dumps([{k: c[k] for k in ("path", "line", "function", "parameter")}
                                  for c in selection], indent=1) + "\n")
    words = ",".join(sorted(w for w, v in VERDICT_WORDS.items() if v in set(verdicts)))
    proc = lbdefaults(python, tree, "--write", "--apply", words, "--select", str(select),
                      log=log)
    written: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        m = re.match(r"^(.*): rewrote (\d+) default\(s\)$", line)
        if m:
            written[os.path.relpath(m.group(1), tree)] = int(m.group(2))
    if proc.returncode != 0 or sum(written.values()) != len(selection):
        raise ToolError(f"lbdefaults --write rewrote {sum(written.values())} of {len(selection)} "
                        f"defaults (exit {proc.returncode}); see {log}:\n{tail(log, 20)}")
    drop_bytecode(tree, written)
    return written


# --------------------------------------------------------------------------
# bisection


def bisect(units: Sequence[Unit], tests: set[str],
           fails: Callable[[Sequence[Unit], set[str]], set[str]]
           ) -> tuple[dict[Unit, set[str]], dict[str, list[Unit]]]:
    """Which units break which tests, by adaptive group testing.

    `tests` fail with all `units` applied; fails(subset, tests) applies only the
    subset and returns the tests of `tests` that fail. Halves that fail are halved
    again down to single units: culprits maps a unit to the tests it breaks on its
    own. A test that fails with a set but with neither half of it needs rewrites
    from both halves together: `together` maps it to the smallest such set found."""
    culprits: dict[Unit, set[str]] = {}
    together: dict[str, list[Unit]] = {}

    def search(group: Sequence[Unit], failing: set[str]) -> None:
        if len(group) == 1:
            culprits.setdefault(group[0], set()).update(failing)
            return
        mid = len(group) // 2
        explained: set[str] = set()
        for half in (group[:mid], group[mid:]):
            broken = fails(half, failing)
            if broken:
                explained |= broken
                search(half, broken)
        for test in sorted(failing - explained):
            together[test] = list(group)

    if units and tests:
        search(list(units), set(tests))
    return culprits, together


def run_tests(python: Path, tests: Iterable[str], log: Path, timeout: int, jobs: int
              ) -> tuple[set[str], str]:
    """Run these test files with regrtest; the ones it reports as failed, and its output."""
    names = sorted(tests)
    cmd = [str(python), "-m", "test", "--timeout", str(timeout), f"-j{max(1, min(jobs, len(names)))}",
           "-W", *names]
    rc = run_logged(cmd, log, env=scrubbed_env())
    out = log.read_text(errors="replace")
    summary = parse_summary(out)
    if summary is None:
        raise ToolError(f"regrtest did not finish (exit {rc}) on {' '.join(names)}; see {log}")
    return set(summary.get("failed", [])) & set(names), out


FAILURE_HEADER = re.compile(r"^(FAIL|ERROR): (\S+) \((\S+)\)")


def failure_lines(output: str, test: str, limit: int = 6) -> list[str]:
    """From a regrtest -W output: `FAIL: test.test_x.Class.test_y -- the last line of
    its traceback` for each failing test case of the test file `test`; without any,
    the last exception lines of the output (an import error, a crash)."""
    lines = output.splitlines()
    found: list[str] = []
    for i, line in enumerate(lines):
        m = FAILURE_HEADER.match(line)
        if not m or not re.search(rf"(^|\.){re.escape(test)}(\.|$)", m.group(3)):
            continue
        last = ""
        for nxt in lines[i + 1:]:
            if nxt.startswith("-" * 20) and last:
                break
            if (nxt.startswith(("=" * 20, "== ", "Ran ")) or FAILURE_HEADER.match(nxt)
                    or re.match(r"^\d+:\d+:\d+ ", nxt)):
                break
            if nxt.strip() and not nxt.startswith("-" * 20):
                last = nxt.strip()
        entry = f"{m.group(1)}: {m.group(3)} -- {last}"
        if entry not in found:
            found.append(entry)
    if not found:
        tb = [ln.strip() for ln in lines if re.match(r"^\w*(Error|Exception)\b.*:", ln.strip())]
        found = tb[-limit:] or [ln.strip() for ln in lines if "Fatal Python error" in ln][:1]
    return found[:limit]


KINDS = [   # the first that matches
    ("signature pinned by a test",
     re.compile(r"signature|__defaults__|__kwdefaults__|=>|=None|argspec|Parameter")),
    ("caller passes None", re.compile(r"NoneType|\bNone\b")),
]


def guess_kind(lines: Sequence[str]) -> str:
    """A first guess at the kind of failure, from its error lines."""
    text = "\n".join(lines)
    for kind, pattern in KINDS:
        if pattern.search(text):
            return kind
    return "other"


def load_notes(path: Path = NOTES) -> dict[str, dict[str, str]]:
    """tools/dogfood_notes.toml: [["Lib/x.py:f(p)"]] tables with the reason a rewrite
    breaks a test file: key "FILE:FUNCTION(PARAMETER)", entries test = reason."""
    if not path.is_file():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {k: {t: str(r) for t, r in v.items()} for k, v in data.items()}


def unit_label(cands: Sequence[dict[str, Any]]) -> str:
    c = cands[0]
    return f"{c['file']}:{c['function']}({', '.join(x['parameter'] for x in cands)})"


# --------------------------------------------------------------------------
# the driver


@dataclass
class Run:
    args: argparse.Namespace
    python: Path
    tree: Path
    out: Path
    verdicts: frozenset[str]
    results: dict[str, Any] = field(default_factory=dict)
    steps: int = 0

    def timed(self, name: str, t0: float) -> None:
        self.results.setdefault("timings", {})[name] = round(time.monotonic() - t0)
        self.save()

    def save(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "results.json").write_text(json.dumps(self.results, indent=1) + "\n")


def set_slug(verdicts: Iterable[str]) -> str:
    """safe -> "safe"; safe and needs review -> "safe+needs-review" (in VERDICTS order)."""
    return "+".join(v.replace(" ", "-") for v in VERDICTS if v in set(verdicts))


def step_parity(r: Run, cands: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """tools.regrtest_parity of the rewritten tree against the unrewritten one."""
    a = r.args
    say(f"regrtest parity: {len(cands)} rewrites vs the unrewritten tree")
    label = f"the unrewritten tree ({shown(r.python)})"
    parity = run_parity(r.tree / "python", r.python, tests=a.tests.split(), jobs=a.jobs,
                        timeout=a.timeout, logdir=r.out / "logs", label=label,
                        use_cache=False)
    print_summary(parity, r.tree / "python", label)
    (r.out / "parity.json").write_text(parity.to_json())
    result: dict[str, Any] = json.loads(parity.to_json())
    return result


def shown(path: Path) -> str:
    """A path for messages: relative to the current directory, ./python for ./python."""
    relpath = os.path.relpath(path)
    return relpath if "/" in relpath else f"./{relpath}"


def late_calls(venv_py: Path, script: Path, loops: int, work: Path) -> dict[str, int]:
    """The calls of functions with late defaults in one pyperf worker process of script
    (all its tasks, `loops` loops, one value), counted by tools.late_calls."""
    counts = work / f"{script.parent.name}-{loops}.calls.json"
    out = work / f"{script.parent.name}-{loops}.worker.json"
    out.unlink(missing_ok=True)
    log = work / f"{script.parent.name}-{loops}.log"
    rc = run_logged([str(venv_py), "-m", "tools.late_calls", "--out", str(counts), str(script),
                     "--worker", "--loops", str(loops), "--values", "1", "--warmups", "0",
                     "-o", str(out)], log, env=bench_env(), cwd=REPO)
    if rc != 0 or not counts.is_file():
        raise ToolError(f"tools.late_calls on {script.parent.name} failed (exit {rc}):\n"
                        f"{tail(log)}")
    found: dict[str, int] = json.loads(counts.read_text())
    return found


def step_bench(r: Run) -> dict[str, Any]:
    from bench.model import BENCH, State
    from bench.timed import pyperformance_scripts, run_pyperformance_callgrind
    st = State(r.out / "bench", r.out / "bench" / "logs")
    st.logs.mkdir(parents=True, exist_ok=True)
    try:
        venvs = {
            "rewritten": ensure_venv(r.tree / "python", r.out.parent / "venv-rewritten",
                                     [BENCH / "requirements.txt"],
                                     log=st.logs / "venv-rewritten.log"),
            "unrewritten": ensure_venv(r.python, r.out.parent / "venv-unrewritten",
                                       [BENCH / "requirements.txt"],
                                       log=st.logs / "venv-unrewritten.log"),
        }
    except ToolError as exc:
        return {"status": "FAILED", "why": str(exc)}
    run_pyperformance_callgrind(st, venvs, max(1, r.args.jobs), names=r.args.benchmarks,
                                tags=("rewritten", "unrewritten"))
    part = st.part("pyperformance (callgrind)")
    result = {"status": part.status, "why": part.why,
              **st.data.get("pyperformance_callgrind", {})}
    # what the benchmarks call of the rewritten code: 1 loop vs 2 loops of each worker
    work = st.out / "late-calls"
    work.mkdir(parents=True, exist_ok=True)
    calls: dict[str, Any] = {}
    try:
        for name, script in pyperformance_scripts(venvs["rewritten"], r.args.benchmarks).items():
            one, two = (late_calls(venvs["rewritten"], script, n, work) for n in (1, 2))
            per_loop = {f: two.get(f, 0) - one.get(f, 0) for f in sorted(set(one) | set(two))
                        if two.get(f, 0) != one.get(f, 0)}
            calls[name] = {"one_loop": sum(one.values()), "two_loops": sum(two.values()),
                           "functions": sorted(set(one) | set(two)), "per_loop": per_loop}
    except (ToolError, RuntimeError) as exc:
        calls = {"error": str(exc)}
    result["late_calls"] = calls
    return result


def step_bisect(r: Run, cands: Sequence[dict[str, Any]], regressions: Sequence[str]
                ) -> dict[str, Any]:
    units = units_of(cands)
    bdir = r.out / "bisect"
    logs: dict[tuple[Unit, ...], Path] = {}

    def fails(subset: Sequence[Unit], tests: set[str]) -> set[str]:
        r.steps += 1
        n = r.steps
        sel = [c for u in subset for c in units[u]]
        say(f"bisect step {n}: {len(subset)} function(s), {len(sel)} rewrite(s); "
            f"tests {' '.join(sorted(tests))}")
        apply_rewrites(r.python, r.tree, sel, r.verdicts, bdir / f"step{n:03d}-rewrite.log")
        build_tree(r.tree, bdir / "build-logs", r.args.jobs, regen=False)
        broken, _ = run_tests(r.tree / "python", tests, bdir / f"step{n:03d}-tests.log",
                              r.args.timeout, r.args.jobs)
        logs[tuple(subset)] = bdir / f"step{n:03d}-tests.log"
        say(f"bisect step {n}: failing: {' '.join(sorted(broken)) or 'none'}")
        return broken

    t0 = time.monotonic()
    culprits, together = bisect(list(units), set(regressions), fails)
    notes = load_notes()
    found = []
    for unit, tests in sorted(culprits.items()):
        ucands = units[unit]
        label = unit_label(ucands)
        log = logs.get((unit,)) or Path(r.results["parity"]["logs"].get(sorted(tests)[0], ""))
        text = log.read_text(errors="replace") if log.is_file() else ""
        per_test = []
        for test in sorted(tests):
            lines = failure_lines(text, test)
            note = notes.get(label, {}).get(test)
            per_test.append({"test": test, "errors": lines, "kind": guess_kind(lines),
                             "note": note})
        found.append({"unit": label, "file": unit[0], "def_line": unit[1],
                      "verdicts": sorted({c["verdict"] for c in ucands}),
                      "candidates": [{k: c[k] for k in ("line", "function", "parameter",
                                                        "expr", "verdict", "reason")}
                                     for c in ucands],
                      "log": str(log), "tests": per_test})
    return {"steps": r.steps, "minutes": round((time.monotonic() - t0) / 60, 1),
            "culprits": found,
            "together": {t: [unit_label(units[u]) for u in us] for t, us in together.items()}}


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.dogfood", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--verdicts", type=verdict_set, default=verdict_set("safe"),
                    metavar="VERDICTS",
                    help=f"the verdicts to rewrite, comma-separated, of "
                         f"{', '.join(VERDICT_WORDS)} (make: DOGFOOD; default: safe)")
    ap.add_argument("--python", type=Path, default=PYTHON,
                    help="the unrewritten patched interpreter (default: ./python); it also "
                         "runs lbdefaults")
    ap.add_argument("--source-tree", type=Path, default=TREE,
                    help=f"the patched tree to clone (default: {paths.shown(TREE)})")
    ap.add_argument("--out", type=Path, default=OUT,
                    help=f"output directory; the clone is OUT/cpython (default: {paths.shown(DOGFOOD_OUT)})")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=1200, help="per-test timeout, seconds")
    ap.add_argument("--tests", default="",
                    help="test names for the parity run (default: the full suite)")
    ap.add_argument("--no-regrtest", action="store_true",
                    help="skip the parity run (and so the bisection)")
    ap.add_argument("--no-bench", action="store_true", help="skip the pyperformance counts")
    ap.add_argument("--benchmarks", type=lambda s: [b for b in s.split(",") if b],
                    default=list(PYPERFORMANCE_SUBSET), metavar="NAMES",
                    help="the pyperformance benchmarks to count, comma-separated (default: "
                         "the subset of make bench)")
    ap.add_argument("--report-only", action="store_true",
                    help="only render OUT/report.md again from the results of earlier runs")
    args = ap.parse_args(argv)
    out = args.out.absolute()
    if args.report_only:
        return write_report(out)

    python = built_python(args.python)
    tree = out / "cpython"
    source = args.source_tree.absolute()
    if tree.resolve() == source.resolve():
        raise ToolError(f"the dogfood tree must not be {source} itself")
    r = Run(args, python, tree, out / set_slug(args.verdicts), args.verdicts)
    r.results = {"set": set_slug(args.verdicts), "verdicts": sorted(args.verdicts),
                 "started": datetime.datetime.now().isoformat(timespec="seconds"),
                 "tree_commit": git(source, "rev-parse", "HEAD").stdout.strip(),
                 "repo_commit": git(REPO, "describe", "--always", "--dirty").stdout.strip(),
                 "tests": args.tests or "full suite", "timings": {}}
    t_all = time.monotonic()
    earlier_file = r.out / "results.json"
    earlier = json.loads(earlier_file.read_text()) if earlier_file.is_file() else {}

    t0 = time.monotonic()
    moved = prepare_tree(source, tree)
    cands = scan(python, tree)
    picked = chosen(cands, args.verdicts)
    r.results["candidates"] = {v: sum(c["verdict"] == v for c in cands) for v in VERDICTS}
    say(f"lbdefaults: {len(cands)} candidates; rewriting {len(picked)} "
        f"({', '.join(sorted(args.verdicts))})")
    written = apply_rewrites(python, tree, picked, args.verdicts, r.out / "rewrite.log")
    r.results["rewrites"] = {v: sum(c["verdict"] == v for c in picked) for v in VERDICTS
                             if v in args.verdicts}
    r.results["rewritten_files"] = written
    r.results["rewritten"] = [{k: c[k] for k in ("file", "line", "def_line", "function",
                                                 "parameter", "expr", "verdict", "reason")}
                              for c in picked]
    diff = git(tree, "diff", "HEAD", "--", "Lib").stdout
    (r.out / "rewrites.diff").write_text(diff)
    r.timed("scan and rewrite", t0)
    # parts skipped this time are kept from an earlier run of the same rewrites
    if (earlier.get("tree_commit") == r.results["tree_commit"]
            and earlier.get("rewritten") == r.results["rewritten"]):
        kept = [("parity", "regrtest parity", args.no_regrtest),
                ("bisect", "bisection", args.no_regrtest),
                ("bench", "pyperformance (callgrind)", args.no_bench)]
        for key, timing, skipped in kept:
            if skipped and key in earlier:
                r.results[key] = earlier[key]
                if timing in earlier.get("timings", {}):
                    r.results["timings"][timing] = earlier["timings"][timing]
                r.results.setdefault("kept", {})[key] = earlier.get("kept", {}).get(
                    key, earlier["started"])
                say(f"keeping the {key} results of the run started {earlier['started']}")

    t0 = time.monotonic()
    build_tree(tree, out / "logs", args.jobs, regen=moved or not (tree / "python").exists())
    r.timed("build", t0)

    if not args.no_regrtest:
        t0 = time.monotonic()
        r.results["parity"] = step_parity(r, picked)
        r.timed("regrtest parity", t0)
    if not args.no_bench:
        t0 = time.monotonic()
        r.results["bench"] = step_bench(r)
        r.timed("pyperformance (callgrind)", t0)
    regressions = r.results.get("parity", {}).get("regressions", [])
    if regressions and not args.no_regrtest:
        t0 = time.monotonic()
        r.results["bisect"] = step_bisect(r, picked, regressions)
        r.timed("bisection", t0)
        # leave the tree as the parity run saw it
        apply_rewrites(python, tree, picked, args.verdicts, r.out / "rewrite.log")
        build_tree(tree, out / "logs", args.jobs, regen=False)
    r.results["finished"] = datetime.datetime.now().isoformat(timespec="seconds")
    r.timed("total", t_all)
    status = write_report(out)
    unexplained = [t for c in r.results.get("bisect", {}).get("culprits", [])
                   for t in c["tests"] if not t["note"]]
    safe_broken = [c["unit"] for c in r.results.get("bisect", {}).get("culprits", [])
                   if "safe" in c["verdicts"]]
    if safe_broken:
        print(f"dogfood: rewrites the tool calls safe break tests: {', '.join(safe_broken)} "
              f"(a bug in the analysis of tools/lbdefaults)", file=sys.stderr)
        status = 1
    if unexplained:
        say(f"{len(unexplained)} failure(s) without a note in {os.path.relpath(NOTES)}")
    return status


# --------------------------------------------------------------------------
# the report


def _fmt_count(n: float) -> str:
    return f"{n:,.0f}"


def render_set(res: dict[str, Any], notes: dict[str, dict[str, str]] | None = None
               ) -> list[str]:
    """A set's section of the report. A note of `notes` (tools/dogfood_notes.toml as it
    is now) explains a failure before the note the run recorded, so that notes written
    after a run reach the report with --report-only."""
    notes = notes or {}
    out = [f"## Set: {res['set'].replace('+', ' + ')}", ""]
    out.append(f"Tree: build/cpython at `{res['tree_commit'][:12]}`; lbdefaults and this "
               f"driver at `{res.get('repo_commit', '?')}`; run "
               f"{res.get('started', '?')} to {res.get('finished', 'unfinished')}; "
               f"tests: {res.get('tests')}.")
    for part, started in res.get("kept", {}).items():
        out.append(f"The {part} results are those of the run started {started} (same tree, "
                   f"same rewrites).")
    out.append("")
    cands = res.get("candidates", {})
    out.append(f"Candidates found by lbdefaults in Lib/ (outside Lib/test/): "
               + ", ".join(f"{n} {v}" for v, n in cands.items()) + ".")
    out.append("")
    culprits = res.get("bisect", {}).get("culprits", [])
    parity = res.get("parity")
    out += ["| verdict | rewrites applied | files | test files failing because of them |",
            "| --- | ---: | ---: | --- |"]
    for v, n in res.get("rewrites", {}).items():
        files = len({c["file"] for c in res.get("rewritten", []) if c["verdict"] == v})
        tests = sorted({t["test"] for c in culprits if v in c["verdicts"] for t in c["tests"]})
        failing = ("not run" if parity is None else ", ".join(tests) or "none")
        out.append(f"| {v} | {n} | {files} | {failing} |")
    out.append("")
    if parity is not None:
        out.append(f"Regression suite in parity mode ({parity.get('minutes')} min): "
                   f"failed on the first run: {', '.join(parity['failed']) or 'none'}; "
                   f"flaky: {', '.join(parity['flaky']) or 'none'}; failing on the "
                   f"unrewritten tree too (not counted): {', '.join(parity['shared']) or 'none'}; "
                   f"**regressions: {', '.join(parity['regressions']) or 'none'}**.")
        out.append("")
    if culprits:
        b = res["bisect"]
        out.append(f"### Failures and the rewrites that cause them ({b['steps']} bisection "
                   f"steps, {b['minutes']} min)")
        out.append("")
        for c in culprits:
            out.append(f"- `{c['unit']}` ({'/'.join(c['verdicts'])}; line {c['def_line']}): "
                       + "; ".join(f"`{x['parameter']}=>{x['expr']}`" for x in c["candidates"]))
            for t in c["tests"]:
                why = (notes.get(c["unit"], {}).get(t["test"]) or t["note"]
                       or f"unexplained (guess: {t['kind']}; see {c['log']})")
                out.append(f"  - **{t['test']}**: {why}")
                for line in t["errors"]:
                    out.append(f"    - `{line.replace('`', chr(39))}`")
        for test, units in b.get("together", {}).items():
            out.append(f"- **{test}** fails only with several of these together: "
                       + ", ".join(f"`{u}`" for u in units))
        out.append("")
    bench = res.get("bench")
    if bench is not None:
        out.append("### pyperformance subset, instructions per benchmark loop (callgrind)")
        out.append("")
        if bench.get("status") != "ok":
            out.append(f"{bench.get('status')}: {bench.get('why')}")
        else:
            out += ["| benchmark | unrewritten | rewritten | ratio |",
                    "| --- | ---: | ---: | ---: |"]
            for name, row in sorted(bench["rows"].items()):
                out.append(f"| {name} | {_fmt_count(row['unrewritten'])} | "
                           f"{_fmt_count(row['rewritten'])} | {row['ratio']:.4f} |")
            out.append(f"| **geometric mean** | | | **{bench['geomean']:.4f}** |")
        out.append("")
        calls = bench.get("late_calls")
        if calls and "error" in calls:
            out += [f"Calls of rewritten functions: not counted ({calls['error']}).", ""]
        elif calls:
            out += ["Calls of functions with late defaults (the rewritten ones) in one worker "
                    "process of each benchmark, with 1 and with 2 loops (tools.late_calls); "
                    "the difference is what one loop calls:", "",
                    "| benchmark | 1 loop | 2 loops | per loop | functions |",
                    "| --- | ---: | ---: | --- | --- |"]
            for name, c in sorted(calls.items()):
                # keys are "QUALNAME FILE:LINE"
                per = ", ".join(f"{f.split(' ', 1)[0]} {n:+d}" for f, n in c["per_loop"].items())
                funcs = ", ".join(f.split(" ", 1)[0] for f in c["functions"])
                out.append(f"| {name} | {c['one_loop']} | {c['two_loops']} | {per or '0'} | "
                           f"{funcs or 'none'} |")
            out.append("")
    timings = res.get("timings", {})
    if timings:
        out.append("Timings: " + ", ".join(f"{k} {v / 60:.1f} min" for k, v in timings.items())
                   + ".")
        out.append("")
    return out


def write_report(out: Path) -> int:
    sets = [json.loads(p.read_text()) for p in sorted(out.glob("*/results.json"))]
    if not sets:
        raise ToolError(f"no results under {out} (run `make dogfood` first)")
    sets.sort(key=lambda s: len(s.get("verdicts", [])))
    lines = ["# Dogfood: the standard library rewritten with `=>`", "",
             "Every candidate of the chosen verdicts that tools/lbdefaults finds in Lib/ "
             "(not Lib/test/) rewritten, the tree built and run through CPython's "
             "regression suite in parity mode against the unrewritten patched tree, and "
             "the pyperformance subset of `make bench` counted by callgrind. "
             "Written by `python3 -m tools.dogfood` (`make dogfood DOGFOOD=...`).", ""]
    notes = load_notes()
    for res in sets:
        lines += render_set(res, notes)
    (out / "report.md").write_text("\n".join(lines).rstrip() + "\n")
    say(f"report: {os.path.relpath(out / 'report.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
