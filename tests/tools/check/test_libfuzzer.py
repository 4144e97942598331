"""tools.check.libfuzzer: what it reads from a libFuzzer run decides its verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from tools.check import libfuzzer
from tools.common import ToolError, require_clang_sanitizer
from tools.check.libfuzzer import parse_log

# The shape of libFuzzer's output (LLVM 14), cut down.
RUN = """\
INFO: Seed: 671
#2	INITED cov: 1510 ft: 2201 corp: 40/9Kb exec/s: 0 rss: 90Mb
#4096	pulse  cov: 1604 ft: 2600 corp: 52/11Kb lim: 4096 exec/s: 2048 rss: 120Mb
#52313	NEW    cov: 1702 ft: 3001 corp: 77/19Kb lim: 4096 exec/s: 871 rss: 160Mb L: 90/4096
Objects/codeobject.c:812:19: runtime error: left shift of 1 by 31 places cannot be represented in type 'int'
Objects/codeobject.c:812:19: runtime error: left shift of 1 by 31 places cannot be represented in type 'int'
Done 53001 runs in 60 second(s)
stat::number_of_executed_units: 53001
"""


def test_the_last_counts_are_reported() -> None:
    outcome = parse_log("fuzz_marshal_code", RUN, 61.0, 0)
    assert outcome.executions == 53001
    assert outcome.coverage == "cov 1702, ft 3001"
    assert outcome.corpus == 77
    assert outcome.seconds == 60


def test_undefined_behaviour_is_a_failure_reported_once() -> None:
    outcome = parse_log("fuzz_marshal_code", RUN, 61.0, 0)
    assert outcome.ubsan == [
        "Objects/codeobject.c:812:19: runtime error: left shift of 1 by 31 places "
        "cannot be represented in type 'int'"]
    assert outcome.failed(60)


def test_a_clean_full_run_passes_and_an_early_stop_fails() -> None:
    clean = RUN.replace("Objects/codeobject.c:812:19: runtime error", "note")
    assert not parse_log("fuzz_pycompile", clean, 61.0, 0).failed(60)
    early = clean.replace("in 60 second(s)", "in 12 second(s)")
    assert parse_log("fuzz_pycompile", early, 13.0, 1).failed(60)


# What the parent prints in fork mode (LLVM 14): a status line per job, and of a
# job that crashed its sanitizer's error lines.
FORK_RUN = """\
INFO: -fork=1: fuzzing in separate process(s)
INFO: -fork=1: 1365 seed inputs, starting to fuzz in /tmp/libFuzzerTemp.FuzzWithFork1.dir
#306: cov: 43117 ft: 43117 corp: 1365 exec/s 153 oom/timeout/crash: 0/0/0 time: 45s job: 1 dft_time: 0
==77==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000018
Python/marshal.c:1208:17: runtime error: member access within null pointer of type 'PyObject'
#6624: cov: 46531 ft: 43119 corp: 1367 exec/s 131 oom/timeout/crash: 0/0/1 time: 3601s job: 80 dft_time: 0
INFO: fuzzed for 3601 seconds, wrapping up soon
INFO: exiting: 0 time: 3601s
"""


def test_fork_mode_counts_and_a_crash_that_is_upstreams() -> None:
    outcome = parse_log("fuzz_marshal_code", FORK_RUN, 3602.0, 0)
    assert (outcome.executions, outcome.coverage, outcome.corpus) == (
        6624, "cov 46531, ft 43119", 1367)
    assert outcome.ubsan == ["Python/marshal.c:1208:17: runtime error: member access "
                             "within null pointer of type 'PyObject'"]
    assert outcome.failed(3600)  # a report that no crash accounts for
    outcome.upstream = [(Path("upstream/crash-1"), "killed by SIGSEGV")]
    assert not outcome.failed(3600)
    outcome.crashes = [Path("crash-2")]
    assert outcome.failed(3600)


def test_a_fork_run_whose_last_job_crashed_exits_with_its_status() -> None:
    # With -ignore_crashes, the parent exits with the status of its last job:
    # that crash has an artifact, and the artifact decides.
    last_crashed = FORK_RUN.replace("INFO: exiting: 0", "INFO: exiting: 1")
    outcome = parse_log("fuzz_marshal_code", last_crashed, 3602.0, 1)
    assert outcome.failed(3600)  # no artifact accounts for the status
    outcome.upstream = [(Path("upstream/crash-1"), "sanitizer: heap-buffer-overflow")]
    assert not outcome.failed(3600)
    outcome.crashes = [Path("crash-2")]
    assert outcome.failed(3600)


FAKE_BASELINE = """\
#!/bin/sh
# python -c SCRIPT ARTIFACT: killed by SIGSEGV on an artifact that says BOOM,
# sleeps on one that says SLOW, reports as ASan does (with the exit status that
# ASAN_OPTIONS asks for) on one that says OVERFLOW, and fails as a Python
# exception does on one that says RAISE
grep -q BOOM "$3" && kill -SEGV $$
grep -q SLOW "$3" && sleep 5
if grep -q OVERFLOW "$3"; then
    echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6" >&2
    echo "    #0 0x55d0 in deopt_code Objects/codeobject.c:1695:37" >&2
    exit "$(echo "$ASAN_OPTIONS" | sed 's/.*exitcode=\\([0-9]*\\).*/\\1/')"
fi
grep -q RAISE "$3" && exit 1
exit 0
"""


def test_crashes_the_baseline_shares_are_set_aside_as_upstreams(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    baseline = tmp_path / "python"
    baseline.write_text(FAKE_BASELINE)
    baseline.chmod(0o755)
    monkeypatch.setattr(libfuzzer, "BASELINE_PYTHON", baseline)
    monkeypatch.setattr(libfuzzer, "BASELINE_TIMEOUT", 1)
    monkeypatch.setattr(libfuzzer, "twin_table",
                        lambda ours, theirs: {"caches": {}, "twins": {}})
    out = tmp_path / "fuzz_marshal_code"
    out.mkdir()
    inputs = [("crash-a", "BOOM"), ("crash-b", "fine"), ("timeout-c", "SLOW"),
              ("crash-d", "OVERFLOW"), ("crash-e", "RAISE")]
    for name, text in inputs:
        (out / name).write_text(text)
    ours, upstream = libfuzzer.set_aside_upstream(
        "fuzz_marshal_code", [out / name for name, _ in inputs])
    assert ours == [out / "crash-b", out / "crash-e"]
    assert upstream == [(out / "upstream" / "crash-a", "killed by SIGSEGV"),
                        (out / "upstream" / "timeout-c", "no result in 1 s"),
                        (out / "upstream" / "crash-d",
                         "sanitizer: heap-buffer-overflow in deopt_code")]
    assert sorted(p.name for p in out.iterdir()) == ["crash-b", "crash-e", "upstream"]
    monkeypatch.setattr(libfuzzer, "FUZZ_OUT", tmp_path)
    # not rerun again
    assert libfuzzer.artifacts("fuzz_marshal_code") == [out / "crash-b", out / "crash-e"]


@pytest.mark.parametrize("target", libfuzzer.TARGETS)
def test_the_baseline_reads_run_on_this_python(target: str, tmp_path: Path) -> None:
    # each read is Python that the baseline runs: here, on inputs that load
    import marshal
    import subprocess
    import sys
    artifact = tmp_path / "input"
    artifact.write_bytes(b"\x02\x00def f(a, b=1):\n    return a\n"
                         if target == "fuzz_pycompile"
                         else marshal.dumps(compile("def f(a, b=1): return a", "<s>", "exec")))
    proc = subprocess.run([sys.executable, "-c", libfuzzer.BASELINE_READS[target], artifact],
                          capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (0, "")


def test_seeds_are_pieces_the_harness_takes_in_file_mode() -> None:
    from tools.check.libfuzzer import MAX_LEN, PYCOMPILE_PREFIX, source_chunks
    # fuzzer.c: start_vals = {Py_eval_input, Py_single_input, Py_file_input}
    assert PYCOMPILE_PREFIX[0] % 3 == 2
    methods = "".join(f"    def test_{i}(self, a, b=>[a] * {i}):\n        return b\n\n"
                      for i in range(400))
    text = "import unittest\n\nclass T(unittest.TestCase):\n" + methods + "x = 1\n"
    chunks = source_chunks(text, MAX_LEN["fuzz_pycompile"] - len(PYCOMPILE_PREFIX))
    assert len(chunks) > 1
    for chunk in chunks:
        assert len(chunk.encode()) <= 16381
        assert "class T" not in chunk           # methods dedented, header left out
        compile(chunk, "<seed>", "exec")
    assert sum(chunk.count("def test_") for chunk in chunks) == 400


FAKE_HARNESS = """\
#!/bin/sh
# runs its file arguments as libFuzzer does; a file that says BOOM crashes
echo "$@" >> "$(dirname "$0")/calls"
for a in "$@"; do
  case "$a" in -*) continue;; esac
  echo "Running: $a"
  if grep -q BOOM "$a"; then echo "==1==ERROR: AddressSanitizer: SEGV"; exit 1; fi
  echo "Executed $a in 1 ms"
done
"""


def test_kept_artifacts_are_rerun_and_those_that_still_crash_fail(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(libfuzzer, "FUZZ_OUT", tmp_path / "out")
    out = tmp_path / "out" / "fuzz_marshal_code"
    (out / "corpus").mkdir(parents=True)
    (out / "corpus" / "crash-not-an-artifact").write_text("BOOM")
    (out / "fuzz-seed1.log").write_text("")
    for name, text in [("crash-1", "ok"), ("crash-2", "BOOM"), ("oom-3", "ok"),
                       ("timeout-4", "BOOM"), ("leak-5", "ok")]:
        (out / name).write_text(text)
    before = set(out.iterdir())
    exe = tmp_path / "fuzz_marshal_code"
    exe.write_text(FAKE_HARNESS)
    exe.chmod(0o755)
    count, crashed = libfuzzer.rerun_artifacts("fuzz_marshal_code", exe)
    assert count == 5
    assert [p.name for p in crashed] == ["crash-2", "timeout-4"]
    assert "rerunning 5 kept artifacts of fuzz_marshal_code" in capsys.readouterr().err
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls[0].startswith("-timeout=30 -rss_limit_mb=4096 -artifact_prefix=")
    assert len(calls) == 5  # each alone
    assert set(out.iterdir()) - before == {out / "rerun.log"}  # no artifact written anew
    assert "Running: " in (out / "rerun.log").read_text()

    outcome = libfuzzer.parse_log("fuzz_marshal_code", RUN.replace("runtime error", "note"),
                                  61.0, 0)
    assert not outcome.failed(60)
    outcome.rerun, outcome.still_crashing = count, crashed
    assert outcome.failed(60)
    assert not libfuzzer.report([outcome], 60, 1)
    printed = capsys.readouterr().out
    assert ("5 kept artifacts of earlier runs rerun, 2 of them still crash; "
            "0 crashes set aside as upstream's") in printed
    command = libfuzzer.reproduce_command("fuzz_marshal_code", crashed[0])
    assert f"  still crashes: {libfuzzer.rel(crashed[0])} (reproduce: {command})" in printed
    assert command.startswith(f"ASAN_OPTIONS={libfuzzer.ASAN_OPTIONS} UBSAN_OPTIONS=")
    assert command.endswith(f"fuzz_marshal_code -timeout=30 -rss_limit_mb=4096 "
                            f"{libfuzzer.rel(crashed[0])}")


FAKE_CLANG = """\
#!/bin/sh
# links nothing: writes to its -o file a program that exits 0 only when it is
# given exactly the arguments a libFuzzer probe needs
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then out=$2; fi
  shift
done
printf '#!/bin/sh\\necho "$@" > %s.args\\n[ "$*" = "-runs=1" ]\\n' "$0" > "$out"
chmod +x "$out"
"""


def test_the_libfuzzer_probe_runs_once(fake_clang: Callable[[str], Path]) -> None:
    bin_dir = fake_clang(FAKE_CLANG)
    libfuzzer.check_clang()
    assert (bin_dir / "clang.args").read_text().split() == ["-runs=1"]
    with pytest.raises(ToolError, match=r"\(probe\) exited 1"):
        require_clang_sanitizer("fuzzer", "", "libFuzzer")


def test_the_baseline_reads_the_upstream_twin_of_our_instructions(tmp_path: Path) -> None:
    # The unpatched interpreter replays an artifact with the series' own
    # instructions translated to their upstream twins, in nested code too:
    # QUERY_FAST and QUERY_DEREF to LOAD_FAST and LOAD_DEREF, a specialized
    # instruction to its family's base.
    import json
    import subprocess

    from tools.paths import BASELINE_PYTHON, PYTHON
    if not BASELINE_PYTHON.exists():
        pytest.fail(f"{BASELINE_PYTHON} is missing: run `make baseline` (make test builds it)")
    table = libfuzzer.twin_table(PYTHON, BASELINE_PYTHON)

    def number(python: Path, name: str) -> int:
        return int(subprocess.run(
            [str(python), "-c", "import opcode, sys; print({**opcode.opmap, "
             "**opcode._specialized_opmap}[sys.argv[1]])", name],
            check=True, capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout)
    assert table["twins"][str(number(PYTHON, "QUERY_FAST"))][0] == \
        number(BASELINE_PYTHON, "LOAD_FAST")
    assert table["twins"][str(number(PYTHON, "CALL_PY_WITH_KWDEFAULTS"))][0] == \
        number(BASELINE_PYTHON, "CALL")
    data = tmp_path / "code.marshal"
    source = "def f(a, b=>a, c=>a):\n    return lambda: b\n"
    subprocess.run([str(PYTHON), "-c", "import marshal, sys; open(sys.argv[2], 'wb')"
                    ".write(marshal.dumps(compile(sys.argv[1], 'm', 'exec')))",
                    source, str(data)], check=True, stdin=subprocess.DEVNULL)
    read = libfuzzer.TWIN + (
        "import dis, marshal\n"
        "code = twin(marshal.loads(open(sys.argv[1], 'rb').read()))\n"
        "f = next(c for c in code.co_consts if hasattr(c, 'co_code'))\n"
        "print(' '.join(i.opname for i in dis.get_instructions(f)))\n")
    out = subprocess.run([str(BASELINE_PYTHON), "-c", read, str(data), json.dumps(table)],
                         check=True, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL).stdout
    names = out.split()
    assert names[:4] == ["MAKE_CELL", "RESUME", "LOAD_DEREF", "POP_JUMP_IF_TRUE"]
    assert "LOAD_FAST" in names[4:]
    assert not [name for name in names if name.startswith("<")]
