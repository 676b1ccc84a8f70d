// `npm pack` gives a package that a fresh npm project installs from the tarball and uses through
// "luminair-web", "luminair-web/react" and the luminair-web-assets command (whose output then
// verifies the sample proof in Pyodide).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { PUBLIC, WEB } from "./helpers.mjs";

const NPM_FLAGS = ["--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"];
let dir;
let packed;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "luminair-pack-"));
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: WEB, encoding: "utf8" });
  packed = JSON.parse(out)[0];
  const app = join(dir, "app");
  execFileSync("mkdir", ["-p", app]);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "fresh-app", private: true, type: "module" }));
  execFileSync("npm", ["install", join(dir, packed.filename), "react@19.3.1", "react-dom@19.3.1", ...NPM_FLAGS], { cwd: app, stdio: "pipe" });
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe("npm pack", () => {
  it("the tarball holds the modules, types, generated manifest and the pinned wheel, and nothing else", () => {
    const files = packed.files.map((f) => f.path);
    const manifest = readFileSync(join(WEB, "src", "manifest.js"), "utf8");
    const wheel = /"file": "([^"]+)"/.exec(manifest)[1];
    for (const f of ["package.json", "src/index.js", "src/index.d.ts", "src/worker.js", "src/element.js", "src/element.d.ts", "src/react.js", "src/react.d.ts", "src/define.js", "src/manifest.js", "bin/luminair-web-assets.js", `assets/${wheel}`]) {
      assert.ok(files.includes(f), `${f} is in the tarball`);
    }
    assert.ok(!files.some((f) => f.startsWith("test/") || f.startsWith("demo/") || f.startsWith("node_modules/") || f.startsWith("scripts/")), files.join(", "));
  });

  it("a fresh project imports luminair-web and luminair-web/react (server-side render)", () => {
    const script = `
      import init, { verify, LuminairUtils, getManifest, readHeader } from "luminair-web";
      import { VerifyButton, VerifyBadge } from "luminair-web/react";
      import { LuminairVerifyElement } from "luminair-web/define";
      import { createElement } from "react";
      import { renderToString } from "react-dom/server";
      import { readFileSync } from "node:fs";
      const proof = new Uint8Array(readFileSync(${JSON.stringify(join(PUBLIC, "proof.bin"))}));
      const out = {
        init: typeof init, verify: typeof verify, element: typeof LuminairVerifyElement,
        valid: LuminairUtils.isValidProofBinary(proof), header: readHeader(proof),
        manifest: getManifest(),
        button: renderToString(createElement(VerifyButton, { proofPath: "/proof.bin", settingsPath: "/settings.bin", author: "me", className: "c" })),
        badge: renderToString(createElement(VerifyBadge, { proofPath: "/proof.bin", settingsPath: "/settings.bin" })),
      };
      console.log(JSON.stringify(out));`;
    writeFileSync(join(dir, "app", "use.mjs"), script);
    const out = JSON.parse(execFileSync("node", ["use.mjs"], { cwd: join(dir, "app"), encoding: "utf8" }));
    assert.equal(out.init, "function");
    assert.equal(out.verify, "function");
    assert.equal(out.element, "function");
    assert.equal(out.valid, true);
    assert.equal(out.header.kind, "proof");
    assert.match(out.manifest.sha256, /^[0-9a-f]{64}$/);
    assert.match(out.button, /^<luminair-verify /);
    for (const part of ['proof="/proof.bin"', 'settings="/settings.bin"', 'button-text="VERIFY"', 'author="me"', 'class="c"', `title="Can&#x27;t be evil."`]) {
      assert.ok(out.button.includes(part), `${part} in ${out.button}`);
    }
    assert.ok(out.badge.includes('mode="badge"') && out.badge.includes('label-text="VERIFIED COMPUTE"'), out.badge);
  });

  it("luminair-web-assets writes a hostable folder whose Pyodide + wheel verify the sample proof", () => {
    const app = join(dir, "app");
    const res = JSON.parse(execFileSync("npx", ["--no-install", "luminair-web-assets", "site/luminair"], { cwd: app, encoding: "utf8" }));
    const site = join(app, "site", "luminair");
    for (const f of ["worker.js", "define.js", "manifest.js", "manifest.json", res.wheel, "pyodide/pyodide.mjs", "pyodide/pyodide.asm.wasm", "pyodide/python_stdlib.zip", "pyodide/pyodide-lock.json"]) {
      assert.ok(existsSync(join(site, f)), f);
    }
    const lock = JSON.parse(readFileSync(join(site, "pyodide", "pyodide-lock.json"), "utf8"));
    assert.equal(lock.packages["luminair-verifier"].sha256, res.sha256);
    const check = `
      import { loadPyodide } from ${JSON.stringify(join(site, "pyodide", "pyodide.mjs"))};
      import { readFileSync } from "node:fs";
      import { installWheel, installGlue } from ${JSON.stringify(join(site, "pyglue.js"))};
      const py = await loadPyodide({ indexURL: ${JSON.stringify(join(site, "pyodide") + "/")} });
      await installWheel(py, new Uint8Array(readFileSync(${JSON.stringify(join(site, res.wheel))})), ${JSON.stringify(res.sha256)});
      const r = installGlue(py).verify(new Uint8Array(readFileSync(${JSON.stringify(join(PUBLIC, "proof.bin"))})), new Uint8Array(readFileSync(${JSON.stringify(join(PUBLIC, "settings.bin"))})));
      console.log(JSON.stringify({ success: r.success, error: r.error_message }));`;
    writeFileSync(join(app, "check.mjs"), check);
    const r = JSON.parse(execFileSync("node", ["check.mjs"], { cwd: app, encoding: "utf8" }));
    assert.deepEqual(r, { success: true, error: null });
  });
});
