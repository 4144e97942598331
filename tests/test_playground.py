"""The playground page (make playground) in Debian's headless chromium, through Playwright.

The page is served from build/playground by a local http.server, as a user would
serve it. Collected only by `make playground-test` (tests/conftest.py), which builds the
page and installs chromium first; a missing page, chromium or Playwright is a failure.
The screenshot of the page goes to build/playground-test/screenshot.png.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.paths import BUILD, PLAYGROUND_OUT

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOT = BUILD / "playground-test" / "screenshot.png"
LOAD_TIMEOUT_MS = 120_000


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


@contextlib.contextmanager
def serve(handler_class: type[QuietHandler]) -> Iterator[str]:
    handler = functools.partial(handler_class, directory=str(PLAYGROUND_OUT))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
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
    loaded, first, done = pg.evaluate("[window.pep671LoadedMs, window.pep671FirstOutputMs, "
                                      "performance.now()]")
    print(f"\nafter navigation: python.wasm compiled {loaded:.0f} ms, first output line "
          f"{first:.0f} ms, the tour done {done:.0f} ms")
    yield pg
    assert errors == []
    pg.close()


def run(page: Page, button: str, code: str | None = None) -> str:
    runs = int(page.get_attribute("#output", "data-runs") or 0)
    if code is not None:
        page.fill("#code", code)
    page.click(f"#{button}")
    page.wait_for_function(f"Number(document.getElementById('output').dataset.runs) > {runs}",
                           timeout=LOAD_TIMEOUT_MS)
    return page.inner_text("#output")


def test_page_loads_and_runs_the_tour(page: Page) -> None:
    assert "def bisect_right(a, x, lo=0, hi=>len(a), *, key=None):" in page.input_value("#code")
    out = page.inner_text("#output")
    assert "== A default evaluated at call time, in the function's scope ==" in out
    assert "bisect_right([1, 2, 2, 3], 2)       -> 3" in out
    assert "with  target=>[]: [1] then [2]" in out
    assert page.get_attribute("#output", "data-exit-code") == "0"
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))


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
    runs = int(page.get_attribute("#output", "data-runs") or 0)
    page.fill("#code", "print('looping', flush=True)\nwhile True:\n    pass\n")
    page.click("#run")
    page.wait_for_function("document.getElementById('output').innerText.includes('looping')",
                           timeout=LOAD_TIMEOUT_MS)
    assert page.get_attribute("#output", "data-runs") == str(runs)   # still running
    page.click("#stop")
    page.wait_for_function(f"Number(document.getElementById('output').dataset.runs) > {runs}")
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
