"""The supervisor: schedules workers, collects findings, reports them."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.paths import REPO

from .cases import Case, short, split_lines
from .corpus import KINDS
from .minimize import check_in_subprocess, signature_of
from .worker import RERUN, Worker, WorkerResult, command, run_worker


@dataclass
class Finding:
    check: str
    case: int
    label: str
    kind: str
    detail: str
    data: dict[str, Any] | None  # Case.to_json() if known
    output: str = ""
    batch: int = 0


class Fuzzer:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.mode: str = args.command
        self.t0 = time.monotonic()
        self.deadline = time.time() + args.seconds if args.seconds > 0 else 0.0
        self.done = 0
        self.stats: Counter[str] = Counter()
        self.findings: list[Finding] = []
        self.tolerated: Counter[str] = Counter()
        self.tolerated_first: dict[str, Finding] = {}
        self.tmp = tempfile.mkdtemp(prefix="fuzz-grammar-")
        self.serial = 0
        self.setup_error: str | None = None

    # -- scheduling -------------------------------------------------------
    def worker_argv(self, start: int, count: int, out: str) -> list[str]:
        a = self.args
        argv = command("_worker", "--mode", self.mode, "--seed", str(a.seed),
                       "--start", str(start), "--count", str(count), "--out", out,
                       "--deadline", str(self.deadline))
        if self.mode == "stdlib":
            argv += ["--lib", str(a.lib)]
        else:
            argv += ["--strategy", a.strategy, "--batch-size", str(a.batch)]
        if a.show:
            argv.append("--show")
        for check in a.tolerate:
            argv += ["--tolerate", check]
        return argv

    def time_up(self) -> bool:
        return bool(self.deadline) and time.time() >= self.deadline

    def run(self) -> int:
        a = self.args
        queue = [(a.case, 1)] if a.case is not None else []
        next_start = 0
        limit = a.cases if a.cases > 0 else None
        running: list[tuple[Worker, int, int]] = []
        last_progress = time.monotonic()
        stop = False
        while True:
            while not stop and len(running) < a.jobs:
                if queue:
                    start, count = queue.pop(0)
                elif a.case is not None or self.time_up():
                    break
                elif self.mode == "stdlib":
                    if limit is not None and next_start >= limit:
                        break
                    count = a.batch if limit is None else min(a.batch, limit - next_start)
                    start, next_start = next_start, next_start + count
                else:
                    batch_cases = a.batch
                    if limit is not None:
                        left = limit - next_start * a.batch
                        if left <= 0:
                            break
                        batch_cases = min(a.batch, left)
                    start, count = next_start, batch_cases
                    next_start += 1
                self.serial += 1
                out = os.path.join(self.tmp, f"w{self.serial}.jsonl")
                running.append((Worker(self.worker_argv(start, count, out), out,
                                       a.case_timeout), start, count))
            if not running:
                break
            time.sleep(0.02)
            for item in list(running):
                w, start, count = item
                if not w.poll():
                    continue
                running.remove(item)
                more = self.collect(w.result(), start, count)
                if more:
                    queue.append(more)
                if self.setup_error or (self.findings and not a.keep_going):
                    stop = True
            now = time.monotonic()
            if a.progress > 0 and now - last_progress >= a.progress:
                last_progress = now
                done = self.done + sum(w.cases_so_far() for w, _, _ in running)
                print(f"fuzz-grammar: {done} cases, {len(self.findings)} failures, "
                      f"{now - self.t0:.0f}s", flush=True)
        return self.finish()

    def collect(self, res: WorkerResult, start: int, count: int) -> tuple[int, int] | None:
        """Account a finished worker; returns a batch still to run (after a crash)."""
        for ev in res.events:
            kind = ev.get("ev")
            if kind == "error":
                self.setup_error = ev["message"]
            elif kind == "start" and "show" in ev:
                print(f"=== case {ev['case']} [{ev['kind']}] {ev['label']}\n{ev['show']}",
                      end="" if str(ev["show"]).endswith("\n") else "\n")
            elif kind == "end":
                self.done += 1
                self.stats.update(ev.get("stats", {}))
                for f in ev.get("failures", []):
                    start_ev = next((e for e in res.events if e.get("ev") == "start"
                                     and e["case"] == ev["case"]), {})
                    finding = Finding(f["check"], ev["case"], start_ev.get("label", "?"),
                                      start_ev.get("kind", "?"), f["detail"], ev.get("data"),
                                      batch=start)
                    if f["check"] in self.args.tolerate:
                        self.tolerated[f["check"]] += 1
                        self.tolerated_first.setdefault(f["check"], finding)
                    else:
                        self.findings.append(finding)
        if self.mode == "hypothesmith":
            # Keep only the shrunk (last) failure of a Hypothesis run.
            shrunk = [e["case"] for e in res.events if e.get("ev") == "shrunk"]
            if shrunk:
                mine = [f for f in self.findings if f.batch == start]
                keep = [f for f in mine if f.case == shrunk[-1]] or mine[-1:]
                self.findings = [f for f in self.findings if f not in mine or f in keep]
        if res.finished:
            return None
        culprit = res.culprit
        self.done += 1
        if culprit is None:
            self.findings.append(Finding(res.crash_name, -1, f"worker for batch {start}",
                                         "?", "the worker stopped between cases:\n"
                                         + res.output[-3000:], None, res.output, start))
            return None
        data = culprit.get("data")
        if data is None and self.mode == "stdlib":
            data = self.describe(culprit["case"])
        self.findings.append(Finding(res.crash_name, culprit["case"], culprit["label"],
                                     culprit["kind"], "the worker died while checking this "
                                     "case; its output ends with:\n" + res.output[-3000:],
                                     data, res.output, start))
        if self.mode == "stdlib" and self.args.keep_going:
            nxt = culprit["case"] + 1
            if nxt < start + count:
                return nxt, start + count - nxt
        return None

    def describe(self, n: int) -> dict[str, Any] | None:
        out = os.path.join(self.tmp, f"describe{n}.jsonl")
        res = run_worker(command("_worker", "--mode", "stdlib", "--seed", str(self.args.seed),
                                 "--start", str(n), "--lib", str(self.args.lib),
                                 "--describe", "--out", out), out)
        for ev in res.events:
            if ev.get("ev") == "case":
                data: dict[str, Any] = ev["data"]
                return data
        return None

    # -- reporting --------------------------------------------------------
    def finish(self) -> int:
        a = self.args
        elapsed = time.monotonic() - self.t0
        try:
            if self.setup_error:
                print(f"fuzz-grammar: {self.setup_error}", file=sys.stderr)
                return 2
            for i, finding in enumerate(self.findings):
                if i < a.max_reports:
                    report(finding, a, self.mode, self.tmp)
            if len(self.findings) > a.max_reports:
                print(f"({len(self.findings) - a.max_reports} more failures not shown)")
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)
        self.summary(elapsed)
        print(f"fuzz-grammar: {self.done} cases, {len(self.findings)} failures "
              f"({self.mode}, seed {a.seed})", flush=True)
        return 1 if self.findings else 0

    def summary(self, elapsed: float) -> None:
        s = self.stats
        kinds = ", ".join(f"{k} {s[f'kind:{k}']}" for k in KINDS if s[f"kind:{k}"])
        print(f"fuzz-grammar: {self.mode}: {self.done} cases in {elapsed:.1f}s ({kinds}); "
              f"{s['late defaults in source']} late defaults parsed")
        print(f"  compile: {s['compile ok']} ok, {s['compile SyntaxError']} SyntaxError, "
              f"{s['compile ValueError']} ValueError; wrong spellings rejected "
              f"{s['wrong spelling rejected']}; misplaced rejected "
              f"{sum(v for k, v in s.items() if k.startswith('misplaced rejected'))}; "
              f"functions created {s['functions created']} (extras text != ast.unparse: "
              f"{s['extras text differs from ast.unparse']})")
        prefixes = ("also without =>:", "upstream:")
        aside = sorted((k, v) for k, v in s.items() if k.startswith(prefixes))
        if aside:
            print("  not failures, not about `=>` (they happen without it too): "
                  + "; ".join(f"{v} x {k}" for k, v in aside))
        for check, count in self.tolerated.items():
            first = self.tolerated_first[check]
            print(f"  tolerated (--tolerate): {count} x {check!r}; the first: case {first.case}, "
                  f"{first.label}\n    " + first.detail.strip().replace("\n", "\n    ")[:600])
        if self.args.stats:
            for key, value in sorted(s.items(), key=lambda kv: -kv[1]):
                print(f"  {value:7d}  {key}")


def report(f: Finding, args: argparse.Namespace, mode: str, tmp: str) -> None:
    seed = args.seed
    print(f"FAILURE: {f.check}")
    print(f"  seed={seed} case={f.case} mode={mode} kind={f.kind}")
    print(f"  where: {f.label}")
    print("  " + f.detail.rstrip().replace("\n", "\n  "))
    if f.data is None:
        sys.stdout.flush()
        return
    case = f.data
    if case.get("notes"):
        print("--- rewrite ---\n" + case["notes"].rstrip())
    original = case.get("src")
    if original is not None:
        n = len(split_lines(original))
        print(f"--- the case ({n} line{'' if n == 1 else 's'}) ---")
        print(short(original, 6000).rstrip())
    elif case.get("dump"):
        print("--- the case (an injected AST, ast.dump) ---")
        print(short(case["dump"], 6000))
    sys.stdout.flush()
    signature = [f.check]
    all_failures = mode == "check"  # `check` reports failures not about `=>` too
    confirmed = signature_of(check_in_subprocess(Case.from_json(case), args.case_timeout,
                                                 all_failures))
    alone = f.check in confirmed
    print(f"--- reproduced alone in a fresh interpreter: {'yes' if alone else 'NO'}"
          + ("" if alone else f" (got: {sorted(confirmed) or 'no failure'})"))
    repro_src, repro_dump = original, case.get("dump") if original is None else None
    if alone and args.minimize_seconds > 0:
        minimized = minimize(f, case, signature, all_failures, args.minimize_seconds, tmp)
        if minimized is not None:
            repro_src, repro_dump = minimized
    save_reproducer(f, args, mode, repro_src, repro_dump)


def minimize(f: Finding, case: dict[str, Any], signature: list[str], all_failures: bool,
             seconds: float, tmp: str) -> tuple[str | None, str | None] | None:
    """The minimizer's smallest case that still fails, as (source, None) or (None,
    ast.dump); None when it found nothing."""
    inp = os.path.join(tmp, f"min{f.case}.json")
    out = os.path.join(tmp, f"min{f.case}.out.json")
    with open(inp, "w", encoding="utf-8") as fh:
        json.dump({"case": case, "signature": signature, "all_failures": all_failures}, fh)
    try:  # the minimizer saves its best so far: a crash or a timeout loses nothing
        subprocess.run(command("_minimize", "--input", inp, "--out", out, "--seconds",
                               str(seconds)),
                       stdin=subprocess.DEVNULL, capture_output=True, cwd=REPO,
                       timeout=seconds + 300)
    except subprocess.TimeoutExpired:
        pass
    if not os.path.exists(out):
        return None
    with open(out, encoding="utf-8") as fh:
        m = json.load(fh)
    print(f"--- minimized ({m['attempts']} attempts) ---")
    if m.get("src") is not None:
        return m["src"], None
    if m.get("dump"):
        return None, m["dump"]
    return None


def save_reproducer(f: Finding, args: argparse.Namespace, mode: str, repro_src: str | None,
                    repro_dump: str | None) -> None:
    """Print the reproducer, save it under --artifacts, and say how to check it."""
    seed = args.seed
    artifacts = Path(args.artifacts)
    artifacts.mkdir(parents=True, exist_ok=True)
    stem = f"{mode}-seed{seed}-case{f.case}"
    if repro_src is not None:
        print(f"--- reproducer ---\n{repro_src.rstrip()}\n--- end ---")
        path = artifacts / f"{stem}.py"
        path.write_text(repro_src, encoding="utf-8")
        print(f"saved: {path}\n  check it: {RERUN} check {path}")
    elif repro_dump is not None:
        print(f"--- reproducer (ast.dump of the tree given to compile()) ---\n{repro_dump}\n"
              "--- end ---")
        path = artifacts / f"{stem}.ast"
        path.write_text(repro_dump + "\n", encoding="utf-8")
        print(f"saved: {path}\n  check it: {RERUN} check --ast {path}")
    if mode == "stdlib" and f.case >= 0:
        print(f"  replay:   {RERUN} stdlib --seed {seed} --case {f.case} --show")
    sys.stdout.flush()
