"""Sphinx configuration for rendering the PEP (tools/docs/build_docs pep)."""

project = "PEP 671"
author = "pep671 project"
root_doc = "pep-0671"
# Included into the PEP by an include directive, not a page of its own.
exclude_patterns = ["stdlib-census.rst", "conf.py"]
html_theme = "alabaster"
html_title = "PEP 671: Syntax for late-bound function argument defaults"
highlight_language = "python3"
