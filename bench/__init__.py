"""pep671's benchmarks: what late-bound defaults cost (see bench/README.md).

Run from the repository root: ``python3 -m bench.run`` measures (make bench,
make bench-quick) and ``python -m bench.report`` renders the report from the
saved results (make bench-report). Modules: run (the driver), callgrind and
timed (the measured parts), report; micro/ holds the microbenchmarks, run as
scripts by the interpreters under test. What make dogfood measures too (the
state of a run, pyperformance under callgrind, pyperf's files) is imported from
tools.measure: bench sits on top of tools, never the reverse.
"""
