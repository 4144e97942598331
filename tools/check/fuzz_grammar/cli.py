"""Command line: the fuzzing modes, `check`, and the hidden worker commands."""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
import tempfile
import tokenize
from pathlib import Path

from tools.paths import FUZZ_GRAMMAR_OUT

from . import __doc__ as PACKAGE_DOC
from .cases import Case, tree_from_dump
from .corpus import lib_dir
from .functions import FOLDED
from .minimize import minimize_main
from .supervisor import Finding, Fuzzer, report
from .worker import HYPOTHESMITH_HINT, command, run_worker, worker_main

LATE_PROBE = "def _probe(a=>1): return a"


def cmd_check(args: argparse.Namespace) -> int:
    cases = []
    for p in args.files:
        if args.ast:
            text = Path(p).read_text(encoding="utf-8")
            cases.append(Case(p, "ast", tree=tree_from_dump(text)).to_json())
        else:
            data = Path(p).read_bytes()  # no newline translation: a lone \r matters
            encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
            cases.append(Case(p, "plain", src=data.decode(encoding)).to_json())
    tmp = tempfile.mkdtemp(prefix="fuzz-grammar-")
    inp = os.path.join(tmp, "cases.json")
    with open(inp, "w", encoding="utf-8") as f:
        json.dump(cases, f)
    out = os.path.join(tmp, "events.jsonl")
    res = run_worker(command("_worker", "--mode", "sources", "--input", inp, "--out", out,
                             "--all-failures"), out, args.case_timeout)
    findings: list[Finding] = []
    for ev in res.events:
        if ev.get("ev") == "end":
            for fl in ev["failures"]:
                findings.append(Finding(fl["check"], ev["case"], args.files[ev["case"]],
                                        cases[ev["case"]]["kind"], fl["detail"], ev.get("data")))
    if res.crashed:
        c = res.culprit
        n = c["case"] if c else -1
        findings.append(Finding(res.crash_name, n, args.files[n] if c else "?", "?",
                                "output:\n" + res.output[-3000:], cases[n] if c else None))
    args.seed = 0
    for fd in findings:
        report(fd, args, "check", tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    ok = sum(1 for ev in res.events if ev.get("ev") == "end" and not ev["failures"])
    print(f"fuzz-grammar: {len(cases)} files checked, {ok} passed, {len(findings)} failures")
    return 1 if findings else 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m tools.check.fuzz_grammar", description=PACKAGE_DOC,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True, metavar="MODE")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--case-timeout", type=float, default=120,
                        help="seconds a case may take before the worker counts as hung "
                             "(default 120)")
    common.add_argument("--artifacts", default=str(FUZZ_GRAMMAR_OUT),
                        help="where reproducers are saved (default build/fuzz-grammar)")
    common.add_argument("--minimize-seconds", type=float, default=60,
                        help="time to minimize each failure, 0: do not (default 60)")
    common.add_argument("--max-reports", type=int, default=5,
                        help="failures reported in detail (default 5)")
    fuzz = argparse.ArgumentParser(add_help=False, parents=[common])
    fuzz.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    fuzz.add_argument("--cases", type=int, default=1000,
                      help="number of cases, 0 for no limit (default 1000)")
    fuzz.add_argument("--seconds", type=float, default=0,
                      help="stop after this many seconds, 0 for no limit (default)")
    fuzz.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    fuzz.add_argument("--progress", type=float, default=5.0,
                      help="seconds between progress lines (default 5, 0: none)")
    fuzz.add_argument("--keep-going", action="store_true",
                      help="do not stop at the first failure")
    fuzz.add_argument("--show", action="store_true", help="print each case's program")
    fuzz.add_argument("--stats", action="store_true", help="print all counters at the end")
    fuzz.add_argument("--tolerate", action="append", default=[], metavar="CHECK",
                      help="count failures of this check (its name as reported after "
                           "FAILURE:) without failing the run; repeatable, for a known bug "
                           f"(e.g. {FOLDED!r})")
    p = sub.add_parser("stdlib", parents=[fuzz], help="inject => into the stdlib's functions",
                       description="Inject late defaults into the functions of Lib/ "
                                   "(see fuzz_grammar --help).")
    p.add_argument("--case", type=int, help="run only this case number (replay)")
    p.add_argument("--batch", type=int, default=100,
                   help="cases per worker subprocess (default 100)")
    p.add_argument("--lib", type=Path, default=lib_dir(),
                   help=f"the Lib/ directory to walk (default: this interpreter's, {lib_dir()})")
    p = sub.add_parser("hypothesmith", parents=[fuzz],
                       help="inject => into programs generated by hypothesmith",
                       description="Programs from hypothesmith with late defaults injected "
                                   "(see fuzz_grammar --help).")
    p.add_argument("--batch", type=int, default=200,
                   help="examples per Hypothesis run, one worker subprocess each (default 200)")
    p.add_argument("--strategy", choices=["grammar", "node", "both"], default="both",
                   help="hypothesmith.from_grammar(), from_node() or either (default both)")
    p = sub.add_parser("check", parents=[common], help="run the checks on files (reproducers)",
                       description="Run every check on each file as it is, in a subprocess.")
    p.add_argument("--ast", action="store_true",
                   help="the files hold an ast.dump() (an AST reproducer), not source")
    p.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    if args.command == "hypothesmith":
        args.case = None
    if args.command != "check" and args.cases <= 0 and args.seconds <= 0 and args.case is None:
        ap.error("give --cases or --seconds")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_worker"]:
        return worker_main(argv[1:])
    if argv[:1] == ["_minimize"]:
        return minimize_main(argv[1:])
    args = parse_args(argv)

    try:
        compile(LATE_PROBE, "<probe>", "exec", dont_inherit=True)
    except SyntaxError:
        print(f"fuzz-grammar: {sys.executable} does not support late-bound defaults",
              file=sys.stderr)
        return 2
    if args.command == "check":
        return cmd_check(args)
    if args.command == "hypothesmith":
        try:
            import hypothesmith
        except ImportError:
            print("fuzz-grammar: " + HYPOTHESMITH_HINT.format(exe=sys.executable),
                  file=sys.stderr)
            return 2
        print(f"fuzz-grammar: hypothesmith {hypothesmith.__version__}", flush=True)
    return Fuzzer(args).run()
