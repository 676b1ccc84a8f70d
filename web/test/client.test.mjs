// The worker protocol on the main-thread side, against a scripted fake worker: id-tagged
// replies, progress, verdicts vs errors, the timeout that terminates and restarts the worker.
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { DEFAULT_RELEASE_AFTER_MS, configure, getInfo, getSteps, init, terminate, toJsResult, verify, workerStarts } from "../src/client.js";
import { MANIFEST } from "../src/manifest.js";

class FakeWorker {
  static all = [];
  constructor(url, script) {
    this.url = url;
    this.script = script;
    this.sent = [];
    this.terminated = false;
    FakeWorker.all.push(this);
  }
  postMessage(msg, transfer = []) {
    this.sent.push({ msg, transfer });
    queueMicrotask(() => this.script(this, msg));
  }
  reply(data) {
    if (!this.terminated) this.onmessage?.({ data });
  }
  terminate() {
    this.terminated = true;
  }
}

const READY = { type: "ready", pyodideVersion: "314.0.7", verifierVersion: "0.1.0", steps: ["a", "b", "c"], bootMs: 5 };

function useScript(script, { fetch = null } = {}) {
  FakeWorker.all = [];
  configure({
    workerFactory: (url) => new FakeWorker(url, script),
    baseUrl: "http://127.0.0.1:1/luminair/",
    startTimeoutMs: 2000,
    hostingCheck: fetch !== null,
    fetch,
  });
}

/** A server for the hosting check: every runtime file answers 200 with the right type unless `bad` says otherwise. */
function server(bad = {}) {
  return async (url) => {
    const name = url.split("/luminair/")[1];
    if (bad[name]) return new Response(null, { status: bad[name][0], headers: { "content-type": bad[name][1] } });
    const type = /\.m?js$/.test(name) ? "text/javascript" : name.endsWith(".wasm") ? "application/wasm" : "application/zip";
    return new Response(null, { status: 200, headers: { "content-type": type } });
  };
}

afterEach(() => terminate());

describe("client protocol", () => {
  it("boots once with the pinned wheel and reports the verifier's info", async () => {
    useScript((w, msg) => msg.type === "boot" && w.reply(READY));
    const starts = workerStarts();
    const [a, b] = await Promise.all([init(), init()]);
    assert.equal(a, b);
    assert.equal(workerStarts(), starts + 1);
    const boot = FakeWorker.all[0].sent[0].msg;
    assert.equal(FakeWorker.all[0].url, "http://127.0.0.1:1/luminair/worker.js");
    assert.deepEqual(boot.manifest, MANIFEST);
    assert.equal(boot.cache, null, "the runtime cache is opt-in");
    assert.deepEqual(getSteps(), ["a", "b", "c"]);
  });

  it("matches replies by id, forwards progress, maps the Python result, copies and transfers bytes", async () => {
    useScript((w, msg) => {
      if (msg.type === "boot") return w.reply(READY);
      // answer out of order: the later request first, plus a reply for an unknown id
      w.reply({ id: 999, type: "result", result: { success: true } });
      w.reply({ id: msg.id, type: "progress", step: 1, of: 3, label: "a" });
      w.reply({ id: msg.id, type: "result", result: { success: msg.proof.byteLength === 3, error_message: null, security_bits: 96, security_label: "default preset", model_digest: "ab", outputs: { y: { shape: [1], values: [7] } }, verification_time_ms: 12.5, summary: { graph: { nodes: [], edges: [] } } } });
    });
    const proof = new Uint8Array([1, 2, 3]);
    const seen = [];
    const r = await verify(proof, new Uint8Array([4]), { onProgress: (p) => seen.push(p) });
    assert.deepEqual(seen, [{ step: 1, of: 3, label: "a" }]);
    assert.equal(r.success, true);
    assert.equal(r.securityBits, 96);
    assert.equal(r.securityLabel, "default preset");
    assert.equal(r.modelDigest, "ab");
    assert.equal(r.verificationTimeMs, 12.5);
    assert.deepEqual(r.outputs, { y: { shape: [1], values: [7] } });
    assert.equal(proof.byteLength, 3, "the caller's buffer is not detached");
    const sent = FakeWorker.all[0].sent[1];
    assert.equal(sent.transfer.length, 2);
    assert.ok(sent.transfer.includes(sent.msg.proof));
    await verify(proof, new Uint8Array([4]), { maxWork: 123456, minSecurityBits: 20 });
    const again = FakeWorker.all[0].sent[2].msg;
    assert.equal(again.maxWork, 123456, "maxWork reaches the worker");
    assert.equal(again.minSecurityBits, 20);
  });

  it("a rejected proof resolves (success false); a worker error rejects with its kind", async () => {
    useScript((w, msg) => {
      if (msg.type === "boot") return w.reply(READY);
      if (msg.proof.byteLength === 1) w.reply({ id: msg.id, type: "result", result: { success: false, error_message: "FRI: bad", check: "FRI" } });
      else w.reply({ id: msg.id, type: "error", kind: "internal", message: "boom" });
    });
    const r = await verify(new Uint8Array(1), new Uint8Array(1));
    assert.equal(r.success, false);
    assert.equal(r.check, "FRI");
    assert.equal(r.error_message, "FRI: bad");
    await assert.rejects(verify(new Uint8Array(2), new Uint8Array(1)), (e) => e.kind === "internal" && e.message === "boom");
  });

  it("timeoutMs terminates the worker, rejects with kind timeout, and the next call starts a new one", async () => {
    let answer = false;
    useScript((w, msg) => {
      if (msg.type === "boot") return w.reply(READY);
      if (answer) w.reply({ id: msg.id, type: "result", result: { success: true } });
      // else: a runaway verification that never answers
    });
    const starts = workerStarts();
    await assert.rejects(verify(new Uint8Array(1), new Uint8Array(1), { timeoutMs: 30 }), (e) => e.kind === "timeout" && /30 ms/.test(e.message));
    assert.equal(FakeWorker.all[0].terminated, true);
    answer = true;
    const r = await verify(new Uint8Array(1), new Uint8Array(1), { timeoutMs: 1000 });
    assert.equal(r.success, true);
    assert.equal(workerStarts(), starts + 2);
    assert.equal(FakeWorker.all.length, 2);
  });

  it("an idle worker is released releaseAfterMs after its last verdict (its memory back), never while a request is pending", async () => {
    assert.equal(DEFAULT_RELEASE_AFTER_MS, 60_000);
    let hold = null;
    useScript((w, msg) => {
      if (msg.type === "boot") return w.reply(READY);
      const answer = () => w.reply({ id: msg.id, type: "result", result: { success: true } });
      if (msg.proof.byteLength === 2) hold = answer; // a slow verification, answered later
      else answer();
    });
    configure({ releaseAfterMs: 40 });
    try {
      const starts = workerStarts();
      const slow = verify(new Uint8Array(2), new Uint8Array(1));
      assert.equal((await verify(new Uint8Array(1), new Uint8Array(1))).success, true);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(FakeWorker.all[0].terminated, false, "released while a verification was pending");
      hold();
      assert.equal((await slow).success, true);
      assert.notEqual(getInfo(), null);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(FakeWorker.all[0].terminated, true, "kept after its last verdict");
      assert.equal(getInfo(), null);
      // a call within the delay keeps it; the next call after a release starts a new worker
      assert.equal((await verify(new Uint8Array(1), new Uint8Array(1))).success, true);
      assert.equal(workerStarts(), starts + 2);
      await new Promise((r) => setTimeout(r, 20));
      await init();
      await new Promise((r) => setTimeout(r, 30));
      assert.equal(FakeWorker.all[1].terminated, false, "init() within the delay keeps the worker");
      configure({ releaseAfterMs: 0 });
      assert.equal((await verify(new Uint8Array(1), new Uint8Array(1))).success, true);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(FakeWorker.all[1].terminated, false, "releaseAfterMs 0 keeps the worker");
    } finally {
      configure({ releaseAfterMs: DEFAULT_RELEASE_AFTER_MS });
    }
  });

  it("an AbortSignal cancels and restarts the worker", async () => {
    useScript((w, msg) => msg.type === "boot" && w.reply(READY));
    const ac = new AbortController();
    const p = verify(new Uint8Array(1), new Uint8Array(1), { signal: ac.signal, timeoutMs: 5000 });
    await init();
    setTimeout(() => ac.abort(), 5);
    await assert.rejects(p, (e) => e.kind === "aborted");
    assert.equal(FakeWorker.all[0].terminated, true);
  });

  it("boot errors reject with load/hash kinds, and a worker that never boots times out as load", async () => {
    useScript((w, msg) => msg.type === "boot" && w.reply({ type: "boot-error", kind: "hash", message: "bad hash" }));
    await assert.rejects(init(), (e) => e.kind === "hash" && e.message === "bad hash");
    await assert.rejects(verify(new Uint8Array(1), new Uint8Array(1)), (e) => e.kind === "hash");
    useScript(() => {});
    configure({ startTimeoutMs: 30 });
    await assert.rejects(init(), (e) => e.kind === "load" && /did not start within 30 ms/.test(e.message));
  });

  it("a worker that fails to load (error event) rejects with kind load", async () => {
    useScript((w) => w.onerror?.({ message: "404", preventDefault() {} }));
    await assert.rejects(init(), (e) => e.kind === "load" && /configure\(\{ baseUrl \}\)/.test(e.message));
  });

  it("start-up progress in bytes reaches init({ onProgress }), and the ready info carries the floor", async () => {
    useScript((w, msg) => {
      if (msg.type !== "boot") return;
      w.reply({ type: "boot-progress", phase: "download", loaded: 10, total: 100 });
      w.reply({ type: "boot-progress", phase: "start", loaded: 100, total: 100 });
      w.reply({ ...READY, minSecurityBits: 96, cached: 2, warnings: ["w"] });
    });
    const seen = [];
    const info = await init({ onProgress: (p) => seen.push(`${p.phase}:${p.loaded}/${p.total}`) });
    assert.deepEqual(seen, ["download:0/0", "download:10/100", "start:100/100", "ready:100/100"]);
    assert.equal(info.minSecurityBits, 96);
    assert.equal(info.cachedFiles, 2);
    assert.equal(getInfo(), info);
  });

  it("timeoutMs covers the start-up: a start that never ends is stopped and the worker replaced", async () => {
    useScript(() => {}); // never boots
    const t0 = Date.now();
    await assert.rejects(verify(new Uint8Array(1), new Uint8Array(1), { timeoutMs: 40 }), (e) => e.kind === "timeout" && e.verdict === "unavailable" && /did not finish within 40 ms/.test(e.message));
    assert.ok(Date.now() - t0 < 1000);
    assert.equal(FakeWorker.all[0].terminated, true);
  });

  it("a missing runtime file stops the start at once and names its URL (hosting check)", async () => {
    useScript(() => {}, { fetch: server({ "pyodide/pyodide.asm.wasm": [404, "text/plain"] }) }); // the worker itself would hang
    const t0 = Date.now();
    await assert.rejects(init(), (e) => e.kind === "hosting" && e.url === "http://127.0.0.1:1/luminair/pyodide/pyodide.asm.wasm" && /is missing \(HTTP 404\)/.test(e.message));
    assert.ok(Date.now() - t0 < 500, `${Date.now() - t0} ms`);
    assert.equal(FakeWorker.all[0].terminated, true);
  });

  it("a module script with the wrong MIME type is fatal; a .wasm with the wrong type only warns", async () => {
    useScript(() => {}, { fetch: server({ "worker.js": [200, "application/octet-stream"] }) });
    await assert.rejects(init(), (e) => e.kind === "hosting" && /worker\.js is served as "application\/octet-stream"/.test(e.message));
    useScript((w, msg) => msg.type === "boot" && setTimeout(() => w.reply(READY), 20), { fetch: server({ "pyodide/pyodide.asm.wasm": [200, "application/octet-stream"] }) });
    const info = await init();
    assert.equal(info.warnings.length, 1);
    assert.match(info.warnings[0], /pyodide\.asm\.wasm is served as "application\/octet-stream" instead of application\/wasm/);
  });

  it("when the worker fails to start, a hosting problem found by the check is the reported cause", async () => {
    useScript((w) => w.reply({ type: "boot-error", kind: "load", message: "could not load the Pyodide runtime: Failed to fetch dynamically imported module" }), {
      fetch: server({ "pyodide/pyodide.asm.mjs": [200, "text/html"] }),
    });
    await assert.rejects(init(), (e) => e.kind === "hosting" && /pyodide\.asm\.mjs is served as "text\/html"/.test(e.message));
    useScript((w) => w.reply({ type: "boot-error", kind: "csp", message: "no wasm" }), { fetch: server() });
    await assert.rejects(init(), (e) => e.kind === "csp" && e.message === "no wasm" && e.verdict === "unavailable");
  });

  it("results carry a verdict: verified, development (below the default floor), rejected", () => {
    assert.equal(toJsResult({ success: true, security_bits: 96, default_min_security_bits: 96 }).verdict, "verified");
    const dev = toJsResult({ success: true, security_bits: 20, development: true, default_min_security_bits: 96 });
    assert.equal(dev.verdict, "development");
    assert.equal(dev.development, true);
    assert.equal(toJsResult({ success: true, security_bits: 40 }).verdict, "development", "older workers: judged from the bits");
    assert.equal(toJsResult({ success: false, check: "FRI" }).verdict, "rejected");
    assert.equal(toJsResult({ success: true }).training, null);
    const training = { step: 3, seed: 7, loss: 1.5, old_weights_digest: "aa", new_weights_digest: "bb" };
    assert.deepEqual(toJsResult({ success: true, training }).training, training);
    const labels = toJsResult({ success: true, security_bits: 100, model_title: "t", model_description: "d" });
    assert.equal(labels.modelTitle, "t");
    assert.equal(labels.modelDescription, "d");
  });

  it("results carry the symbol values a proof fixes (null for a concrete model)", () => {
    assert.deepEqual(toJsResult({ success: true, security_bits: 96, symbols: { batch: 7 } }).symbols, { batch: 7 });
    assert.equal(toJsResult({ success: true, security_bits: 96, symbols: null }).symbols, null);
    assert.equal(toJsResult({ success: false, check: "FRI" }).symbols, null, "older workers send no symbols");
  });

  it("rejects non-byte arguments with a TypeError", async () => {
    await assert.rejects(verify("proof", new Uint8Array(1)), TypeError);
  });
});
