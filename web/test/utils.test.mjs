// Header/size helpers (no Python) against the real sample files and the Python sniff().
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import { createHash } from "node:crypto";
import {
  FORMAT_VERSION, LuminairUtils, LuminairVerificationError, checkFiles, fetchBinary, getProofSize, isValidProofBinary,
  isValidSettingsBinary, readHeader, readSettingsInfo, verdictForKind,
} from "../src/index.js";
import { judgeResponse, diagnoseHosting, runtimeFiles } from "../src/hosting.js";
import { MANIFEST } from "../src/manifest.js";
import { sha256HexJs } from "../src/pyglue.js";
import { REPO, python, sampleFiles, withVersion } from "./helpers.mjs";

const { proof, settings } = sampleFiles();

function pythonSniff(bytes) {
  const code = "import sys, json\nfrom luminair.verifier.formats import sniff, FormatError\ntry: print(json.dumps(sniff(sys.stdin.buffer.read())))\nexcept FormatError as e: print(json.dumps({'error': e.message}))";
  return JSON.parse(execFileSync(python(), ["-c", code], { cwd: REPO, input: Buffer.from(bytes) }).toString());
}

describe("header checks", () => {
  it("the JS format version is the verifier's (read from its sources by the build)", () => {
    const code = "from luminair.verifier.formats import FORMAT_VERSION; print(FORMAT_VERSION)";
    assert.equal(FORMAT_VERSION, Number(execFileSync(python(), ["-c", code], { cwd: REPO }).toString()));
    assert.equal(readHeader(proof).version, FORMAT_VERSION);
  });

  it("readHeader agrees with Python's sniff() on proof, settings, wrong version and garbage", () => {
    for (const bytes of [proof, settings, withVersion(proof, FORMAT_VERSION + 1), withVersion(settings, 0)]) {
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
    assert.equal(isValidProofBinary(withVersion(proof, FORMAT_VERSION + 1)), false);
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
    const other = FORMAT_VERSION + 1;
    assert.throws(() => readSettingsInfo(withVersion(settings, other)), (e) => e.kind === "version" && e.message.includes(`version ${other}`));
  });

  it("checkFiles gives distinct, specific problems", () => {
    assert.equal(checkFiles(proof, settings), null);
    const swapped = checkFiles(settings, proof);
    assert.equal(swapped.kind, "format");
    assert.match(swapped.message, /swapped/);
    const v = checkFiles(withVersion(proof, FORMAT_VERSION + 1), settings);
    assert.equal(v.kind, "version");
    assert.equal(v.file, "proof");
    assert.match(v.message, new RegExp(`version ${FORMAT_VERSION + 1}.*newer luminair`));
    const g = checkFiles(proof, new Uint8Array(40));
    assert.equal(g.kind, "format");
    assert.equal(g.file, "settings");
    assert.match(checkFiles(new Uint8Array(0), settings).message, /empty/);
  });
});

describe("fetchBinary", () => {
  const fakeFetch = (status, body = new Uint8Array([1, 2, 3]), type = "application/octet-stream") => async () => ({
    ok: status >= 200 && status < 300,
    status,
    headers: new Map([["content-length", String(body.length)], ["content-type", type]]),
    arrayBuffer: async () => body.buffer,
  });

  it("an HTML page where a binary file was expected is not-found (a catch-all route), not a format error", async () => {
    await assert.rejects(
      fetchBinary("/proof.bin", { fetch: fakeFetch(200, new TextEncoder().encode("<!doctype html>"), "text/html; charset=utf-8"), file: "proof" }),
      (e) => e.kind === "not-found" && /HTML page/.test(e.message) && e.verdict === "unavailable",
    );
  });
  it("reports download progress in bytes from a streamed body", async () => {
    const body = new Uint8Array(300).map((_, i) => i & 255);
    const res = new Response(new Blob([body.slice(0, 100), body.slice(100)]).stream(), { headers: { "content-length": "300" } });
    const seen = [];
    const got = await fetchBinary("/p.bin", { fetch: async () => res, onProgress: (p) => seen.push(p) });
    assert.deepEqual(got, body);
    assert.ok(seen.length >= 1 && seen.at(-1).loaded === 300 && seen.at(-1).total === 300, JSON.stringify(seen));
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

describe("verdicts", () => {
  it("a checked and refused file is rejected; anything that checked nothing is unavailable", () => {
    for (const kind of ["rejected", "format"]) assert.equal(verdictForKind(kind), "rejected");
    for (const kind of ["not-found", "network", "hosting", "csp", "version", "timeout", "aborted", "load", "hash", "terminated", "internal"]) {
      assert.equal(verdictForKind(kind), "unavailable", kind);
      assert.equal(new LuminairVerificationError(kind, "x").verdict, "unavailable");
    }
  });
});

describe("hosting diagnostics", () => {
  const res = (status, type) => new Response(null, { status, headers: type ? { "content-type": type } : {} });
  it("judges status and MIME type per kind of file", () => {
    const u = "https://site/luminair/x";
    assert.equal(judgeResponse(u, "js", res(200, "text/javascript; charset=utf-8")), null);
    assert.equal(judgeResponse(u, "js", res(200, "application/javascript")), null);
    assert.equal(judgeResponse(u, "wasm", res(200, "application/wasm")), null);
    assert.equal(judgeResponse(u, "data", res(200, "application/zip")), null);
    const missing = judgeResponse(u, "wasm", res(404, "text/plain"));
    assert.ok(missing.fatal && missing.message.startsWith(`${u} is missing (HTTP 404)`));
    assert.match(judgeResponse(u, "data", res(500)).message, /HTTP 500/);
    const js = judgeResponse(u, "js", res(200, "application/octet-stream"));
    assert.ok(js.fatal && /served as "application\/octet-stream".*text\/javascript/.test(js.message));
    const wasm = judgeResponse(u, "wasm", res(200, "application/octet-stream"));
    assert.ok(!wasm.fatal && /instead of application\/wasm/.test(wasm.message), "a wrong .wasm type is a warning: the worker relabels it");
    assert.ok(judgeResponse(u, "data", res(200, "text/html")).fatal, "an HTML page instead of the zip");
    assert.equal(judgeResponse(u, "js", res(405)), null, "HEAD not allowed: no verdict");
  });

  it("checks every runtime file in parallel and names the one at fault", async () => {
    const base = "https://site/luminair/";
    const asked = [];
    const fake = async (url, init) => {
      asked.push([url, init?.method ?? "GET"]);
      if (url.endsWith("pyodide.asm.wasm")) return res(404, "text/html");
      if (url.endsWith("pyodide.mjs")) return res(200, "text/plain");
      if (url.endsWith(".whl")) throw new TypeError("Failed to fetch");
      return res(200, /\.m?js$/.test(url) ? "text/javascript" : "application/zip");
    };
    const d = await diagnoseHosting(base, MANIFEST, { fetch: fake });
    const files = runtimeFiles(MANIFEST).map((f) => new URL(f.path, base).href);
    assert.deepEqual(asked.map((a) => a[0]).sort(), files.sort());
    assert.ok(asked.every((a) => a[1] === "HEAD"));
    assert.deepEqual(d.problems.map((p) => p.url).sort(), [`${base}${MANIFEST.file}`, `${base}pyodide/pyodide.asm.wasm`, `${base}pyodide/pyodide.mjs`].sort());
    assert.ok(d.problems.some((p) => /blocked or failed/.test(p.message)));
    const skip = new Set([`${base}pyodide/pyodide.asm.wasm`]);
    const again = await diagnoseHosting(base, MANIFEST, { fetch: fake, skip });
    assert.ok(!again.problems.some((p) => p.url.endsWith(".wasm")), "cached files are not asked for");
  });
});

describe("SHA-256 without WebCrypto", () => {
  it("the plain-JS SHA-256 matches node:crypto on every padding boundary", () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 70001]) {
      const b = new Uint8Array(n).map((_, i) => (i * 31 + 7) & 255);
      assert.equal(sha256HexJs(b), createHash("sha256").update(b).digest("hex"), `n=${n}`);
    }
  });
});
