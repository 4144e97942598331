"""make ecosystem: the third-party tools of ecosystem/patched/, stock and patched, on late defaults.

Every directory ecosystem/patched/<tool>/ holds a patch against a pinned PyPI release
(pin.toml, late-defaults.patch) and a probe (probe.py); ecosystem/README.md is
the contract. (A tool whose release is an npm tarball, such as an editor's grammar, is
built by its pin.toml's build commands instead of pip, and its build is copied into each
venv's share/<tool>/.) This program:

1. makes two venvs with the interpreter (default ./python): build/ecosystem/venv,
   with the patched build of every tool, and build/ecosystem/venv-stock, with the
   same releases unpatched. Each sdist is downloaded with pip and checked against
   its sha256; the patched tree gets the patch, then pin.toml's prepare commands
   (where the tool's own build would fetch tools this machine cannot reach); wheels
   are built (pin.toml's
   install_env in the environment; kept per user in ~/.cache/pep671/ecosystem-wheels)
   in the order of pin.toml's `needs`, then all of a
   venv's wheels are installed by one pip run, so that a tool's dependency on another
   tool (Sphinx on Pygments, jedi on parso, pylint on astroid) is met by the build
   next to it, never by a release from PyPI; that is checked afterwards.
   Everything else is pinned by ecosystem/constraints.txt. The patched venv
   also gets the tools that need no patch (ecosystem/unpatched/<tool>/).
   A venv is reused while its inputs are unchanged, and remade whole otherwise.
2. runs each tool's probe.py against both venvs on the shared corpus
   ecosystem/corpus/late_defaults.py, the probes of the tools that need no
   patch against the patched venv, and tests/test_late_bound_frameworks.py (the
   libraries that handle late defaults through the run-time model) from build/venv;
3. writes build/ecosystem/report.md (and report.json): tool, version, stock result,
   patched result, evidence.

Exit status 1 when a patched probe fails, a tool that needs no patch fails, or (with
--tests) the upstream tests of a patch fail; stock results are recorded, not judged.
The upstream tests that take long run only on request: cargo test runs (ruff) with
--cargo-tests, jest runs (basedpyright) with --jest-tests.
pip's output goes to build/ecosystem/logs/. Needs PyPI (sdists, dependencies, build
backends) until the venvs are built.

Modules: manifest (the pin.toml files), sdist and venvs (the builds), probes (probes
and tests in the venvs), report, cli. tests/test_third_party.py uses the same functions: the patched venv (reused when
current), the upstream tests of each patch (pin.toml [test]) and the patched probes.
"""

from tools.ecosystem.manifest import (CONSTRAINTS, CORPUS, FRAMEWORKS, THIRD_PARTY, UNPATCHED,
                                      VARIANTS, Tool, Unpatched, load_tool, load_tools,
                                      load_unpatched, norm)
from tools.ecosystem.probes import (ProbeResult, UpstreamRun, parse_cargo_test,
                                    parse_jest_json, parse_junit, run_frameworks, run_probe,
                                    run_upstream_tests)
from tools.ecosystem.report import render_report
from tools.ecosystem.venvs import Layout, check_venv, prepare_venv, venv_key

__all__ = ["CONSTRAINTS", "CORPUS", "FRAMEWORKS", "THIRD_PARTY", "UNPATCHED", "VARIANTS",
           "Layout", "ProbeResult", "Tool", "Unpatched", "UpstreamRun", "check_venv",
           "load_tool", "load_tools", "load_unpatched", "norm", "parse_cargo_test",
           "parse_jest_json", "parse_junit",
           "prepare_venv",
           "render_report", "run_frameworks", "run_probe", "run_upstream_tests", "venv_key"]
