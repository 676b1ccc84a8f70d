// The verifier inside Pyodide under Node, through the same glue the browser worker uses: the
// sample proof verifies, and tampered / malformed / wrong-version files get the same verdict and
// the same message as CPython gives.
import assert from "node:assert/strict";
import { brotliCompressSync, constants as zlibConstants } from "node:zlib";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { basename, join } from "node:path";
import { before, describe, it } from "node:test";
import { loadPyodide } from "pyodide";
import { MANIFEST } from "../src/manifest.js";
import { installGlue, installWheel, sha256Hex } from "../src/pyglue.js";
import { execFileSync } from "node:child_process";
import { toJsResult } from "../src/client.js";
import { REPO, WEB, batchFixtures, committedFixture, cpythonVerify, segmentedFixture, proofSymbols, publicTensors, python, sampleFiles, tamper, verdictOf, withPublic, withSymbols, withVersion } from "./helpers.mjs";

const wheelBytes = new Uint8Array(readFileSync(join(WEB, "assets", MANIFEST.file)));
let py;
let glue;

const stdlibPath = join(WEB, "assets", basename(MANIFEST.stdlib.file));
// Exactly the runtime the browser worker boots: the verifier's bytecode standard library and an
// inline lock file (no package is resolved by name).
const workerLike = () => loadPyodide({ stdLibURL: stdlibPath, lockFileContents: { info: MANIFEST.lockInfo, packages: {} } });

const bytecodeBytes = new Uint8Array(readFileSync(join(WEB, "assets", basename(MANIFEST.bytecode.file))));

before(async () => {
  py = await workerLike();
  await installWheel(py, wheelBytes, MANIFEST.sha256);
  py.unpackArchive(bytecodeBytes, "zip"); // as the worker does
  glue = installGlue(py);
});

describe("verifier wheel in Pyodide", () => {
  it("the built wheel matches the SHA-256 pinned in manifest.js", async () => {
    assert.equal(await sha256Hex(wheelBytes), MANIFEST.sha256);
  });

  it("refuses a wheel whose hash differs from the pin", async () => {
    const other = await workerLike();
    const bad = new Uint8Array(wheelBytes);
    bad[bad.length - 30] ^= 0xff;
    await assert.rejects(installWheel(other, bad, MANIFEST.sha256), (e) => e.kind === "hash" && /refusing/.test(e.message));
    assert.throws(() => other.runPython("import luminair.verifier"), /ModuleNotFoundError/);
  });

  it("checks the pin with Python's hashlib where WebCrypto is missing (plain-http LAN pages)", async () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, "crypto");
    const other = await workerLike();
    Object.defineProperty(globalThis, "crypto", { value: {}, configurable: true, writable: true });
    try {
      assert.equal(await sha256Hex(wheelBytes), null);
      const bad = new Uint8Array(wheelBytes);
      bad[100] ^= 0xff;
      await assert.rejects(installWheel(other, bad, MANIFEST.sha256), (e) => e.kind === "hash");
      await installWheel(other, wheelBytes, MANIFEST.sha256);
    } finally {
      Object.defineProperty(globalThis, "crypto", saved);
    }
    assert.equal(other.runPython("import luminair.verifier as v; v.__version__"), MANIFEST.version);
  });

  it("runs on the verifier's own standard library: pinned, bytecode only, smaller than Pyodide's", () => {
    const bytes = readFileSync(stdlibPath);
    assert.equal(createHash("sha256").update(bytes).digest("hex"), MANIFEST.stdlib.sha256);
    assert.equal(bytes.length, MANIFEST.stdlib.size);
    // stored (not deflated), so that the server's brotli packs it: what a visitor downloads is
    // well under Pyodide's own (deflated) standard library
    const full = readFileSync(join(WEB, "node_modules", "pyodide", "python_stdlib.zip")).length;
    assert.equal(bytes.readUInt16LE(8), 0, "the first entry is stored");
    const sent = brotliCompressSync(bytes, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } }).length;
    assert.ok(sent < full * 0.6, `${sent} vs ${full}`);
    const where = JSON.parse(py.runPython(`
import sys, json
zips = [p for p in sys.path if p.endswith(".zip")]
# modules imported from the zip (frozen core modules report a .py path but are not compiled)
files = [m.__spec__.origin for m in list(sys.modules.values())
         if getattr(m, "__spec__", None) and m.__spec__.origin and m.__spec__.origin.startswith(zips[0])]
json.dumps({"zips": zips, "pyc": sum(f.endswith(".pyc") for f in files), "py": sum(f.endswith(".py") for f in files)})
`));
    assert.equal(where.py, 0, "no stdlib source is compiled at start-up");
    assert.ok(where.pyc > 50, JSON.stringify(where));
  });

  it("the verifier's bytecode is pinned and compiled from exactly the wheel's sources", () => {
    assert.equal(createHash("sha256").update(bytecodeBytes).digest("hex"), MANIFEST.bytecode.sha256);
    const r = JSON.parse(py.runPython(`
import importlib.util, json, pathlib, sys
out = {"checked": 0, "bad": [], "missing": []}
for src in sorted(pathlib.Path("luminair").rglob("*.py")):
    cached = pathlib.Path(importlib.util.cache_from_source(str(src)))
    if not cached.exists():
        out["missing"].append(str(src)); continue
    head = cached.read_bytes()[:16]
    flags = int.from_bytes(head[4:8], "little")
    if flags != 0b01 or head[8:16] != importlib.util.source_hash(src.read_bytes()):
        out["bad"].append(str(src))
    out["checked"] += 1
import luminair.verifier.api as api
out["used"] = api.__cached__ is not None and pathlib.Path(api.__cached__).exists()
json.dumps(out)
`));
    assert.deepEqual(r.bad, []);
    assert.deepEqual(r.missing, []);
    assert.ok(r.checked >= 20 && r.used, JSON.stringify(r));
  });

  it("reports the verifier version and its six steps", () => {
    assert.equal(glue.info.verifier, MANIFEST.version);
    assert.equal(glue.info.steps.length, 6);
    // the .dist-info is installed with the package (importlib.metadata itself is not in the verifier's stdlib)
    const meta = py.runPython("import glob; open(glob.glob('luminair_verifier-*.dist-info/METADATA')[0]).read()");
    assert.match(meta, new RegExp(`^Version: ${MANIFEST.version.replace(/\./g, "\\.")}$`, "m"));
  });
});

describe("same verdict and message as CPython", () => {
  const { proof, settings } = sampleFiles();
  const cases = {
    sample: [proof, settings],
    "tampered proof (bit flip in the middle)": [tamper(proof), settings],
    "tampered proof (near the end)": [tamper(proof, proof.length - 40), settings],
    "tampered settings": [proof, tamper(settings, settings.length - 1)],
    "garbage proof": [new Uint8Array(Array.from({ length: 500 }, (_, i) => (i * 37 + 11) & 0xff)), settings],
    "unsupported proof version": [withVersion(proof, MANIFEST.formatVersion + 1), settings],
    "files swapped": [settings, proof],
    "truncated proof": [proof.slice(0, proof.length - 5), settings],
  };
  let expected;
  before(() => {
    expected = Object.fromEntries(Object.keys(cases).map((k, i) => [k, i])); // filled below
    const results = cpythonVerify(Object.values(cases));
    Object.keys(cases).forEach((k, i) => (expected[k] = results[i]));
  });

  for (const [name, [p, s]] of Object.entries(cases)) {
    it(name, () => {
      const got = glue.verify(p, s);
      assert.deepEqual(verdictOf(got), verdictOf(expected[name]));
      if (name === "sample") {
        assert.equal(got.success, true);
        assert.equal(got.visibility.weights, "public");
        assert.equal(got.model_root, null);
        assert.ok(got.outputs && Object.keys(got.outputs).length > 0, "outputs are reported");
        assert.ok(got.summary?.graph?.nodes?.length >= 1, "the settings summary (graph) comes with a success");
      } else {
        assert.equal(got.success, false);
        assert.ok(got.error_message.startsWith(`${got.check}: `), got.error_message);
      }
    });
  }

  it("calls progress for every step, in order, from the verifier itself", () => {
    const seen = [];
    const r = glue.verify(proof, settings, { onProgress: (step, of, label) => seen.push([step, of, label]) });
    assert.equal(r.success, true);
    assert.deepEqual(seen.map((s) => s[0]), [1, 2, 3, 4, 5, 6]);
    assert.ok(seen.every((s) => s[1] === 6 && typeof s[2] === "string" && s[2].length > 0));
    assert.deepEqual(seen.map((s) => s[2]), glue.info.steps);
  });

  it("hands the verifier's complete work estimate, by part, to onWork once", () => {
    const seen = [];
    const r = glue.verify(proof, settings, { onWork: (w) => seen.push(w) });
    assert.equal(r.success, true);
    assert.equal(seen.length, 1);
    const parts = Object.values(seen[0]);
    assert.ok(parts.length > 1 && parts.every((v) => typeof v === "number" && v >= 0));
    assert.ok(parts.reduce((a, b) => a + b, 0) > 0);
  });

  it("min_security_bits is passed through (a floor above the proof's security rejects it)", () => {
    const r = glue.verify(proof, settings, { minSecurityBits: 200 });
    assert.equal(r.success, false);
    assert.equal(r.check, "config below floor");
  });

  it("max_work is passed through (a budget below the files' declared work rejects them by name)", () => {
    const r = glue.verify(proof, settings, { maxWork: 1000 });
    assert.equal(r.success, false);
    assert.equal(r.check, "work budget");
    assert.equal(glue.verify(proof, settings, { maxWork: 50_000_000 }).success, true);
  });

  it("inspect reads both files without verifying", () => {
    const s = glue.inspect(settings);
    assert.equal(s.ok, true);
    assert.equal(s.header.kind, "settings");
    assert.match(s.summary.model_digest, /^[0-9a-f]{64}$/);
    const p = glue.inspect(proof);
    assert.equal(p.ok, true);
    const code = "import sys, json\nfrom luminair.verifier.summary import proof_summary\nprint(json.dumps(proof_summary(sys.stdin.buffer.read())['settings_digest']))";
    assert.equal(p.summary.settings_digest, JSON.parse(execFileSync(python(), ["-c", code], { cwd: REPO, input: Buffer.from(proof) }).toString()));
    const bad = glue.inspect(new Uint8Array([1, 2, 3]));
    assert.equal(bad.ok, false);
    assert.match(bad.error, /not a luminair file/);
  });
});

describe("batches: one settings.bin of a symbolic model, proofs for batch sizes 1, 7 and 64", () => {
  const fx = batchFixtures([1, 7, 64]);
  const dev = { minSecurityBits: 0 }; // the fixtures use the fast (development) preset
  // [the proof's batch, the public tensors claimed instead (from its own), words of the message]
  const forged = {
    "batch 7 claimed as 8 (in range)": [7, ([, x, y]) => [[8], x, y], "public input 'x'"],
    "batch 7 claimed as 257 (above the range)": [7, ([, x, y]) => [[257], x, y], "outside the model's range [1, 256]"],
    "batch 1 claimed as 0": [1, ([, x, y]) => [[0], x, y], "outside the model's range [1, 256]"],
    "batch 64 claimed as 7": [64, ([, x, y]) => [[7], x, y], "public input 'x'"],
    // a consistent claim for a smaller batch (its first rows): another AIR, which the proof does not fit
    "batch 7 passed off as batch 3 with its first 3 rows": [7, ([, x, y]) => [[3], x.slice(0, 3 * 16), y.slice(0, 3 * 4)], ""],
    "the symbol tensor left out": [7, ([, x, y]) => [x, y], "symbolic dimensions (batch)"],
  };
  const forge = (b, edit) => withPublic(fx.proofs[b].proof, edit(publicTensors(fx.proofs[b].proof).tensors));
  let expected;
  before(() => {
    const pairs = [
      ...Object.values(fx.proofs).map((p) => [p.proof, fx.settings]),
      ...Object.values(forged).map(([b, edit]) => [forge(b, edit), fx.settings]),
    ];
    const results = cpythonVerify(pairs, { minSecurityBits: 0 });
    expected = { proofs: Object.fromEntries(Object.keys(fx.proofs).map((b, i) => [b, results[i]])) };
    expected.forged = Object.fromEntries(Object.keys(forged).map((k, i) => [k, results[Object.keys(fx.proofs).length + i]]));
  });

  for (const b of [1, 7, 64]) {
    it(`batch ${b} verifies against the one settings.bin, with the batch's outputs`, () => {
      const { proof, y } = fx.proofs[b];
      assert.deepEqual(proofSymbols(proof), [b], "the proof fixes the batch size as its first public tensor");
      const got = glue.verify(proof, fx.settings, dev);
      assert.equal(got.success, true, got.error_message);
      assert.deepEqual(got.symbols, { batch: b });
      assert.deepEqual(got.outputs.y.shape, [b, 4]);
      assert.deepEqual(got.inputs.x.shape, [b, 16]);
      assert.deepEqual(got.outputs.y.values, y.flat(), "exactly what the prover computed for this batch");
      assert.ok(got.statement.endsWith(` at batch=${b}`), got.statement);
      assert.deepEqual(got.summary.symbols, fx.symbols);
      assert.deepEqual(verdictOf(got), verdictOf(expected.proofs[b]), "the same verdict as CPython");
      const js = toJsResult(got);
      assert.deepEqual(js.symbols, { batch: b });
      assert.equal(js.verdict, "development");
    });
  }

  it("a concrete model reports no symbols", () => {
    const { proof, settings } = sampleFiles();
    const got = glue.verify(proof, settings);
    assert.equal(got.symbols, null);
    assert.equal(toJsResult(got).symbols, null);
  });

  it("the forgeries below rewrite only the public tensors (the helper round-trips a proof)", () => {
    const { proof } = fx.proofs[7];
    // re-encoded as M31 words (the prover deflates 16-bit tensors): the same values, the same STARK
    // proof, and still a valid proof in both verifiers
    const again = withPublic(proof, publicTensors(proof).tensors);
    assert.deepEqual(publicTensors(again).tensors, publicTensors(proof).tensors);
    assert.deepEqual(again.subarray(publicTensors(again).end), proof.subarray(publicTensors(proof).end));
    assert.equal(cpythonVerify([[again, fx.settings]], { minSecurityBits: 0 })[0].success, true);
    assert.equal(glue.verify(again, fx.settings, dev).success, true);
    assert.deepEqual(proofSymbols(withSymbols(proof, [9])), [9]);
  });

  for (const [name, [b, edit, message]] of Object.entries(forged)) {
    it(`a proof claiming other symbol values is rejected like CPython does: ${name}`, () => {
      const got = glue.verify(forge(b, edit), fx.settings, dev);
      assert.equal(got.success, false);
      assert.ok(got.error_message.includes(message), got.error_message);
      assert.equal(got.symbols, null);
      assert.deepEqual(verdictOf(got), verdictOf(expected.forged[name]));
    });
  }
});

describe("committed weights: settings.bin holds the model root, not the weights", () => {
  let fx;
  let expected;
  const dev = { minSecurityBits: 0 }; // the fixture uses the fast (development) preset
  before(() => {
    fx = committedFixture();
    const tampered = tamper(fx.proof);
    expected = cpythonVerify([[fx.proof, fx.settings], [tampered, fx.settings]], dev);
    fx.tampered = tampered;
  });

  it("verifies like CPython, with the same visibilities and model root", () => {
    const got = glue.verify(fx.proof, fx.settings, dev);
    assert.equal(got.success, true, got.error_message);
    assert.deepEqual(verdictOf(got), verdictOf(expected[0]));
    assert.deepEqual(got.visibility, { weights: "committed", inputs: { x: "public", key: "private" }, outputs: "public" });
    assert.match(got.model_root, /^[0-9a-f]+$/);
    assert.equal(got.model_root, fx.modelRoot);
    assert.deepEqual(Object.keys(got.inputs), ["x"], "the private input is not reported");
    const js = toJsResult(got);
    assert.equal(js.modelRoot, fx.modelRoot);
    assert.deepEqual(js.visibility, got.visibility);
    assert.equal(js.verdict, "development");
  });

  it("a tampered committed-weights proof is rejected like CPython does, with no visibility or root", () => {
    const got = glue.verify(fx.tampered, fx.settings, dev);
    assert.equal(got.success, false);
    assert.deepEqual(verdictOf(got), verdictOf(expected[1]));
    assert.equal(got.model_root, null);
    assert.equal(toJsResult(got).modelRoot, null);
  });
});

describe("segmented proofs: a bundle of segment proofs, one verdict", () => {
  let fx;
  let expected;
  const dev = { minSecurityBits: 0 }; // the fixture uses the fast (development) preset
  before(() => {
    fx = segmentedFixture();
    expected = cpythonVerify([[fx.proof, fx.settings], [fx.reordered, fx.settings]], dev);
  });

  it("verifies like CPython, as the whole model's statement", () => {
    const got = glue.verify(fx.proof, fx.settings, dev);
    assert.equal(got.success, true, got.error_message);
    assert.deepEqual(verdictOf(got), verdictOf(expected[0]));
    assert.equal(got.statement, "graph: proven in 3 segments");
    assert.deepEqual(Object.keys(got.outputs), ["y"]);
  });

  it("a bundle with two segments swapped is rejected like CPython does, by name", () => {
    const got = glue.verify(fx.reordered, fx.settings, dev);
    assert.equal(got.success, false);
    assert.equal(got.check, "segment statement");
    assert.deepEqual(verdictOf(got), verdictOf(expected[1]));
  });

  it("inspect names it a segmented proof", () => {
    const got = glue.inspect(fx.proof);
    assert.equal(got.ok, true, got.error);
    assert.equal(got.header.segmented, true);
    assert.equal(got.summary.segment_bytes.length, 3);
  });
});
