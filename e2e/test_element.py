"""<luminair-verify> in Debian's Chromium, on one page holding every case (one worker, so Pyodide
starts once for the module, and once more after the timeout test restarts it). Verdicts and
messages are compared with CPython's verifier on the same bytes. The four verdicts (verified,
development, rejected, unavailable) each have their own colour, icon and words, on the button and
in the modal, screenshotted in light and dark under test-artifacts/e2e/."""

from __future__ import annotations

import io
import zipfile

import pytest
from playwright.sync_api import expect

from conftest import PUBLIC, PYODIDE_TIMEOUT_MS
from luminair.verifier import verify
from luminair.verifier.formats import FORMAT_VERSION
from luminair.verifier.summary import settings_summary

pytestmark = pytest.mark.pyodide

PROOF = (PUBLIC / "proof.bin").read_bytes()
SETTINGS = (PUBLIC / "settings.bin").read_bytes()
DONE = ":is([status=verified], [status=development], [status=rejected], [status=unavailable])"


@pytest.fixture(scope="module")
def ctx(module_context, site_url):
    page = module_context["page"]
    page.goto(site_url + "fixtures/cases.html")
    expect(page.locator("#ok button.trigger")).to_be_visible()
    return module_context


@pytest.fixture
def page(ctx):
    page = ctx["page"]
    yield page
    page.keyboard.press("Escape")
    assert not ctx["errors"], ctx["errors"]
    assert not ctx["leaks"], ctx["leaks"]


def js_number(v) -> str:
    """How JavaScript's String() writes a number (shortest round trip, like Python's repr)."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return repr(v)


def run(page, el_id: str) -> str:
    """Click the element's button and wait for a final status; the modal is open afterwards."""
    page.locator(f"#{el_id} button.trigger").click()
    expect(page.locator(f"#{el_id} dialog")).to_have_attribute("open", "")
    page.locator(f"#{el_id}{DONE}").wait_for(timeout=PYODIDE_TIMEOUT_MS)
    return page.locator(f"#{el_id}").get_attribute("status")


def events(page, el_id: str) -> list[dict]:
    return [e for e in page.evaluate("window.__events") if e["id"] == el_id]


def test_verified_shows_outputs_digest_bits_time_and_graph(page):
    expected = verify(PROOF, SETTINGS)
    assert expected.success
    assert run(page, "ok") == "verified"
    result = page.locator("#ok .result")
    expect(result).to_contain_text("Verified")
    facts = page.locator("#ok dl.facts")
    expect(facts).to_contain_text(expected.model_digest)
    expect(facts).to_contain_text(f"{expected.security_bits} bits ({expected.security_label})")
    expect(facts).to_contain_text("in Pyodide")
    expect(facts).to_contain_text(expected.statement)
    # the numeric format read from settings.bin (scales per tensor, or the one scale)
    expect(facts).to_contain_text(settings_summary(SETTINGS)["numeric_format"]["description"])
    outputs = page.locator("#ok table.outputs")
    for name, tensor in expected.outputs.items():
        expect(outputs).to_contain_text(name)
        shown = ", ".join(js_number(v) for v in tensor["values"][:24])
        expect(outputs).to_contain_text(f"[{shown}")
    # the graph view: high-level ops by default, primitives on demand, shapes in the tooltips
    graph = settings_summary(SETTINGS)["graph"]
    nodes = page.locator("#ok .graph svg g.node")
    expect(nodes).to_have_count(4)
    assert [n.get_attribute("class").split()[1] for n in nodes.all()] == ["op-input", "op-linear", "op-relu", "op-linear"]
    # the sample is compiled with fused ops: each group is one fused primitive, named in its tooltip
    relu, dots = [n for n in graph["nodes"] if n["op"] == "Relu"], [n for n in graph["nodes"] if n["op"] == "Dot"]
    assert len(relu) == 1 and len(dots) == 2, graph["nodes"]
    tip = page.locator("#ok .graph svg g.node.op-relu title").text_content()
    assert "ReLU" in tip and f"#{relu[0]['id']} {relu[0]['label']} [1×64]" in tip, tip
    tips = [t.text_content() for t in page.locator("#ok .graph svg g.node.op-linear title").all()]
    assert [f"#{d['id']} Dot(axis=2)" in t for d, t in zip(dots, tips)] == [True, True], tips
    expect(page.locator("#ok .graph svg g.node.op-relu text.shape")).to_have_text("1 op [1×64]")
    toggle = page.locator("#ok .graph button.primitives")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(nodes).to_have_count(len(graph["nodes"]))
    expect(page.locator("#ok .graph svg path.edge")).to_have_count(len(graph["edges"]))
    toggle.click()
    expect(nodes).to_have_count(4)
    svg = page.locator("#ok .graph svg")
    full = svg.get_attribute("viewBox")
    page.locator("#ok .graph button.zoom-in").click()
    zoomed = svg.get_attribute("viewBox")
    assert float(zoomed.split()[2]) < float(full.split()[2]), (full, zoomed)
    page.locator("#ok .graph button.fit").click()
    expect(svg).to_have_attribute("viewBox", full)
    pane = page.locator("#ok .graph .graph-pane").bounding_box()
    box = svg.bounding_box()
    assert box["width"] <= pane["width"] + 1 and box["height"] <= pane["height"] + 1, (box, pane)  # fits its pane
    # each public output's node and index map (when the verifier reports them), under Details
    for name, tensor in expected.outputs.items():
        if tensor.get("source"):
            expect(facts).to_contain_text(f"{name}: node {tensor['source']['node']} ({tensor['source']['op']}")
        if tensor.get("index_map") == "identity":
            expect(facts).to_contain_text("identity")
    if expected.model_title:
        expect(facts).to_contain_text("Publisher's label")
        expect(facts).to_contain_text(expected.model_title)
    steps = page.locator("#ok ol.steps li")
    expect(steps).to_have_count(2 + 6)
    expect(page.locator("#ok ol.steps li[data-status=completed]")).to_have_count(8)
    # honest claim: what is proven, and no privacy claim
    claim = page.locator("#ok .claim").inner_text()
    assert "this exact model, with these weights" in claim and "not zero-knowledge" in claim
    assert "privacy" not in claim.lower() and "zero-knowledge proof" not in claim.lower()
    result_js = page.evaluate("document.getElementById('ok').result")
    assert result_js["success"] is True and result_js["modelDigest"] == expected.model_digest
    assert result_js["securityBits"] == expected.security_bits and result_js["verdict"] == "verified"
    # the verdict is on the button, with its icon and words, and stays after the dialog closes
    page.keyboard.press("Escape")
    expect(page.locator("#ok button.trigger")).to_have_text("✓VERIFIED")
    assert page.locator("#ok").evaluate("e => e.verdict") == "verified"


def test_events_bubble_in_order_with_details(page):
    evs = events(page, "ok")
    types = [e["type"].removeprefix("luminair-verify-") for e in evs]
    assert types == ["start"] + ["progress"] * 6 + ["success"], types
    assert [e["detail"]["step"] for e in evs if e["type"].endswith("progress")] == [1, 2, 3, 4, 5, 6]
    success = evs[-1]
    assert success["status"] == "verified"  # dispatched after the element's state is updated
    detail = success["detail"]
    assert detail["modelDigest"] == verify(PROOF, SETTINGS).model_digest
    assert detail["securityBits"] == verify(PROOF, SETTINGS).security_bits >= 96 and detail["outputs"]
    assert detail["verificationTimeMs"] > 0


def test_tampered_proof_names_the_failed_check(page):
    bad = bytearray(PROOF)
    bad[len(bad) // 2] ^= 1
    expected = verify(bytes(bad), SETTINGS)
    assert not expected.success
    assert run(page, "tampered") == "rejected"
    expect(page.locator("#tampered .result .verdict-text")).to_have_text(f"Verification failed: {expected.check} check")
    expect(page.locator("#tampered .result .detail")).to_have_text(expected.error_message)
    expect(page.locator("#tampered ol.steps li[data-status=error]")).to_have_count(1)
    err = events(page, "tampered")[-1]
    assert err["type"] == "luminair-verify-error"
    assert err["detail"]["kind"] == "rejected" and err["detail"]["check"] == expected.check
    assert err["detail"]["verdict"] == "rejected"
    expect(page.locator("#tampered .result .note")).to_contain_text("nothing it claims is proven")


@pytest.mark.parametrize(
    ("el_id", "kind", "status", "headline", "detail"),
    [
        ("missing", "not-found", "unavailable", "File not found", "HTTP 404"),
        ("garbage", "format", "rejected", "Not a luminair file", "not a luminair proof file"),
        ("version", "version", "unavailable", "Unsupported file version", f"format version {FORMAT_VERSION + 1}"),
        ("swapped", "format", "rejected", "Not a luminair file", "swapped"),
        ("network", "network", "unavailable", "Could not download the files", "request failed"),
    ],
)
def test_distinct_error_messages(page, el_id, kind, status, headline, detail):
    if el_id == "network":  # a same-origin request that fails at the network level
        page.route("**/fixtures/network-failure.bin", lambda route: route.abort("connectionrefused"))
    assert run(page, el_id) == status
    expect(page.locator(f"#{el_id} .result .verdict-text")).to_have_text(headline)
    expect(page.locator(f"#{el_id} .result .detail")).to_contain_text(detail)
    assert page.locator(f"#{el_id} .result").get_attribute("data-kind") == kind
    err = events(page, el_id)[-1]
    assert err["type"] == "luminair-verify-error" and err["detail"]["kind"] == kind and err["detail"]["verdict"] == status
    note = page.locator(f"#{el_id} .result .note")
    if status == "unavailable":  # nothing was checked: never shown as a failed verification
        expect(note).to_contain_text("Nothing was checked")
        expect(page.locator(f"#{el_id} button.trigger")).to_have_text("⊘NOT CHECKED")
    else:
        expect(page.locator(f"#{el_id} button.trigger")).to_have_text("✗PROOF REJECTED")


def test_config_below_floor_is_rejected_in_plain_words_with_the_attribute_that_checks_it(page):
    fast_proof = (page.context.request.get(page.url.replace("cases.html", "fast/proof.bin"))).body()
    fast_settings = (page.context.request.get(page.url.replace("cases.html", "fast/settings.bin"))).body()
    expected = verify(fast_proof, fast_settings)
    assert expected.check == "config below floor"
    bits = verify(fast_proof, fast_settings, min_security_bits=0).security_bits
    assert run(page, "fast-floor") == "rejected"
    expect(page.locator("#fast-floor .result .verdict-text")).to_have_text("Not accepted: a development proof, below the security floor")
    detail = page.locator("#fast-floor .result .detail")
    expect(detail).to_contain_text(f"about {bits} bits of conjectured security")
    expect(detail).to_contain_text(f'min-security-bits="{bits}"')
    expect(detail).to_contain_text("accepts 96 bits or more")
    expect(page.locator("#fast-floor dl.facts")).to_contain_text(expected.error_message)  # the verifier's own words
    expect(page.locator("#fast-floor dl.facts")).to_contain_text("Model digest")
    assert "Settings digest" not in page.locator("#fast-floor dl.facts").inner_text()


def test_development_proof_has_its_own_amber_state(page):
    assert run(page, "fast-dev") == "development"
    expect(page.locator("#fast-dev .result .verdict-text")).to_have_text("Development proof")
    expect(page.locator("#fast-dev .result .note")).to_contain_text("below the default floor of 96 bits")
    expect(page.locator("#fast-dev .pill")).to_have_text("Development proof")
    assert page.evaluate("document.getElementById('fast-dev').result.verdict") == "development"
    success = events(page, "fast-dev")[-1]
    assert success["type"] == "luminair-verify-success" and success["detail"]["verdict"] == "development"
    page.keyboard.press("Escape")
    expect(page.locator("#fast-dev button.trigger")).to_have_text("⚠DEVELOPMENT PROOF")
    security = page.locator("#fast-dev dl.facts .security")
    expect(security).to_contain_text("DEVELOPMENT")
    expect(security).to_contain_text("⚠")
    assert "dev" in security.get_attribute("class").split()
    color = security.evaluate("e => getComputedStyle(e).color")
    normal = page.locator("#fast-dev dl.facts dd").first.evaluate("e => getComputedStyle(e).color")
    assert color != normal


def test_download_proof_gives_the_verified_files(page, artifacts):
    assert run(page, "ok") == "verified"
    with page.expect_download() as info:
        page.locator("#ok button.download").click()
    download = info.value
    assert download.suggested_filename == "luminair-proof.zip"
    path = artifacts / "luminair-proof.zip"
    download.save_as(path)
    with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as zf:
        assert zf.testzip() is None
        assert sorted(zf.namelist()) == ["proof.bin", "settings.bin"]
        assert zf.read("proof.bin") == PROOF and zf.read("settings.bin") == SETTINGS


def test_keyboard_open_focus_trap_escape_and_focus_return(page):
    page.locator("#ok button.trigger").focus()
    page.keyboard.press("Enter")
    dialog = page.locator("#ok dialog")
    expect(dialog).to_have_attribute("open", "")
    page.locator(f"#ok{DONE}").wait_for(timeout=PYODIDE_TIMEOUT_MS)
    where = (
        "() => { const h = document.activeElement; const a = h && h.shadowRoot ? h.shadowRoot.activeElement : null;"
        " return {host: h === document.body ? 'BODY' : h && h.id, cls: a && a.className, inDialog: !!(a && a.closest('dialog'))}; }"
    )
    first = page.evaluate(where)
    assert first["host"] == "ok" and first["inDialog"], first
    seen = []
    for _ in range(16):  # focus cycles inside the modal (BODY = past the last control, the browser's own UI)
        page.keyboard.press("Tab")
        now = page.evaluate(where)
        seen.append(now)
        assert (now["host"] == "ok" and now["inDialog"]) or now["host"] == "BODY", seen
    assert sum(1 for s in seen if s["inDialog"]) >= 8, seen
    assert any(s["host"] == "BODY" for s in seen) and seen[-1]["host"] in ("ok", "BODY")
    assert dialog.get_attribute("role") is None  # the native dialog role is kept
    assert page.locator("#ok dialog").get_attribute("aria-labelledby") == "lv-title"
    assert page.locator("#ok dialog").get_attribute("aria-describedby") == "lv-claim"
    assert page.locator("#ok .result").get_attribute("aria-live") == "polite"
    assert page.locator("#ok ol.steps").get_attribute("aria-live") == "polite"
    page.keyboard.press("Escape")
    expect(dialog).not_to_have_attribute("open", "")
    back = page.evaluate(where)
    assert back["host"] == "ok" and "trigger" in back["cls"], back
    # the button is still a button named by its words (the icon is hidden from screen readers)
    expect(page.locator("#ok button.trigger")).to_have_accessible_name("VERIFIED")
    # Space opens it too (a real <button>), showing the verdict it keeps
    starts = len([e for e in events(page, "ok") if e["type"] == "luminair-verify-start"])
    page.keyboard.press("Space")
    expect(dialog).to_have_attribute("open", "")
    expect(page.locator("#ok .result .verdict-text")).to_have_text("Verified")
    assert len([e for e in events(page, "ok") if e["type"] == "luminair-verify-start"]) == starts  # no new run
    page.keyboard.press("Escape")
    expect(dialog).not_to_have_attribute("open", "")


def test_badge_verifies_on_load(page):
    badge = page.locator("#badge")
    expect(badge).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
    expect(page.locator("#badge button.trigger")).to_contain_text("VERIFIED COMPUTE")
    starts_before = [e for e in events(page, "badge") if e["type"] == "luminair-verify-start"]
    assert len(starts_before) == 1  # it verified by itself, without a click
    page.locator("#badge button.trigger").click()
    expect(page.locator("#badge dialog")).to_have_attribute("open", "")
    expect(page.locator("#badge .result .verdict-text")).to_have_text("Verified")
    assert len([e for e in events(page, "badge") if e["type"] == "luminair-verify-start"]) == 1


def _bg(page, el_id):
    return page.locator(f"#{el_id} button.trigger").evaluate("e => getComputedStyle(e).backgroundColor")


def test_styling_by_custom_properties_part_and_slot(page):
    button = page.locator("#styled button.trigger")
    assert _bg(page, "styled") == "rgb(200, 30, 90)"
    assert button.evaluate("e => getComputedStyle(e).borderTopLeftRadius") == "0px"
    expect(button).to_have_accessible_name("Check the proof")  # the slotted label names the button


def test_dark_mode_three_ways(page, artifacts):
    light_accent, dark_accent = "rgb(79, 70, 229)", "rgb(165, 180, 252)"
    page.emulate_media(color_scheme="light")
    assert _bg(page, "theme-probe") == light_accent
    assert _bg(page, "dark-attr") == dark_accent  # theme="dark" attribute
    # 1. prefers-color-scheme
    page.emulate_media(color_scheme="dark")
    assert _bg(page, "theme-probe") == dark_accent
    assert _bg(page, "light-attr") == light_accent  # theme="light" wins over the media query
    assert run(page, "ok") == "verified"
    dialog_bg = page.locator("#ok dialog").evaluate("e => getComputedStyle(e).backgroundColor")
    assert dialog_bg == "rgb(11, 13, 18)"
    page.keyboard.press("Escape")
    # 2. a `dark` class on <html> (with a light media query)
    page.emulate_media(color_scheme="light")
    assert _bg(page, "theme-probe") == light_accent
    page.evaluate("document.documentElement.classList.add('dark')")
    expect(page.locator("#theme-probe button.trigger")).to_have_css("background-color", dark_accent)
    assert _bg(page, "light-attr") == light_accent
    page.locator(".grid").screenshot(path=str(artifacts / "buttons-dark-class.png"))
    page.evaluate("document.documentElement.classList.remove('dark')")
    expect(page.locator("#theme-probe button.trigger")).to_have_css("background-color", light_accent)
    assert run(page, "ok") == "verified"
    assert page.locator("#ok dialog").evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 255, 255)"
    page.keyboard.press("Escape")


def test_training_step_shows_its_statement(page, site_dir):
    fx = site_dir / "fixtures" / "train"
    expected = verify((fx / "proof.bin").read_bytes(), (fx / "settings.bin").read_bytes(), min_security_bits=0)
    training = expected.extra["training"]
    assert run(page, "train") == "development"
    facts = page.locator("#train dl.facts")
    expect(facts).to_contain_text("step 3 (seed 5), 4 parameter tensors")
    expect(facts).to_contain_text(training["old_weights_digest"])
    expect(facts).to_contain_text(training["new_weights_digest"])
    expect(facts).to_contain_text(f"{js_number(training['loss'])}")
    assert page.evaluate("document.getElementById('train').result.training.step") == 3


STATE_CASES = {"verified": "ok", "development": "fast-dev", "rejected": "tampered", "unavailable": "missing"}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_four_verdicts_have_their_own_colour_icon_and_words(page, artifacts, scheme):
    """verified, development, rejected and unavailable, on the button and in the modal, in light and
    dark (screenshots: test-artifacts/e2e/state-<verdict>-<scheme>.png and buttons-<scheme>.png)."""
    page.emulate_media(color_scheme=scheme)
    words = {"verified": "✓VERIFIED", "development": "⚠DEVELOPMENT PROOF", "rejected": "✗PROOF REJECTED", "unavailable": "⊘NOT CHECKED"}
    pills = {"verified": "Verified", "development": "Development proof", "rejected": "Rejected", "unavailable": "Unavailable"}
    colours = {}
    for verdict, el_id in STATE_CASES.items():
        if page.locator(f"#{el_id}").get_attribute("status") != verdict:
            assert run(page, el_id) == verdict
        else:
            page.locator(f"#{el_id} button.trigger").click()  # shows the verdict it keeps
        expect(page.locator(f"#{el_id} .pill")).to_have_text(pills[verdict])
        assert page.locator(f"#{el_id} .result").get_attribute("data-state") == verdict
        page.locator(f"#{el_id} dialog").screenshot(path=str(artifacts / f"state-{verdict}-{scheme}.png"))
        page.keyboard.press("Escape")
        trigger = page.locator(f"#{el_id} button.trigger")
        expect(trigger).to_have_text(words[verdict])
        colours[verdict] = trigger.evaluate("e => { const s = getComputedStyle(e); return [s.color, s.backgroundColor, s.borderTopColor, s.borderTopStyle].join(' '); }")
        result_colour = page.locator(f"#{el_id} .result .verdict-text").evaluate("e => getComputedStyle(e).color")
        colours[verdict + "-result"] = result_colour
    assert len({colours[v] for v in STATE_CASES}) == 4, colours  # four distinct looks on the button
    assert len({colours[v + "-result"] for v in STATE_CASES}) == 4, colours  # and in the modal
    assert "dashed" in colours["unavailable"]  # never the red of a rejection
    page.locator(".grid").screenshot(path=str(artifacts / f"buttons-{scheme}.png"))
    page.emulate_media(color_scheme="light")


def test_timeout_covers_the_whole_path_and_stops_the_worker(page):
    # the element: timeout-ms counts from the click (downloads included): "unavailable", not "rejected"
    assert run(page, "timeout") == "unavailable"
    expect(page.locator("#timeout .result .verdict-text")).to_have_text("Verification timed out")
    expect(page.locator("#timeout .result .detail")).to_contain_text("did not finish within 1 ms")
    err = events(page, "timeout")[-1]
    assert err["detail"]["kind"] == "timeout" and err["detail"]["verdict"] == "unavailable"
    page.keyboard.press("Escape")
    # the JS API: a verification that outlives timeoutMs terminates the worker; the next call starts a new one
    assert len(page.workers) == 1
    old = page.workers[0]
    got = page.evaluate(
        """async () => {
            const m = await import("../luminair/index.js");
            await m.init();
            const bytes = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
            const proof = await bytes("../proof.bin"), settings = await bytes("../settings.bin");
            const starts = m.workerStarts();
            let kind = null, verdict = null;
            try { await m.verify(proof, settings, { timeoutMs: 5 }); } catch (e) { kind = e.kind; verdict = e.verdict; }
            return { kind, verdict, restarted: m.workerStarts() - starts };
        }"""
    )
    assert got == {"kind": "timeout", "verdict": "unavailable", "restarted": 0}, got
    for _ in range(50):  # terminated (Playwright hears of it a little later on a loaded machine)
        if old not in page.workers:
            break
        page.wait_for_timeout(100)
    assert old not in page.workers
    with page.expect_worker(timeout=PYODIDE_TIMEOUT_MS):
        page.locator("#ok").evaluate("e => e.verify()")
    expect(page.locator("#ok")).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
    assert len(page.workers) == 1 and page.workers[0] is not old


def test_js_api_in_the_browser_verify_progress_and_settings_summary(page):
    """The module API on the page's shared worker: verify() with onProgress, a rejected proof
    resolving with success false, and readSettingsSummary() through the worker's Python codec."""
    got = page.evaluate(
        """async () => {
            const m = await import("../luminair/index.js");
            const bytes = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
            const proof = await bytes("../proof.bin"), settings = await bytes("../settings.bin");
            const steps = [];
            let work = null;
            const r = await m.verify(proof, settings, { timeoutMs: 60000, onProgress: (p) => steps.push(p.step), onWork: (w) => (work = w) });
            const bad = proof.slice(); bad[bad.length >> 1] ^= 1;
            const t = await m.verify(bad, settings);
            const s = await m.readSettingsSummary(settings);
            let notSettings = null;
            try { await m.readSettingsSummary(proof); } catch (e) { notSettings = e.kind; }
            return { success: r.success, digest: r.modelDigest, bits: r.securityBits, steps, work,
                     proofStillUsable: proof.byteLength, tampered: [t.success, t.check, t.error_message],
                     summaryDigest: s.model_digest, nodes: s.graph.nodes.length, notSettings,
                     valid: m.LuminairUtils.isValidProofBinary(proof), size: m.getProofSize(proof) };
        }"""
    )
    expected = verify(PROOF, SETTINGS)
    bad = bytearray(PROOF)
    bad[len(bad) // 2] ^= 1
    tampered = verify(bytes(bad), SETTINGS)
    summary = settings_summary(SETTINGS)
    assert got["success"] is True and got["digest"] == expected.model_digest and got["bits"] == expected.security_bits
    assert got["steps"] == [1, 2, 3, 4, 5, 6]
    assert len(got["work"]["weights"]) == 6 and abs(sum(got["work"]["weights"]) - 1) < 1e-9 and got["work"]["units"] > 0
    assert got["proofStillUsable"] == len(PROOF)  # the caller's buffer was copied, not transferred
    assert got["tampered"] == [False, tampered.check, tampered.error_message]
    assert got["summaryDigest"] == summary["model_digest"] and got["nodes"] == len(summary["graph"]["nodes"])
    assert got["notSettings"] == "format"
    assert got["valid"] is True and got["size"] == len(PROOF)


def test_byte_properties_take_precedence_and_changes_reset_the_state(page):
    got = page.evaluate(
        """async () => {
            const el = document.getElementById("styled");
            const bytes = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
            el.proofBytes = await bytes("./tampered-proof.bin");
            el.settingsBytes = await bytes("../settings.bin");
            const r = await el.verify();
            const afterTampered = el.status;
            el.proofBytes = null;                    // back to the proof attribute (../proof.bin)
            const afterReset = el.status;
            const ok = await el.verify();
            const afterOk = el.status;
            el.setAttribute("proof", "./garbage.bin");  // a source change while connected
            const afterAttr = el.status;
            return { check: r.check, afterTampered, afterReset, ok: ok.success, afterOk, afterAttr,
                     result: el.result, error: el.error };
        }"""
    )
    bad = bytearray(PROOF)
    bad[len(bad) // 2] ^= 1
    assert got["check"] == verify(bytes(bad), SETTINGS).check
    assert got["afterTampered"] == "rejected"
    assert got["afterReset"] == "idle"
    assert got["ok"] is True and got["afterOk"] == "verified"
    assert got["afterAttr"] == "idle" and got["result"] is None and got["error"] is None


def test_names_chosen_by_the_publisher_are_shown_as_text_never_as_markup(page):
    """Title, author, description attributes and the labels and output names inside settings.bin
    are HTML here; the element puts every one in through textContent: no element is created from
    them, no script runs, and the text shows literally."""
    from conftest import HOSTILE_OUTPUT, HOSTILE_TITLE

    assert run(page, "hostile") == "development"
    el = page.locator("#hostile")
    for tag in ("img", "script", "i"):
        assert el.locator(f"dialog {tag}").count() == 0, tag
    assert page.evaluate("window.__pwned") is None
    dialog = el.locator("dialog")
    expect(dialog).to_contain_text("<img src=x onerror=window.__pwned=2>")  # the title attribute
    expect(dialog).to_contain_text(HOSTILE_TITLE)  # the publisher's label inside settings.bin
    expect(dialog).to_contain_text(HOSTILE_OUTPUT)


def _batch_files(page, batch: int) -> tuple[bytes, bytes]:
    get = lambda name: page.context.request.get(page.url.replace("cases.html", f"batch/{name}")).body()
    return get(f"proof-{batch}.bin"), get("settings.bin")


def _row_text(values) -> str:
    return "[" + ", ".join(js_number(v) for v in values) + "]"


def test_batched_proof_shows_its_symbols_and_one_row_per_batch_element(page, artifacts):
    """A symbolic model's proof for a batch of 7: the Symbols fact, and each batched output and input
    as a table with a row per batch element (index, then that element's values), in light and dark."""
    proof, settings = _batch_files(page, 7)
    expected = verify(proof, settings, min_security_bits=0)
    assert expected.success and expected.symbols == {"batch": 7}
    assert run(page, "batch") == "development"
    facts = page.locator("#batch dl.facts")
    symbols = facts.locator("dt", has_text="Symbols")
    expect(symbols).to_have_count(1)
    expect(facts.locator("dd.symbols")).to_have_text("batch = 7 (fixed by this proof; one settings.bin serves every value from 1 to 256)")
    expect(facts).to_contain_text(expected.statement)
    assert expected.statement.endswith(" at batch=7")
    for table, name, width in (("outputs", "y", 4), ("inputs", "x", 16)):
        tensor = (expected.outputs if table == "outputs" else expected.inputs)[name]
        assert tensor["shape"] == [7, width]
        row = page.locator(f"#batch table.{table} > tbody > tr").first
        expect(row.locator("td").nth(1)).to_have_text("[7×%d]" % width)
        expect(row.locator("td.values")).to_have_text("7 rows below, one per batch element")
        sub = page.locator(f"#batch table.{table} table.batch[data-name='{name}']")
        expect(sub.locator("caption")).to_have_text(f"{name}, one row per batch element (batch = 7)")
        heads = sub.locator("thead th[scope=col]")
        expect(heads).to_have_text(["batch", f"Values [{width}]"])
        rows = sub.locator("tbody tr")
        expect(rows).to_have_count(7)
        for i in range(7):
            expect(rows.nth(i).locator("th[scope=row]")).to_have_text(str(i))
            assert rows.nth(i).locator("th[scope=row]").get_attribute("data-label") == "batch"
            cell = rows.nth(i).locator("td.values")
            expect(cell).to_have_text(_row_text(tensor["values"][i * width:(i + 1) * width]))
            assert cell.get_attribute("data-label") == "Values"
        expect(sub.locator("tr.more")).to_have_count(0)
    result = page.evaluate("document.getElementById('batch').result")
    assert result["symbols"] == {"batch": 7} and result["outputs"]["y"]["shape"] == [7, 4]
    success = events(page, "batch")[-1]
    assert success["type"] == "luminair-verify-success" and success["detail"]["symbols"] == {"batch": 7}
    # the graph is the template's: symbolic shapes by name
    expect(page.locator("#batch .graph svg g.node.op-relu text.shape")).to_contain_text("[batch×12]")
    # themed like the rest of the modal, in light and in dark
    sub = page.locator("#batch table.outputs table.batch")
    colours = {}
    for scheme, panel in (("light", "rgb(249, 250, 251)"), ("dark", "rgb(17, 24, 39)")):
        page.emulate_media(color_scheme=scheme)
        expect(sub).to_have_css("background-color", panel)
        colours[scheme] = sub.locator("tbody td.values").first.evaluate("e => getComputedStyle(e).color")
        for part in ("outputs", "inputs"):
            page.locator(f"#batch .io-{part}").screenshot(path=str(artifacts / f"batch-{part}-{scheme}.png"))
    assert colours["light"] != colours["dark"], colours
    page.emulate_media(color_scheme="light")
    # a phone: the rows stack (no header row; each index says "batch i") and nothing scrolls sideways
    from test_responsive import assert_no_sideways_scroll

    page.set_viewport_size({"width": 390, "height": 844})
    try:
        page.wait_for_timeout(100)
        expect(sub.locator("thead")).to_have_css("display", "none")
        before = sub.locator("th[scope=row]").first.evaluate("e => getComputedStyle(e, '::before').content")
        assert before == '"batch "', before
        sub.scroll_into_view_if_needed()
        assert_no_sideways_scroll(page, "#batch", "batch table at 390x844")
        page.locator("#batch .io-outputs").screenshot(path=str(artifacts / "batch-outputs-phone.png"))
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def test_a_large_batch_shows_the_first_64_rows_and_counts_the_rest(page):
    proof, settings = _batch_files(page, 100)
    expected = verify(proof, settings, min_security_bits=0)
    assert expected.success and expected.symbols == {"batch": 100}
    assert run(page, "batch-big") == "development"
    expect(page.locator("#batch-big dl.facts dd.symbols")).to_contain_text("batch = 100 (fixed by this proof")
    sub = page.locator("#batch-big table.outputs table.batch[data-name='y']")
    rows = sub.locator("tbody tr:not(.more)")
    expect(rows).to_have_count(64)
    y = expected.outputs["y"]["values"]
    expect(rows.nth(63).locator("th")).to_have_text("63")
    expect(rows.nth(63).locator("td.values")).to_have_text(_row_text(y[63 * 4:64 * 4]))
    more = sub.locator("tbody tr.more")
    expect(more).to_have_count(1)
    expect(more).to_have_text("… 36 more (batch 64 to 99 not shown; every value is in the verified result)")
    assert more.locator("td").get_attribute("colspan") == "2"
    # every value is in the result, all the same
    assert page.evaluate("document.getElementById('batch-big').result.outputs.y.values.length") == 400


def _fixture_files(page, folder: str) -> tuple[bytes, bytes]:
    get = lambda name: page.context.request.get(page.url.replace("cases.html", f"{folder}/{name}")).body()
    return get("proof.bin"), get("settings.bin")


VIS_NOTES = {
    ("weights", "committed"): "bound by the model root; the verifier never saw them (not hidden in the zero-knowledge sense)",
    ("weights", "public"): "in settings.bin, under the model digest: anyone can read them",
    ("inputs", "public"): "in the proof and shown here: the proof is about exactly these values",
    ("inputs", "private"): "the prover's: not written in proof.bin, yet bound by the proof (not hidden in the zero-knowledge sense)",
    ("outputs", "public"): "in the proof and shown here, as the model computed them",
}


def test_a_segmented_proof_verifies_in_the_browser_as_one_statement(page):
    """A bundle of three segment proofs (fast preset): one verdict, CPython's, with the whole
    model's outputs and digest; the modal names the segments in its statement."""
    proof, settings = _fixture_files(page, "segmented")
    expected = verify(proof, settings, min_security_bits=0)
    assert expected.success and expected.statement == "graph: proven in 3 segments", expected.error_message
    assert run(page, "segmented") == "development"
    expect(page.locator("#segmented dl.facts")).to_contain_text("proven in 3 segments")
    expect(page.locator("#segmented dl.facts")).to_contain_text(expected.model_digest)
    result = page.evaluate("(() => { const r = document.getElementById('segmented').result; return {s: r.statement, y: r.outputs.y.values}; })()")
    assert result == {"s": expected.statement, "y": expected.outputs["y"]["values"]}


def _visibility_lines(facts) -> dict[str, list[str]]:
    """The Weights / Inputs / Outputs facts, one text per line, by part."""
    return {part: facts.locator(f'dd[data-part="{part}"] .vis-item').all_inner_texts() for part in ("weights", "inputs", "outputs")}


def test_committed_weights_proof_shows_the_model_root_and_who_saw_what(page, artifacts):
    """A proof of a committed-weights model (settings.bin holds the model tree's root, not the
    weights; fast preset) verifies in the browser; the modal says the weights were committed, which
    input was public and which private, and shows the model root CPython's verifier reports."""
    from test_responsive import assert_no_sideways_scroll

    proof, settings = _fixture_files(page, "committed")
    expected = verify(proof, settings, min_security_bits=0)
    assert expected.success, expected.error_message
    assert expected.visibility == {"weights": "committed", "inputs": {"x": "public", "key": "private"}, "outputs": "public"}
    assert expected.model_root and len(expected.model_root) >= 32
    assert run(page, "committed") == "development"
    facts = page.locator("#committed dl.facts")
    assert _visibility_lines(facts) == {
        "weights": [f"committed — {VIS_NOTES['weights', 'committed']}"],
        "inputs": [f"x public — {VIS_NOTES['inputs', 'public']}", f"key private — {VIS_NOTES['inputs', 'private']}"],
        "outputs": [f"public — {VIS_NOTES['outputs', 'public']}"],
    }
    expect(facts.locator("dt", has_text="Model root")).to_have_count(1)
    root = facts.locator("dd.model-root .digest")
    expect(root).to_have_text(expected.model_root)
    # monospace, like the digest
    digest_font = facts.locator("dd.digest").first.evaluate("e => getComputedStyle(e).fontFamily")
    assert root.evaluate("e => getComputedStyle(e).fontFamily") == digest_font
    expect(facts).to_contain_text(expected.model_digest)  # the model's identity, as for public weights
    # the claim says what fixes the weights, and still claims no privacy
    claim = page.locator("#committed .claim").inner_text()
    assert "with these weights (committed: fixed by the model root that settings.bin holds, below)" in claim, claim
    assert "not zero-knowledge" in claim
    # the private input is in no table; the public one is
    expect(page.locator("#committed table.inputs")).to_contain_text("x")
    assert "key" not in page.locator("#committed table.inputs").inner_text()
    result = page.evaluate("(() => { const r = document.getElementById('committed').result; return {v: r.visibility, root: r.modelRoot, digest: r.modelDigest}; })()")
    assert result == {"v": expected.visibility, "root": expected.model_root, "digest": expected.model_digest}
    detail = [e for e in events(page, "committed") if e["type"].endswith("success")][-1]["detail"]
    assert detail["modelRoot"] == expected.model_root and detail["visibility"] == expected.visibility
    page.locator("#committed dialog").screenshot(path=str(artifacts / "committed-weights.png"))
    # legible on a phone: the long root wraps inside the modal, nothing scrolls sideways
    try:
        for width, height in ((390, 844), (320, 640)):
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(100)  # re-layout
            root.scroll_into_view_if_needed()
            assert_no_sideways_scroll(page, "#committed", f"committed weights {width}x{height}")
            box = root.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, (width, box)
            page.locator("#committed dialog").screenshot(path=str(artifacts / f"committed-weights-{width}.png"))
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def test_public_weights_proof_shows_public_and_no_model_root(page):
    expected = verify(PROOF, SETTINGS)
    assert expected.visibility["weights"] == "public" and expected.model_root is None
    assert run(page, "ok") == "verified"
    facts = page.locator("#ok dl.facts")
    lines = _visibility_lines(facts)
    assert lines["weights"] == [f"public — {VIS_NOTES['weights', 'public']}"]
    assert lines["inputs"] == [f"{name} {level} — {VIS_NOTES['inputs', level]}" for name, level in expected.visibility["inputs"].items()]
    assert lines["outputs"] == [f"public — {VIS_NOTES['outputs', 'public']}"]
    expect(facts.locator("dt", has_text="Model root")).to_have_count(0)
    expect(facts.locator("dd.model-root")).to_have_count(0)
    assert "(fixed by settings.bin and its digest below)" in page.locator("#ok .claim").inner_text()
    result = page.evaluate("(() => { const r = document.getElementById('ok').result; return {v: r.visibility, root: r.modelRoot}; })()")
    assert result == {"v": expected.visibility, "root": None}


def test_cnn_verifies_at_the_default_budget_and_a_smaller_one_is_not_checked(page, site_dir, artifacts):
    """The repository's CNN verifies within the default work budget. A site that grants less sees
    grey "not checked" (never the red of a rejection) naming the budget and how to grant it; with
    max-work="N" it verifies."""
    fx = site_dir / "fixtures" / "cnn"
    proof, settings = (fx / "proof.bin").read_bytes(), (fx / "settings.bin").read_bytes()
    assert verify(proof, settings).kind == "verified"
    expected = verify(proof, settings, max_work=500_000)
    assert expected.kind == "not checked" and expected.work_needed > 500_000
    n = expected.work_needed
    page.locator("#cnn").evaluate("e => e.setAttribute('max-work', '500000')")
    assert run(page, "cnn") == "unavailable"
    expect(page.locator("#cnn .result .verdict-text")).to_have_text("Not checked: over the verifier's work budget")
    assert page.locator("#cnn .result").get_attribute("data-state") == "unavailable"
    assert page.locator("#cnn .result").get_attribute("data-kind") == "budget"
    note = page.locator("#cnn .result .note")
    for grant in (f'max-work="{n}"', f"maxWork: {n}", f"--max-work {n}", "Nothing was checked"):
        expect(note).to_contain_text(grant)
    expect(page.locator("#cnn .pill")).to_have_text("Unavailable")
    result = page.evaluate("document.getElementById('cnn').result")
    assert result["kind"] == "not checked" and result["verdict"] == "unavailable" and result["workNeeded"] == n
    err = events(page, "cnn")[-1]
    assert err["type"] == "luminair-verify-error" and err["detail"]["kind"] == "budget" and err["detail"]["verdict"] == "unavailable"
    page.locator("#cnn dialog").screenshot(path=str(artifacts / "cnn-not-checked.png"))
    page.keyboard.press("Escape")
    expect(page.locator("#cnn button.trigger")).to_have_text("⊘NOT CHECKED")
    # the site grants the budget the message named: it verifies; so does the default budget
    page.locator("#cnn").evaluate(f"e => e.setAttribute('max-work', '{n}')")
    assert run(page, "cnn") == "verified"
    page.keyboard.press("Escape")
    page.locator("#cnn").evaluate("e => e.removeAttribute('max-work')")
    assert run(page, "cnn") == "verified"
    expect(page.locator("#cnn dl.facts")).to_contain_text(verify(proof, settings).model_digest)
    # the graph at Fit in the 1280x800 modal: Conv, MaxPool, ReLU and Linear boxes, no constant boxes, legible
    page.set_viewport_size({"width": 1280, "height": 800})
    try:
        labels = [t.text_content() for t in page.locator("#cnn .graph svg g.node text.label").all()]
        assert sum(t.startswith("Conv") for t in labels) == 3 and sum(t.startswith("MaxPool") for t in labels) == 3, labels
        assert page.locator("#cnn .graph svg g.node.op-constant").count() == 0
        page.locator("#cnn .graph button.fit").click()
        pool = page.locator("#cnn .graph svg g.node text.label", has_text="MaxPool").first
        assert pool.bounding_box()["height"] >= 11, pool.bounding_box()  # 12 px type at Fit: legible
        pane = page.locator("#cnn .graph .graph-pane").bounding_box()
        assert page.locator("#cnn .graph svg").bounding_box()["width"] <= pane["width"] + 1
        page.locator("#cnn .graph").screenshot(path=str(artifacts / "graph-cnn-fit.png"))
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def test_check_anyway_spends_the_budget_the_files_declare(page):
    expected = verify(PROOF, SETTINGS, max_work=1000)
    assert expected.kind == "not checked"
    assert run(page, "small-budget") == "unavailable"
    grant = page.locator("#small-budget button.grant")
    expect(grant).to_be_visible()
    grant.click()
    page.locator(f"#small-budget{DONE}").wait_for(timeout=PYODIDE_TIMEOUT_MS)
    expect(page.locator("#small-budget")).to_have_attribute("status", "verified")
    assert page.locator("#small-budget").get_attribute("max-work") == "1000"  # the page's own setting is unchanged


def test_a_badge_over_its_budget_is_not_checked_never_rejected(page):
    """The badge (mode="badge", which verifies by itself) over its work budget: grey "not checked"
    on the badge and in its modal, naming the budget to grant, never the red of a rejection."""
    needed = verify(PROOF, SETTINGS, max_work=1000).work_needed
    page.evaluate("""() => {
      const el = document.createElement("luminair-verify");
      for (const [k, v] of Object.entries({ id: "badge-budget", mode: "badge", proof: "../proof.bin",
                                            settings: "../settings.bin", "max-work": "1000" })) el.setAttribute(k, v);
      document.querySelector("#badge").after(el);
    }""")
    try:
        badge = page.locator("#badge-budget")
        expect(badge).to_have_attribute("status", "unavailable", timeout=PYODIDE_TIMEOUT_MS)
        expect(badge.locator("button.trigger")).to_have_text("⊘NOT CHECKED")
        badge.locator("button.trigger").click()
        expect(badge.locator(".result .verdict-text")).to_have_text("Not checked: over the verifier's work budget")
        assert badge.locator(".result").get_attribute("data-kind") == "budget"
        for grant in (f'max-work="{needed}"', f"maxWork: {needed}", f"--max-work {needed}"):
            expect(badge.locator(".result .note")).to_contain_text(grant)
        assert page.evaluate("document.getElementById('badge-budget').result.kind") == "not checked"
    finally:
        page.keyboard.press("Escape")
        page.evaluate("document.getElementById('badge-budget').remove()")


def test_transformer_graph_is_grouped_and_legible_at_fit(page, artifacts):
    """The transformer's 237 primitives read as LayerNorm, Attention, GELU and Linear boxes; at Fit
    in the 1280x800 modal the boxes keep their natural size (the pane scrolls)."""
    page.set_viewport_size({"width": 1280, "height": 800})
    try:
        assert run(page, "transformer") == "verified"
        nodes = page.locator("#transformer .graph svg g.node")
        labels = [t.text_content() for t in page.locator("#transformer .graph svg g.node text.label").all()]
        assert nodes.count() <= 45, nodes.count()
        for kind, n in (("LayerNorm", 9), ("Attention", 4), ("GELU", 4)):
            assert sum(t.startswith(kind) for t in labels) == n, (kind, labels)
        assert page.locator("#transformer .graph svg g.node.op-constant").count() == 0
        expect(page.locator("#transformer .graph .graph-count")).to_contain_text("(237 primitives)")
        page.locator("#transformer .graph button.fit").click()
        label = page.locator("#transformer .graph svg g.node.op-attention text.label").first
        height = label.bounding_box()["height"]
        assert height >= 11, height  # 12 px type at Fit: legible
        pane = page.locator("#transformer .graph .graph-pane").bounding_box()
        svg = page.locator("#transformer .graph svg").bounding_box()
        assert svg["width"] <= pane["width"] + 1
        page.locator("#transformer .graph").screenshot(path=str(artifacts / "graph-transformer-fit.png"))
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def _in_view(page, locator) -> dict:
    box = locator.bounding_box()
    vp = page.viewport_size
    return {"box": box, "viewport": vp, "ok": box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 60) <= vp["height"]}


def test_outputs_sit_next_to_the_verdict_above_the_fold(page, artifacts):
    page.set_viewport_size({"width": 1280, "height": 800})
    try:
        assert run(page, "ok") == "verified"
        outputs = page.locator("#ok .io-outputs")
        expect(outputs).to_be_visible()
        first = outputs.locator("tbody tr").first
        got = _in_view(page, first)
        assert got["ok"], got
        name, tensor = next(iter(verify(PROOF, SETTINGS).outputs.items()))
        expect(first.locator("td").nth(0)).to_have_text(name)
        expect(first.locator("td").nth(1)).to_have_text("[" + "×".join(map(str, tensor["shape"])) + "]")
        values = tensor["values"]
        top = max(range(len(values)), key=lambda i: (values[i], -i))
        expect(first.locator("td.values")).to_contain_text(f"class {top} (the largest of {len(values)} values)")
        page.locator("#ok dialog").screenshot(path=str(artifacts / "outputs-1280x800.png"))
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def test_shadow_parts_for_site_styling(page):
    page.add_style_tag(content="""
      #ok::part(trigger) { outline: 3px solid rgb(1, 2, 3); }
      #ok::part(dialog) { border-top-color: rgb(4, 5, 6); }
      #ok::part(verdict) { border-left-color: rgb(7, 8, 9); }
      #ok::part(outputs) { color: rgb(10, 11, 12); }""")
    assert run(page, "ok") == "verified"
    style = lambda sel, prop: page.locator(f"#ok {sel}").evaluate(f"e => getComputedStyle(e).{prop}")  # noqa: E731
    assert style("button.trigger", "outlineColor") == "rgb(1, 2, 3)"
    assert style("dialog", "borderTopColor") == "rgb(4, 5, 6)"
    assert style(".result", "borderLeftColor") == "rgb(7, 8, 9)"
    assert style(".io-outputs", "color") == "rgb(10, 11, 12)"


def test_open_before_a_verification_offers_to_start_one(page):
    page.locator("#light-attr").evaluate("e => e.open()")
    dialog = page.locator("#light-attr dialog")
    expect(dialog).to_have_attribute("open", "")
    assert page.locator("#light-attr").get_attribute("status") == "idle"
    expect(page.locator("#light-attr ol.steps")).to_be_hidden()
    start = page.locator("#light-attr button.retry")
    expect(start).to_have_text("Verify now")
    start.click()
    expect(page.locator("#light-attr")).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
    expect(start).to_have_text("Verify again")
