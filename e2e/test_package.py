"""The npm package as a user gets it: `npm pack` from a clean copy of the sources (only what git
tracks or would track: no built manifest, wheel or stdlib; `prepack` must build them), installed
into an empty project, used from Node (imports, server-side rendering of the React wrapper), its
`luminair-web-assets` command writing the hosted folder, and bundled with esbuild and with Vite:
both bundles verify the demo proof in Chromium, through the element and through the JS API."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import PUBLIC, PYODIDE_TIMEOUT_MS, REPO, guard_context
from luminair.verifier import verify

pytestmark = pytest.mark.pyodide

WEB = REPO / "web"
NPM_FLAGS = ["--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"]
VITE = WEB / "demo" / "react" / "node_modules" / ".bin" / "vite"
ESBUILD = WEB / "node_modules" / ".bin" / "esbuild"

APP_JS = """import init, { verify, configure, getInfo } from "luminair-web";
import { LuminairVerifyElement } from "luminair-web/element";

// A bundle does not sit next to the hosted folder: say where it is.
configure({ baseUrl: new URL("../luminair/", location.href).href });
LuminairVerifyElement.define();
const bytes = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
window.runApi = async () => {
  const r = await verify(await bytes("../proof.bin"), await bytes("../settings.bin"));
  return { success: r.success, verdict: r.verdict, digest: r.modelDigest, info: getInfo() };
};
document.body.dataset.ready = "1";
"""

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>{title}</title><script type="module" src="{script}"></script></head>
<body><luminair-verify id="v" proof="../proof.bin" settings="../settings.bin"></luminair-verify></body></html>
"""


def run(cmd, cwd, **kw):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} failed in {cwd}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r.stdout


def clean_copy(dest: Path) -> Path:
    """The files a fresh clone would have (tracked, or untracked and not ignored) for the package
    build: web/, verifier/, luminair/ and the sample proof; node_modules linked (as after npm ci)."""
    files = run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "web", "verifier", "luminair",
                 "public/proof.bin", "public/settings.bin"], REPO).split("\0")
    for f in filter(None, files):
        src = REPO / f
        if not src.is_file() or "node_modules" in Path(f).parts:
            continue
        (dest / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / f)
    (dest / "web" / "node_modules").symlink_to(WEB / "node_modules", target_is_directory=True)
    return dest / "web"


@pytest.fixture(scope="module")
def packed(tmp_path_factory):
    if not VITE.exists() or not ESBUILD.exists():
        pytest.fail("vite (web/demo/react) or esbuild (web) is not installed: run `bash web/scripts/setup.sh`")
    root = tmp_path_factory.mktemp("pack")
    web = clean_copy(root / "clone")
    for built in ("src/manifest.js", "assets"):
        assert not (web / built).exists(), f"{built} must not be in a clean copy"
    out = run(["npm", "pack", "--json", "--pack-destination", str(root)], web, env={**os.environ, "PYTHON": str(REPO / ".venv" / "bin" / "python")})
    info = json.loads(out[out.index("["):])[0]
    tarball = root / info["filename"]
    app = root / "app"
    app.mkdir()
    (app / "package.json").write_text(json.dumps({"name": "fresh-app", "private": True, "type": "module"}))
    run(["npm", "install", str(tarball), "react@19.3.1", "react-dom@19.3.1", *NPM_FLAGS], app)
    return {"root": root, "tarball": tarball, "files": [f["path"] for f in info["files"]], "app": app}


def test_tarball_holds_what_prepack_built_and_nothing_else(packed):
    files = packed["files"]
    with tarfile.open(packed["tarball"]) as tar:
        manifest = tar.extractfile("package/src/manifest.js").read().decode()
        pins = json.loads(manifest[manifest.index("Object.freeze(") + len("Object.freeze("):manifest.rindex(");")])
        # every pinned file in the tarball is the one the manifest pins
        for pin in (pins, pins["stdlib"], pins["bytecode"]):
            data = tar.extractfile(f"package/assets/{pin['file'].split('/')[-1]}").read()
            assert hashlib.sha256(data).hexdigest() == pin["sha256"] and len(data) == pin["size"], pin["file"]
    wheel = pins["file"]
    for f in ["package.json", "README.md", "src/index.js", "src/index.d.ts", "src/worker.js", "src/hosting.js", "src/element.js",
              "src/element.d.ts", "src/react.js", "src/react.d.ts", "src/define.js", "src/manifest.js", "bin/luminair-web-assets.js",
              f"assets/{wheel}", "assets/python_stdlib.verifier.zip", "assets/verifier_bytecode.zip"]:
        assert f in files, f"{f} is not in the tarball"
    assert not [f for f in files if f.split("/")[0] in ("test", "demo", "node_modules", "scripts", ".cache")], files


def test_packed_readme_is_self_contained(packed):
    with tarfile.open(packed["tarball"]) as tar:
        readme = tar.extractfile("package/README.md").read().decode()
    links = re.findall(r"\]\(([^)]+)\)", readme)
    assert all(re.match(r"(https?://|#)", link) for link in links), [link for link in links if not re.match(r"(https?://|#)", link)]
    assert not re.search(r"\bweb/(scripts|demo|src|test)\b|\bbash web/", readme), "the packed README names repository paths"
    for needed in ("npx luminair-web-assets", "wasm-unsafe-eval", "application/wasm", "Browser support", "unavailable", "development"):
        assert needed in readme, needed


def test_fresh_project_imports_and_server_renders(packed):
    app = packed["app"]
    script = f"""
      import init, {{ verify, LuminairUtils, getManifest, readHeader }} from "luminair-web";
      import {{ VerifyButton, VerifyBadge }} from "luminair-web/react";
      import {{ LuminairVerifyElement }} from "luminair-web/define";
      import {{ createElement }} from "react";
      import {{ renderToString }} from "react-dom/server";
      import {{ readFileSync }} from "node:fs";
      const proof = new Uint8Array(readFileSync({json.dumps(str(PUBLIC / "proof.bin"))}));
      console.log(JSON.stringify({{
        init: typeof init, verify: typeof verify, element: typeof LuminairVerifyElement,
        valid: LuminairUtils.isValidProofBinary(proof), header: readHeader(proof), manifest: getManifest(),
        button: renderToString(createElement(VerifyButton, {{ proofPath: "/proof.bin", settingsPath: "/settings.bin", author: "me", className: "c", preload: "idle", cache: true }})),
        badge: renderToString(createElement(VerifyBadge, {{ proofPath: "/proof.bin", settingsPath: "/settings.bin" }})),
      }}));"""
    (app / "use.mjs").write_text(script)
    out = json.loads(run(["node", "use.mjs"], app))
    assert out["init"] == out["verify"] == out["element"] == "function"
    assert out["valid"] is True and out["header"]["kind"] == "proof"
    assert re.fullmatch(r"[0-9a-f]{64}", out["manifest"]["stdlib"]["sha256"])
    for part in ['proof="/proof.bin"', 'button-text="VERIFY"', 'author="me"', 'class="c"', 'preload="idle"', 'cache=""']:
        assert part in out["button"], (part, out["button"])
    assert 'mode="badge"' in out["badge"]


@pytest.fixture(scope="module")
def bundled_site(packed):
    """site/: the hosted folder (from the package's command), the sample files, an esbuild bundle
    and a Vite build of the same app, each with a page."""
    app = packed["app"]
    res = json.loads(run(["npx", "--no-install", "luminair-web-assets", "site/luminair"], app))
    site = app / "site"
    for f in ("proof.bin", "settings.bin"):
        shutil.copy(PUBLIC / f, site / f)
    (app / "app.js").write_text(APP_JS)
    (site / "esbuild").mkdir()
    run([str(ESBUILD), "app.js", "--bundle", "--format=esm", "--log-level=warning", "--outfile=site/esbuild/app.js"], app)
    (site / "esbuild" / "index.html").write_text(PAGE.format(title="esbuild bundle", script="./app.js"))
    vite_src = app / "vite-src"
    vite_src.mkdir()
    (vite_src / "app.js").write_text(APP_JS)
    (vite_src / "index.html").write_text(PAGE.format(title="vite bundle", script="./app.js"))
    run([str(VITE), "build", "--logLevel", "warn", "--base", "./", "--outDir", str(site / "vite"), "--emptyOutDir"], vite_src)
    assert (site / "vite" / "index.html").exists()
    return {"site": site, "assets": res}


@pytest.mark.parametrize("bundler", ["esbuild", "vite"])
def test_bundled_app_verifies_the_demo_proof_in_chromium(browser, bundled_site, bundler):
    from luminair.prover.demo import serve

    expected = verify((PUBLIC / "proof.bin").read_bytes(), (PUBLIC / "settings.bin").read_bytes())
    server, url = serve(bundled_site["site"], 0)
    context = browser.new_context()
    leaks = guard_context(context, url)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{url}{bundler}/index.html")
        page.locator("body[data-ready='1']").wait_for(timeout=30_000)
        page.locator("#v button.trigger").click()
        expect(page.locator("#v")).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
        expect(page.locator("#v dl.facts")).to_contain_text(expected.model_digest)
        got = page.evaluate("window.runApi()")
        assert got["success"] is True and got["verdict"] == "verified" and got["digest"] == expected.model_digest
        assert got["info"]["pyodideVersion"] == bundled_site["assets"]["pyodide"]
        assert not errors, errors
    finally:
        context.close()
        server.shutdown()
    assert not leaks, leaks
