"""ecosystem/probekit.py, the helpers the probes share (the probes themselves run in
tests/test_third_party.py)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tools.paths import ECOSYSTEM

sys.path.insert(0, str(ECOSYSTEM))
import probekit  # noqa: E402  (ecosystem/ is not a package: the probe runner does this too)


def completed(stdout: str = "", stderr: str = "", code: int = 1
              ) -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(["tool"], code, stdout, stderr)


def test_paths_make_the_arguments_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus").mkdir()
    python, corpus, workdir = probekit.paths("bin/python", Path("corpus"), Path("w/x"))
    assert python == str(tmp_path / "bin" / "python")
    assert corpus == tmp_path / "corpus" / "late_defaults.py"
    assert workdir == tmp_path / "w" / "x" and workdir.is_dir()
    assert probekit.paths("python3", corpus, workdir)[0] == "python3"


def test_run_gives_no_stdin_and_no_python_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", "/nowhere")
    monkeypatch.setenv("RUFF_CACHE_DIR", "/nowhere")
    script = ("import os, sys; print(sys.stdin.read() == '', "
              "sorted(k for k in os.environ if k.startswith(('PYTHON', 'RUFF_'))))")
    result = probekit.run([sys.executable, "-c", script])
    assert result.stdout.split("\n")[0] == "True ['RUFF_CACHE_DIR']"
    env = probekit.clean_env("RUFF_", COLUMNS="200")
    assert env["COLUMNS"] == "200" and "RUFF_CACHE_DIR" not in env and "PYTHONPATH" not in env


def test_output_lines() -> None:
    traceback = ("Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                 "    raise E\nlib2to3.pgen2.parse.ParseError: bad input\n  \n")
    assert probekit.last_line(traceback) == "lib2to3.pgen2.parse.ParseError: bad input"
    assert probekit.last_line(" \n") == "(no output)"
    assert probekit.exception_line(traceback + "exit 1\n") == \
        "lib2to3.pgen2.parse.ParseError: bad input"
    assert probekit.exception_line("Error: it broke\nok") == "Error: it broke"
    assert probekit.exception_line("no error here") is None
    # of a chain (pylint's crash report, twice), the cause, not the exception wrapping it
    chain = ("Traceback (most recent call last):\n  ...\nAttributeError: no visit_{}\n\n"
             "The above exception was the direct cause of the following exception:\n\n"
             "Traceback (most recent call last):\n  ...\n"
             "astroid.exceptions.AstroidBuildingError: Building error ({})\n")
    assert probekit.exception_line(chain.format(1, "a") + chain.format(2, "b")) == \
        "AttributeError: no visit_2"
    assert probekit.error_line(completed(stderr="warning\nfailed\n")) == "failed"
    assert probekit.error_line(completed(code=2)) == "exit 2, no output"
    assert probekit.last_json('noise\n{"a": [1]}\n\n') == {"a": [1]}
    assert probekit.last_json("{} and then a crash") is None


def test_module_version() -> None:
    assert probekit.module_version(sys.executable, "json") == \
        (True, json.__version__)
    ok, evidence = probekit.module_version(sys.executable, "no_such_module.version")
    assert not ok and evidence == ("no_such_module is not importable in the venv: "
                                   "ModuleNotFoundError: No module named 'no_such_module'")


def test_lines_of_a_corpus_file(tmp_path: Path) -> None:
    lint = tmp_path / "lint.py"
    lint.write_text("x = 1\ndef f(a=>b):  # undefined-variable 'b'\n\n"
                    "def g(a=>a):  # nothing\ny = 2  # undefined-variable 'c'\n")
    marked = probekit.marked_lines(lint, re.compile(r"#\s*(undefined-variable) '(\w+)'"))
    assert {n: m[2] for n, m in marked.items()} == {2: "b", 5: "c"}
    assert marked[5].string == "y = 2  # undefined-variable 'c'"
    assert probekit.line_with(lint, "def g(") == 4
    with pytest.raises(ValueError, match="lint.py has no line with 'def h\\('"):
        probekit.line_with(lint, "def h(")


def test_diagnostics_must_be_exactly_the_expected_ones() -> None:
    want = {(3, "unknown-name"), (7, "bad-return")}
    found = [(3, "unknown-name", "E 3 unknown"), (7, "bad-return", "E 7 return")]
    assert probekit.diagnostics_differ(found, want) is None
    # the same (line, rule) twice is one too many, though each is an expected one
    twice = probekit.diagnostics_differ([*found, (7, "bad-return", "E 7 again")], want)
    assert twice == "3 diagnostic(s) where 2 expected"
    assert probekit.diagnostics_differ([(3, "unknown-name", "E 3"), (4, "x", "E 4 x")],
                                       want) == \
        "2 diagnostic(s) where 2 expected; missing 7:bad-return; 1 unexpected, the first E 4 x"


def test_placed_errors_are_named_as_the_tool_names_them(tmp_path: Path) -> None:
    placed = tmp_path / "placed_errors.py"
    placed.write_text("def f(a=>a):  # error: unbound-name\nx = 1\n"
                      "y: int = ''  # error: assignment-type\n# error: in a comment line\n")
    kinds = {"unbound-name": "unresolved-reference", "assignment-type": "invalid-assignment"}
    assert probekit.placed_errors(placed, kinds) == \
        {(1, "unresolved-reference"), (3, "invalid-assignment")}
    # the corpus's own file uses only kinds that both type checkers' probes map
    corpus = Path(probekit.__file__).parent / "corpus" / "placed_errors.py"
    for tool in ("ty", "pyrefly"):
        spec = importlib.util.spec_from_file_location(
            f"{tool}_probe", corpus.parent.parent / "patched" / tool / "probe.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert len(probekit.placed_errors(corpus, module.PLACED_KINDS)) == 9
    with pytest.raises(KeyError):
        probekit.placed_errors(placed, {"unbound-name": "x"})


def test_the_checkers_files_are_what_the_interpreter_accepts() -> None:
    # The type checkers' probes hold each checker to the interpreter: every file they
    # check compiles here (the stub too), and the modules that assert their own
    # behaviour, the global and nonlocal declarations and the placeholders among it, run.
    corpus = Path(probekit.__file__).parent / "corpus"
    for name in probekit.CHECKER_FILES:
        compile((corpus / name).read_text(encoding="utf-8"), name, "exec")
    for name in (probekit.CORPUS_NAME, "late_defaults_placeholders.py"):
        run = subprocess.run([sys.executable, str(corpus / name)], capture_output=True,
                             text=True, timeout=60)
        assert (run.returncode, run.stdout) == (0, "ok\n"), run.stderr


def test_html_text() -> None:
    assert probekit.html_text('<span class="n">f</span>(<em>a</em>,\n  hi=&gt;len(a))') == \
        "f(a, hi=>len(a))"


def test_formatter_helpers(tmp_path: Path) -> None:
    diff = "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-x=1\n+x = 1\n \n+\n"
    assert probekit.changed_lines(diff) == ["x=1", "x = 1", ""]
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = (1)\n")
    b.write_text("x = 1\n")
    assert probekit.same_ast(sys.executable, a, b) is None
    b.write_text("x = 2\n")
    assert probekit.same_ast(sys.executable, a, b) == \
        "the formatted corpus has a different AST"
    # a "formatter" that leaves the file as it is, and one that writes PEP 8 spacing
    keep = [sys.executable, "-c", "pass"]
    result, snippet, wrong = probekit.format_misspaced(keep, tmp_path)
    assert result.returncode == 0 and snippet == tmp_path / "misspaced.py"
    assert wrong == "def window(a, lo  =>  0, hi => len( a ), *, key : list[int]=>[]):"
    fix = [sys.executable, "-c",
           f"import sys; open(sys.argv[-1], 'w').write({probekit.PEP8_SPACED!r})"]
    assert probekit.format_misspaced(fix, tmp_path)[2] is None
