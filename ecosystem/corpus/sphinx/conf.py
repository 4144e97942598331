# A tiny Sphinx project over the shared corpus (../late_defaults.py), for the
# ecosystem check of ecosystem/patched/sphinx: build it with warnings as errors,
#     sphinx-build -W -b html ecosystem/corpus/sphinx OUTDIR
# from an environment of the patched interpreter.
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

project = "late_defaults"
extensions = ["sphinx.ext.autodoc"]
exclude_patterns = ["_build"]
