#!/usr/bin/env node
// Verification time of the pure-Python verifier in Pyodide (Node 20, the same wheel and glue
// the browser worker uses) against CPython, on the same files. Prints JSON.
//
//   node bench/web/pyodide_vs_cpython.mjs [--runs 7] [--max-work UNITS] [PROOF SETTINGS]...
//
// Default pair: public/proof.bin public/settings.bin. Run `bash web/scripts/setup.sh` first.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const WEB = join(REPO, "web");
const args = process.argv.slice(2);
let runs = 7;
let maxWork; // the verifier's work budget, as the widget's max-work attribute sets it (default: the files')
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--runs") runs = Number(args[++i]);
  else if (args[i] === "--max-work") maxWork = Number(args[++i]);
  else files.push(resolve(args[i]));
}
if (files.length === 0) files.push(join(REPO, "public", "proof.bin"), join(REPO, "public", "settings.bin"));
if (files.length % 2) throw new Error("give PROOF SETTINGS pairs");
const pairs = [];
for (let i = 0; i < files.length; i += 2) pairs.push([files[i], files[i + 1]]);

const python = process.env.PYTHON ?? (existsSync(join(REPO, ".venv/bin/python")) ? join(REPO, ".venv/bin/python") : "python3");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x) => Math.round(x * 100) / 100;

function cpython(proof, settings) {
  const code = `
import json, sys, time
from luminair.verifier import verify
p = open(sys.argv[1], "rb").read(); s = open(sys.argv[2], "rb").read()
times = []
for _ in range(int(sys.argv[3])):
    t = time.perf_counter(); r = verify(p, s, max_work=int(sys.argv[4]) or None); times.append((time.perf_counter() - t) * 1000)
    assert r.success, r.error_message
print(json.dumps(times))`;
  return JSON.parse(execFileSync(python, ["-c", code, proof, settings, String(runs), String(maxWork ?? 0)], { cwd: REPO, encoding: "utf8" }));
}

const require = createRequire(join(WEB, "package.json"));
const { loadPyodide } = await import(pathToFileURL(require.resolve("pyodide/pyodide.mjs")).href);
const { MANIFEST } = await import(pathToFileURL(join(WEB, "src", "manifest.js")).href);
const { installGlue, installWheel } = await import(pathToFileURL(join(WEB, "src", "pyglue.js")).href);

const t0 = performance.now();
const py = await loadPyodide();
const loadMs = performance.now() - t0;
const t1 = performance.now();
await installWheel(py, new Uint8Array(readFileSync(join(WEB, "assets", MANIFEST.file))), MANIFEST.sha256);
const glue = installGlue(py);
const wheelMs = performance.now() - t1;

const results = [];
for (const [proofPath, settingsPath] of pairs) {
  const proof = new Uint8Array(readFileSync(proofPath));
  const settings = new Uint8Array(readFileSync(settingsPath));
  const pyo = [];
  let statement = null;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = glue.verify(proof, settings, { maxWork });
    pyo.push(performance.now() - t);
    if (!r.success) throw new Error(`${proofPath}: ${r.error_message}`);
    statement = r.statement;
  }
  const cpy = cpython(proofPath, settingsPath);
  results.push({
    proof: proofPath.replace(`${REPO}/`, ""),
    statement,
    proof_bytes: statSync(proofPath).size,
    settings_bytes: statSync(settingsPath).size,
    runs,
    pyodide_ms: { first: round(pyo[0]), median_warm: round(median(pyo.slice(1))), all: pyo.map(round) },
    cpython_ms: { first: round(cpy[0]), median_warm: round(median(cpy.slice(1))), all: cpy.map(round) },
    ratio_warm: round(median(pyo.slice(1)) / median(cpy.slice(1))),
    ratio_first: round(pyo[0] / cpy[0]),
  });
}

console.log(JSON.stringify({
  bench: "pyodide_vs_cpython",
  runtime: `Pyodide ${py.version} under Node ${process.version}`,
  cpython: execFileSync(python, ["-c", "import sys; print(sys.version.split()[0])"], { encoding: "utf8" }).trim(),
  pyodide_load_ms: round(loadMs),
  wheel_install_ms: round(wheelMs),
  results,
}, null, 2));
