"""The demo pages: the index page under a strict CSP (cold click, dialog closed at once: the verdict
arrives on the button and is announced; outputs filled in by the page from the success event),
the pinned wheel hash enforced in Chromium, preload (eager and idle), the opt-in runtime cache
across visits, the React demo and the PyScript page (micropip from the self-hosted lock file).
Every test runs with the offline guard: any request that leaves 127.0.0.1 fails it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from conftest import PUBLIC, PYODIDE_TIMEOUT_MS
from luminair.verifier import verify

pytestmark = pytest.mark.pyodide

PROOF = (PUBLIC / "proof.bin").read_bytes()
SETTINGS = (PUBLIC / "settings.bin").read_bytes()
EXPECTED = verify(PROOF, SETTINGS)


def _console_errors(page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def test_index_page_under_csp_verifies_on_click(offline_page, site_url, artifacts):
    page = offline_page
    errors = _console_errors(page)
    responses = []
    page.on("response", lambda r: responses.append((r.url, r.status)))
    with page.expect_worker(timeout=30_000):  # preload="idle" by default: started once the page has loaded
        page.goto(site_url)
    assert page.locator("#main-verify").evaluate("e => e.preload") == "idle"
    assert page.locator("#main-verify").get_attribute("status") == "idle"
    expect(page.locator("link[rel=icon]")).to_have_attribute("href", "./favicon.svg")
    page.wait_for_timeout(300)
    assert not [r for r in responses if r[1] >= 400], responses  # no 404 (the favicon included)
    assert any(u.endswith("/favicon.svg") and st == 200 for u, st in responses), responses
    expect(page.locator("#theme-toggle")).to_have_text("Dark mode")
    csp = page.locator("meta[http-equiv=Content-Security-Policy]").get_attribute("content")
    assert "'wasm-unsafe-eval'" in csp and "'unsafe-eval'" not in csp.replace("'wasm-unsafe-eval'", "")
    page.locator("#main-verify button.trigger").click()
    # the visitor closes the dialog during the cold start: the verdict still reaches the button,
    # and a screen reader hears it (a polite live region outside the closed dialog)
    expect(page.locator("#main-verify dialog")).to_have_attribute("open", "")
    page.keyboard.press("Escape")
    expect(page.locator("#main-verify dialog")).not_to_have_attribute("open", "")
    assert page.locator("#main-verify").get_attribute("status") in ("loading", "verifying")
    expect(page.locator("#main-verify")).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
    expect(page.locator("#main-verify button.trigger")).to_have_text("✓VERIFIED")
    announce = page.locator("#main-verify .announce")
    assert announce.get_attribute("aria-live") == "polite" and announce.get_attribute("role") == "status"
    expect(announce).to_have_text("Can't be evil.: Verified.")
    page.locator("#main-verify button.trigger").click()  # reopens on the kept verdict
    expect(page.locator("#main-verify .result .verdict-text")).to_have_text("Verified")
    expect(page.locator("#digest-value")).to_have_text(EXPECTED.model_digest)
    first_name = next(iter(EXPECTED.outputs))
    expect(page.locator("#outputs-value")).to_contain_text(first_name)
    page.locator("#main-verify dialog").screenshot(path=str(artifacts / "index-modal.png"))
    page.keyboard.press("Escape")
    # the badge verifies as soon as it is shown
    page.locator("#show-badge").click()
    expect(page.locator("#main-badge")).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
    page.screenshot(path=str(artifacts / "index.png"), full_page=True)
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors
    assert len(page.workers) == 1  # one worker shared by both elements


def test_tampered_wheel_is_refused_in_chromium(offline_page, site_url):
    page = offline_page

    def corrupt(route):
        if route.request.method == "HEAD":  # the hosting check: the file is there
            route.continue_()
            return
        body = bytearray(route.fetch().body())
        body[len(body) // 2] ^= 0xFF
        route.fulfill(status=200, body=bytes(body), headers={"content-type": "application/zip"})

    page.route(re.compile(r".*/luminair/luminair_verifier-[^/]+\.whl$"), corrupt)
    page.goto(site_url + "fixtures/cases.html")
    page.locator("#ok button.trigger").click()
    expect(page.locator("#ok")).to_have_attribute("status", "unavailable", timeout=PYODIDE_TIMEOUT_MS)
    expect(page.locator("#ok .result .verdict-text")).to_have_text("The verifier failed its integrity check")
    expect(page.locator("#ok .result .detail")).to_contain_text("refusing to load it")
    assert page.locator("#ok .result").get_attribute("data-kind") == "hash"


def test_preload_starts_the_worker_without_a_click(offline_page, site_url):
    page = offline_page
    with page.expect_worker(timeout=30_000):  # a bare `preload` is eager
        page.goto(site_url + "fixtures/preload.html")
    assert page.locator("#pre").get_attribute("status") == "idle"
    assert page.locator("#pre").evaluate("e => e.preload") == "eager"
    with page.expect_worker(timeout=30_000):  # preload="idle": after load, when the browser is idle
        page.goto(site_url + "fixtures/preload.html?idle")
    assert page.locator("#pre").evaluate("e => e.preload") == "idle"
    with page.expect_worker(timeout=30_000):  # no attribute: preload="idle" is the default
        page.goto(site_url + "fixtures/preload.html?defaults")
    assert page.locator("#pre").evaluate("e => [e.preload, e.hasAttribute('preload')]") == ["idle", False]
    page.goto(site_url + "fixtures/preload.html?none")
    page.wait_for_timeout(800)
    assert page.workers == []  # preload="none": nothing before a click, not even on hover
    page.locator("#pre button.trigger").hover()
    page.wait_for_timeout(300)
    assert page.workers == []
    page.goto(site_url + "fixtures/preload.html?hover")
    page.wait_for_timeout(800)
    assert page.workers == []  # preload="hover": only when the pointer comes
    with page.expect_worker(timeout=30_000):
        page.locator("#pre button.trigger").hover()


def test_opt_in_cache_serves_the_runtime_on_the_next_visit(browser, site_url):
    """With the `cache` attribute the runtime files (WebAssembly, bytecode stdlib, wheel, verifier
    bytecode) are kept in Cache Storage, with a memory snapshot of Python taken once the verifier
    was imported: the next visit downloads none of them and restores Python instead of starting it."""
    from conftest import guard_context

    context = browser.new_context()
    leaks = guard_context(context, site_url)
    try:
        page = context.new_page()
        page.goto(site_url + "fixtures/preload.html?cache")
        page.locator("#pre button.trigger").click()
        expect(page.locator("#pre")).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
        first = page.evaluate("(async () => (await import('../luminair/index.js')).getInfo())()")
        assert first["cachedFiles"] == 0 and first["snapshot"] == "saved"
        expect(page.locator("#pre dl.facts")).to_contain_text("Runtime")
        expect(page.locator("#pre dl.facts")).not_to_contain_text("Repeat visits")  # opted in: no tip
        count = "(async () => { const m = await import('../luminair/index.js'); return (await (await caches.open(m.cacheName())).keys()).length; })()"
        for _ in range(50):  # the files are stored once the verifier has started
            if page.evaluate(count) == 5:  # 4 files and the snapshot
                break
            page.wait_for_timeout(100)
        assert page.evaluate(count) == 5
        page.close()
        page = context.new_page()
        runtime = []
        page.on("request", lambda r: runtime.append(r.url) if re.search(r"(\.wasm|\.whl|verifier\.zip|bytecode\.zip)$", r.url) and r.method == "GET" else None)
        page.goto(site_url + "fixtures/preload.html?cache")
        page.locator("#pre button.trigger").click()
        expect(page.locator("#pre")).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
        again = page.evaluate("(async () => { const m = await import('../luminair/index.js'); return m.getInfo(); })()")
        assert again["cachedFiles"] == 4, again
        expect(page.locator("#pre ol.steps")).to_contain_text("4 files from the cache")
        assert runtime == [], runtime  # nothing of the runtime went over the network
        # Python came back from the memory snapshot of the first visit, and still verifies right
        assert again["snapshot"] == "restored", again
        bad = bytearray(PROOF)
        bad[len(bad) // 2] ^= 1
        got = page.evaluate(
            """async () => {
                const m = await import('../luminair/index.js');
                const bytes = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
                const proof = await bytes('../proof.bin'), settings = await bytes('../settings.bin');
                const bad = proof.slice(); bad[bad.length >> 1] ^= 1;
                const t = await m.verify(bad, settings);
                const s = await m.readSettingsSummary(settings);
                return [t.success, t.check, t.error_message, s.model_digest];
            }"""
        )
        tampered = verify(bytes(bad), SETTINGS)
        assert got == [False, tampered.check, tampered.error_message, EXPECTED.model_digest], got
        assert page.evaluate("(async () => (await import('../luminair/index.js')).clearCache())()") >= 1
    finally:
        context.close()
    assert not leaks, leaks


def test_without_cache_details_and_console_suggest_it_once(offline_page, site_url):
    """The fast repeat visit stores ~45 MB, so it is the site's choice (`cache`); without it the
    element says what it would gain under Details ("Repeat visits") and once in the console."""
    page = offline_page
    infos: list[str] = []
    page.on("console", lambda m: infos.append(m.text) if m.type == "info" else None)
    page.goto(site_url + "fixtures/preload.html?none")
    page.locator("#pre button.trigger").click()
    expect(page.locator("#pre")).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
    tip = page.locator("#pre dl.facts dd.tip")
    expect(tip).to_have_count(1)
    expect(tip).to_contain_text("cache attribute")
    expect(page.locator("#pre dl.facts")).to_contain_text("Repeat visits")
    page.locator("#pre").evaluate("e => e.verify().then(() => true)")  # a second verdict: the console is told once
    expect(page.locator("#pre")).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
    page.wait_for_timeout(200)
    said = [t for t in infos if "repeat visits" in t]
    assert len(said) == 1 and "<luminair-verify cache>" in said[0] and "configure({ cache: true })" in said[0], infos


def test_warm_worker_makes_the_click_fast(offline_page, site_url):
    page = offline_page
    page.goto(site_url + "fixtures/cases.html")
    # the badge on this page starts the worker at load, like `preload`
    expect(page.locator("#badge")).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
    page.locator("#ok button.trigger").click()
    expect(page.locator("#ok")).to_have_attribute("status", "verified", timeout=10_000)
    total = page.evaluate("document.getElementById('ok').result.totalTimeMs")
    assert total < 3000, total  # warm: no Pyodide start (the bench measures it precisely)


def test_react_demo_verifies(offline_page, site_url, artifacts):
    page = offline_page
    errors = _console_errors(page)
    page.goto(site_url + "react/")
    expect(page.locator("#react-badge")).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
    expect(page.locator("#react-badge button.trigger")).to_contain_text("VERIFIED COMPUTE")
    expect(page.locator("#react-badge button.trigger")).to_have_text("✓VERIFIED COMPUTE")
    page.locator("#react-button button.trigger").click()
    expect(page.locator("#react-button")).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
    page.keyboard.press("Escape")
    expect(page.locator("#react-button button.trigger")).to_have_text("✓VERIFIED")
    page.locator("#react-button button.trigger").click()
    expect(page.locator("#react-verified")).to_contain_text(f"{EXPECTED.security_bits} bits")
    expect(page.locator("#react-verified")).to_contain_text(EXPECTED.model_digest[:16])
    expect(page.locator("#react-log li")).to_have_count(8)  # start, 6 progress steps, verified
    expect(page.locator("#react-log li").last).to_have_text("verified")
    assert "demo-button" in page.locator("#react-button").get_attribute("class")  # className -> class
    expect(page.locator("#react-button dialog")).to_contain_text("Demo model proven with luminair")
    page.keyboard.press("Escape")
    nav = page.locator("nav a")
    assert [a.get_attribute("href") for a in nav.all()] == ["../", "./", "../pyscript.html"], nav.all_inner_texts()
    page.screenshot(path=str(artifacts / "react.png"))
    assert not errors, errors


def test_pyscript_page_verifies_with_micropip_offline(offline_page, site_url, artifacts):
    page = offline_page
    page.goto(site_url + "pyscript.html")
    expect(page.locator("#py-tampered")).not_to_have_text("—", timeout=PYODIDE_TIMEOUT_MS)
    expect(page.locator("#py-result")).to_have_text("Verified")
    expect(page.locator("#py-micropip")).to_contain_text("micropip 0.11.1")
    expect(page.locator("#py-wheel")).to_contain_text("installed with micropip")
    expect(page.locator("#py-digest")).to_have_text(EXPECTED.model_digest)
    expect(page.locator("#py-security")).to_have_text(f"{EXPECTED.security_bits} bits ({EXPECTED.security_label})")
    bad = bytearray(PROOF)
    bad[len(bad) // 2] ^= 1
    expect(page.locator("#py-tampered")).to_have_text(f"rejected: {verify(bytes(bad), SETTINGS).error_message}")
    page.screenshot(path=str(artifacts / "pyscript.png"), full_page=True)
