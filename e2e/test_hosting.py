"""A wrongly hosted verifier, as site owners get it wrong: each failure in a fresh browser context
(a fresh worker), clicked once. The visitor must see, within 3 s of the click, the "unavailable"
verdict (never "rejected") and the cause with the URL at fault; "Verify again" fails as fast. A
.wasm served with the wrong MIME type is not a failure: the verifier compiles a relabelled copy and
says so in Details. Timings go to test-artifacts/e2e/hosting-timings.json."""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import expect

from conftest import PYODIDE_TIMEOUT_MS, guard_context

pytestmark = pytest.mark.pyodide

TIMINGS: dict[str, dict] = {}


def _page(browser, site_url, install=None):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    leaks = guard_context(context, site_url)
    errors: list[str] = []
    if install:
        install(context, site_url, leaks)
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_url + "fixtures/hosting.html")
    expect(page.locator("#v button.trigger")).to_be_visible()
    return context, page, leaks, errors


def _fail_404(context, site_url, leaks):
    context.route("**/luminair/pyodide/pyodide.asm.wasm", lambda r: r.fulfill(status=404, body="Not Found", content_type="text/plain"))


def _wrong_mime(context, site_url, leaks):
    def handler(route):
        res = route.fetch()
        route.fulfill(status=200, body=res.body(), headers={"content-type": "application/octet-stream"})

    context.route("**/luminair/pyodide/pyodide.asm.mjs", handler)


def _blocked(context, site_url, leaks):
    context.route("**/luminair/pyodide/pyodide.asm.wasm", lambda r: r.abort("blockedbyclient"))


def _csp(context, site_url, leaks):
    """A site-wide Content-Security-Policy header without 'wasm-unsafe-eval' (on the worker too)."""

    def handler(route):
        url = route.request.url
        if not url.startswith(site_url):
            leaks.append(url)
            route.abort()
            return
        res = route.fetch()
        headers = {**res.headers, "content-security-policy": "default-src 'self'; script-src 'self'"}
        route.fulfill(status=res.status, body=res.body(), headers=headers)

    context.route("**/*", handler)


CASES = {
    "404 runtime": (_fail_404, "hosting", r"/luminair/pyodide/pyodide\.asm\.wasm is missing \(HTTP 404\)"),
    "wrong MIME type": (_wrong_mime, "hosting", r"/luminair/pyodide/pyodide\.asm\.mjs is served as \"application/octet-stream\".*text/javascript"),
    "blocked fetch": (_blocked, "hosting", r"/luminair/pyodide/pyodide\.asm\.wasm could not be fetched"),
    "CSP without wasm-unsafe-eval": (_csp, "csp", r"Content-Security-Policy does not allow WebAssembly.*'wasm-unsafe-eval'"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_hosting_failure_is_named_within_3_seconds(browser, site_url, artifacts, case):
    install, kind, pattern = CASES[case]
    context, page, leaks, errors = _page(browser, site_url, install)
    try:
        el = page.locator("#v")
        t0 = time.perf_counter()
        page.locator("#v button.trigger").click()
        expect(el).to_have_attribute("status", "unavailable", timeout=3000)
        first = time.perf_counter() - t0
        detail = page.locator("#v .result .detail").text_content()
        assert re.search(pattern, detail), detail
        assert page.locator("#v .result").get_attribute("data-kind") == kind
        expect(page.locator("#v .result .note")).to_contain_text("Nothing was checked")
        expect(page.locator("#v .pill")).to_have_text("Unavailable")
        if kind == "hosting":
            expect(page.locator("#v dl.facts")).to_contain_text(site_url + "luminair/pyodide/")  # the URL at fault
        page.locator("#v dialog").screenshot(path=str(artifacts / f"hosting-{case.split()[0].lower()}.png"))
        # "Verify again" fails as fast, with the same cause
        t1 = time.perf_counter()
        page.evaluate("""() => {  // every status the retry passes through (a poll could miss a fast one)
            const el = document.querySelector("#v");
            window.__statuses = [];
            new MutationObserver(() => window.__statuses.push(el.getAttribute("status")))
                .observe(el, { attributes: true, attributeFilter: ["status"] });
        }""")
        page.locator("#v button.retry").click()
        page.wait_for_function("() => window.__statuses.length >= 2 && window.__statuses.at(-1) === 'unavailable'", timeout=3000)
        assert any(s != "unavailable" for s in page.evaluate("window.__statuses")), "the retry did not start a new check"
        again = time.perf_counter() - t1
        assert re.search(pattern, page.locator("#v .result .detail").text_content())
        page.keyboard.press("Escape")
        expect(page.locator("#v button.trigger")).to_have_text("⊘NOT CHECKED")
        TIMINGS[case] = {"click_to_cause_s": round(first, 3), "verify_again_s": round(again, 3)}
        (artifacts / "hosting-timings.json").write_text(json.dumps(TIMINGS, indent=2))
        assert first < 3 and again < 3, TIMINGS[case]
        assert not errors, errors
    finally:
        context.unroute_all(behavior="ignoreErrors")  # requests still in flight (the hosting check) must not fail later tests
        context.close()
    assert not leaks, leaks


def test_wasm_with_the_wrong_mime_type_still_verifies_and_says_so(browser, site_url):
    """Streaming compilation refuses application/octet-stream (Pyodide would then wait forever): the
    worker hands it the same bytes under the right type, and Details names the misconfiguration."""

    def install(context, site_url, leaks):
        def handler(route):
            res = route.fetch()
            route.fulfill(status=200, body=res.body(), headers={"content-type": "application/octet-stream"})

        context.route("**/luminair/pyodide/pyodide.asm.wasm", handler)

    context, page, leaks, errors = _page(browser, site_url, install)
    try:
        page.locator("#v button.trigger").click()
        page.locator("#v:is([status=verified], [status=development], [status=rejected], [status=unavailable])").wait_for(timeout=PYODIDE_TIMEOUT_MS)
        assert page.locator("#v").get_attribute("status") == "verified", page.locator("#v .result").text_content()
        hosting = page.locator("#v dl.facts dt", has_text="Hosting")
        expect(hosting).to_have_count(1)
        expect(page.locator("#v dl.facts")).to_contain_text('pyodide.asm.wasm is served as "application/octet-stream" instead of application/wasm')
        assert not errors, errors
    finally:
        context.unroute_all(behavior="ignoreErrors")  # requests still in flight (the hosting check) must not fail later tests
        context.close()
    assert not leaks, leaks
