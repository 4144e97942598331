"""The playground page (make playground) in Debian's headless chromium, through Playwright.

The page is served from build/playground by a local http.server, as a user would
serve it. Collected only by `make playground-test` (tests/conftest.py), which builds the
page and installs chromium first; a missing page, chromium or Playwright is a failure.
The screenshot of the page (an error marked in the editor) goes to
build/playground-test/screenshot.png. The page's timings are printed (-s), not asserted:
the manual's playground page (docs/playground.md) gives them.

The editor is CodeMirror 6; the tests read and set its code, and read its syntax tree
and its marks, through the page's hook window.__pep671 (playground.js).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import http.server
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.paths import BUILD, PLAYGROUND_OUT, REPO

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOT = BUILD / "playground-test" / "screenshot.png"
LOAD_TIMEOUT_MS = 120_000
CORPUS = sorted((REPO / "ecosystem" / "corpus").rglob("*.py"))


def missing() -> str | None:
    if not (PLAYGROUND_OUT / "index.html").is_file():
        return f"{PLAYGROUND_OUT} is not built (make playground)"
    if not CHROMIUM.is_file():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (tests/requirements.txt)"
    return None


if (why := missing()) is not None:
    pytest.fail(why, pytrace=False)

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class EncodingHandler(QuietHandler):
    """A server that sends .gz files with Content-Encoding: gzip (the browser unpacks)."""

    def end_headers(self) -> None:
        if self.path.endswith(".gz"):
            self.send_header("Content-Encoding", "gzip")
        super().end_headers()


class QuietServer(http.server.ThreadingHTTPServer):
    """A server that says nothing when a page closes before its download ends."""

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(handler_class: type[QuietHandler]) -> Iterator[str]:
    handler = functools.partial(handler_class, directory=str(PLAYGROUND_OUT))
    server = QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(QuietHandler) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                              args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def page(browser: Browser, site: str) -> Iterator[Page]:
    pg = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.goto(site)
    pg.wait_for_function("window.pep671Ready === true", timeout=LOAD_TIMEOUT_MS)
    editor, loaded, first, done = pg.evaluate(
        "[window.pep671EditorMs, window.pep671LoadedMs, window.pep671FirstOutputMs, "
        "performance.now()]")
    print(f"\nafter navigation: the editor holds the tour {editor:.0f} ms, python.wasm "
          f"compiled (Run enabled) {loaded:.0f} ms, first output line {first:.0f} ms, "
          f"the tour done {done:.0f} ms")
    yield pg
    assert errors == []
    pg.close()


def set_code(page: Page, code: str) -> None:
    page.evaluate("code => window.__pep671.setCode(code)", code)


def get_code(page: Page) -> str:
    return page.evaluate("window.__pep671.getCode()")


def runs(page: Page) -> int:
    return int(page.get_attribute("#output", "data-runs") or 0)


def wait_for_run(page: Page, before: int) -> str:
    page.wait_for_function(f"Number(document.getElementById('output').dataset.runs) > {before}",
                           timeout=LOAD_TIMEOUT_MS)
    return page.inner_text("#output")


def run(page: Page, button: str, code: str | None = None) -> str:
    before = runs(page)
    if code is not None:
        set_code(page, code)
    page.click(f"#{button}")
    return wait_for_run(page, before)


def test_page_loads_and_runs_the_tour(page: Page) -> None:
    assert "def bisect_right(a, x, lo=0, hi=>len(a), *, key=None):" in get_code(page)
    out = page.inner_text("#output")
    assert "== A default evaluated at call time, in the function's scope ==" in out
    assert "bisect_right([1, 2, 2, 3], 2)       -> 3" in out
    assert "with  target=>[]: [1] then [2]" in out
    assert page.get_attribute("#output", "data-exit-code") == "0"


def test_late_bound_default_runs(page: Page) -> None:
    out = run(page, "run", "def f(a, hi=>len(a)): return hi\nprint(f([1, 2, 3]))\n")
    assert out.strip() == "3"
    assert page.get_attribute("#output", "data-exit-code") == "0"


def test_syntax_error_shows_the_interpreters_message(page: Page) -> None:
    code = "def f(a, hi=>): return hi\n"
    out = run(page, "run", code)
    native = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    message = native.stderr.strip().splitlines()[-1]
    assert message.startswith("SyntaxError: ")
    assert out.strip().splitlines()[-1] == message
    assert 'File "/main.py", line 1' in out
    assert page.get_attribute("#output", "data-exit-code") == "1"


def test_signature_button(page: Page) -> None:
    out = run(page, "signature", "def f(a, hi=>len(a), *, k=>[hi]):\n    return hi\n"
              "print('hidden')\n")
    assert out.strip() == "f(a, hi=>len(a), *, k=>[hi])"


def test_dis_button(page: Page) -> None:
    out = run(page, "dis", "def f(a, hi=>len(a)):\n    return hi\n")
    native = subprocess.run(
        [sys.executable, "-c", "import dis\ndef f(a, hi=>len(a)):\n    return hi\n"
         "print(*[i.opname for i in dis.get_instructions(f)])"],
        capture_output=True, text=True, check=True)
    assert out.startswith("== dis.dis(f) ==\n")
    shown = [m.group() for line in out.splitlines()[1:]
             if (m := re.search(r"\b[A-Z][A-Z_0-9]{2,}\b", line))]
    assert shown == native.stdout.split()


def test_stop_ends_an_endless_loop(page: Page) -> None:
    before = runs(page)
    set_code(page, "print('looping', flush=True)\nwhile True:\n    pass\n")
    page.click("#run")
    page.wait_for_function("document.getElementById('output').innerText.includes('looping')",
                           timeout=LOAD_TIMEOUT_MS)
    assert runs(page) == before   # still running
    page.click("#stop")
    wait_for_run(page, before)
    assert page.inner_text("#output").strip().splitlines() == ["looping", "(stopped)"]
    assert run(page, "run", "print(sum(range(10)))\n").strip() == "45"


def test_deep_recursion_is_a_recursion_error(page: Page) -> None:
    # Python's limit comes before the worker's stack runs out
    out = run(page, "run", "def f(n):\n    return f(n + 1)\nf(0)\n")
    assert out.strip().splitlines()[-1] == "RecursionError: maximum recursion depth exceeded"
    assert page.get_attribute("#output", "data-exit-code") == "1"


def test_a_server_that_unpacks_gz_files_itself(browser: Browser) -> None:
    with serve(EncodingHandler) as url:
        pg = browser.new_page()
        try:
            pg.goto(url)
            pg.wait_for_function("window.pep671Ready === true", timeout=LOAD_TIMEOUT_MS)
            assert "bisect_right([1, 2, 2, 3], 2)       -> 3" in pg.inner_text("#output")
        finally:
            pg.close()


# --- the editor (CodeMirror 6 on the patched @lezer/python) ---------------------------

def late_defaults(source: str) -> int:
    """How many late defaults source has, from this (patched) interpreter's ast."""
    return sum(isinstance(node, ast.LateDefault) for node in ast.walk(ast.parse(source)))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_the_corpus_parses_with_no_error_node(page: Page, path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    set_code(page, source)
    report = page.evaluate("window.__pep671.syntax()")
    assert report["errors"] == []
    # each `=>` of a default is the grammar's LateAssignOp, one token
    assert report["late"] == late_defaults(source)


def test_a_late_default_is_highlighted_as_one_operator(page: Page) -> None:
    set_code(page, "def f(a, hi=>len(a), lo=0):\n    return hi\n")
    assert page.evaluate("window.__pep671.syntaxErrors()") == []
    styles = page.evaluate("""() => {
        const spans = [...document.querySelectorAll('.cm-line span')];
        const style = (text) => {
            const span = spans.find((s) => s.textContent === text);
            return span ? getComputedStyle(span).color : null;
        };
        return {late: style('=>'), early: style('=')};
    }""")
    # `=>` is one token, styled as the `=` of an early default is (definitionOperator)
    assert styles["late"] is not None
    assert styles["late"] == styles["early"]


def test_enter_indents_and_ctrl_enter_runs(page: Page) -> None:
    set_code(page, "")
    page.click(".cm-content")
    page.keyboard.type("def f(a, hi=>len(a)):")
    page.keyboard.press("Enter")
    page.keyboard.type("return hi")
    page.keyboard.press("Enter")
    page.keyboard.press("Backspace")   # out of the body (one indentation unit)
    page.keyboard.type("print(f([1, 2, 3]))")
    assert get_code(page) == "def f(a, hi=>len(a)):\n    return hi\nprint(f([1, 2, 3]))"
    before = runs(page)
    page.keyboard.press("Control+Enter")
    assert wait_for_run(page, before).strip() == "3"
    assert get_code(page).count("\n") == 2   # Ctrl+Enter ran, and inserted no line
    page.click("#output")                    # and from outside the editor too
    before = runs(page)
    page.keyboard.press("Control+Enter")
    assert wait_for_run(page, before).strip() == "3"


def test_a_runtime_error_marks_its_line_and_column(page: Page) -> None:
    code = ("def f(a, hi=>len(a)):\n"
            "    return a[hi]\n"
            "\n"
            "print('before')\n"
            "f([1, 2])\n")
    out = run(page, "run", code)
    assert out.strip().splitlines()[-1] == "IndexError: list index out of range"
    assert page.evaluate("window.__pep671.markedLines()") == [2]
    [diagnostic] = page.evaluate("window.__pep671.diagnostics()")
    # Python's carets: a[hi], columns 12-17 of line 2
    assert diagnostic == {"line": 2, "column": 12, "endColumn": 17,
                          "message": "IndexError: list index out of range"}
    # hovering the mark shows the error's message
    page.hover(".cm-lintRange-error")
    page.wait_for_selector(".cm-tooltip-lint", timeout=10_000)
    assert page.inner_text(".cm-tooltip-lint").startswith("IndexError: list index out of range")
    page.mouse.move(0, 0)
    # clicking a traceback line moves the cursor there
    page.click("#output .frame >> text=line 5")
    assert page.evaluate("window.__pep671.cursor()")["line"] == 5
    page.click("#output .frame >> text=line 2")
    assert page.evaluate("window.__pep671.cursor()") == {"line": 2, "column": 12}
    # editing the code takes the mark away
    page.keyboard.type("x")
    assert page.evaluate("window.__pep671.markedLines()") == []


def test_a_syntax_error_marks_its_line_and_column(page: Page) -> None:
    code = "x = 1\n\nif x:\n    def f(a, hi=>):\n        return hi\n"
    out = run(page, "run", code)
    native = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.strip().splitlines()[-1] == native.stderr.strip().splitlines()[-1]
    err = native.stderr
    exc = compile_error(code)
    assert page.evaluate("window.__pep671.markedLines()") == [exc.lineno]
    [diagnostic] = page.evaluate("window.__pep671.diagnostics()")
    assert (diagnostic["line"], diagnostic["column"]) == (exc.lineno, exc.offset), err
    page.click("#output .frame")
    assert page.evaluate("window.__pep671.cursor()") == {"line": exc.lineno,
                                                         "column": exc.offset}


def compile_error(code: str) -> SyntaxError:
    try:
        compile(code, "/main.py", "exec")
    except SyntaxError as exc:
        return exc
    raise AssertionError(f"{code!r} compiles")


def test_a_clean_run_marks_nothing(page: Page) -> None:
    run(page, "run", "def f(a, hi=>len(a)):\n    return 1 / 0\nf([])\n")
    assert page.evaluate("window.__pep671.markedLines()") == [2]
    run(page, "run", "print('fine')\n")
    assert page.evaluate("window.__pep671.markedLines()") == []
    assert page.evaluate("window.__pep671.diagnostics()") == []


# --- share links ---------------------------------------------------------------------

def share_link(page: Page) -> str:
    page.evaluate("document.getElementById('share-link').value = ''")
    page.click("#share")
    page.wait_for_function("document.getElementById('share-link').value !== ''")
    assert page.is_visible("#share-link")
    return page.input_value("#share-link")


def open_link(browser: Browser, url: str) -> Page:
    pg = browser.new_page(viewport={"width": 1280, "height": 800})
    pg.goto(url)
    pg.wait_for_function("window.pep671Ready === true", timeout=LOAD_TIMEOUT_MS)
    return pg


def test_a_share_link_round_trips_non_ascii_code(page: Page, browser: Browser) -> None:
    code = ("def grüß(name, greeting=>f'Grüß Gott, {name}'):\n"
            "    return greeting\n"
            "print(grüß('Zoë'), 'π ≈ 3.14159', '日本語', '🐍')\n")
    assert run(page, "signature", code).strip() == "grüß(name, greeting=>f'Grüß Gott, {name}')"
    url = share_link(page)
    assert re.fullmatch(r"[^#]+#code=[A-Za-z0-9_-]+&run=signature", url), url
    assert page.url == url   # the address bar holds it too
    other = open_link(browser, url)
    try:
        assert get_code(other) == code
        # the button pressed last is the one the link runs
        assert other.inner_text("#output").strip() == \
            "grüß(name, greeting=>f'Grüß Gott, {name}')"
    finally:
        other.close()


def test_a_share_link_holds_10_kb_of_code(page: Page, browser: Browser) -> None:
    parts = [f"def f{i}(a, n=>len(a) + {i}, *, key=>[n, {i}]):  # Größe {i}\n"
             f"    return n, key\n" for i in range(200)]
    code = "".join(parts) + "print(f199([1]), f7('ab'))\n"
    assert len(code.encode()) > 10_000
    set_code(page, code)
    run(page, "run")
    url = share_link(page)
    print(f"\n{len(code.encode())} bytes of code: a link of {len(url)} characters")
    assert "&run=" not in url
    other = open_link(browser, url)
    try:
        assert get_code(other) == code
        assert other.inner_text("#output").strip() == "(200, [200, 199]) (9, [9, 7])"
    finally:
        other.close()


# --- examples ------------------------------------------------------------------------

EXAMPLES = json.loads((PLAYGROUND_OUT / "examples.json").read_text(encoding="utf-8")) \
    if (PLAYGROUND_OUT / "examples.json").is_file() else []


def test_the_examples_are_the_tours_sections_and_the_peps() -> None:
    tour = (REPO / "examples" / "tour.py").read_text(encoding="utf-8")
    sections = re.findall(r'^section\("(.+)"\)$', tour, flags=re.M)
    assert [e["title"] for e in EXAMPLES if e["group"].startswith("Tour")] == sections
    assert len([e for e in EXAMPLES if e["group"].startswith("PEP")]) >= 10


@pytest.mark.parametrize("index", range(len(EXAMPLES)),
                         ids=[e["title"][:40] for e in EXAMPLES])
def test_each_example_loads_and_runs(page: Page, index: int) -> None:
    before = runs(page)
    page.select_option("#examples", str(index))
    out = wait_for_run(page, before)
    assert get_code(page) == EXAMPLES[index]["code"]
    assert page.get_attribute("#output", "data-exit-code") == "0", out
    assert "Traceback" not in out


# --- the look ------------------------------------------------------------------------

def test_dark_mode_follows_the_system(browser: Browser, site: str) -> None:
    colors = {}
    for scheme in ("light", "dark"):
        pg = browser.new_page(color_scheme=scheme)
        try:
            pg.goto(site)
            pg.wait_for_selector(".cm-editor")
            colors[scheme] = pg.evaluate(
                "getComputedStyle(document.querySelector('.cm-editor')).backgroundColor")
        finally:
            pg.close()
    assert colors["light"] == "rgb(255, 255, 255)"
    assert colors["dark"] == "rgb(40, 44, 52)"   # the one-dark theme's background


def test_screenshot_with_an_error_marked(page: Page) -> None:
    code = ('"""Late-bound defaults run left to right, after the passed arguments."""\n'
            "\n"
            "\n"
            "def window(items, stop=>len(items), step=>max(1, stop // 4)):\n"
            "    return items[:stop:step]\n"
            "\n"
            "\n"
            "def puzzle(*, a=>b + 1, b=>a + 1):\n"
            "    return a, b\n"
            "\n"
            "\n"
            "print(window(list(range(10))))\n"
            "print(puzzle(a=1), puzzle(b=1))\n"
            "print(puzzle())\n")
    out = run(page, "run", code)
    assert "UnboundLocalError" in out.strip().splitlines()[-1]
    # the default `a=>b + 1` read b before it was bound: the error is on the def line
    assert page.evaluate("window.__pep671.markedLines()") == [8]
    # as a page just opened shows it: no share link, no example chosen
    page.evaluate("document.getElementById('share-link').hidden = true; "
                  "document.getElementById('examples').value = ''")
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))
