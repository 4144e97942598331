"""The playground's runs in chromium: time.sleep sleeps (the page's poll_oneoff), output
floods and endless loops cannot freeze the page, the time limit, and what the dis,
inspect.signature and input() runs show. The times printed (-s) are not asserted, but
for the sleep's tolerance and Stop's 2 s."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from tests.test_playground import browser, page, site  # noqa: F401  (fixtures)

from tests.test_playground import (LOAD_TIMEOUT_MS, QuietHandler, compile_error, get_code, run,
                                   runs, serve, set_code, wait_for_run)

SLEEP = ("import time\n"
         "t = time.monotonic()\n"
         "time.sleep(0.2)\n"
         "print(round(time.monotonic() - t, 3))\n")
# select() with no file: poll_oneoff's relative clock
SELECT = ("import time, select\n"
          "t = time.monotonic()\n"
          "select.select([], [], [], 0.2)\n"
          "print(round(time.monotonic() - t, 3))\n")


class IsolatingHandler(QuietHandler):
    """A server whose pages are cross-origin isolated (COOP and COEP): the worker may
    block on a SharedArrayBuffer."""

    def end_headers(self) -> None:
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()


@pytest.fixture(scope="module", params=["plain", "isolated"])
def served(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:
    """A page open for 10 s, from a plain server (the worker waits through JSPI) and
    from one that isolates it (Atomics.wait)."""
    handler = QuietHandler if request.param == "plain" else IsolatingHandler
    with serve(handler) as url:
        pg = browser.new_page()
        try:
            pg.goto(url)
            pg.wait_for_function("window.pep671Ready === true", timeout=LOAD_TIMEOUT_MS)
            age = pg.evaluate("performance.now()")
            if age < 10_000:
                pg.wait_for_timeout(10_000 - age)
            yield pg
        finally:
            pg.close()


def test_time_sleep_sleeps_after_the_page_has_been_open_10_s(served: Page) -> None:
    t0 = time.monotonic()
    out = run(served, "run", SLEEP)
    wall = time.monotonic() - t0
    slept = float(out.strip())
    wait = served.get_attribute("#output", "data-wait")
    print(f"\ntime.sleep(0.2) after 10 s ({wait}): {slept:.3f} s in Python, the run "
          f"{wall:.2f} s")
    assert wait == ("atomics" if served.evaluate("crossOriginIsolated") else "jspi")
    assert 0.1 <= slept <= 0.3


def test_a_relative_timeout_waits_as_long(served: Page) -> None:
    out = run(served, "run", SELECT)
    assert served.get_attribute("#output", "data-exit-code") == "0", out
    slept = float(out.strip())
    print(f"\nselect.select([], [], [], 0.2): {slept:.3f} s")
    assert 0.1 <= slept <= 0.3


FLOOD = "i = 0\nwhile True:\n    print(i)\n    i += 1\n"


def test_a_flood_of_output_is_cut_and_counted(page: Page) -> None:
    t0 = time.monotonic()
    out = run(page, "run", "for i in range(200_000):\n    print(i)\n")
    print(f"\n200,000 lines printed in {time.monotonic() - t0:.1f} s")
    lines = out.strip().splitlines()
    assert lines[:3] == ["0", "1", "2"]
    assert lines[4999] == "4999"
    assert lines[5000] == "(output truncated after 5,000 lines, of 200,000 lines written)"
    assert len(lines) == 5001
    assert page.eval_on_selector("#output", "e => e.children.length") == 5001
    assert page.get_attribute("#output", "data-exit-code") == "0"


@pytest.mark.parametrize("how", ["mouse", "playwright"])
def test_stop_ends_a_flood_in_under_2_s(page: Page, how: str) -> None:
    before = runs(page)
    set_code(page, FLOOD)
    page.click("#run")
    page.wait_for_selector("#truncated", timeout=LOAD_TIMEOUT_MS)
    t0 = time.monotonic()
    page.evaluate("1")
    answer = time.monotonic() - t0
    t0 = time.monotonic()
    if how == "mouse":   # a click where the button is, as a user's
        box = page.locator("#stop").bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    else:                # Playwright's, which waits for the button to be stable first
        page.click("#stop")
    wait_for_run(page, before)
    took = time.monotonic() - t0
    print(f"\nunder a flood: the page answered in {answer * 1000:.0f} ms; Stop ({how}) "
          f"ended it in {took:.2f} s")
    assert took < 2
    assert page.inner_text("#output").strip().splitlines()[-1] == "(stopped)"
    assert run(page, "run", "print(6 * 7)\n").strip() == "42"


def test_the_time_limit_stops_a_run(page: Page) -> None:
    assert page.is_visible("#limit")
    assert page.input_value("#limit") == "30"
    page.evaluate("window.__pep671.setTimeLimit(1)")
    try:
        before = runs(page)
        set_code(page, "while True:\n    pass\n")
        page.click("#run")
        page.wait_for_function(
            "document.getElementById('status').textContent.includes('time limit 1 s')")
        wait_for_run(page, before)
        last = page.inner_text("#output").strip().splitlines()[-1]
        assert last.startswith("(stopped: the time limit of 1 s")
        assert page.get_attribute("#output", "data-exit-code") == "stopped"
    finally:
        page.select_option("#limit", "30")


# --- what the buttons show -----------------------------------------------------------

CLASS = ("class Shelf:\n"
         "    def take(self, items, n=>len(items)):\n"
         "        return items[:n]\n"
         "    @staticmethod\n"
         "    def size(a, hi=>len(a)):\n"
         "        return hi\n"
         "    @classmethod\n"
         "    def make(cls, parts=>[]):\n"
         "        return cls()\n"
         "    @property\n"
         "    def empty(self):\n"
         "        return True\n"
         "def top(x, y=>x * 2):\n"
         "    return y\n")


def test_signature_and_dis_show_the_methods_of_classes(page: Page) -> None:
    out = run(page, "signature", CLASS)
    assert out.strip().splitlines() == [
        "Shelf.take(self, items, n=>len(items))", "Shelf.size(a, hi=>len(a))",
        "Shelf.make(cls, parts=>[])", "Shelf.empty(self)", "top(x, y=>x * 2)"]
    out = run(page, "dis", CLASS)
    for name in ("Shelf.take", "Shelf.size", "Shelf.make", "Shelf.empty", "top"):
        assert f"== dis.dis({name}) ==" in out


@pytest.mark.parametrize("button", ["dis", "signature"])
@pytest.mark.parametrize("code, error", [
    ("def f(a, hi=>len(a)):\n    return hi\n1 / 0\n", "ZeroDivisionError: division by zero"),
    ("def f(a, hi=>):\n    return hi\n", "SyntaxError: "),
])
def test_an_error_under_dis_or_signature_shows_only_the_codes_frames(
        page: Page, button: str, code: str, error: str) -> None:
    out = run(page, button, code)
    assert out.strip().splitlines()[-1].startswith(error)
    assert "<string>" not in out
    assert 'File "/main.py", line ' in out
    assert page.get_attribute("#output", "data-exit-code") == "1"
    assert page.evaluate("window.__pep671.markedLines()") != []


def test_input_shows_its_prompt_before_the_eof_error(page: Page) -> None:
    out = run(page, "run", "print('start')\nname = input('your name? ')\n")
    lines = out.strip().splitlines()
    assert lines[:3] == ["start", "your name? ", "Traceback (most recent call last):"]
    assert lines[-1] == "EOFError: EOF when reading a line"
    assert "no keyboard input" in page.inner_text("#status")


# --- an edit during a run -------------------------------------------------------------

SLOW = "import time\ntime.sleep(1)\nprint('first')\n"


def edit_during_a_run(page: Page, code: str) -> int:
    """Run SLOW, and set the code to code while it runs: the run count before."""
    before = runs(page)
    set_code(page, SLOW)
    page.click("#run")
    page.wait_for_function("document.getElementById('status').textContent"
                           ".startsWith('running')")
    set_code(page, code)
    return before


def test_ctrl_enter_during_a_run_runs_the_edited_code_after_it(page: Page) -> None:
    before = edit_during_a_run(page, "print('second')\n")
    page.click(".cm-content")
    page.keyboard.press("Control+Enter")
    assert "runs when this run ends" in page.inner_text("#status")
    page.wait_for_function(f"Number(document.getElementById('output').dataset.runs) > "
                           f"{before + 1}", timeout=LOAD_TIMEOUT_MS)
    assert page.inner_text("#output").strip() == "second"


def test_an_edit_during_a_run_is_told(page: Page) -> None:
    before = edit_during_a_run(page, "print('edited')\n")
    wait_for_run(page, before)
    assert page.inner_text("#output").strip() == "first"
    assert "edited during the run: Ctrl+Enter runs it" in page.inner_text("#status")
    assert get_code(page) == "print('edited')\n"


# --- diagnostics while typing --------------------------------------------------------

def checked(page: Page, code: str) -> dict | None:
    """The error that the check while typing found in code (None: none), once it is
    applied."""
    page.wait_for_function("code => window.__pep671.lastCheck()?.code === code", arg=code,
                           timeout=LOAD_TIMEOUT_MS)
    return page.evaluate("window.__pep671.lastCheck().error")


def test_a_syntax_error_is_marked_while_typing(page: Page) -> None:
    set_code(page, "def g(x, y=>x):\n    return y\n\n")
    before = runs(page)
    page.click(".cm-content")
    page.keyboard.press("Control+End")
    page.keyboard.type("z = g(1) +")
    code = get_code(page)
    assert code.endswith("\nz = g(1) +")
    native = compile_error(code)
    error = checked(page, code)
    assert error is not None
    assert error["message"] == f"SyntaxError: {native.msg}"
    [diagnostic] = page.evaluate("window.__pep671.diagnostics()")
    assert (diagnostic["line"], diagnostic["column"]) == (native.lineno, native.offset)
    assert page.evaluate("window.__pep671.markedLines()") == [native.lineno]
    # an accepted `=>` is no error: finishing the line takes the mark away
    page.keyboard.type(" 1")
    assert checked(page, get_code(page)) is None
    assert page.evaluate("window.__pep671.diagnostics()") == []
    assert runs(page) == before   # checked, never run


# --- Format: the patched black, in the worker ----------------------------------------

def press_format(page: Page) -> None:
    before = int(page.get_attribute("#format", "data-formats") or 0)
    page.click("#format")
    page.wait_for_function(f"Number(document.getElementById('format').dataset.formats) > "
                           f"{before}", timeout=LOAD_TIMEOUT_MS)


def test_format_keeps_late_defaults(page: Page) -> None:
    set_code(page, "def f(a,hi=>len(a),*,k  =>  [hi]):\n  return   hi\n"
                   "g=lambda a,n=>len(a):a[:n]\n")
    before = runs(page)
    t0 = time.monotonic()
    press_format(page)
    print(f"\nFormat (black, the first time: its zip fetched): {time.monotonic() - t0:.1f} s")
    assert get_code(page) == ("def f(a, hi=>len(a), *, k=>[hi]):\n    return hi\n\n\n"
                              "g = lambda a, n=>len(a): a[:n]\n")
    assert page.inner_text("#status") == "formatted by black"
    press_format(page)
    assert page.inner_text("#status") == "black: nothing to change"
    set_code(page, "def f(a, hi=>):\n    pass\n")
    press_format(page)
    assert page.inner_text("#status").startswith("black cannot format this code: ")
    assert get_code(page) == "def f(a, hi=>):\n    pass\n"
    assert runs(page) == before
