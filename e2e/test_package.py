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

# The README's React app, as written (no configure({ baseUrl })): taken from the packed README.
INDEX = """<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>{title}</title></head><body><div id="root"></div><script type="module" src="{script}"></script></body></html>
"""


def readme_react_app(readme: str) -> str:
    """The jsx block of the README's React section (the complete app)."""
    section = readme[readme.index("## React"):]
    m = re.search(r"```jsx\n(.*?)```", section, re.S)
    assert m and "createRoot" in m.group(1), "the README's React section has no complete app"
    assert "configure(" not in m.group(1)
    return m.group(1)


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
        badge: renderToString(createElement(VerifyBadge, {{ proofPath: "/proof.bin", settingsPath: "/settings.bin", maxWork: 5000000 }})),
      }}));"""
    (app / "use.mjs").write_text(script)
    out = json.loads(run(["node", "use.mjs"], app))
    assert out["init"] == out["verify"] == out["element"] == "function"
    assert out["valid"] is True and out["header"]["kind"] == "proof"
    assert re.fullmatch(r"[0-9a-f]{64}", out["manifest"]["stdlib"]["sha256"])
    for part in ['proof="/proof.bin"', 'button-text="VERIFY"', 'author="me"', 'class="c"', 'preload="idle"', 'cache=""']:
        assert part in out["button"], (part, out["button"])
    assert 'mode="badge"' in out["badge"] and 'max-work="5000000"' in out["badge"]  # React's maxWork reaches the element


@pytest.fixture(scope="module")
def bundled_site(packed):
    """site/: the README's React app bundled by Vite (under site/vite/, its public/ holding the
    hosted folder and the two files, as the README says) and by esbuild (under site/esbuild/, the
    hosted folder only at the site's root, /luminair/). Neither calls configure()."""
    app = packed["app"]
    with tarfile.open(packed["tarball"]) as tar:
        jsx = readme_react_app(tar.extractfile("package/README.md").read().decode())
    env = {**os.environ, "LUMINAIR_WEB_CACHE": str(WEB / ".cache" / "compressed")}  # reuse the build's brotli
    res = json.loads(run(["npx", "--no-install", "luminair-web-assets", "site/luminair"], app, env=env))
    site = app / "site"
    vite_app = app / "vite-app"
    (vite_app / "src").mkdir(parents=True)
    (vite_app / "src" / "main.jsx").write_text(jsx)
    (vite_app / "index.html").write_text(INDEX.format(title="vite app", script="/src/main.jsx"))
    run(["npx", "--no-install", "luminair-web-assets", "vite-app/public/luminair"], app, env=env)
    for f in ("proof.bin", "settings.bin"):
        shutil.copy(PUBLIC / f, vite_app / "public" / f)
    run([str(VITE), "build", "--logLevel", "warn", "--base", "./", "--outDir", str(site / "vite"), "--emptyOutDir"], vite_app)
    assert (site / "vite" / "luminair" / "worker.js").exists()
    (app / "main.jsx").write_text(jsx)
    (site / "esbuild").mkdir()
    run([str(ESBUILD), "main.jsx", "--bundle", "--format=esm", "--jsx=automatic", "--log-level=warning",
         "--outfile=site/esbuild/app.js"], app)
    (site / "esbuild" / "index.html").write_text(INDEX.format(title="esbuild app", script="./app.js"))
    for f in ("proof.bin", "settings.bin"):
        shutil.copy(PUBLIC / f, site / "esbuild" / f)
    assert not (site / "esbuild" / "luminair").exists()  # found at /luminair/
    return {"site": site, "assets": res}


@pytest.mark.parametrize("bundler", ["esbuild", "vite"])
def test_readme_react_app_bundled_verifies_without_configuration(browser, bundled_site, bundler):
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
        button = page.locator("luminair-verify:not([mode=badge])")
        badge = page.locator("luminair-verify[mode=badge]")
        button.locator("button.trigger").click()
        expect(button).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
        expect(badge).to_have_attribute("status", "verified", timeout=PYODIDE_TIMEOUT_MS)
        expect(button.locator("dl.facts")).to_contain_text(expected.model_digest)
        info = page.evaluate("document.querySelector('luminair-verify').result")
        assert info["verdict"] == "verified" and info["kind"] == "verified"
        workers = [w.url for w in page.workers]
        where = f"{url}{bundler}/luminair/" if bundler == "vite" else f"{url}luminair/"
        assert workers == [where + "worker.js"], workers  # the folder it found without being told
        assert not errors, errors
    finally:
        context.close()
        server.shutdown()
    assert not leaks, leaks


def test_a_bundle_that_finds_no_folder_says_where_it_looked(browser, bundled_site, tmp_path):
    """The esbuild app served without any hosted folder: "unavailable", naming both places it
    looked and configure({ baseUrl })."""
    from luminair.prover.demo import serve

    site = tmp_path / "bare"
    shutil.copytree(bundled_site["site"] / "esbuild", site / "esbuild")
    server, url = serve(site, 0)
    context = browser.new_context()
    leaks = guard_context(context, url)
    try:
        page = context.new_page()
        page.goto(f"{url}esbuild/index.html")
        button = page.locator("luminair-verify:not([mode=badge])")
        button.locator("button.trigger").click()
        expect(button).to_have_attribute("status", "unavailable", timeout=60_000)
        detail = button.locator(".result .detail")
        expect(detail).to_contain_text(f"{url}esbuild/luminair/")
        expect(detail).to_contain_text(f"{url}luminair/")
        expect(detail).to_contain_text("configure({ baseUrl })")
    finally:
        context.close()
        server.shutdown()
    assert not leaks, leaks
