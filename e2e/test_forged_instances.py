"""The soundness fix of format 10 in the browser: a pair whose matrix-product errors cancel across
two Freivalds instances (format 9 accepted it) is shown as rejected, with the check CPython names."""

from __future__ import annotations

import sys

import pytest
from playwright.sync_api import expect

from conftest import PYODIDE_TIMEOUT_MS, REPO
from luminair.verifier import verify

pytestmark = pytest.mark.pyodide

DONE = ":is([status=verified], [status=development], [status=rejected], [status=unavailable])"


@pytest.fixture(scope="module")
def forged(site_dir):
    sys.path.insert(0, str(REPO / "tests" / "graph_proving"))
    from make_forgeries import instance_forgery

    proof, settings = instance_forgery()
    folder = site_dir / "fixtures" / "instances"
    folder.mkdir()
    (folder / "proof.bin").write_bytes(proof)
    (folder / "settings.bin").write_bytes(settings)
    expected = verify(proof, settings)
    assert not expected.success and expected.check == "LogUp sum", expected.error_message
    return expected


def test_errors_cancelling_across_instances_are_shown_as_rejected(offline_page, site_url, forged):
    page = offline_page
    page.goto(site_url + "fixtures/cases.html")
    page.evaluate("""() => document.body.insertAdjacentHTML("beforeend",
        '<luminair-verify id="instances" proof="instances/proof.bin" settings="instances/settings.bin"></luminair-verify>')""")
    page.locator("#instances button.trigger").click()
    page.locator(f"#instances{DONE}").wait_for(timeout=PYODIDE_TIMEOUT_MS)
    assert page.locator("#instances").get_attribute("status") == "rejected"
    expect(page.locator("#instances .result .verdict-text")).to_have_text("Verification failed: LogUp sum check")
    expect(page.locator("#instances .result .detail")).to_have_text(forged.error_message)
    expect(page.locator("#instances button.trigger")).to_have_text("✗PROOF REJECTED")
