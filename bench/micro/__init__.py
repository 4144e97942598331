"""The microbenchmarks: suites.py defines them; harness.py and pyperf_micro.py are
scripts that the interpreters under test run (not imported by the driver)."""
