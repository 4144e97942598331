"""tools.libfuzzer: what it reads from a libFuzzer run decides its verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from tools import libfuzzer
from tools.common import ToolError, require_clang_sanitizer
from tools.libfuzzer import parse_log, rerun_verdict

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


def test_seeds_are_pieces_the_harness_takes_in_file_mode() -> None:
    from tools.libfuzzer import MAX_LEN, PYCOMPILE_PREFIX, source_chunks
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


# What libFuzzer (LLVM 14) prints when it is given files instead of a corpus
# directory: it runs each once, and a crash ends the run.
def rerun_output(passed: list[str], crashed: str | None = None) -> str:
    lines = ["INFO: Seed: 1",
             f"./fuzz_marshal_code: Running {len(passed) + 1} inputs 1 time(s) each."]
    for path in passed:
        lines += [f"Running: {path}", f"Executed {path} in 3 ms"]
    if crashed:
        lines += [f"Running: {crashed}",
                  "==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020",
                  "SUMMARY: AddressSanitizer: heap-buffer-overflow Objects/codeobject.c:812:19",
                  "==4242==ABORTING"]
    else:
        lines += ["***", "*** NOTE: fuzzing was not performed, you have only",
                  "***       executed the target code on a fixed set of inputs.", "***"]
    return "\n".join(lines) + "\n"


def test_a_rerun_artifact_that_crashes_is_found_and_the_rest_run_again() -> None:
    a, b, c = (Path(f"/out/fuzz_marshal_code/crash-{x}") for x in "abc")
    assert rerun_verdict([a, b, c], rerun_output([str(a), str(b), str(c)]), 0) == ([a, b, c], [])
    # b crashes: a passed, b crashed, c is not decided (it is run again)
    assert rerun_verdict([a, b, c], rerun_output([str(a)], str(b)), 1) == ([a], [b])
    # a failure before any input (or after all of them) decides none ...
    assert rerun_verdict([a, b], "==1==ERROR: AddressSanitizer: SEGV\n", 1) == ([], [])
    assert rerun_verdict([a, b], rerun_output([str(a), str(b)]), 1) == ([], [])
    # ... but alone an input that does not run to its end crashed
    assert rerun_verdict([a], rerun_output([str(a)]), 0) == ([a], [])
    assert rerun_verdict([a], rerun_output([str(a)]), 77) == ([], [a])
    assert rerun_verdict([a], "", 0) == ([], [a])


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
    assert len(calls) == 2  # all of them; then the three after crash-2
    assert set(out.iterdir()) - before == {out / "rerun.log"}  # no artifact written anew
    assert "Running: " in (out / "rerun.log").read_text()

    outcome = libfuzzer.parse_log("fuzz_marshal_code", RUN.replace("runtime error", "note"),
                                  61.0, 0)
    assert not outcome.failed(60)
    outcome.rerun, outcome.still_crashing = count, crashed
    assert outcome.failed(60)
    assert not libfuzzer.report([outcome], 60, 1)
    printed = capsys.readouterr().out
    assert "5 kept artifacts of earlier runs rerun, 2 of them still crash" in printed
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
