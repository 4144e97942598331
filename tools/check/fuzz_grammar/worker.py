"""The worker subprocess and its protocol: JSON-lines events written to a file."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from tools.paths import REPO

from .cases import Case
from .checks import check_case
from .corpus import Corpus, hypothesmith_case, lib_dir, stdlib_case

MODULE = "tools.check.fuzz_grammar"
RERUN = f"{sys.executable} -m {MODULE}"  # how a reader runs it again (from the repo root)
HYPOTHESMITH_HINT = (
    "hypothesmith is not installed for {exe}.\n"
    "It is pinned in tests/requirements.txt; install it into the pytest venv with\n"
    "    python3 -m tools.check.run_pytest -- --version        (creates/updates build/venv)\n"
    "or  build/venv/bin/python -m pip install -r tests/requirements.txt\n"
    f"and run this mode as `build/venv/bin/python -m {MODULE} hypothesmith ...`.")


def command(*args: str) -> list[str]:
    """The argv that runs this tool again, under this interpreter (workers, the
    minimizer); it runs with the repo root as its working directory."""
    return [sys.executable, "-X", "faulthandler", "-m", MODULE, *args]


class Emitter:
    def __init__(self, path: str) -> None:
        self.f = open(path, "a", encoding="utf-8")

    def __call__(self, **event: Any) -> None:
        self.f.write(json.dumps(event) + "\n")
        self.f.flush()


HYPOTHESMITH_STRIDE = 1_000_000  # case numbers of batch B: B * STRIDE + example


class StopBatch(BaseException):
    """Ends a Hypothesis run early (time is up); not an Exception, so not shrunk."""


def run_one(emit: Emitter, n: int, case: Case, show: bool, start_data: bool,
            tolerate: Sequence[str] = (), discount: bool = True) -> bool:
    """Check a case between a start and an end event; True if it failed (other
    than in a tolerated way)."""
    start: dict[str, Any] = {"ev": "start", "case": n, "label": case.label, "kind": case.kind}
    if start_data:
        start["data"] = case.to_json()
    if show:
        try:
            start["show"] = case.src if case.src is not None else ast.unparse(
                case.tree or ast.Module(body=[], type_ignores=[]))
        except Exception as exc:  # noqa: BLE001 - the checks report it
            start["show"] = f"(ast.unparse failed: {exc!r})\n"
    emit(**start)
    outcome = check_case(case, discount)
    end: dict[str, Any] = {"ev": "end", "case": n, "stats": dict(outcome.stats),
                           "failures": [dataclasses.asdict(f) for f in outcome.failures]}
    if outcome.failures:
        end["data"] = case.to_json()
    emit(**end)
    return any(f.check not in tolerate for f in outcome.failures)


def worker_stdlib(args: argparse.Namespace, emit: Emitter) -> None:
    corpus = Corpus(Path(args.lib))
    if args.describe:
        emit(ev="case", data=stdlib_case(args.seed, args.start, corpus).to_json())
        return
    done = 0
    for n in range(args.start, args.start + args.count):
        if args.deadline and time.time() >= args.deadline and done:
            break
        try:
            case = stdlib_case(args.seed, n, corpus)
        except Exception:  # noqa: BLE001 - a generator bug is reported, not hidden
            emit(ev="start", case=n, label="(generating the case)", kind="generate")
            emit(ev="end", case=n, stats={}, failures=[{
                "check": "generator error", "detail": traceback.format_exc()}])
            done += 1
            continue
        run_one(emit, n, case, args.show, start_data=False)
        done += 1
    emit(ev="done", cases=done)


def worker_sources(args: argparse.Namespace, emit: Emitter) -> None:
    with open(args.input, encoding="utf-8") as f:
        cases = json.load(f)
    for n, data in enumerate(cases):
        run_one(emit, n, Case.from_json(data), args.show, start_data=False,
                discount=not args.all_failures)
    emit(ev="done", cases=len(cases))


def worker_hypothesmith(args: argparse.Namespace, emit: Emitter) -> None:
    try:
        import hypothesmith
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import seed as hseed
        from hypothesis import strategies as st
        from hypothesis.errors import Unsatisfiable
    except ImportError as exc:
        emit(ev="error", message=HYPOTHESMITH_HINT.format(exe=sys.executable) + f"\n({exc})")
        return
    strategies = {"grammar": lambda: hypothesmith.from_grammar(),
                  "node": lambda: hypothesmith.from_node(),
                  "both": lambda: st.one_of(hypothesmith.from_grammar(),
                                            hypothesmith.from_node())}
    strategy = strategies[args.strategy]()
    base = args.start * HYPOTHESMITH_STRIDE
    state: dict[str, Any] = {"n": base, "done": 0, "failed": None}

    def body(src: str, rnd: Any) -> None:
        if args.deadline and time.time() >= args.deadline and state["done"]:
            raise StopBatch
        n = state["n"]
        state["n"] += 1
        state["done"] += 1
        label = f"hypothesmith batch {args.start} example {n - base}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            case = hypothesmith_case(src, rnd, label)
        case.notes = f"generated program:\n{src}\ninjection: {case.notes}"
        if run_one(emit, n, case, args.show, start_data=True, tolerate=args.tolerate):
            state["failed"] = n
            raise AssertionError(f"case {n} failed")

    # The seed is per batch; the injection choices come from a Random that
    # Hypothesis seeds (so a run replays), the program from hypothesmith.
    run: Callable[[], None] = hseed(args.seed * 1_000_003 + args.start)(settings(
        max_examples=args.count, deadline=None, database=None, derandomize=False,
        suppress_health_check=list(HealthCheck), report_multiple_bugs=False, print_blob=False,
        phases=[Phase.explicit, Phase.generate, Phase.target, Phase.shrink],
    )(given(src=strategy, rnd=st.randoms(use_true_random=True))(body)))

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run()
    except StopBatch:
        pass
    except Unsatisfiable:
        pass
    except AssertionError:
        emit(ev="shrunk", case=state["failed"])
    except Exception:  # noqa: BLE001
        if state["failed"] is not None:
            emit(ev="shrunk", case=state["failed"])
        else:
            emit(ev="start", case=state["n"], label="(hypothesis)", kind="generate")
            emit(ev="end", case=state["n"], stats={}, failures=[{
                "check": "hypothesis/generation error", "detail": traceback.format_exc()}])
    emit(ev="done", cases=state["done"])


def worker_main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="fuzz_grammar _worker")
    ap.add_argument("--mode", required=True, choices=["stdlib", "hypothesmith", "sources"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=1)
    ap.add_argument("--deadline", type=float, default=0)
    ap.add_argument("--lib", default=str(lib_dir()))
    ap.add_argument("--strategy", default="both")
    ap.add_argument("--input")
    ap.add_argument("--out", required=True)
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--describe", action="store_true")
    ap.add_argument("--tolerate", action="append", default=[])
    ap.add_argument("--all-failures", action="store_true")
    args = ap.parse_args(argv)
    emit = Emitter(args.out)
    {"stdlib": worker_stdlib, "sources": worker_sources,
     "hypothesmith": worker_hypothesmith}[args.mode](args, emit)
    return 0


# ==========================================================================
# Running a worker (the supervisor's end of the protocol)
# ==========================================================================

@dataclass
class WorkerResult:
    returncode: int
    events: list[dict[str, Any]]
    output: str
    hung: bool = False

    @property
    def finished(self) -> bool:
        return not self.hung and self.returncode == 0 and any(
            e.get("ev") == "done" for e in self.events)

    @property
    def crashed(self) -> bool:
        return not self.finished

    @property
    def crash_name(self) -> str:
        if self.hung:
            return "hang"
        if self.returncode < 0:
            try:
                return f"crash ({signal.Signals(-self.returncode).name})"
            except ValueError:
                return f"crash (signal {-self.returncode})"
        return f"worker exited with status {self.returncode}"

    @property
    def culprit(self) -> dict[str, Any] | None:
        """The start event of the case being checked when the worker stopped."""
        ended = {e["case"] for e in self.events if e.get("ev") == "end"}
        starts = [e for e in self.events if e.get("ev") == "start" and e["case"] not in ended]
        return starts[-1] if starts else None


class Worker:
    """A worker subprocess writing JSON-lines events to a file."""

    def __init__(self, argv: list[str], out_path: str, idle_timeout: float = 120) -> None:
        self.out_path = out_path
        self.idle_timeout = idle_timeout
        self.log = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONFAULTHANDLER="1")
        open(out_path, "w").close()
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, env=env, cwd=REPO)
        self.size = 0
        self.last_activity = time.monotonic()
        self.hung = False

    def poll(self) -> bool:
        if self.proc.poll() is not None:
            return True
        size = os.path.getsize(self.out_path)
        now = time.monotonic()
        if size != self.size:
            self.size = size
            self.last_activity = now
        elif now - self.last_activity > self.idle_timeout:
            self.hung = True
            self.proc.kill()
            self.proc.wait()
            return True
        return False

    def cases_so_far(self) -> int:
        """Cases the running worker has finished (for progress lines)."""
        try:
            with open(self.out_path, encoding="utf-8") as f:
                return sum(line.startswith('{"ev": "end"') for line in f)
        except OSError:
            return 0

    def result(self) -> WorkerResult:
        events = []
        with open(self.out_path, encoding="utf-8") as f:
            for line in f:
                try:
                    events.append(json.loads(line))
                except json.JSONDecodeError:
                    break  # a partial last line
        self.log.seek(0)
        output = self.log.read()
        self.log.close()
        return WorkerResult(self.proc.returncode, events, output, self.hung)


def run_worker(argv: list[str], out_path: str, idle_timeout: float = 120) -> WorkerResult:
    """Run a worker to the end (or until it hangs) and collect its events."""
    w = Worker(argv, out_path, idle_timeout)
    while not w.poll():
        time.sleep(0.02)
    return w.result()
