"""tools.libfuzzer: what it reads from a libFuzzer run decides its verdict."""

from __future__ import annotations

from tools.libfuzzer import parse_log

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
