"""pep671's benchmarks: what late-bound defaults cost (see bench/README.md).

Run from the repository root: ``python3 -m bench.run`` measures (make bench,
make bench-quick) and ``python -m bench.report`` renders the report from the
saved results (make bench-report). Modules: run (the driver), callgrind and
timed (the measured parts), model (what they share), pyperf_data (pyperf's
files read with its API, in the bench venv), report; micro/ holds the
microbenchmarks, run as scripts by the interpreters under test.
"""
