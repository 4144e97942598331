"""Run CPython's libFuzzer harnesses on the patched tree: fuzz_pycompile and fuzz_marshal_code.

    python3 -m tools.check.libfuzzer [--seconds N] [--seed S] [--targets NAME,...]

CPython's fuzz tests live in Modules/_xxtestfuzz/fuzzer.c (OSS-Fuzz builds them
from Modules/_xxtestfuzz/fuzz_tests.txt). Two of them reach what the series adds:
fuzz_pycompile compiles its input (the series adds `=>` to its dictionary and a
seed with late-bound defaults), and fuzz_marshal_code, which the series adds,
loads its input with marshal (3.13's format: the series adds no type; its seeds
are the code objects of functions with late-bound defaults) and, when that
makes a code object, reads it in the ways that do not run it:
code.replace() (ValueError allowed), co_code and marshal.dumps(). Nothing checks
a code object's late-default prologue any more: marshal data is trusted as far
as upstream trusts it, so a crash that the unpatched interpreter has too on the
same input is upstream's (step 7).

Steps, each announced with a line starting with ==>:

  1. check that clang has libFuzzer (Debian: apt-get install clang
     libclang-rt-14-dev) and that a program linked with it runs (-runs=1); a
     missing or failing runtime is an error, never a skipped run;
  2. build/libfuzzer: a clone of build/cpython configured with clang and
     -fsanitize=address,undefined,fuzzer-no-link, static libpython, no pymalloc,
     with assertions, and build/libfuzzer-baseline, a clone of the unpatched
     build/baseline configured alike, the oracle of step 7 (tools.build.cpython, logs
     in build/logs/libfuzzer-*.log and libfuzzer-baseline-*.log);
  3. link each harness (fuzzer.c with -D_Py_FUZZ_ONE) against it with
     -fsanitize=fuzzer into build/libfuzzer/<target> (beside Lib/, so the
     interpreter it embeds finds its standard library);
  4. seed corpora in build/libfuzzer-out/<target>/corpus: fuzz_pycompile's from
     Modules/_xxtestfuzz/fuzz_pycompile_corpus plus the top-level statements
     that use `=>` in the tree's test files, in pieces the harness takes
     (16 KB, in file mode); fuzz_marshal_code's from marshal.dumps() of every code
     object compiled from those files (made by the tree's own interpreter, so
     the magic number and opcodes match); the corpus grows from run to run,
     and artifacts of earlier runs are kept (this run's crashes are only the
     artifacts it writes; earlier ones are rerun in step 5);
  5. regression cases: the artifacts kept from earlier runs of a target
     (crash-*, leak-*, timeout-* and oom-* in build/libfuzzer-out/<target>/)
     are run once each by its harness (`build/libfuzzer/<target> -timeout=30
     -rss_limit_mb=4096 <artifact>`, libFuzzer's options as in fuzzing), their
     output in rerun.log there;
  6. run every target for --seconds at once, each in its own process, with its
     dictionary, -seed, crash artifacts in build/libfuzzer-out/<target>/ and
     its output in fuzz-seed<S>.log there (a progress line every 5 minutes).
     libFuzzer runs in fork mode (-fork=1 -ignore_crashes=1): the fuzzing is
     done by one child process at a time, and a crash ends the child, not the
     run, so that an upstream fault found early does not end a long run;
  7. the oracle for each crash, new or kept: build/libfuzzer-baseline, the
     unpatched tree (build/baseline, `make baseline`) built as in step 2, so
     that its interpreter sees what the harness's sanitizers see, reads the
     artifact as the harness does, in Python (BASELINE_READS). If ASan or UBSan
     reports (the run exits with SANITIZER_EXITCODE), if it is killed by a
     signal, or if it gets no result within the harness's 30 seconds, the
     fault is upstream's: the artifact is moved to
     build/libfuzzer-out/<target>/upstream/ and listed with the baseline's
     report (its kind and first frame), and it does not fail the run. Any
     other is ours. It does not compare where the two crash: compare the
     listed frame with the harness's (build/libfuzzer/<target> <artifact>
     shows it);
  8. report per target: the kept artifacts rerun and those that still crash
     (with the command that reproduces each), executions, coverage
     (libFuzzer's cov/ft), corpus size, crashes (artifact paths), the upstream
     ones set aside, and distinct UndefinedBehaviorSanitizer reports.

Exit status 1 when a crash is ours (a kept artifact that still crashes or a
new one), when UndefinedBehaviorSanitizer reported without any crash to account
for it, or when a target stopped before its time. A crash's artifact
reproduces it: build/libfuzzer/<target> <artifact>.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from tools.build.cpython import build, clone_tree
from tools.common import (ToolError, exits_on_tool_error, rel, require_clang_sanitizer, run,
                          say, scrubbed_env)
from tools.paths import BASELINE, BUILD, PYTHON, TREE

FUZZ_TREE = BUILD / "libfuzzer"
# The oracle: the unpatched tree, built with the same compiler and sanitizers.
BASELINE_TREE = BUILD / "libfuzzer-baseline"
BASELINE_PYTHON = BASELINE_TREE / "python"
FUZZ_OUT = BUILD / "libfuzzer-out"
TARGETS = ("fuzz_pycompile", "fuzz_marshal_code")
SANITIZERS = "address,undefined"
CFLAGS = f"-g -O1 -fno-omit-frame-pointer -fsanitize={SANITIZERS},fuzzer-no-link"
LDFLAGS = f"-fsanitize={SANITIZERS},fuzzer-no-link"
CONFIGURE_FLAGS = (f"CC=clang CXX=clang++ 'CFLAGS={CFLAGS}' 'LDFLAGS={LDFLAGS}' "
                   "--disable-shared --without-pymalloc --with-assertions")
# Leaks: an embedded interpreter that is never finalized holds what it made;
# CPython's own ASan CI runs with detect_leaks=0 too. marshal takes sizes
# from its input (upstream): an allocation over 1 GB fails as a MemoryError
# instead of stopping the run as an out-of-memory.
ASAN_OPTIONS = "detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=1024"
# Undefined behaviour stops the run, so that libFuzzer keeps the input.
UBSAN_OPTIONS = "print_stacktrace=1:halt_on_error=1"
MAX_LEN = {"fuzz_pycompile": 16383, "fuzz_marshal_code": 0x10000}  # the harnesses' limits
# fuzz_pycompile's first two bytes choose the start symbol and the optimization
# level (fuzzer.c's start_vals and optimize_vals): file input, optimize -1.
PYCOMPILE_PREFIX = b"\x02\x00"
LATE_DEFAULT = re.compile(r"\w\s*=>")

# Writes every code object compiled from the files named on the command line,
# nested ones included, as marshal data into the directory given first.
CORPUS_SCRIPT = r"""
import marshal, sys, types
out, files = sys.argv[1], sys.argv[2:]
n = 0
def walk(code):
    global n
    with open(f"{out}/code-{n:05d}.marshal", "wb") as fh:
        fh.write(marshal.dumps(code))
    n += 1
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            walk(c)
for name in files:
    with open(name, "rb") as fh:
        walk(compile(fh.read(), name, "exec"))
print(n)
"""


@dataclass
class Outcome:
    target: str
    seconds: float
    status: int
    executions: int | None = None
    coverage: str = "?"
    corpus: int = 0
    crashes: list[Path] = field(default_factory=list)  # ours: new artifacts
    ubsan: list[str] = field(default_factory=list)
    rerun: int = 0  # kept artifacts of earlier runs, rerun before fuzzing
    still_crashing: list[Path] = field(default_factory=list)  # of those, ours
    # set aside as upstream's: (where the artifact now is, what the baseline did)
    upstream: list[tuple[Path, str]] = field(default_factory=list)

    def failed(self, wanted_seconds: int) -> bool:
        """libFuzzer exits 0 after -max_total_time; anything else is a failure,
        and so is a crash of ours. In fork mode a sanitizer report halts a
        child, which writes an artifact: a report that no crash accounts for
        (one at exit writes none) is a failure too. With -ignore_crashes, the
        parent exits with the status of its last job, so a run whose last job
        crashed exits non-zero: that status is accounted for by the crash's
        artifact, judged as any other."""
        stopped_early = self.seconds < wanted_seconds * 0.95
        accounted = bool(self.crashes or self.upstream)
        unaccounted_ubsan = bool(self.ubsan) and not accounted
        unaccounted_status = self.status != 0 and not accounted
        return (bool(self.crashes or self.still_crashing) or unaccounted_ubsan
                or unaccounted_status or stopped_early)


def check_clang() -> None:
    require_clang_sanitizer(
        f"fuzzer,{SANITIZERS}", "#include <stddef.h>\n#include <stdint.h>\n"
        "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n",
        "libFuzzer", args=["-runs=1"], env=fuzz_env())


def build_trees(jobs: int) -> None:
    """build/libfuzzer from the patched tree, build/libfuzzer-baseline from the
    unpatched one, configured alike."""
    os.environ["ASAN_OPTIONS"] = ASAN_OPTIONS  # the build runs ./python
    os.environ["UBSAN_OPTIONS"] = UBSAN_OPTIONS
    for tree, source in ((FUZZ_TREE, TREE), (BASELINE_TREE, BASELINE)):
        clone_tree(source.absolute(), tree.absolute())
        build(tree, name=tree.name, configure_flags=CONFIGURE_FLAGS, regen=True, jobs=jobs)


def config_var(name: str) -> str:
    proc = run([FUZZ_TREE / "python", "-c",
                f"import sysconfig; print(sysconfig.get_config_var({name!r}) or '')"],
               env=fuzz_env(), capture=True)
    return proc.stdout.strip()


def link_target(target: str) -> Path:
    """fuzzer.c built for one target, linked like Programs/python against the
    static libpython (with -export-dynamic, so extension modules load)."""
    src = FUZZ_TREE / "Modules" / "_xxtestfuzz" / "fuzzer.c"
    obj = FUZZ_OUT / target / "fuzzer.o"
    exe = FUZZ_TREE / target
    obj.parent.mkdir(parents=True, exist_ok=True)
    say(f"libFuzzer: linking {rel(exe)}")
    run(["clang", *CFLAGS.split(), "-I", FUZZ_TREE, "-I", FUZZ_TREE / "Include",
         "-I", FUZZ_TREE / "Include" / "internal", "-D_Py_FUZZ_ONE",
         f"-D_Py_FUZZ_{target}", "-Wno-unused-function", "-c", src, "-o", obj])
    libs = " ".join(config_var(v) for v in ("LIBS", "MODLIBS", "SYSLIBS"))
    run(["clang++", f"-fsanitize=fuzzer,{SANITIZERS}", "-Xlinker", "-export-dynamic",
         obj, "-o", exe, FUZZ_TREE / config_var("LIBRARY"), *libs.split(),
         "-lpthread", "-lm", "-lutil"])
    return exe


def late_default_sources() -> list[Path]:
    """The tree's test files that use `=>` (our tests and the grammar's)."""
    return [path for path in sorted((FUZZ_TREE / "Lib" / "test").rglob("*.py"))
            if LATE_DEFAULT.search(path.read_text(encoding="utf-8", errors="replace"))]


def source_chunks(text: str, limit: int) -> list[str]:
    """text cut into pieces of at most limit bytes that use `=>`: cut before
    each statement at the top level or one level in (a method of a test
    class), each piece dedented so that it compiles on its own."""
    pieces: list[str] = []
    current: list[str] = []
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        starts = indent in (0, 4) and stripped[:1] not in ("", "\n", "#", ")", "]", "}")
        if starts and current:
            pieces.append(textwrap.dedent("".join(current)))
            current = []
        current.append(line)
    pieces.append(textwrap.dedent("".join(current)))
    # a class statement's header line, without the methods cut from it
    pieces = [p for p in pieces if not p.rstrip().endswith(":")]
    chunks, chunk = [], ""
    for piece in pieces:
        if len((chunk + piece).encode()) > limit and chunk:
            chunks.append(chunk)
            chunk = ""
        chunk += piece
    chunks.append(chunk)
    return [c for c in chunks if len(c.encode()) <= limit and LATE_DEFAULT.search(c)]


def seed_corpus(target: str) -> Path:
    corpus = FUZZ_OUT / target / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    sources = late_default_sources()
    if target == "fuzz_pycompile":
        seeds = FUZZ_TREE / "Modules" / "_xxtestfuzz" / "fuzz_pycompile_corpus"
        for path in sorted(seeds.iterdir()):
            (corpus / f"seed-{path.name}").write_bytes(path.read_bytes())
        limit = MAX_LEN[target] - len(PYCOMPILE_PREFIX)
        count = 0
        for path in sources:
            text = path.read_text(encoding="utf-8", errors="replace")
            for i, chunk in enumerate(source_chunks(text, limit)):
                (corpus / f"seed-{path.stem}-{i}.py").write_bytes(
                    PYCOMPILE_PREFIX + chunk.encode())
                count += 1
        say(f"libFuzzer: {count} seeds with `=>` cut from {len(sources)} files")
    else:
        proc = run([FUZZ_TREE / "python", "-c", CORPUS_SCRIPT, corpus, *sources],
                   env=fuzz_env(), capture=True)
        say(f"libFuzzer: {proc.stdout.strip()} code objects marshalled from "
            f"{len(sources)} files")
    return corpus


def fuzz_env() -> dict[str, str]:
    return scrubbed_env({"ASAN_OPTIONS": ASAN_OPTIONS, "UBSAN_OPTIONS": UBSAN_OPTIONS})


def dictionary(target: str) -> list[str]:
    path = FUZZ_TREE / "Modules" / "_xxtestfuzz" / "dictionaries" / f"{target}.dict"
    return [f"-dict={path}"] if path.exists() else []


PROGRESS_EVERY = 300  # seconds between progress lines of a long run
# One child process fuzzes at a time; a crash, a timeout or an out-of-memory
# ends the child (which writes its artifact), and the next one goes on.
FORK = ["-fork=1", "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1"]
UBSAN_LINE = re.compile(r"^(\S+:\d+:\d+: runtime error: .*)$", re.M)
# `#52313\tNEW    cov: 1702 ft: 3001 corp: 77/19Kb ...` in a plain run;
# `#6624: cov: 46531 ft: 43119 corp: 1367 exec/s 131 ...` from fork mode's parent
STATUS_LINE = re.compile(r"^#(\d+)(?::|\s+\S+)\s+cov: (\d+) ft: (\d+) corp: (\d+)", re.M)
DONE_LINE = re.compile(r"^Done (\d+) runs in (\d+) second", re.M)


def parse_log(target: str, text: str, seconds: float, status: int) -> Outcome:
    """What a libFuzzer run's output says: its last status line (executions,
    coverage, corpus), its final `Done N runs in S seconds`, and the distinct
    UndefinedBehaviorSanitizer reports (a location and a message each)."""
    outcome = Outcome(target, seconds, status)
    statuses = STATUS_LINE.findall(text)
    if statuses:
        execs, cov, ft, corp = statuses[-1]
        outcome.executions, outcome.coverage = int(execs), f"cov {cov}, ft {ft}"
        outcome.corpus = int(corp)
    done = DONE_LINE.search(text)
    if done:
        outcome.executions = int(done.group(1))
        outcome.seconds = float(done.group(2))
    outcome.ubsan = sorted(set(UBSAN_LINE.findall(text)))
    return outcome


ARTIFACTS = ("crash-", "leak-", "timeout-", "oom-")  # what libFuzzer keeps of a failure
# fuzzing's limits, which make an input a timeout or an out-of-memory
LIMITS = ["-timeout=30", "-rss_limit_mb=4096"]


def artifacts(target: str) -> list[Path]:
    """The artifacts in build/libfuzzer-out/<target>/ (of this run and earlier ones)."""
    out = FUZZ_OUT / target
    if not out.is_dir():
        return []
    return sorted(p.absolute() for p in out.iterdir()
                  if p.is_file() and p.name.startswith(ARTIFACTS))


def rerun_command(exe: Path, inputs: Sequence[Path], prefix: str) -> list[str]:
    """The harness run on inputs with fuzzing's limits; what a crash writes goes
    under prefix (so that the kept artifact is not written anew)."""
    return [str(exe), *LIMITS, f"-artifact_prefix={prefix}", *map(str, inputs)]


def reproduce_command(target: str, artifact: Path) -> str:
    """The command that reruns an artifact as fuzzing ran it (its environment too)."""
    return shlex.join([f"ASAN_OPTIONS={ASAN_OPTIONS}", f"UBSAN_OPTIONS={UBSAN_OPTIONS}",
                       rel(FUZZ_TREE / target), *LIMITS, rel(artifact)])


def rerun_artifacts(target: str, exe: Path) -> tuple[int, list[Path]]:
    """Run the artifacts kept from earlier runs of target once each, as
    regression cases, with fuzzing's environment and limits. Returns how many
    were rerun and those that still crash; the output is in rerun.log."""
    kept = artifacts(target)
    if not kept:
        return 0, []
    log = FUZZ_OUT / target / "rerun.log"
    say(f"libFuzzer: rerunning {len(kept)} kept artifacts of {target} (log: {rel(log)})")
    crashed: list[Path] = []
    with open(log, "w", encoding="utf-8", errors="replace") as fh, \
            tempfile.TemporaryDirectory() as tmp:
        for path in kept:
            cmd = rerun_command(exe, [path], f"{tmp}/")
            fh.write(f"$ {shlex.join(cmd)}\n")
            proc = subprocess.run(cmd, cwd=tmp, env=fuzz_env(), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, errors="replace")
            fh.write(f"{proc.stdout}(exit {proc.returncode})\n")
            if proc.returncode != 0:
                say(f"libFuzzer: {target}: {rel(path)} still crashes")
                crashed.append(path)
    return len(kept), crashed


# The upstream twin of each base instruction that only the series has: it takes
# the same operand with the same stack effect (QUERY_FAST pushes a bool where
# LOAD_FAST pushes the local). A specialized instruction's twin is its family's.
TWIN_OF = {"QUERY_FAST": "LOAD_FAST", "QUERY_DEREF": "LOAD_DEREF"}

# Run by each interpreter: its instructions by name, with number, family and
# inline cache entries.
INSTRUCTIONS = """
import json, opcode
caches = opcode._inline_cache_entries
family = {m: base for base, members in opcode._specializations.items() for m in members}
print(json.dumps({name: [number, family.get(name, name),
                         caches.get(family.get(name, name), 0)]
                  for name, number in {**opcode.opmap,
                                       **opcode._specialized_opmap}.items()}))
"""


@functools.cache
def twin_table(ours: Path, theirs: Path) -> dict[str, dict[str, object]]:
    """How the unpatched interpreter `theirs` reads code laid out by the series'
    interpreter `ours`: "caches", the inline cache entries of each of ours'
    instruction numbers; "twins", for each number whose instruction `theirs` lacks
    or numbers otherwise, the number of its twin in `theirs` (TWIN_OF, the family's
    base) and the twin's cache entries."""
    def instructions(python: Path) -> dict[str, list]:
        out = run([python, "-I", "-c", INSTRUCTIONS], capture=True).stdout
        return json.loads(out)
    mine, upstream = instructions(ours), instructions(theirs)
    caches = {str(number): n for number, _, n in mine.values()}
    twins: dict[str, object] = {}
    for name, (number, base, n) in mine.items():
        if name in upstream and upstream[name][0] == number:
            continue
        twin = TWIN_OF.get(base, base)
        if twin in upstream and upstream[twin][2] <= n:
            twins[str(number)] = [upstream[twin][0], upstream[twin][2]]
    return {"caches": caches, "twins": twins}


# Run by the unpatched interpreter with the JSON of twin_table() as its second
# argument (none: nothing to translate): twin(code) is code with the series'
# instructions translated to their twins, the cache entries a twin lacks made
# NOPs, its nested code objects too; code itself when replace() refuses the
# translation (then no upstream code is nearer).
TWIN = """
import json, opcode, sys
_TABLE = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {"caches": {}, "twins": {}}
_CACHES = {int(k): v for k, v in _TABLE["caches"].items()}
_TWINS = {int(k): v for k, v in _TABLE["twins"].items()}
def twin(code):
    # the bytes as loaded (co_code would show an unknown instruction as CACHE)
    raw = bytearray(code._co_code_adaptive)
    i = 0
    while i < len(raw):
        op = raw[i]
        n = _CACHES.get(op, 0)
        if op in _TWINS:
            raw[i], own = _TWINS[op]
            for j in range(own + 1, n + 1):
                raw[i + 2 * j:i + 2 * j + 2] = bytes([opcode.opmap["NOP"], 0])
        i += 2 * (1 + n)
    consts = tuple(twin(c) if isinstance(c, type(code)) else c
                   for c in code.co_consts)
    try:
        return code.replace(co_code=bytes(raw), co_consts=consts)
    except Exception:
        return code
"""

# What each harness does with its input, in Python, for the unpatched
# interpreter (build/libfuzzer-baseline/python). os.abort() stands where the
# harness aborts. A sanitizer report or a baseline killed by a signal on an
# artifact shows the fault to be upstream's. fuzz_marshal_code's reads are the harness's own: replace()
# (ValueError allowed), co_code, marshal.dumps(), any other exception but
# MemoryError an abort; the harness takes any exception of loads() as bad data.
# The code object read is its twin (TWIN above).
BASELINE_READS = {
    "fuzz_pycompile": r"""
import os, sys
data = open(sys.argv[1], "rb").read()
if 2 <= len(data) <= 16383:
    mode = ("eval", "single", "exec")[data[0] % 3]
    optimize = (-1, 0, 1, 2)[data[1] % 4]
    source = data[2:].split(b"\0", 1)[0]  # the harness compiles a C string
    try:
        compile(source, "<fuzz input>", mode, optimize=optimize, dont_inherit=True)
    except SystemError:
        os.abort()
    except Exception:
        pass
""",
    "fuzz_marshal_code": TWIN + r"""
import marshal, os, sys, types
data = open(sys.argv[1], "rb").read()
try:
    obj = marshal.loads(data) if len(data) <= 0x10000 else None
except Exception:
    obj = None
if isinstance(obj, types.CodeType):
    obj = twin(obj)
    try:
        try:
            obj.replace()
        except ValueError:
            pass
        obj.co_code
        marshal.dumps(obj)
    except MemoryError:
        pass
    except Exception:
        os.abort()
""",
}
BASELINE_TIMEOUT = 30  # fuzzing's -timeout
# the baseline's exit status when a sanitizer reports (sanitizers' common flag
# exitcode), which a Python exception cannot give
SANITIZER_EXITCODE = 86
SANITIZER_REPORT = re.compile(
    r"ERROR: AddressSanitizer: (?P<asan>[\w-]+)|(?P<ubsan>\S+:\d+:\d+: runtime error: .*)")
FIRST_FRAME = re.compile(r"^\s*#0 0x[0-9a-f]+ in (\S+)", re.M)


def baseline_fault(target: str, artifact: Path) -> str | None:
    """What the unpatched interpreter, built with the harness's sanitizers, does
    wrong on artifact, read as target's harness reads it: a sanitizer report (its
    kind and first frame), killed by a signal, or no result in fuzzing's time
    limit; None when it reads it and exits. Its memory is limited by ASan's
    allocator as in fuzzing (ASAN_OPTIONS), not by an address-space limit, which
    ASan's shadow memory would exceed."""
    env = fuzz_env()
    env["ASAN_OPTIONS"] += f":exitcode={SANITIZER_EXITCODE}"
    env["UBSAN_OPTIONS"] += f":exitcode={SANITIZER_EXITCODE}"
    cmd = [str(BASELINE_PYTHON), "-c", BASELINE_READS[target], str(artifact)]
    if target == "fuzz_marshal_code":
        cmd.append(json.dumps(twin_table(PYTHON, BASELINE_PYTHON)))
    try:
        proc = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, errors="replace", timeout=BASELINE_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"no result in {BASELINE_TIMEOUT} s"
    if proc.returncode < 0:
        return f"killed by {signal.Signals(-proc.returncode).name}"
    if proc.returncode == SANITIZER_EXITCODE:
        report = SANITIZER_REPORT.search(proc.stderr)
        frame = FIRST_FRAME.search(proc.stderr)
        what = (report.group("asan") or report.group("ubsan")) if report else "a report"
        return f"sanitizer: {what}" + (f" in {frame.group(1)}" if frame else "")
    return None


def set_aside_upstream(target: str, crashes: Sequence[Path]
                       ) -> tuple[list[Path], list[tuple[Path, str]]]:
    """(ours, upstream's) of crashes, by the baseline's oracle. Upstream's
    artifacts are moved to build/libfuzzer-out/<target>/upstream/, so that
    the next runs do not rerun them as regression cases of ours."""
    ours: list[Path] = []
    upstream: list[tuple[Path, str]] = []
    for path in crashes:
        fault = baseline_fault(target, path)
        if fault is None:
            ours.append(path)
            continue
        moved = path.parent / "upstream" / path.name
        moved.parent.mkdir(exist_ok=True)
        path.replace(moved)
        say(f"libFuzzer: {target}: {rel(path)} is upstream's "
            f"({rel(BASELINE_PYTHON)}: {fault}): moved to {rel(moved)}")
        upstream.append((moved, fault))
    return ours, upstream


def require_baseline() -> None:
    if not (BASELINE / "configure").exists():
        raise ToolError(f"{rel(BASELINE)}, the unpatched tree that classifies the "
                        "crashes, is missing: run `make baseline` first")


def run_targets(exes: dict[str, Path], seconds: int, seed: int,
                reruns: dict[str, tuple[int, list[Path]]] | None = None) -> list[Outcome]:
    procs = {}
    wall_start = time.time()
    started: dict[str, float] = {}
    for target, exe in exes.items():
        corpus = seed_corpus(target)
        started[target] = time.monotonic()
        out = FUZZ_OUT / target
        log = out / f"fuzz-seed{seed}.log"
        cmd = [exe, *FORK, *dictionary(target), f"-seed={seed}",
               f"-max_total_time={seconds}",
               f"-max_len={MAX_LEN[target]}",
               f"-artifact_prefix={out}/", "-print_final_stats=1", "-timeout=30",
               "-rss_limit_mb=4096", corpus]
        say(f"libFuzzer: {target} for {seconds} s, seed {seed} (log: {rel(log)})")
        fh = open(log, "w", encoding="utf-8", errors="replace")
        procs[target] = (subprocess.Popen([str(c) for c in cmd], cwd=out, env=fuzz_env(),
                                          stdin=subprocess.DEVNULL, stdout=fh,
                                          stderr=subprocess.STDOUT), fh, log)
    next_progress = time.monotonic() + PROGRESS_EVERY
    ended: dict[str, float] = {}
    try:
        while any(proc.poll() is None for proc, _, _ in procs.values()):
            time.sleep(5)
            for target, (proc, _, _) in procs.items():
                if proc.poll() is not None:
                    ended.setdefault(target, time.monotonic())
            if time.monotonic() < next_progress:
                continue
            next_progress += PROGRESS_EVERY
            for target, (proc, _, log) in procs.items():
                text = log.read_text(encoding="utf-8", errors="replace")
                statuses = STATUS_LINE.findall(text)
                if proc.poll() is None and statuses:
                    execs, cov, ft, corp = statuses[-1]
                    say(f"libFuzzer: {target}: {int(execs):,} executions, cov {cov}, "
                        f"ft {ft}, corpus {corp} after "
                        f"{time.monotonic() - started[target]:.0f} s")
    finally:
        for proc, _, _ in procs.values():
            if proc.poll() is None:
                proc.kill()
    outcomes = []
    for target, (proc, fh, log) in procs.items():
        status = proc.wait()
        fh.close()
        text = log.read_text(encoding="utf-8", errors="replace")
        elapsed = ended.get(target, time.monotonic()) - started[target]
        outcome = parse_log(target, text, elapsed, status)
        new = [p for p in artifacts(target) if p.stat().st_mtime >= wall_start]
        rerun, still_crashing = (reruns or {}).get(target, (0, []))
        outcome.rerun = rerun
        outcome.still_crashing, upstream = set_aside_upstream(target, still_crashing)
        outcome.crashes, upstream_new = set_aside_upstream(target, new)
        outcome.upstream = upstream + upstream_new
        outcomes.append(outcome)
    return outcomes


def report(outcomes: list[Outcome], seconds: int, seed: int) -> bool:
    ok = True
    for o in outcomes:
        failed = o.failed(seconds)
        ok &= not failed
        execs = f"{o.executions:,}" if o.executions is not None else "?"
        print(f"{o.target}: {'FAILED' if failed else 'ok'}: {execs} executions in "
              f"{o.seconds:.0f} s (seed {seed}), {o.coverage}, corpus {o.corpus}, "
              f"{len(o.crashes)} crashes, {len(o.ubsan)} undefined-behaviour reports, "
              f"exit {o.status}; {o.rerun} kept artifacts of earlier runs rerun, "
              f"{len(o.still_crashing)} of them still crash; {len(o.upstream)} crashes "
              f"set aside as upstream's")
        for path in o.still_crashing:
            print(f"  still crashes: {rel(path)} (reproduce: {reproduce_command(o.target, path)})")
        for path in o.crashes:
            print(f"  crash: {rel(path)} (reproduce: {rel(FUZZ_TREE / o.target)} {rel(path)})")
        for path, fault in o.upstream:
            print(f"  upstream's: {rel(path)} ({rel(BASELINE_PYTHON)}: {fault})")
        for line in o.ubsan:
            print(f"  ubsan: {line}")
    return ok


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.check.libfuzzer", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=600, help="per target (default 600)")
    ap.add_argument("--seed", type=int, default=1, help="libFuzzer's -seed")
    ap.add_argument("--targets", default=",".join(TARGETS),
                    help=f"comma-separated, of {', '.join(TARGETS)}")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="for the build")
    ap.add_argument("--no-build", action="store_true",
                    help="reuse build/libfuzzer and build/libfuzzer-baseline as they are "
                         "(they must have been built)")
    args = ap.parse_args(argv)
    targets = [t for t in args.targets.split(",") if t]
    unknown = sorted(set(targets) - set(TARGETS))
    if unknown:
        ap.error(f"unknown targets {', '.join(unknown)}: choose from {', '.join(TARGETS)}")
    check_clang()
    require_baseline()
    if not args.no_build:
        build_trees(args.jobs)
    for tree in (FUZZ_TREE, BASELINE_TREE):
        if not (tree / "python").exists():
            raise ToolError(f"{rel(tree)} is not built: run without --no-build")
    exes = {target: link_target(target) for target in targets}
    reruns = {target: rerun_artifacts(target, exe) for target, exe in exes.items()}
    outcomes = run_targets(exes, args.seconds, args.seed, reruns)
    return 0 if report(outcomes, args.seconds, args.seed) else 1


if __name__ == "__main__":
    sys.exit(main())
