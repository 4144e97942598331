# The autodoc page of `make docs` (tools/docs/build_docs.py autodoc): the module
# sequences.py beside this file, documented by the patched Sphinx of
# ecosystem/patched/sphinx/ from build/ecosystem/venv, warnings being errors.
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

project = "pep671: late-bound defaults in autodoc"
extensions = ["sphinx.ext.autodoc"]
exclude_patterns = ["_build"]
html_theme = "alabaster"
