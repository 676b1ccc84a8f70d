// Publisher forgeries (settings.bin shows one model, the proof is of another) are rejected by the
// verifier inside Pyodide with the same named check as in CPython. The files are made fresh by
// tests/graph_proving/make_forgeries.py (the same forgers as tests/graph_proving/test_statement_forgery.py).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadPyodide } from "pyodide";
import { MANIFEST } from "../src/manifest.js";
import { installGlue, installWheel } from "../src/pyglue.js";
import { REPO, WEB, cpythonVerify, python } from "./helpers.mjs";

const dir = mkdtempSync(join(tmpdir(), "luminair-forgeries-"));
execFileSync(python(), [join(REPO, "tests", "graph_proving", "make_forgeries.py"), dir], { cwd: REPO, stdio: "inherit" });
const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8"));
const pairs = Object.keys(expected).map((name) => [
  new Uint8Array(readFileSync(join(dir, `${name}.proof.bin`))),
  new Uint8Array(readFileSync(join(dir, `${name}.settings.bin`))),
]);
let glue;

before(async () => {
  const py = await loadPyodide();
  await installWheel(py, new Uint8Array(readFileSync(join(WEB, "assets", MANIFEST.file))), MANIFEST.sha256);
  glue = installGlue(py);
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe("a dishonest publisher's proofs are rejected in Pyodide", () => {
  const cpython = cpythonVerify(pairs);
  Object.keys(expected).forEach((name, i) => {
    it(name.replaceAll("_", " "), () => {
      const [proof, settings] = pairs[i];
      const got = glue.verify(proof, settings, { minSecurityBits: 0 });
      assert.equal(got.success, false, `${name} verified`);
      assert.equal(got.check, expected[name], got.error_message);
      assert.equal(cpython[i].check, expected[name], cpython[i].error_message);
    });
  });
});
