// The main-thread side: one lazily started module Worker per page, id-tagged requests, timeouts
// that terminate the worker (a fresh one starts on the next call).
import { LuminairVerificationError } from "./errors.js";
import { MANIFEST } from "./manifest.js";

const DEFAULT_START_TIMEOUT_MS = 120_000;
const DEFAULT_TIMEOUT_MS = 60_000;

const state = {
  baseUrl: null, // null: the folder this module was loaded from
  workerFactory: null, // tests inject a fake; default: a module Worker from `${baseUrl}worker.js`
  startTimeoutMs: DEFAULT_START_TIMEOUT_MS,
  worker: null,
  ready: null, // Promise<info> for the current worker
  info: null,
  pending: new Map(), // id -> {resolve, reject, onProgress, timer, cleanup}
  nextId: 1,
  starts: 0,
};

/**
 * Where the hosted luminair folder (worker.js, the wheel, pyodide/) lives, when it is not the
 * folder this module was loaded from (for example when a bundler copied this module elsewhere).
 */
export function configure({ baseUrl, workerFactory, startTimeoutMs } = {}) {
  if (baseUrl !== undefined) state.baseUrl = baseUrl;
  if (workerFactory !== undefined) state.workerFactory = workerFactory;
  if (startTimeoutMs !== undefined) state.startTimeoutMs = startTimeoutMs;
}

/** The absolute URL of the hosted luminair folder, ending in "/". */
export function getBaseUrl() {
  if (state.baseUrl) {
    const href = new URL(state.baseUrl, globalThis.location?.href ?? import.meta.url).href;
    return href.endsWith("/") ? href : `${href}/`;
  }
  return new URL("./", import.meta.url).href;
}

/** The pinned verifier wheel: {file, sha256, version, pyodideVersion}. */
export function getManifest() {
  return { ...MANIFEST };
}

/** How many workers this page has started (a timeout replaces the worker). */
export function workerStarts() {
  return state.starts;
}

function settleAll(err) {
  for (const [id, p] of state.pending) {
    state.pending.delete(id);
    p.cleanup();
    p.reject(err);
  }
}

function dropWorker(err) {
  const w = state.worker;
  state.worker = null;
  state.ready = null;
  state.info = null;
  if (w) {
    try {
      w.terminate();
    } catch {
      /* already gone */
    }
  }
  settleAll(err);
}

function startWorker() {
  const baseUrl = getBaseUrl();
  const workerUrl = new URL("worker.js", baseUrl).href;
  let worker;
  try {
    worker = state.workerFactory
      ? state.workerFactory(workerUrl)
      : new Worker(workerUrl, { type: "module", name: "luminair-verifier" });
  } catch (e) {
    return Promise.reject(new LuminairVerificationError("load", `could not start the verifier worker ${workerUrl}: ${e?.message ?? e}`, { url: workerUrl }));
  }
  state.worker = worker;
  state.starts += 1;
  let readyResolve, readyReject;
  const ready = new Promise((resolve, reject) => {
    readyResolve = resolve;
    readyReject = reject;
  });
  let booted = false;
  const bootTimer = setTimeout(() => {
    if (booted || state.worker !== worker) return;
    const err = new LuminairVerificationError(
      "load",
      `the verifier did not start within ${Math.round(state.startTimeoutMs / 1000)} s. If the page sets a Content-Security-Policy, it must allow 'wasm-unsafe-eval' in script-src.`,
    );
    dropWorker(err);
    readyReject(err);
  }, state.startTimeoutMs);

  worker.onmessage = (event) => {
    if (state.worker !== worker) return;
    const msg = event.data ?? {};
    if (msg.type === "ready") {
      booted = true;
      clearTimeout(bootTimer);
      state.info = { pyodideVersion: msg.pyodideVersion, verifierVersion: msg.verifierVersion, steps: msg.steps, bootMs: msg.bootMs };
      readyResolve(state.info);
      return;
    }
    if (msg.type === "boot-error") {
      clearTimeout(bootTimer);
      const err = new LuminairVerificationError(msg.kind === "hash" ? "hash" : "load", msg.message);
      dropWorker(err);
      readyReject(err);
      return;
    }
    const p = state.pending.get(msg.id);
    if (!p) return; // unknown or already settled id
    if (msg.type === "progress") {
      try {
        p.onProgress?.({ step: msg.step, of: msg.of, label: msg.label });
      } catch (e) {
        console.error("luminair-web: onProgress threw", e);
      }
      return;
    }
    state.pending.delete(msg.id);
    p.cleanup();
    if (msg.type === "result") p.resolve(msg.result);
    else p.reject(new LuminairVerificationError(msg.kind ?? "internal", msg.message ?? "the verifier worker failed"));
  };
  worker.onerror = (event) => {
    if (state.worker !== worker) return;
    event?.preventDefault?.();
    clearTimeout(bootTimer);
    const detail = event?.message ? `: ${event.message}` : "";
    const err = new LuminairVerificationError(
      booted ? "internal" : "load",
      booted
        ? `the verifier worker crashed${detail}`
        : `could not start the verifier worker ${workerUrl}${detail}. Host the luminair folder and call configure({ baseUrl }) if it is not next to this module.`,
      { url: workerUrl },
    );
    dropWorker(err);
    if (!booted) readyReject(err);
  };
  worker.postMessage({ id: 0, type: "boot", baseUrl, wheel: { file: MANIFEST.file, sha256: MANIFEST.sha256 } });
  ready.catch(() => {}); // rejections are delivered to the callers of init()
  state.ready = ready;
  return ready;
}

/**
 * Start the worker (once), load Pyodide and the pinned verifier wheel. Resolves with
 * {pyodideVersion, verifierVersion, steps, bootMs}. Safe to call many times.
 */
export default function init(options = {}) {
  if (options.baseUrl !== undefined) configure({ baseUrl: options.baseUrl });
  return state.ready ?? startWorker();
}
export { init };

/** The verifier's step labels once the worker is ready (else null). */
export function getSteps() {
  return state.info?.steps ?? null;
}

/** Stop the worker now; pending requests reject with kind "terminated". The next call restarts it. */
export function terminate() {
  dropWorker(new LuminairVerificationError("terminated", "the verifier worker was terminated"));
}

function copyBytes(x, name) {
  if (x instanceof ArrayBuffer) return x.slice(0);
  if (ArrayBuffer.isView(x)) return x.buffer.slice(x.byteOffset, x.byteOffset + x.byteLength);
  throw new TypeError(`${name} must be a Uint8Array or an ArrayBuffer`);
}

async function request(message, transfer, { timeoutMs, onProgress, signal, what }) {
  if (signal?.aborted) throw new LuminairVerificationError("aborted", `${what} was cancelled`);
  await init();
  const worker = state.worker;
  if (!worker) throw new LuminairVerificationError("load", "the verifier worker stopped while starting");
  const id = state.nextId++;
  return new Promise((resolve, reject) => {
    let timer = null;
    const onAbort = () => {
      if (!state.pending.has(id)) return;
      dropWorker(new LuminairVerificationError("aborted", `${what} was cancelled; the verifier worker was restarted`));
    };
    const cleanup = () => {
      if (timer !== null) clearTimeout(timer);
      signal?.removeEventListener?.("abort", onAbort);
    };
    state.pending.set(id, { resolve, reject, onProgress, cleanup });
    if (timeoutMs !== Infinity && timeoutMs > 0) {
      timer = setTimeout(() => {
        if (!state.pending.has(id)) return;
        dropWorker(new LuminairVerificationError(
          "timeout",
          `${what} did not finish within ${formatMs(timeoutMs)} and was stopped (the verifier worker was restarted)`,
        ));
      }, timeoutMs);
    }
    signal?.addEventListener?.("abort", onAbort, { once: true });
    worker.postMessage({ id, ...message }, transfer);
  });
}

function formatMs(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 ? 1 : 0)} s` : `${ms} ms`;
}

/** Map the Python VerifyResult dict to the JS result shape (DESIGN.md section 2, plus extras). */
export function toJsResult(r) {
  return {
    success: Boolean(r.success),
    error_message: r.error_message ?? null,
    check: r.check ?? null,
    outputs: r.outputs ?? null,
    inputs: r.inputs ?? null,
    securityBits: r.security_bits ?? null,
    securityLabel: r.security_label ?? null,
    modelDigest: r.model_digest ?? null,
    statement: r.statement ?? null,
    verificationTimeMs: r.verification_time_ms ?? null,
    settingsSummary: r.summary ?? null,
  };
}

/**
 * Verify proof.bin against settings.bin in the worker. Resolves with the verdict (a rejected proof
 * resolves with success: false and error_message naming the failed check); rejects with a
 * LuminairVerificationError only when no verdict could be reached (timeout, abort, load failure).
 */
export async function verify(proofBytes, settingsBytes, options = {}) {
  const { timeoutMs = DEFAULT_TIMEOUT_MS, onProgress, signal, minSecurityBits } = options;
  const proof = copyBytes(proofBytes, "proofBytes");
  const settings = copyBytes(settingsBytes, "settingsBytes");
  const raw = await request(
    { type: "verify", proof, settings, minSecurityBits },
    [proof, settings],
    { timeoutMs, onProgress, signal, what: "the verification" },
  );
  return toJsResult(raw);
}

/**
 * Read a luminair file without verifying it (runs the Python codec in the worker):
 * {ok, header, summary} or {ok: false, error, check}.
 */
export async function inspect(bytes, options = {}) {
  const copy = copyBytes(bytes, "bytes");
  return request({ type: "inspect", bytes: copy }, [copy], { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal: options.signal, what: "reading the file" });
}

/**
 * Summary of settings.bin without verifying: {model_digest, kind, config, graph: {nodes, edges}, ...}.
 * Throws LuminairVerificationError (kind "format") when the bytes are not a readable settings file.
 */
export async function readSettingsSummary(settingsBytes, options = {}) {
  const r = await inspect(settingsBytes, options);
  if (!r.ok) throw new LuminairVerificationError(r.check === "unsupported version" ? "version" : "format", r.error, { check: r.check ?? undefined });
  if (r.header.kind !== "settings") throw new LuminairVerificationError("format", "this is a luminair proof file, not a settings file");
  return r.summary;
}
