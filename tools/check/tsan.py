"""Late-bound defaults on the free-threaded build under ThreadSanitizer.

    python3 -m tools.check.tsan [--seconds N] [--seed S] [--threads N]

Steps, each announced with a line starting with ==>:

  1. check that clang can link a ThreadSanitizer program (Debian: apt-get
     install clang libclang-rt-14-dev) and that the program runs (the
     runtime can fail at start on some kernels); either failing is an error;
  2. build/tsan: a clone of build/cpython configured with clang,
     --with-thread-sanitizer and --disable-gil (tools.build.cpython, logs in
     build/logs/tsan-*.log);
  3. test_late_bound_defaults on it, GIL off;
  4. tools/check/tsan_workload.py for --seconds, GIL off: callers of late-default
     functions (positional, keyword-only, cells, closures, generators,
     methods) while mutators assign __defaults__, __kwdefaults__ and __code__;
     a thread that has not stopped 5 minutes after the end is hung, and is
     reported as a wrong result with every thread's Python stack;
  5. the oracle: build/tsan-baseline, the unpatched tree (build/baseline)
     built the same way, runs the workload's None-idiom twin (--idiom: the same
     functions, calls and reassignments, `=>` written as the idiom that
     defines it) for --baseline-seconds, beside step 4;
  6. report the calls made, the wrong results, and every ThreadSanitizer report
     that CPython's own suppression file
     (Tools/tsan/suppressions_free_threading.txt, as its CI uses it) does not
     cover. A report is named by its kind and, for its two accesses, the
     function and the text of the source line (line numbers differ between
     the trees; see report_key()); a report without accesses (a thread leak,
     a lock-order inversion, ...) by its kind and the function and source
     text of its first stack's first frame past the runtime's interceptors.
     One that the baseline gives too is upstream's (3.13 reads and replaces
     __defaults__, __kwdefaults__ and __code__ without synchronization: a
     setter can free what a call is reading) and is listed as such; any
     other fails the run.
     The reports are in build/tsan-out/<step>.<pid>; those of the run
     before are moved to build/tsan-out/previous/.

The workload's wrong results are judged the same way: 3.13's unsynchronized
__kwdefaults__ can make a call read a dict that another thread has just freed
and fail with "missing 1 required keyword-only argument", with or without the
series; what the baseline's twin also gets is upstream's.

Exit status 1 when a step does not run to its end, or the patched tree gives a
wrong result or a ThreadSanitizer report that the baseline does not. The
baseline killed by a signal is listed as upstream's crash and does not fail the
run by itself: it leaves fewer of upstream's reports to judge the series' by.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tools.build.cpython import build, clone_tree
from tools.common import (ToolError, exits_on_tool_error, rel, require_clang_sanitizer,
                          run_logged, say, scrubbed_env)
from tools.paths import BASELINE, BUILD, REPO, TREE

TSAN_TREE = BUILD / "tsan"
BASELINE_TREE = BUILD / "tsan-baseline"
TSAN_OUT = BUILD / "tsan-out"
CONFIGURE_FLAGS = "CC=clang CXX=clang++ --with-thread-sanitizer --disable-gil"
# how each program says that it ran to its end (its own verdict aside)
FINISHED = {"workload": "tsan workload: ", "test_late_bound_defaults": "Result: SUCCESS"}
WRONG = re.compile(r"^WRONG (.*) \(x\d+\)$", re.M)
TSAN_EXIT = 66  # ThreadSanitizer's exit status after reports (the reports are judged)
WORKLOAD = Path(__file__).with_name("tsan_workload.py")
REPORT = re.compile(r"^WARNING: ThreadSanitizer: (.*?) \(pid=\d+\)\n(.*?)^SUMMARY: "
                    r"ThreadSanitizer: (.*?)$", re.M | re.S)
# the two accesses of a race (not the heap block's or the threads' stacks)
ACCESS = re.compile(r"^  (?:Previous )?(?:[Aa]tomic )?(?:[Rr]ead|[Ww]rite) of size .*:\n"
                    r"((?:\s+#\d+ .*\n?)+)", re.M)
FRAME = re.compile(r"#\d+ (\S+)(?: (/\S+?):(\d+)(?::\d+)?)?")
# Frames that say where memory was touched but not by what: the first frame
# of a stack that is not one of these names it.
HELPER = re.compile(r"^(mem\w+|_Py_atomic_\w+|_DK_ENTRIES|__tsan\w*)$")
# The first stack of a report (a thread leak's creation, a mutex's locking,
# a signal handler's call): its first "#0" frame and the frames after it.
FIRST_STACK = re.compile(r"^[ \t]+#0 .*(?:\n[ \t]+#\d+ .*)*", re.M)
# What ThreadSanitizer's runtime intercepts (pthread_create, pthread_mutex_lock,
# malloc, a signal-unsafe call) says what happened but not where: a report
# without accesses is named by the first frame of its first stack past these.
INTERCEPTOR = re.compile(r"^(pthread_\w+|malloc|calloc|realloc|free|__interceptor_\w+"
                         r"|operator|sem_\w+|usleep|nanosleep|sleep|write|read)$")
RUNTIME_PATH = re.compile(r"/compiler-rt/|/sanitizer_common/")
# a location in a summary: path:line[:col] or (module+0xoffset)
LOCATION = re.compile(r"\S+:\d+(?::\d+)?|\(\S+\+0x[0-9a-fA-F]+\)")


def check_clang() -> None:
    require_clang_sanitizer("thread", "int main(void) { return 0; }\n", "tsan")


def tsan_env(step: str, tree: Path = TSAN_TREE) -> dict[str, str]:
    suppressions = tree / "Tools" / "tsan" / "suppressions_free_threading.txt"
    options = (f"suppressions={suppressions} log_path={TSAN_OUT / step} "
               # a crash's native stack in the report file (faulthandler,
               # which the workload enables, prints the Python stacks first)
               "handle_segv=1 halt_on_error=0 second_deadlock_stack=1 "
               # every race on an address, not only its first: one field
               # raced on by upstream code must not hide a race of ours on it
               "suppress_equal_addresses=0")
    return scrubbed_env({"TSAN_OPTIONS": options, "PYTHON_GIL": "0"})


def source_line(path: str, line: str) -> str:
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        return " ".join(lines[int(line) - 1].split())
    except (OSError, IndexError, ValueError):
        return ""


def frame_name(frames: list[tuple[str, str, str]], skip: Callable[[str, str], bool]) -> str:
    """The first of frames (function, path, line) that skip(function, path)
    does not pass over, else the first: its function and the text of its
    source line (`func `text``), or only the function when the source is not
    at hand."""
    func, path, line = next((f for f in frames if not skip(f[0], f[1])), frames[0])
    text = source_line(path, line) if path else ""
    return f"{func} `{text}`" if text else func


def is_helper(func: str, path: str) -> bool:
    return bool(HELPER.match(func))


def is_runtime(func: str, path: str) -> bool:
    return bool(HELPER.match(func) or INTERCEPTOR.match(func) or RUNTIME_PATH.search(path))


def report_key(kind: str, body: str, summary: str) -> str:
    """A report's name: its kind and, for each of its two accesses, the first
    function of the stack past memcpy and atomic helpers with the text of
    its source line, in sorted order (`data race: func_set_defaults
    `Py_XSETREF(...)` / initialize_locals `PyObject *def = ...``). The text,
    not the line number, so that the same statement has the same name in both
    trees, and a statement that the series added or changed has a name of its
    own.

    A report without accesses (a thread leak, a lock-order inversion, a
    signal-unsafe call, an unlock of an unlocked mutex) is named the same way
    by the first frame of its first stack that is not in the runtime (past
    pthread_create, pthread_mutex_lock, malloc and the like): `thread leak:
    do_start_joinable_thread `status = pthread_create(&th,``. Its summary
    names a path and a line, which differ between the trees: a report without
    any stack is named by its summary without them."""
    tops = []
    for stack in ACCESS.findall(body)[:2]:
        tops.append(frame_name(FRAME.findall(stack), is_helper))
    if not tops:
        first = FIRST_STACK.search(body)
        frames = FRAME.findall(first.group()) if first else []
        if frames:
            tops = [frame_name(frames, is_runtime)]
        else:
            tops = [" ".join(LOCATION.sub(" ", summary).split())]
    return f"{kind}: {' / '.join(sorted(tops))}"


def reports(step: str) -> list[str]:
    """The names of the reports a step left in TSAN_OUT (its <step>.<pid> files)."""
    found = []
    for path in sorted(TSAN_OUT.glob(f"{step}.[0-9]*")):
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [report_key(*match) for match in REPORT.findall(text)]
    return found


@dataclass
class Step:
    status: int
    output: str         # the program's
    reports: list[str]  # the names of ThreadSanitizer's reports

    def wrong(self) -> set[str]:
        """What the workload says went wrong (its WRONG lines)."""
        return set(WRONG.findall(self.output))


# The most a step may take beyond its own time: ThreadSanitizer's start, the
# workload's wait for its threads (tsan_workload.JOIN_SECONDS, after which it
# reports the hung ones and exits) and its report. A step still running after
# that is killed, and it has not finished.
STEP_MARGIN = 1200


def keep_previous_run(step: str) -> None:
    """Move what the last run of step left (its log and its report files) to
    build/tsan-out/previous/, in place of the run before it: a crash's reports
    outlive the next run."""
    left = [*TSAN_OUT.glob(f"{step}.[0-9]*"), *TSAN_OUT.glob(f"{step}.log")]
    if not left:
        return
    previous = TSAN_OUT / "previous"
    previous.mkdir(parents=True, exist_ok=True)
    for stale in [*previous.glob(f"{step}.[0-9]*"), *previous.glob(f"{step}.log")]:
        stale.unlink()
    for path in left:
        path.replace(previous / path.name)


def run_step(step: str, cmd: list[str | os.PathLike[str]], tree: Path = TSAN_TREE,
             seconds: float = 0) -> Step:
    keep_previous_run(step)
    log = TSAN_OUT / f"{step}.log"
    say(f"tsan: {step} (log: {rel(log)})")
    status = run_logged(cmd, log, env=tsan_env(step, tree), cwd=tree,
                        timeout=seconds + STEP_MARGIN)
    return Step(status, log.read_text(encoding="utf-8", errors="replace"), reports(step))


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.check.tsan", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=300, help="the workload's (default 300)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=4, help="callers (mutators: half)")
    ap.add_argument("--baseline-seconds", type=int, default=None,
                    help="the baseline's run of the workload (default: --seconds)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="for the builds")
    ap.add_argument("--no-build", action="store_true",
                    help="reuse build/tsan and build/tsan-baseline as they are")
    args = ap.parse_args(argv)
    check_clang()
    trees = {TSAN_TREE: TREE, BASELINE_TREE: BASELINE}
    for tree, source in trees.items():
        if not args.no_build:
            clone_tree(source.absolute(), tree.absolute())
            build(tree, name=tree.name, configure_flags=CONFIGURE_FLAGS, regen=True,
                  jobs=args.jobs)
        elif not (tree / "python").exists():
            raise ToolError(f"{rel(tree)} is not built: run without --no-build")
    TSAN_OUT.mkdir(parents=True, exist_ok=True)
    workload: list[str | os.PathLike[str]] = [WORKLOAD, "--seed", str(args.seed), "--threads", str(args.threads)]
    baseline_seconds = args.baseline_seconds or args.seconds
    steps: list[tuple[str, Path, list[str | os.PathLike[str]], int]] = [
        ("baseline-workload", BASELINE_TREE,
         [BASELINE_TREE / "python", *workload, "--idiom", "--seconds", str(baseline_seconds)],
         baseline_seconds),
        ("test_late_bound_defaults", TSAN_TREE,
         [TSAN_TREE / "python", "-m", "test", "test_late_bound_defaults"], 0),
        ("workload", TSAN_TREE,
         [TSAN_TREE / "python", *workload, "--seconds", str(args.seconds)], args.seconds),
    ]
    # The test first; then the two workloads side by side, for the same time.
    with ThreadPoolExecutor(max_workers=2) as pool:
        step, tree, cmd, seconds = steps[1]
        results = {step: run_step(step, cmd, tree, seconds)}
        futures = {step: pool.submit(run_step, step, cmd, tree, seconds)
                   for step, tree, cmd, seconds in (steps[0], steps[2])}
        results.update({step: future.result() for step, future in futures.items()})
    baseline = results["baseline-workload"]
    ok = True
    for step, tree, _, _ in steps:
        result = results[step]
        if tree == BASELINE_TREE:
            ours, ours_wrong = [], set()
        else:
            ours = [key for key in result.reports if key not in baseline.reports]
            ours_wrong = result.wrong() - baseline.wrong()
        # ThreadSanitizer's exit status replaces the program's, so what the
        # program says is read from its output.
        finished = FINISHED[step.removeprefix("baseline-")] in result.output
        good = result.status in (0, TSAN_EXIT) and finished and not ours and not ours_wrong
        # The unpatched interpreter killed by a signal is upstream's crash (see
        # above): said, not a failure of ours; its reports until then still
        # judge ours, and what it did not live to give counts as ours.
        upstream_crash = tree == BASELINE_TREE and result.status < 0
        ok &= good or upstream_crash
        verdict = "ok" if good else "CRASHED (upstream)" if upstream_crash else "FAILED"
        print(f"{step}: {verdict}: exit {result.status}, "
              f"{len(result.reports)} ThreadSanitizer reports outside the suppressions, "
              f"{len(ours)} of them not given by the baseline; {len(result.wrong())} kinds "
              f"of wrong result, {len(ours_wrong)} of them not given by the baseline")
        for line in result.output.strip().splitlines()[-3:]:
            print(f"  {line}")
        for what in sorted(result.wrong()):
            origin = "upstream (the baseline gives it)" if what in baseline.wrong() else "OURS"
            print(f"  wrong: {what}: {origin}")
        for key in sorted(set(result.reports)):
            origin = "upstream (the baseline gives it)" if key in baseline.reports else "OURS"
            print(f"  report: {key} (x{result.reports.count(key)}): {origin}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
