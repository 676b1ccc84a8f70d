#!/usr/bin/env node
// The hostile pairs of bench/hostile_bench.py in Pyodide under Node: the runtime the browser worker
// boots (the verifier's bytecode standard library, the pinned wheel), a fresh one for each pair so
// that its heap's high-water mark is the pair's. Prints JSON: per case the time of the verify()
// call, the wasm heap before and after it (it only grows: the peak), and the verdict.
//
//   python bench/hostile_bench.py --keep DIR ...    # writes DIR/<case>/{proof.bin,settings.bin,case.json}
//   node bench/web/hostile_pyodide.mjs DIR [--runs N]  # or: python bench/hostile_bench.py --pyodide
//
// With --runs N each pair is verified in N fresh Pyodides: the median time, the largest heap.
//
// Run `bash web/scripts/setup.sh` first (the wheel and the standard library it builds).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const WEB = join(REPO, "web");
// The bounds this table is held to (stated in README "Verifier work budget"): Pyodide runs the
// pure-Python verifier about 1.5-2.5x slower than CPython, in a heap that starts at ~30 MiB.
export const TIME_LIMIT_S = 4.0;
export const HEAP_LIMIT_MIB = 256;

const args = process.argv.slice(2);
const runsAt = args.indexOf("--runs");
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 1;
const dir = resolve(args[0] ?? "");
if (!args[0] || !existsSync(dir) || !(runs >= 1)) throw new Error("usage: node bench/web/hostile_pyodide.mjs DIR [--runs N] (DIR from hostile_bench.py --keep DIR)");

const require = createRequire(join(WEB, "package.json"));
const { loadPyodide } = await import(pathToFileURL(require.resolve("pyodide/pyodide.mjs")).href);
const { MANIFEST } = await import(pathToFileURL(join(WEB, "src", "manifest.js")).href);
const { installWheel } = await import(pathToFileURL(join(WEB, "src", "pyglue.js")).href);
const wheel = new Uint8Array(readFileSync(join(WEB, "assets", MANIFEST.file)));
const bytecode = new Uint8Array(readFileSync(join(WEB, "assets", basename(MANIFEST.bytecode.file))));
const stdLibURL = join(WEB, "assets", basename(MANIFEST.stdlib.file));

const RUN = `
import json, time
from luminair.verifier import verify
_proof, _settings = _proof_js.to_bytes(), _settings_js.to_bytes()
_kwargs = json.loads(_kwargs_json)
def _run():
    t = time.perf_counter()
    r = verify(_proof, _settings, **_kwargs)
    return json.dumps({"time_s": round(time.perf_counter() - t, 3), "success": r.success, "check": r.check, "message": r.error_message})
`;

const mib = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;
let version = null;

/** One verify() call of this case in a fresh Pyodide: time, heap before and after, verdict. */
async function runOnce(folder, meta) {
  const py = await loadPyodide({ stdLibURL, lockFileContents: { info: MANIFEST.lockInfo, packages: {} } });
  version = py.version;
  await installWheel(py, wheel, MANIFEST.sha256);
  py.unpackArchive(bytecode, "zip"); // as the worker does
  py.globals.set("_proof_js", new Uint8Array(readFileSync(join(folder, "proof.bin"))));
  py.globals.set("_settings_js", new Uint8Array(readFileSync(join(folder, "settings.bin"))));
  py.globals.set("_kwargs_json", JSON.stringify({ min_security_bits: meta.floor, ...(meta.kwargs ?? {}) }));
  py.runPython(RUN);
  const heap = () => py._module.HEAPU8.buffer.byteLength;
  const before = heap();
  let row;
  try {
    row = JSON.parse(py.runPython("_run()"));
  } catch (e) { // verify() raised, or the runtime itself failed (out of wasm memory): both are failures
    row = { time_s: null, success: false, check: "crashed", message: String(e).slice(-500) };
  }
  return { ...row, heap_before_mib: mib(before), heap_peak_mib: mib(heap()) };
}

const rows = [];
for (const name of readdirSync(dir).sort()) {
  const folder = join(dir, name);
  if (!existsSync(join(folder, "case.json"))) continue;
  const meta = JSON.parse(readFileSync(join(folder, "case.json"), "utf8"));
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await runOnce(folder, meta));
  let row = { case: meta.name, ...results[results.length - 1] };
  const times = results.map((r) => r.time_s).filter((t) => t !== null).sort((x, y) => x - y);
  if (runs > 1 && times.length === runs) {
    row = { ...row, time_s: times[Math.floor(runs / 2)], times_s: results.map((r) => r.time_s),
            heap_peak_mib: Math.max(...results.map((r) => r.heap_peak_mib)) };
  }
  row.verdict = row.success ? "verified" : "rejected";
  row.as_expected = meta.expect.includes(row.check ?? "");
  row.within_bounds = row.time_s !== null && row.time_s <= TIME_LIMIT_S && row.heap_peak_mib <= HEAP_LIMIT_MIB;
  rows.push(row);
  console.error(JSON.stringify(row));
}

console.log(JSON.stringify({
  runtime: `Pyodide ${version} under Node ${process.version}`,
  runs,
  limit: { time_s: TIME_LIMIT_S, heap_mib: HEAP_LIMIT_MIB },
  cases: rows,
  all_within_bounds: rows.every((r) => r.within_bounds),
  all_as_expected: rows.every((r) => r.as_expected),
}, null, 1));
