#!/usr/bin/env node
// Copy the folder a site must host (JS modules, worker, verifier wheel, Pyodide runtime) to DIR.
//   npx luminair-web-assets public/luminair [--micropip path/to/micropip-X-py3-none-any.whl]
import { copyAssets } from "../src/assets.js";

const args = process.argv.slice(2);
const target = args.find((a) => !a.startsWith("--"));
const mpIndex = args.indexOf("--micropip");
if (!target || args.includes("--help")) {
  console.error("usage: luminair-web-assets DIR [--micropip MICROPIP_WHEEL]");
  process.exit(target ? 0 : 2);
}
try {
  const out = await copyAssets(target, { micropipWheel: mpIndex >= 0 ? args[mpIndex + 1] : null });
  console.log(JSON.stringify({ target: out.target, wheel: out.manifest.file, sha256: out.manifest.sha256, pyodide: out.pyodideVersion, files: out.files.length }));
} catch (e) {
  console.error(`luminair-web-assets: ${e.message}`);
  process.exit(1);
}
