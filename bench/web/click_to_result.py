"""Click-to-verdict of <luminair-verify> in Debian's Chromium (headless), served on 127.0.0.1, every
request checked to stay there. Prints JSON with medians.

* cold: a fresh browser context (empty HTTP cache and Cache Storage, no worker); the page loads
  and the button is clicked as soon as the element is defined: downloads, start-up, verification;
* repeat: the same visitor comes back. The context visited the page once (element with `cache`,
  verified, runtime files stored in Cache Storage); a new page is opened and clicked at once;
* repeat_http_cache_only: the same without the `cache` attribute (the browser's HTTP cache only);
* warm: the worker is already running (the page has verified once): a second click on another
  element of the page;
* preload_idle: preload="idle", click once the worker reported ready (the first click of a visitor
  who read the page for a few seconds).

click_to_verdict_ms is the element's own measure (click to verdict, totalTimeMs); wall_ms is
measured by the driver (includes Playwright's round trips). Targets (issue 11): repeat <= 1500 ms,
cold <= 5000 ms, warm <= 500 ms.

    python bench/web/click_to_result.py [--runs 5] [--proof P --settings S]

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
<script type="module" src="./bench.js"></script></head><body>
<luminair-verify id="v" proof="./bench-proof.bin" settings="./bench-settings.bin" {attrs}></luminair-verify>
<luminair-verify id="w" proof="./bench-proof.bin" settings="./bench-settings.bin" preload="none"></luminair-verify>
</body></html>"""
SCRIPT = """import { init, onBootProgress } from "./luminair/index.js";
await import("./luminair/define.js");
document.body.dataset.defined = "1";
onBootProgress((p) => { if (p.phase === "ready") document.body.dataset.ready = "1"; });
"""
DONE = ":is([status=verified],[status=development],[status=rejected],[status=unavailable])"
PAGES = {
    "cold": 'preload="none"',
    "cached": 'preload="none" cache',
    "http": 'preload="none"',
    "idle": 'preload="idle"',
}


def site(proof: Path, settings: Path) -> Path:
    root = Path(tempfile.mkdtemp(prefix="luminair-bench-"))
    for entry in PUBLIC.iterdir():
        (root / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    shutil.copy(proof, root / "bench-proof.bin")
    shutil.copy(settings, root / "bench-settings.bin")
    for name, attrs in PAGES.items():
        (root / f"{name}.html").write_text(PAGE.format(attrs=attrs))
    (root / "bench.js").write_text(SCRIPT)
    return root


class Guarded:
    def __init__(self, browser, url, leaks):
        self.context = browser.new_context()
        self.url = url

        def guard(route):
            if route.request.url.startswith(url) or route.request.url.startswith(("blob:", "data:")):
                route.continue_()
            else:
                leaks.append(route.request.url)
                route.abort()

        self.context.route("**/*", guard)


def click(page, el="v") -> dict:
    t0 = time.perf_counter()
    page.locator(f"#{el} button.trigger").click()
    page.locator(f"#{el}{DONE}").wait_for(timeout=120_000)
    wall = (time.perf_counter() - t0) * 1000
    status = page.locator(f"#{el}").get_attribute("status")
    r = page.evaluate(f"(() => {{ const r = document.getElementById('{el}').result; return r && {{total: r.totalTimeMs, verify: r.verificationTimeMs}}; }})()")
    if status != "verified" or not r:
        raise SystemExit(f"#{el}: status {status}: {page.locator(f'#{el} .result').text_content()}")
    page.keyboard.press("Escape")  # close the modal (the verdict stays on the button)
    info = page.evaluate("(async () => (await import('./luminair/index.js')).getInfo())()")
    return {"click_to_verdict_ms": round(r["total"], 1), "wall_ms": round(wall, 1), "pyodide_verify_ms": round(r["verify"], 1),
            "boot_ms": round(info["bootMs"], 1), "cached_files": info["cachedFiles"],
            **{f"boot_{k}_ms": round(v, 1) for k, v in (info.get("phasesMs") or {}).items()}}


def open_page(ctx: Guarded, name: str):
    page = ctx.context.new_page()
    page.goto(ctx.url + f"{name}.html")
    page.locator("body[data-defined='1']").wait_for(timeout=60_000)
    return page


def wait_cached(page, n=5):
    count = "(async () => { const m = await import('./luminair/index.js'); return (await (await caches.open(m.cacheName())).keys()).length; })()"
    for _ in range(100):
        if page.evaluate(count) >= n:
            return
        page.wait_for_timeout(50)
    raise SystemExit("the runtime files were not cached")


def run_cold(browser, url, leaks):
    ctx = Guarded(browser, url, leaks)
    try:
        return click(open_page(ctx, "cold"))
    finally:
        ctx.context.close()


def run_repeat(browser, url, leaks, name):
    ctx = Guarded(browser, url, leaks)
    try:
        first = open_page(ctx, name)
        click(first)
        if name == "cached":
            wait_cached(first)
        first.close()
        return click(open_page(ctx, name))
    finally:
        ctx.context.close()


def run_warm(browser, url, leaks):
    ctx = Guarded(browser, url, leaks)
    try:
        page = open_page(ctx, "cold")
        click(page)
        return click(page, "w")
    finally:
        ctx.context.close()


def run_idle(browser, url, leaks):
    ctx = Guarded(browser, url, leaks)
    try:
        page = open_page(ctx, "idle")
        page.locator("body[data-ready='1']").wait_for(timeout=120_000)
        return click(page)
    finally:
        ctx.context.close()


def summarize(rows: list[dict]) -> dict:
    med = lambda key: round(statistics.median(r[key] for r in rows), 1)  # noqa: E731
    clicks = [r["click_to_verdict_ms"] for r in rows]
    return {
        "click_to_verdict_ms": {"median": med("click_to_verdict_ms"), "min": min(clicks), "max": max(clicks), "runs": clicks},
        "wall_ms_median": med("wall_ms"),
        "verifier_in_pyodide_ms_median": med("pyodide_verify_ms"),
        "worker_start_ms_median": med("boot_ms"),
        "worker_start_phases_ms_median": {k[5:-3]: med(k) for k in rows[0] if k.startswith("boot_") and k != "boot_ms"},
        "runtime_files_from_cache": sorted({r["cached_files"] for r in rows}),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--proof", type=Path, default=PUBLIC / "proof.bin")
    ap.add_argument("--settings", type=Path, default=PUBLIC / "settings.bin")
    ap.add_argument("--chromium", default=os.environ.get("LUMINAIR_CHROMIUM", "/usr/bin/chromium"))
    args = ap.parse_args()
    root = site(args.proof, args.settings)
    server, url = serve(root, 0)
    leaks: list[str] = []
    results: dict[str, list[dict]] = {k: [] for k in ("cold", "repeat", "repeat_http_cache_only", "warm", "preload_idle")}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=args.chromium, args=["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
            )
            version = browser.version
            for _ in range(args.runs):  # interleaved, so that machine noise spreads over all scenarios
                results["cold"].append(run_cold(browser, url, leaks))
                results["repeat"].append(run_repeat(browser, url, leaks, "cached"))
                results["repeat_http_cache_only"].append(run_repeat(browser, url, leaks, "http"))
                results["warm"].append(run_warm(browser, url, leaks))
                results["preload_idle"].append(run_idle(browser, url, leaks))
            browser.close()
    finally:
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    if leaks:
        raise SystemExit(f"requests left 127.0.0.1: {leaks}")
    print(json.dumps({
        "bench": "click_to_verdict",
        "browser": f"Chromium {version} headless",
        "cpus": os.cpu_count(),
        "proof": str(args.proof.relative_to(REPO)) if args.proof.is_relative_to(REPO) else str(args.proof),
        "proof_bytes": args.proof.stat().st_size,
        "targets_ms": {"repeat": 1500, "cold": 5000, "warm": 500},
        **{k: summarize(v) for k, v in results.items()},
    }, indent=2))


if __name__ == "__main__":
    main()
