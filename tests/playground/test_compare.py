"""The Compare view in chromium: the code as stock Python 3.13 writes it (the reverse of
tools/lbdefaults' rewrite, run in the page), both versions run and their outputs side by
side, where they differ marked, the dis of both, what the idiom cannot express said on
screen, and Stop."""

from __future__ import annotations

from playwright.sync_api import Browser, Page
from tests.test_playground import browser, page, site  # noqa: F401  (fixtures)

from tests.test_playground import LOAD_TIMEOUT_MS, run, set_code

BISECT = '''\
def bisect_right(a, x, lo=0, hi=>len(a), *, key=None):
    """The index after the last item <= x."""
    while lo < hi:
        mid = (lo + hi) // 2
        if x < (a[mid] if key is None else key(a[mid])):
            hi = mid
        else:
            lo = mid + 1
    return lo


def window(items, start=0, stop=>len(items), *, step=>max(1, stop // 4)):
    return items[start:stop:step]


print(bisect_right([1, 2, 2, 3], 2))
print(window(list(range(12))))
print(window(list(range(12)), 2, 10))
'''


def compares(page: Page) -> int:
    return int(page.get_attribute("#compare-panel", "data-compares") or 0)


def compare(page: Page, button: str = "#compare") -> str:
    """Press button, wait for the comparison to end; its outcome."""
    before = compares(page)
    page.click(button)
    page.wait_for_function(
        f"Number(document.getElementById('compare-panel').dataset.compares) > {before}",
        timeout=LOAD_TIMEOUT_MS)
    return page.get_attribute("#compare-panel", "data-outcome") or ""


def marked(page: Page, pre: str, mark: str) -> list[str]:
    return page.eval_on_selector_all(f"{pre} span.{mark}",
                                     "spans => spans.map(s => s.textContent.trimEnd())")


def test_compare_shows_the_stock_version_and_that_both_print_the_same(page: Page) -> None:
    set_code(page, BISECT)
    assert compare(page) == "same"
    assert page.is_visible("#compare-panel") and not page.is_visible("#output")
    stock = page.inner_text("#stock-code")
    assert "def bisect_right(a, x, lo=0, hi=None, *, key=None):" in stock
    assert '    """The index after the last item <= x."""\n    if hi is None:\n' \
        '        hi = len(a)\n    while lo < hi:' in stock
    assert "def window(items, start=0, stop=None, *, step=None):" in stock
    # the lines the rewrite changed are marked: the two headers and the three checks
    assert marked(page, "#stock-code", "changed") == [
        "def bisect_right(a, x, lo=0, hi=None, *, key=None):",
        "    if hi is None:", "        hi = len(a)",
        "def window(items, start=0, stop=None, *, step=None):",
        "    if stop is None:", "        stop = len(items)",
        "    if step is None:", "        step = max(1, stop // 4)"]
    expected = "3\n[0, 3, 6, 9]\n[2, 4, 6, 8]"
    assert page.inner_text("#compare-late").strip() == expected
    assert page.inner_text("#compare-stock").strip() == expected
    assert "same output, 3 lines, both ways" in page.inner_text("#compare-summary")
    assert not page.is_visible("#compare-limit")
    assert "upstream CPython 3.13" in page.inner_text("#compare-panel .help")
    # a run shows the output pane again
    assert run(page, "run").strip() == expected
    assert page.is_visible("#output") and not page.is_visible("#compare-panel")


def test_where_the_two_differ_is_marked(page: Page) -> None:
    set_code(page, "def pad(text, width=>len(text) + 2):\n"
                   "    return repr(width)\n\n"
                   "print(pad('abc'))\n"
                   "print(pad('abc', None))\n"
                   "print('end')\n")
    assert compare(page) == "differ"
    assert page.inner_text("#compare-late").split("\n")[:3] == ["5", "None", "end"]
    assert page.inner_text("#compare-stock").split("\n")[:3] == ["5", "5", "end"]
    assert marked(page, "#compare-late", "differs") == ["None"]
    assert marked(page, "#compare-stock", "differs") == ["5"]
    assert "the outputs differ from line 2" in page.inner_text("#compare-summary")


def test_what_the_idiom_cannot_express_is_said_and_nothing_runs(page: Page) -> None:
    cases = {
        "def span(a=>b, b=>1):\n    return a, b\n\nprint(span())\n":
            ["line 1", "'a'", "reads 'b'", "UnboundLocalError"],
        "double = lambda x, y=>x * 2: y\nprint(double(2))\n":
            ["line 1", "a lambda's late-bound default"],
        "def broken(a=>1):\n    return a +\n":
            ["the code does not compile", "SyntaxError"],
    }
    for code, words in cases.items():
        set_code(page, code)
        assert compare(page) == "refused"
        limit = page.inner_text("#compare-limit")
        assert page.is_visible("#compare-limit")
        assert limit.startswith("The stock version cannot be made")
        for word in words:
            assert word in limit, (word, limit)
        assert page.inner_text("#stock-code").strip() == "(not made)"
        assert page.inner_text("#compare-late") == page.inner_text("#compare-stock") == ""


def test_code_without_late_defaults_is_its_own_stock_version(page: Page) -> None:
    set_code(page, "print(sum(range(5)))\n")
    assert compare(page) == "same"
    assert "no late-bound default" in page.inner_text("#compare-limit")
    assert page.inner_text("#stock-code").strip() == "print(sum(range(5)))"
    assert marked(page, "#stock-code", "changed") == []


def test_dis_of_both(page: Page) -> None:
    set_code(page, "def head(items, n=>len(items) // 2):\n    return items[:n]\n")
    compare(page)
    compare(page, "#compare-mode")
    late, stock = page.inner_text("#compare-late"), page.inner_text("#compare-stock")
    assert "== dis.dis(head) ==" in late and "== dis.dis(head) ==" in stock
    assert "POP_JUMP_IF_NOT_NONE" in stock and "POP_JUMP_IF_NOT_NONE" not in late
    assert page.inner_text("#compare-mode") == "outputs"
    assert page.inner_text("#compare-late-title") == "dis, with =>"
    assert compare(page, "#compare-mode") == "same"   # back to the outputs
    assert page.inner_text("#compare-late-title") == "output, with =>"


def test_stop_ends_a_comparison(page: Page) -> None:
    set_code(page, "def spin(n=>0):\n    while True:\n        n += 1\n\nspin()\n")
    before = compares(page)
    page.click("#compare")
    page.wait_for_function("document.getElementById('compare-summary').textContent"
                           " === 'running both…'", timeout=LOAD_TIMEOUT_MS)
    page.wait_for_timeout(300)
    page.click("#stop")
    page.wait_for_function(
        f"Number(document.getElementById('compare-panel').dataset.compares) > {before}",
        timeout=10_000)
    assert page.get_attribute("#compare-panel", "data-outcome") == "stopped"
    assert page.is_enabled("#run") and page.is_enabled("#compare")
    set_code(page, "print('after')\n")
    assert run(page, "run").strip() == "after"


def test_compare_on_a_phone(browser: Browser, site: str) -> None:
    pg = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True,
                          has_touch=True)
    try:
        pg.goto(site)
        pg.wait_for_function("window.pep671Ready === true", timeout=LOAD_TIMEOUT_MS)
        set_code(pg, BISECT)
        assert compare(pg) == "same"
        assert pg.evaluate("document.documentElement.scrollWidth") <= 390
        late = pg.locator("#compare-late").bounding_box()
        stock = pg.locator("#compare-stock").bounding_box()
        assert late and stock and stock["y"] >= late["y"] + late["height"]  # one column
    finally:
        pg.close()
