// Header/size helpers (no Python) against the real sample files and the Python sniff().
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import {
  LuminairUtils, LuminairVerificationError, checkFiles, fetchBinary, getProofSize, isValidProofBinary,
  isValidSettingsBinary, readHeader, readSettingsInfo,
} from "../src/index.js";
import { REPO, python, sampleFiles, withVersion } from "./helpers.mjs";

const { proof, settings } = sampleFiles();

function pythonSniff(bytes) {
  const code = "import sys, json\nfrom luminair.verifier.formats import sniff, FormatError\ntry: print(json.dumps(sniff(sys.stdin.buffer.read())))\nexcept FormatError as e: print(json.dumps({'error': e.message}))";
  return JSON.parse(execFileSync(python(), ["-c", code], { cwd: REPO, input: Buffer.from(bytes) }).toString());
}

describe("header checks", () => {
  it("readHeader agrees with Python's sniff() on proof, settings, wrong version and garbage", () => {
    for (const bytes of [proof, settings, withVersion(proof, 7), withVersion(settings, 0)]) {
      assert.deepEqual(readHeader(bytes), pythonSniff(bytes));
    }
    const garbage = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    assert.ok(pythonSniff(garbage).error);
    assert.throws(() => readHeader(garbage), (e) => e instanceof LuminairVerificationError && e.kind === "format");
  });

  it("isValidProofBinary / isValidSettingsBinary", () => {
    assert.equal(isValidProofBinary(proof), true);
    assert.equal(isValidProofBinary(proof.buffer.slice(proof.byteOffset, proof.byteOffset + proof.byteLength)), true);
    assert.equal(isValidProofBinary(settings), false);
    assert.equal(isValidProofBinary(withVersion(proof, 2)), false);
    assert.equal(isValidProofBinary(proof.slice(0, 12)), false);
    assert.equal(isValidProofBinary(new Uint8Array(0)), false);
    assert.equal(isValidProofBinary("LMNRPROF"), false);
    assert.equal(isValidSettingsBinary(settings), true);
    assert.equal(isValidSettingsBinary(proof), false);
    assert.equal(LuminairUtils.isValidSettingsBinary, isValidSettingsBinary);
  });

  it("getProofSize returns the byte size of a proof and refuses other files", () => {
    assert.equal(getProofSize(proof), proof.length);
    assert.throws(() => getProofSize(settings), /settings file, not a proof/);
    assert.throws(() => getProofSize(new Uint8Array([0, 1, 2])), /not a luminair file/);
  });

  it("readSettingsInfo matches Python's settings_summary config", () => {
    const code = "import sys, json\nfrom luminair.verifier.summary import settings_summary\nprint(json.dumps(settings_summary(sys.stdin.buffer.read())['config']))";
    const py = JSON.parse(execFileSync(python(), ["-c", code], { cwd: REPO, input: Buffer.from(settings) }).toString());
    const info = readSettingsInfo(settings);
    assert.deepEqual(info.config, {
      powBits: py.pow_bits, logBlowup: py.log_blowup, nQueries: py.n_queries, logLastLayer: py.log_last_layer, securityBits: py.security_bits,
    });
    assert.equal(info.size, settings.length);
    assert.throws(() => readSettingsInfo(proof), (e) => e.kind === "format");
    assert.throws(() => readSettingsInfo(withVersion(settings, 9)), (e) => e.kind === "version" && /version 9/.test(e.message));
  });

  it("checkFiles gives distinct, specific problems", () => {
    assert.equal(checkFiles(proof, settings), null);
    const swapped = checkFiles(settings, proof);
    assert.equal(swapped.kind, "format");
    assert.match(swapped.message, /swapped/);
    const v = checkFiles(withVersion(proof, 7), settings);
    assert.equal(v.kind, "version");
    assert.equal(v.file, "proof");
    assert.match(v.message, /version 7.*newer luminair/);
    const g = checkFiles(proof, new Uint8Array(40));
    assert.equal(g.kind, "format");
    assert.equal(g.file, "settings");
    assert.match(checkFiles(new Uint8Array(0), settings).message, /empty/);
  });
});

describe("fetchBinary", () => {
  const fakeFetch = (status, body = new Uint8Array([1, 2, 3])) => async () => ({
    ok: status >= 200 && status < 300,
    status,
    headers: new Map([["content-length", String(body.length)]]),
    arrayBuffer: async () => body.buffer,
  });

  it("returns the bytes", async () => {
    assert.deepEqual(await fetchBinary("/p.bin", { fetch: fakeFetch(200) }), new Uint8Array([1, 2, 3]));
  });
  it("404 and 410 are not-found", async () => {
    for (const status of [404, 410]) {
      await assert.rejects(fetchBinary("/p.bin", { fetch: fakeFetch(status) }), (e) => e.kind === "not-found" && e.status === status && /HTTP/.test(e.message));
    }
  });
  it("other statuses and thrown requests are network errors", async () => {
    await assert.rejects(fetchBinary("/p.bin", { fetch: fakeFetch(500) }), (e) => e.kind === "network" && /HTTP 500/.test(e.message));
    const failing = async () => {
      throw new TypeError("Failed to fetch");
    };
    await assert.rejects(fetchBinary("https://elsewhere/p.bin", { fetch: failing }), (e) => e.kind === "network" && /CORS/.test(e.message));
  });
});
