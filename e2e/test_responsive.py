"""Phones: the index page and the React demo at 390x844 and 320x640 (touch, mobile viewport), before
and after a verification with the modal open: nothing scrolls sideways, the modal and every box
in it stay inside the screen, the graph fits its pane. One page per demo: the viewport is resized
with the modal open, so Pyodide starts twice in all. Screenshots: test-artifacts/e2e/phone-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from conftest import PYODIDE_TIMEOUT_MS, guard_context

pytestmark = pytest.mark.pyodide

VIEWPORTS = [(390, 844), (320, 640)]

# Everything that could scroll sideways: the page, the dialog, its scrolling body, and any box in
# the dialog reaching past the dialog's right edge.
OVERFLOW = """(host) => {
  const doc = document.scrollingElement;
  const out = { page: [doc.scrollWidth, doc.clientWidth, innerWidth] };
  const root = host && host.shadowRoot;
  const dialog = root && root.querySelector("dialog[open]");
  if (dialog) {
    const body = dialog.querySelector(".body");
    const d = dialog.getBoundingClientRect();
    out.dialog = [dialog.scrollWidth, dialog.clientWidth, Math.round(d.left), Math.round(d.right)];
    out.body = [body.scrollWidth, body.clientWidth];
    const edge = body.getBoundingClientRect().right + 1;
    out.outside = [...dialog.querySelectorAll("*")]
      .filter((e) => !e.closest("svg") || e.tagName === "svg")
      .filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.right > edge; })
      .map((e) => `${e.tagName.toLowerCase()}.${e.className.baseVal ?? e.className}`)
      .slice(0, 8);
  }
  return out;
}"""


def assert_no_sideways_scroll(page, host_selector, where):
    m = page.locator(host_selector).evaluate(OVERFLOW) if host_selector else page.evaluate(OVERFLOW.replace("(host) =>", "(host = null) =>"))
    sw, cw, iw = m["page"]
    assert sw <= cw and cw <= iw, f"{where}: the page scrolls sideways {m}"
    if "dialog" in m:
        dsw, dcw, left, right = m["dialog"]
        assert dsw <= dcw and left >= 0 and right <= iw, f"{where}: the modal overflows {m}"
        assert m["body"][0] <= m["body"][1], f"{where}: the modal's body scrolls sideways {m}"
        assert not m["outside"], f"{where}: boxes reach past the modal's edge {m}"


def phone(browser, site_url, width, height):
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=True, has_touch=True, device_scale_factor=2)
    leaks = guard_context(context, site_url)
    return context, leaks


@pytest.mark.parametrize(("path", "el"), [("", "#main-verify"), ("react/", "#react-button")])
def test_phone_viewports_have_no_horizontal_scroll(browser, site_url, artifacts, path, el):
    context, leaks = phone(browser, site_url, *VIEWPORTS[0])
    name = "react" if path else "index"
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(site_url + path)
        expect(page.locator(f"{el} button.trigger")).to_be_visible()
        for width, height in VIEWPORTS:
            page.set_viewport_size({"width": width, "height": height})
            assert_no_sideways_scroll(page, None, f"{name} {width}x{height} before verifying")
        page.set_viewport_size({"width": VIEWPORTS[0][0], "height": VIEWPORTS[0][1]})
        page.locator(f"{el} button.trigger").tap()
        expect(page.locator(el)).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
        for width, height in VIEWPORTS:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(100)  # re-layout
            assert_no_sideways_scroll(page, el, f"{name} {width}x{height} with the modal open")
            # the verdict and the outputs it attests are on the first screen of the modal
            for part in (".result", ".io-outputs tbody tr"):
                box = page.locator(f"{el} dialog {part}").first.bounding_box()
                assert box and box["y"] >= 0 and box["y"] + min(box["height"], 60) <= height, (name, width, part, box)
            pane = page.locator(f"{el} .graph .graph-pane").bounding_box()
            svg = page.locator(f"{el} .graph svg").bounding_box()
            assert svg["width"] <= pane["width"] + 1, (svg, pane)  # the graph fits its pane
            assert pane["x"] >= 0 and pane["x"] + pane["width"] <= width, pane
            page.locator(f"{el} dialog").screenshot(path=str(artifacts / f"phone-{name}-{width}.png"))
            page.locator(f"{el} dialog .body").evaluate("b => b.scrollTop = b.scrollHeight")
            assert_no_sideways_scroll(page, el, f"{name} {width}x{height} scrolled to the details")
            page.locator(f"{el} dialog").screenshot(path=str(artifacts / f"phone-{name}-{width}-details.png"))
            page.locator(f"{el} dialog .body").evaluate("b => b.scrollTop = 0")
        page.keyboard.press("Escape")
        for width, height in VIEWPORTS:
            page.set_viewport_size({"width": width, "height": height})
            assert_no_sideways_scroll(page, None, f"{name} {width}x{height} after verifying")
        page.screenshot(path=str(artifacts / f"phone-{name}-page.png"), full_page=True)
        assert not errors, errors
    finally:
        context.close()
    assert not leaks, leaks
