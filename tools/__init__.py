"""The programs the Makefile drives, grouped by what they are for; each runs from the
repository root as ``python3 -m tools.ROLE.NAME`` and has --help.

  tools.paths        every path of the repository and of build/, and the upstream pin
  tools.common       what the tools share: say, run, logs, venvs, ToolError, sha256
  tools.build        the interpreter: dependencies, tarball, patch queue, build, install,
                     the wasm build
  tools.check        the checks: regrtest in parity mode, pytest, the series patch by patch,
                     the fuzzers, the oracles, the sanitizer runs
  tools.docs         what is rendered or served: the PEP and CPython docs, the mkdocs page,
                     the playground; the docs check, with the Markdown's links
  tools.measure      what make bench and make dogfood both measure: pyperformance under
                     callgrind, the calls of late defaults
  tools.ecosystem    make ecosystem: the patched third-party tools, built and probed
  tools.dogfood      make dogfood: Lib/ rewritten with =>, tested and bisected
  tools.lbdefaults   the sentinel-default migration tool (``./python -m tools.lbdefaults``)

Data flows one way: the Makefile calls the tools, never the reverse; a tool reaches
another by calling its functions, not by running it; bench/ may import tools/, never the
reverse. A new path goes into tools.paths; a failure raises ToolError with what to do,
and only main() turns it into an exit status.
"""
