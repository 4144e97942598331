"""What the project renders or serves, and the check that its pages hold together.

  build_docs    the PEP and the CPython documentation of the patched tree with Sphinx, the
                autodoc page of examples/, and the fast check of make test: the PEP with
                warnings as errors, sphinx-lint, and every relative link and #anchor of
                the Markdown files (README.md, CONTRIBUTING.md, docs/; md-dead-link-check)
                resolving (make docs, make docs-check)
  build_mkdocs  the mkdocs page of examples/mkdocs/ (make docs)
  playground    the static page that runs python.wasm in the browser, its archive and its
                tests (make playground, make playground-test, make dist)

The manual itself is Markdown in docs/, which GitHub renders; docs/README.md says why.

Run one as ``python3 -m tools.docs.NAME --help``.
"""
