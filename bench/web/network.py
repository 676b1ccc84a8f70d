"""Click-to-verdict of <luminair-verify> on real networks: Chromium's own network throttling (CDP
Network.emulateNetworkConditions, which also applies to the verifier's worker) at 20 and 5 Mbit/s
with a 40 ms round trip, the runtime sent precompressed (the build's .br files, as nginx's
brotli_static or Caddy's `precompressed` send them) with `Cache-Control: max-age=3600`. The
element has no attribute but the files: the defaults (preload="idle", no cache). Prints JSON with
medians.

* cold_at_once: a fresh visitor clicks as soon as the element is defined;
* cold_after_3s: a fresh visitor reads for 3 s, then clicks (preload="idle" has started the verifier);
* repeat: the same visitor comes back (HTTP cache only: the defaults) and clicks at once;
* repeat_cache: the same with the opt-in `cache` attribute (runtime and Python snapshot kept).

Target (issue 31): cold click to verdict <= 4 s at 20 Mbit/s for the demo proof.

    python bench/web/network.py [--runs 3] [--mbits 20,5] [--out bench/results/web_network.json]

Run `bash web/scripts/setup.sh` first."""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[2]
PUBLIC = REPO / "public"
sys.path.insert(0, str(REPO))
from luminair.prover.demo import _Handler  # noqa: E402

RTT_MS = 40
PAGE = """<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module" src="./bench.js"></script></head><body>
<luminair-verify id="v" proof="./proof.bin" settings="./settings.bin" {attrs}></luminair-verify>
</body></html>"""
SCRIPT = """await import("./luminair/define.js");
document.body.dataset.defined = "1";
"""
DONE = ":is([status=verified],[status=development],[status=rejected],[status=unavailable])"


class CachingHandler(_Handler):
    def end_headers(self) -> None:
        self.send_header("Cache-Control", "public, max-age=3600")
        super().end_headers()


def site() -> Path:
    root = Path(tempfile.mkdtemp(prefix="luminair-net-"))
    for name in ("luminair", "proof.bin", "settings.bin"):
        (root / name).symlink_to(PUBLIC / name, target_is_directory=(PUBLIC / name).is_dir())
    (root / "default.html").write_text(PAGE.format(attrs=""))
    (root / "cache.html").write_text(PAGE.format(attrs="cache"))
    (root / "bench.js").write_text(SCRIPT)
    return root


def serve(root: Path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(CachingHandler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def throttled_page(context, mbit: float):
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    rate = mbit * 1e6 / 8  # bytes per second
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": RTT_MS, "downloadThroughput": rate, "uploadThroughput": rate})
    return page


def visit(context, url: str, page_name: str, mbit: float, wait_ms: int = 0) -> dict:
    page = throttled_page(context, mbit)
    bytes_in: list[int] = []
    # responseBodySize is -1 for a response from the HTTP cache: nothing went over the network
    page.on("requestfinished", lambda r: bytes_in.append(max(0, (r.sizes() or {}).get("responseBodySize", 0))))
    t_nav = time.perf_counter()
    page.goto(url + page_name)
    page.locator("body[data-defined='1']").wait_for(timeout=120_000)
    loaded_ms = (time.perf_counter() - t_nav) * 1000
    if wait_ms:
        page.wait_for_timeout(wait_ms)
    page.locator("#v button.trigger").click()
    page.locator(f"#v{DONE}").wait_for(timeout=180_000)
    status = page.locator("#v").get_attribute("status")
    r = page.evaluate("document.getElementById('v').result")
    if status != "verified" or not r:
        raise SystemExit(f"status {status}: {page.locator('#v .result').text_content()}")
    info = page.evaluate("(async () => (await import('./luminair/index.js')).getInfo())()")
    page.wait_for_timeout(300)  # let the last responses finish for the byte count
    page.close()
    return {"click_to_verdict_ms": round(r["totalTimeMs"], 1), "page_defined_ms": round(loaded_ms, 1),
            "boot_ms": round(info["bootMs"], 1), "snapshot": info.get("snapshot"), "cached_files": info["cachedFiles"],
            "body_bytes": sum(bytes_in)}


def summarize(rows: list[dict]) -> dict:
    clicks = [r["click_to_verdict_ms"] for r in rows]
    return {
        "click_to_verdict_ms": {"median": round(statistics.median(clicks), 1), "min": min(clicks), "max": max(clicks), "runs": clicks},
        "worker_start_ms_median": round(statistics.median(r["boot_ms"] for r in rows), 1),
        "page_bytes_median": int(statistics.median(r["body_bytes"] for r in rows)),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mbits", default="20,5")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--chromium", default=os.environ.get("LUMINAIR_CHROMIUM", "/usr/bin/chromium"))
    args = ap.parse_args()
    root = site()
    server, url = serve(root)
    results: dict[str, list[dict]] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"])
            version = browser.version
            for _ in range(args.runs):  # interleaved, so that machine noise spreads over every scenario
                for mbit in (float(m) for m in args.mbits.split(",")):
                    tag = f"{mbit:g}mbit"
                    for name, wait in (("cold_at_once", 0), ("cold_after_3s", 3000)):
                        ctx = browser.new_context()
                        results.setdefault(f"{name}_{tag}", []).append(visit(ctx, url, "default.html", mbit, wait))
                        ctx.close()
                    for name, page_name in (("repeat", "default.html"), ("repeat_cache", "cache.html")):
                        ctx = browser.new_context()
                        visit(ctx, url, page_name, mbit)
                        if page_name == "cache.html":
                            time.sleep(1.5)  # the runtime and the snapshot are stored after the verdict
                        results.setdefault(f"{name}_{tag}", []).append(visit(ctx, url, page_name, mbit))
                        ctx.close()
            browser.close()
    finally:
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    out = {
        "bench": "click_to_verdict_on_networks",
        "browser": f"Chromium {version} headless, CDP network throttling, {RTT_MS} ms round trip",
        "cpus": os.cpu_count(),
        "server": "precompressed .br/.gz, Cache-Control: public, max-age=3600",
        "proof_bytes": (PUBLIC / "proof.bin").stat().st_size,
        "target_ms": {"cold_20mbit": 4000},
        **{k: summarize(v) for k, v in results.items()},
    }
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
