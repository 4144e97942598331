"""The playground page in chromium: share links that cannot be read, the code kept across
reloads, the page on a phone (a screenshot at 390 px), the Share box, the favicon and the
examples menu."""

from __future__ import annotations

import json

from playwright.sync_api import Browser, Page
from tests.test_playground import browser, page, site  # noqa: F401  (fixtures)

from tests.test_playground import (BUILD, LOAD_TIMEOUT_MS, PLAYGROUND_OUT, get_code, run,
                                   runs, set_code, share_link, wait_for_run)

PHONE_SCREENSHOT = BUILD / "playground-test" / "phone.png"
KEPT = "pep671-playground:code"
TOUR = (PLAYGROUND_OUT / "tour.py").read_text(encoding="utf-8") \
    if (PLAYGROUND_OUT / "tour.py").is_file() else ""


def ready(page: Page) -> None:
    page.wait_for_function("window.pep671Ready === true", timeout=LOAD_TIMEOUT_MS)


def keep(page: Page, code: str) -> None:
    """Type code into the editor (as a user would: it is kept) and wait until it is."""
    set_code(page, code)
    page.wait_for_function(f"localStorage.getItem({KEPT!r}) === {json.dumps(code)}")


def test_your_code_is_kept_across_reloads_and_the_tour_comes_back(browser: Browser,
                                                                   site: str) -> None:
    pg = browser.new_page()
    try:
        pg.goto(site)
        ready(pg)
        assert get_code(pg) == TOUR
        keep(pg, "print('mine')\n")
        pg.reload()
        ready(pg)
        assert get_code(pg) == "print('mine')\n"
        assert pg.get_attribute("#output", "data-runs") is None   # kept code is not run
        assert "your code from your last visit" in pg.inner_text("#status")
        assert run(pg, "run").strip() == "mine"
        before = runs(pg)
        pg.select_option("#examples", "tour")
        wait_for_run(pg, before)
        assert get_code(pg) == TOUR
    finally:
        pg.close()


def test_a_link_that_cannot_be_read_says_so_and_loads_nothing(browser: Browser,
                                                               site: str, page: Page) -> None:
    good = page.evaluate("window.__pep671.shareUrl('print(1)\\n' * 50)")
    fragment = good.split("#", 1)[1]
    broken = {"not base64": "code=notvalid!!",
              "cut short": fragment[:len(fragment) // 2]}
    pg = browser.new_page()
    try:
        pg.goto(site)
        ready(pg)
        keep(pg, "print('kept')\n")
        for i, (why, bad) in enumerate(broken.items()):
            pg.goto(f"{site}index.html?{i}#{bad}")   # a new load each time
            ready(pg)
            notice = pg.locator("#notice")
            assert notice.is_visible(), why
            assert "could not be read" in notice.inner_text(), why
            assert get_code(pg) == "print('kept')\n", why
            pg.wait_for_timeout(1000)
            assert notice.is_visible(), why   # it stays
        pg.click("#notice button")
        assert not pg.locator("#notice").is_visible()
    finally:
        pg.close()


def test_the_page_on_a_phone(browser: Browser, site: str) -> None:
    pg = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                          is_mobile=True, has_touch=True)
    try:
        pg.goto(site)
        ready(pg)
        assert pg.evaluate("document.documentElement.scrollWidth") <= 390
        editor = pg.locator("#editor").bounding_box()
        output = pg.locator("#output").bounding_box()
        assert editor and output
        assert output["y"] >= editor["y"] + editor["height"]   # one column
        assert editor["width"] > 300 and output["width"] > 300
        for button in pg.locator(".bar button, .bar select").all():
            box = button.bounding_box()
            assert box is not None
            assert box["height"] >= 40, button.get_attribute("id")
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        PHONE_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(PHONE_SCREENSHOT))
    finally:
        pg.close()


def test_the_share_box_does_not_move_the_panes(page: Page) -> None:
    set_code(page, "print('share me')\n")
    top = page.locator(".panes").bounding_box()
    share_link(page)
    assert page.is_visible("#share-link")
    assert page.locator(".panes").bounding_box() == top
    page.click("#output")   # the box goes when it loses the focus
    assert not page.is_visible("#share-link")


def test_the_favicon_is_there(browser: Browser, site: str) -> None:
    pg = browser.new_page()
    failed: list[str] = []
    pg.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400
          else None)
    try:
        pg.goto(site)
        ready(pg)
        href = pg.get_attribute("link[rel=icon]", "href")
        assert href == "favicon.svg"
        response = pg.request.get(site + href)
        assert response.ok and response.headers["content-type"] == "image/svg+xml"
        assert failed == []
    finally:
        pg.close()


def test_choosing_the_same_example_again_loads_it_again(page: Page) -> None:
    examples = page.evaluate("window.__pep671.examples")
    for _ in range(2):
        before = runs(page)
        set_code(page, "print('edited')\n")
        page.select_option("#examples", "0")
        wait_for_run(page, before)
        assert get_code(page) == examples[0]["code"]
        # the menu shows "Examples…" again, so that choosing it again is a change
        assert page.input_value("#examples") == ""
