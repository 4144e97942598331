"""Checking the interpreter: each module runs one kind of test and says what failed.

  regrtest_parity     CPython's suite in parity mode: a failure counts only if it fails
                      again alone and passes on the unpatched baseline (make regrtest)
  run_pytest          tests/ with pytest from a venv of ./python (make pytest)
  scrubbed            a command in the environment CPython's tests get: no PYTHON* variable
  series_check        each prefix of patches/series built, regenerated and tested with its
                      patch's own tests (make series-check)
  fuzz_late_defaults  the differential fuzzer: late defaults against the None idiom
                      (make fuzz)
  fuzz_grammar        => injected into Lib/ and hypothesmith programs (make fuzz-grammar)
  oracles             the specialization, code-object and introspection oracles
                      (make oracles)
  libfuzzer           CPython's fuzz_pycompile and fuzz_marshal_code under libFuzzer with
                      ASan and UBSan, crashes judged by a sanitized baseline (make libfuzzer)
  tsan, tsan_workload the free-threaded ThreadSanitizer build and its threads' workload
                      (make tsan)

Run one as ``python3 -m tools.check.NAME --help``; docs/testing.md says what each catches.
"""
