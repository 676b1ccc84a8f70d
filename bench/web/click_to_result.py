"""Click-to-result in Debian's Chromium (headless), served on 127.0.0.1, every request checked to
stay there. Prints JSON.

* cold: a fresh browser context per run (fresh worker, Pyodide not started; the HTTP cache is
  empty), click as soon as the element is defined;
* preload: the element has `preload`; click after the worker reported ready;
* the verifier's own time inside Pyodide (verificationTimeMs) for the same runs.

    python bench/web/click_to_result.py [--runs 3] [--proof P --settings S]

Run `bash web/scripts/setup.sh` first."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[2]
PUBLIC = REPO / "public"
sys.path.insert(0, str(REPO))
from luminair.prover.demo import serve  # noqa: E402

PAGE = """<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module" src="./luminair/define.js"></script>
<script type="module" src="./bench.js"></script></head><body>
<luminair-verify id="v" proof="./bench-proof.bin" settings="./bench-settings.bin" {attrs}></luminair-verify>
</body></html>"""
SCRIPT = """import init from "./luminair/index.js";
customElements.whenDefined("luminair-verify").then(() => { document.body.dataset.defined = "1"; });
if (document.getElementById("v").hasAttribute("preload")) init().then(() => { document.body.dataset.ready = "1"; });
"""


def site(proof: Path, settings: Path) -> Path:
    root = Path(tempfile.mkdtemp(prefix="luminair-bench-"))
    for entry in PUBLIC.iterdir():
        (root / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    shutil.copy(proof, root / "bench-proof.bin")
    shutil.copy(settings, root / "bench-settings.bin")
    (root / "cold.html").write_text(PAGE.format(attrs=""))
    (root / "preload.html").write_text(PAGE.format(attrs="preload"))
    (root / "bench.js").write_text(SCRIPT)
    return root


def one_run(browser, url: str, page_name: str, leaks: list[str]) -> dict:
    context = browser.new_context()

    def guard(route):
        if route.request.url.startswith(url) or route.request.url.startswith(("blob:", "data:")):
            route.continue_()
        else:
            leaks.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.goto(url + page_name)
    page.locator("body[data-defined='1']").wait_for(timeout=60_000)
    if page_name.startswith("preload"):
        page.locator("body[data-ready='1']").wait_for(timeout=120_000)
    t0 = time.perf_counter()
    page.locator("#v button.trigger").click()
    page.locator("#v:is([status=verified],[status=failed],[status=error])").wait_for(timeout=120_000)
    wall = (time.perf_counter() - t0) * 1000
    result = page.evaluate("(() => { const r = document.getElementById('v').result; return r && {success: r.success, total: r.totalTimeMs, verify: r.verificationTimeMs, error: r.error_message}; })()")
    status = page.locator("#v").get_attribute("status")
    context.close()
    if status != "verified":
        raise SystemExit(f"{page_name}: status {status}: {result}")
    return {"click_to_result_ms": round(result["total"], 1), "wall_ms": round(wall, 1), "pyodide_verify_ms": round(result["verify"], 1)}


def summarize(rows: list[dict]) -> dict:
    out = {"runs": rows}
    for key in ("click_to_result_ms", "wall_ms", "pyodide_verify_ms"):
        values = [r[key] for r in rows]
        out[key] = {"median": round(statistics.median(values), 1), "min": min(values), "max": max(values)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--proof", type=Path, default=PUBLIC / "proof.bin")
    ap.add_argument("--settings", type=Path, default=PUBLIC / "settings.bin")
    ap.add_argument("--chromium", default=os.environ.get("LUMINAIR_CHROMIUM", "/usr/bin/chromium"))
    args = ap.parse_args()
    root = site(args.proof, args.settings)
    server, url = serve(root, 0)
    leaks: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=args.chromium, args=["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
            )
            version = browser.version
            cold = [one_run(browser, url, "cold.html", leaks) for _ in range(args.runs)]
            preload = [one_run(browser, url, "preload.html", leaks) for _ in range(args.runs)]
            browser.close()
    finally:
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    if leaks:
        raise SystemExit(f"requests left 127.0.0.1: {leaks}")
    print(json.dumps({
        "bench": "click_to_result",
        "browser": f"Chromium {version} headless",
        "cpus": os.cpu_count(),
        "proof": str(args.proof.relative_to(REPO)) if args.proof.is_relative_to(REPO) else str(args.proof),
        "proof_bytes": args.proof.stat().st_size,
        "targets_ms": {"cold": 5000, "preload": 1000},
        "cold": summarize(cold),
        "preload": summarize(preload),
    }, indent=2))


if __name__ == "__main__":
    main()
