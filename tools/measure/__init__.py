"""Measurements that make bench (bench/) and make dogfood (tools.dogfood) share, and the
PEP's census of the C functions (clinic_census, run by hand).

  model          an interpreter under test, the parts and state of a run, geomean and
                 ratios with their spread
  pyperformance  the pyperformance subset counted by callgrind (instructions per loop,
                 startup cancelled out), and count_pyperformance(): two interpreters in
                 venvs of bench/requirements.txt, with the late-default calls of a loop
  late_calls     run by the measured interpreter: counts the calls of functions with
                 late defaults (``PYTHON -m tools.measure.late_calls --help``)
  pyperf_data    run by a bench venv's python: pyperf's JSON files read with its API
  clinic_census  the PEP's census of the C functions: Argument Clinic's declarations of a
                 tree counted, and its table of computed defaults checked
                 (``python3 -m tools.measure.clinic_census --help``)

bench/ imports these; nothing in tools/ imports bench/.
"""
