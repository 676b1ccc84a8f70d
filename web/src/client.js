// The main-thread side: one lazily started module Worker per page, id-tagged requests, a hosting
// check that runs beside the start-up, timeouts over the whole path (a fresh worker starts on the
// next call), start-up progress in bytes, and the opt-in cache of the runtime files.
import { LuminairVerificationError } from "./errors.js";
import { diagnoseHosting, hostingError, runtimeFiles } from "./hosting.js";
import { MANIFEST } from "./manifest.js";

const DEFAULT_START_TIMEOUT_MS = 120_000;
/** Default `timeoutMs` of verify(): start-up (cold: downloads + compile) and verification together. */
export const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_FLOOR_BITS = 96;
/** An idle worker is stopped this long after its last verdict: its WebAssembly memory (about
 * 150 MB, which never shrinks) goes back to the browser; the next call starts a new one. */
export const DEFAULT_RELEASE_AFTER_MS = 60_000;

const state = {
  baseUrl: null, // null: the folder this module was loaded from
  workerFactory: null, // tests inject a fake; default: a module Worker from `${baseUrl}worker.js`
  startTimeoutMs: DEFAULT_START_TIMEOUT_MS,
  hostingCheck: true,
  fetch: null, // for the hosting check (tests)
  cache: false,
  releaseAfterMs: DEFAULT_RELEASE_AFTER_MS, // 0 or Infinity: keep the worker for the page's life
  releaseTimer: null,
  foundBase: null, // a bundled copy: the hosted folder found among bundledCandidates()
  worker: null,
  ready: null, // Promise<info> for the current worker
  info: null,
  booted: false,
  bootProgress: null, // the last {phase, loaded, total}
  bootListeners: new Set(),
  pending: new Map(), // id -> {resolve, reject, onProgress, cleanup}
  nextId: 1,
  starts: 0,
};

/**
 * Options for the whole page (the worker is shared):
 *  - baseUrl: where the hosted luminair folder (worker.js, the wheel, pyodide/) lives, when it is
 *    not the folder this module was loaded from (for example after bundling);
 *  - cache: true to keep the runtime files (WebAssembly, standard library, wheel: about 12 MB) in
 *    Cache Storage across visits, so that a repeat visit downloads nothing. Off by default;
 *  - hostingCheck: false to skip the parallel status/MIME check of the runtime files;
 *  - startTimeoutMs: an upper bound for the start-up alone (default 120 s);
 *  - releaseAfterMs: stop the worker once it has been idle this long after a verdict (default
 *    60 s), giving its memory back; 0 or Infinity keeps it;
 *  - workerFactory, fetch: test seams.
 */
export function configure({ baseUrl, workerFactory, startTimeoutMs, cache, hostingCheck, fetch, releaseAfterMs } = {}) {
  if (baseUrl !== undefined) {
    state.baseUrl = baseUrl;
    state.foundBase = null;
  }
  if (workerFactory !== undefined) state.workerFactory = workerFactory;
  if (startTimeoutMs !== undefined) state.startTimeoutMs = startTimeoutMs;
  if (cache !== undefined) state.cache = Boolean(cache);
  if (hostingCheck !== undefined) state.hostingCheck = Boolean(hostingCheck);
  if (fetch !== undefined) state.fetch = fetch;
  if (releaseAfterMs !== undefined) state.releaseAfterMs = Number(releaseAfterMs);
}

function cancelRelease() {
  clearTimeout(state.releaseTimer);
  state.releaseTimer = null;
}

/** After a verdict, with nothing else pending: stop this worker if it is still idle in releaseAfterMs. */
function scheduleRelease() {
  cancelRelease();
  const ms = state.releaseAfterMs;
  const worker = state.worker;
  if (!(ms > 0 && Number.isFinite(ms)) || !worker || state.pending.size) return;
  state.releaseTimer = setTimeout(() => {
    state.releaseTimer = null;
    if (state.worker === worker && !state.pending.size) dropWorker(new LuminairVerificationError("terminated", "the idle verifier worker was released"));
  }, ms);
  state.releaseTimer?.unref?.(); // Node: an idle timer does not keep the process alive
}

// This module's own URL. In the hosted folder it is ".../luminair/client.js"; inside a bundle
// (Vite, esbuild, webpack) it is the bundle's chunk, which is not next to the hosted files. Kept in
// a variable: bundlers rewrite the literal pattern new URL("...", import.meta.url) (Vite into a
// data: URL).
const HERE = import.meta.url;

/** Whether this module runs from the hosted folder (as client.js) rather than from a bundle. */
export function isHostedModule(url = HERE) {
  try {
    const u = new URL(url);
    return /^(https?|file):$/.test(u.protocol) && u.pathname.endsWith("/client.js");
  } catch {
    return false;
  }
}

function slash(href) {
  return href.endsWith("/") ? href : `${href}/`;
}

/**
 * Where a bundled copy looks for the hosted folder when configure({ baseUrl }) was not called:
 * `luminair/` next to the page (a site under a path prefix), then `/luminair/` at the root
 * (`npx luminair-web-assets public/luminair` in a Vite or Next.js app). Deduplicated.
 */
export function bundledCandidates(pageUrl = globalThis.document?.baseURI ?? globalThis.location?.href) {
  if (!pageUrl) return [];
  return [...new Set([new URL("luminair/", pageUrl).href, new URL("/luminair/", pageUrl).href])];
}

/** A configured or derived folder URL that cannot host the verifier (a bundler's data: or blob: URL). */
function unusableBase(href) {
  const protocol = href.slice(0, href.indexOf(":") + 1);
  if (protocol !== "data:" && protocol !== "blob:") return null;
  return new LuminairVerificationError(
    "load",
    `the luminair folder's URL is a ${protocol} URL (${href.slice(0, 40)}…): a bundler rewrote it. Call configure({ baseUrl: "/luminair/" }) with the URL where the folder from npx luminair-web-assets is hosted`,
  );
}

/** The absolute URL of the hosted luminair folder, ending in "/". */
export function getBaseUrl() {
  if (state.baseUrl) return slash(new URL(state.baseUrl, globalThis.location?.href ?? HERE).href);
  if (isHostedModule()) return new URL(".", HERE).href;
  return state.foundBase ?? bundledCandidates()[0] ?? new URL(".", HERE).href;
}

async function looksHosted(base) {
  try {
    const res = await (state.fetch ?? globalThis.fetch)(new URL("worker.js", base).href, { method: "HEAD", credentials: "same-origin" });
    return res.ok && /javascript|ecmascript/i.test(res.headers.get("content-type") ?? "");
  } catch {
    return false;
  }
}

/**
 * The folder to start from: the configured one, this module's own folder, or (bundled) the first
 * candidate that serves worker.js as JavaScript (one HEAD request when there are two to choose from).
 */
async function resolveBaseUrl() {
  if (state.baseUrl || isHostedModule() || state.foundBase) return getBaseUrl();
  const candidates = bundledCandidates();
  let found = candidates[0];
  if (candidates.length > 1 && !(await looksHosted(candidates[0]))) found = candidates[1];
  state.foundBase = found ?? null;
  return getBaseUrl();
}

/** The pinned verifier wheel and runtime: {file, sha256, version, pyodideVersion, stdlib, ...}. */
export function getManifest() {
  return { ...MANIFEST };
}

/** The Cache Storage name the opt-in cache uses for this build (older names are deleted). */
export function cacheName() {
  const parts = [MANIFEST.sha256, MANIFEST.stdlib?.sha256, MANIFEST.bytecode?.sha256, MANIFEST.glueSha256].map((h) => (h ?? "").slice(0, 8));
  return `luminair-runtime-${MANIFEST.pyodideVersion}-${parts.join("")}`;
}

/** Delete the opt-in cache of runtime files (all versions). Resolves with the number removed. */
export async function clearCache() {
  if (!globalThis.caches) return 0;
  let n = 0;
  for (const name of await caches.keys()) {
    if (name.startsWith("luminair-runtime-")) n += (await caches.delete(name)) ? 1 : 0;
  }
  return n;
}

/** How many workers this page has started (a timeout replaces the worker). */
export function workerStarts() {
  return state.starts;
}

/** The last start-up progress {phase: "download" | "start", loaded, total} (bytes), or null. */
export function getBootProgress() {
  return state.bootProgress;
}

/** Listen to start-up progress; returns a function that removes the listener. */
export function onBootProgress(listener) {
  state.bootListeners.add(listener);
  return () => state.bootListeners.delete(listener);
}

function emitBoot(p) {
  state.bootProgress = p;
  for (const fn of state.bootListeners) {
    try {
      fn(p);
    } catch (e) {
      console.error("luminair-web: a start-up progress listener threw", e);
    }
  }
}

function settleAll(err) {
  for (const [id, p] of state.pending) {
    state.pending.delete(id);
    p.cleanup();
    p.reject(err);
  }
}

function dropWorker(err) {
  cancelRelease();
  const w = state.worker;
  const reject = state.rejectReady;
  state.worker = null;
  state.ready = null;
  state.info = null;
  state.booted = false;
  state.rejectReady = null;
  state.bootProgress = null;
  if (w) {
    try {
      w.terminate();
    } catch {
      /* already gone */
    }
  }
  reject?.(err);
  settleAll(err);
}

async function cachedUrls(baseUrl) {
  const out = new Set();
  if (!state.cache || !globalThis.caches) return out;
  try {
    const cache = await caches.open(cacheName());
    for (const f of runtimeFiles(MANIFEST)) {
      const u = new URL(f.path, baseUrl).href;
      if (await cache.match(u)) out.add(u);
    }
  } catch {
    /* no storage: check everything */
  }
  return out;
}

function startWorker() {
  let readyResolve, readyReject;
  const ready = new Promise((resolve, reject) => {
    readyResolve = resolve;
    readyReject = reject;
  });
  ready.catch(() => {}); // rejections are delivered to the callers of init()
  state.ready = ready;
  state.rejectReady = readyReject;
  state.bootProgress = { phase: "download", loaded: 0, total: 0 };
  resolveBaseUrl().then((baseUrl) => {
    if (state.ready !== ready) return; // terminated meanwhile
    const bad = unusableBase(baseUrl);
    if (bad) dropWorker(bad);
    else launchWorker(baseUrl, ready, readyResolve, readyReject);
  });
  return ready;
}

function launchWorker(baseUrl, ready, readyResolve, readyReject) {
  const workerUrl = new URL("worker.js", baseUrl).href;
  // The hosting check runs beside the worker's start: it costs nothing when all is well and names
  // the file at fault within a round trip when it is not.
  const diag = state.hostingCheck
    ? cachedUrls(baseUrl).then((skip) => diagnoseHosting(baseUrl, MANIFEST, { fetch: state.fetch ?? undefined, skip })).catch(() => null)
    : Promise.resolve(null);
  let worker;
  try {
    worker = state.workerFactory
      ? state.workerFactory(workerUrl)
      : new Worker(workerUrl, { type: "module", name: "luminair-verifier" });
  } catch (e) {
    dropWorker(new LuminairVerificationError("load", `could not start the verifier worker ${workerUrl}: ${e?.message ?? e}`, { url: workerUrl }));
    return;
  }
  state.worker = worker;
  state.booted = false;
  state.starts += 1;
  const current = () => state.worker === worker;

  // A fatal hosting problem stops the start at once, with the file at fault named.
  diag.then((d) => {
    if (!d || !current() || state.booted) return;
    if (d.problems.length) dropWorker(explainHosting(d.problems[0]));
  });
  // When the worker fails first, a hosting problem (if the check finds one) is the better message.
  const explain = async (fallback) => {
    const d = await Promise.race([diag, new Promise((r) => setTimeout(() => r(null), 2000))]);
    return d?.problems?.length ? explainHosting(d.problems[0]) : fallback;
  };

  const bootTimer = setTimeout(async () => {
    if (!current() || state.booted) return;
    const err = await explain(new LuminairVerificationError(
      "load",
      `the verifier did not start within ${formatMs(state.startTimeoutMs)} (the runtime files answered normally)`,
    ));
    if (current() && !state.booted) dropWorker(err);
  }, state.startTimeoutMs);

  worker.onmessage = async (event) => {
    if (!current()) return;
    const msg = event.data ?? {};
    if (msg.type === "boot-progress") {
      emitBoot({ phase: msg.phase, loaded: msg.loaded, total: msg.total });
      return;
    }
    if (msg.type === "ready") {
      state.booted = true;
      clearTimeout(bootTimer);
      state.info = {
        pyodideVersion: msg.pyodideVersion,
        verifierVersion: msg.verifierVersion,
        steps: msg.steps,
        minSecurityBits: msg.minSecurityBits ?? DEFAULT_FLOOR_BITS,
        bootMs: msg.bootMs,
        phasesMs: msg.phasesMs ?? null,
        marksMs: msg.marksMs ?? null,
        cachedFiles: msg.cached ?? 0,
        snapshot: msg.snapshot ?? null,
        warnings: [...(msg.warnings ?? [])],
      };
      const info = state.info;
      diag.then((d) => {
        if (d?.warnings?.length) info.warnings = d.warnings.map((w) => w.message); // the more specific words
      });
      emitBoot({ phase: "ready", loaded: state.bootProgress?.total ?? 0, total: state.bootProgress?.total ?? 0 });
      readyResolve(state.info);
      return;
    }
    if (msg.type === "boot-error") {
      clearTimeout(bootTimer);
      const own = new LuminairVerificationError(msg.kind ?? "load", msg.message, { url: msg.url });
      // A CSP or hash verdict from the worker is already exact; anything else may be a hosting problem.
      const err = msg.kind === "csp" || msg.kind === "hash" ? own : await explain(own);
      if (current()) dropWorker(err);
      return;
    }
    const p = state.pending.get(msg.id);
    if (!p) return; // unknown or already settled id
    if (msg.type === "progress" || msg.type === "work") {
      try {
        if (msg.type === "progress") p.onProgress?.({ step: msg.step, of: msg.of, label: msg.label });
        else p.onWork?.(stepWeights(msg.parts));
      } catch (e) {
        console.error("luminair-web: onProgress threw", e);
      }
      return;
    }
    state.pending.delete(msg.id);
    p.cleanup();
    scheduleRelease();
    if (msg.type === "result") p.resolve(msg.result);
    else p.reject(new LuminairVerificationError(msg.kind ?? "internal", msg.message ?? "the verifier worker failed"));
  };
  worker.onerror = async (event) => {
    if (!current()) return;
    event?.preventDefault?.();
    clearTimeout(bootTimer);
    const booted = state.booted;
    const detail = event?.message ? `: ${event.message}` : "";
    const own = new LuminairVerificationError(
      booted ? "internal" : "load",
      booted
        ? `the verifier worker crashed${detail}`
        : `could not start the verifier worker ${workerUrl}${detail}. ${whereHint()}`,
      { url: workerUrl },
    );
    const err = booted ? own : await explain(own);
    if (current()) dropWorker(err);
  };
  worker.postMessage({
    id: 0,
    type: "boot",
    baseUrl,
    manifest: MANIFEST,
    cache: state.cache ? cacheName() : null,
  });
}

/** A hosting problem's error; a bundled copy that found nothing also says where it looked. */
function explainHosting(problem) {
  const err = hostingError(problem);
  if (!state.baseUrl && !isHostedModule() && problem.status === 404) err.message += `. ${whereHint()}`;
  return err;
}

/** Where the hosted folder was looked for, and how to say where it is. */
export function whereHint() {
  if (state.baseUrl) return "Host the folder from npx luminair-web-assets at the URL given to configure({ baseUrl }).";
  if (isHostedModule()) return "Host the whole luminair folder, unchanged.";
  return `luminair-web is bundled here, so it looks for the hosted folder at ${bundledCandidates().join(" and ")}: host it there (npx luminair-web-assets public/luminair) or call configure({ baseUrl }) with its URL.`;
}

function abortError(signal, what) {
  const r = signal?.reason;
  return r instanceof LuminairVerificationError ? r : new LuminairVerificationError("aborted", `${what} was cancelled`);
}

/**
 * Start the worker (once), load Pyodide and the pinned verifier wheel. Resolves with
 * {pyodideVersion, verifierVersion, steps, minSecurityBits, bootMs, cachedFiles, warnings}.
 * Safe to call many times. Options: baseUrl, cache (see configure), onProgress({phase, loaded,
 * total}) for start-up progress in bytes, signal (an AbortSignal; a timeout reason terminates a
 * start that is still running, so the next call starts afresh).
 */
export default function init(options = {}) {
  const { baseUrl, cache, onProgress, signal } = options;
  cancelRelease(); // in use again
  if (baseUrl !== undefined || cache !== undefined) configure({ baseUrl, cache });
  if (signal?.aborted) return Promise.reject(abortError(signal, "starting the verifier"));
  const ready = state.ready ?? startWorker();
  if (!onProgress && !signal) return ready;
  let off = null;
  if (onProgress) {
    if (state.bootProgress) onProgress(state.bootProgress);
    off = onBootProgress(onProgress);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      const err = abortError(signal, "starting the verifier");
      if (err.kind === "timeout" && state.ready === ready && !state.booted) dropWorker(err);
      reject(err);
    };
    signal?.addEventListener?.("abort", onAbort, { once: true });
    ready.then(resolve, reject).finally(() => {
      off?.();
      signal?.removeEventListener?.("abort", onAbort);
    });
  });
}
export { init };

/** The verifier's step labels once the worker is ready (else null). */
export function getSteps() {
  return state.info?.steps ?? null;
}

/** What the ready worker reported (versions, bootMs, cachedFiles, hosting warnings), or null. */
export function getInfo() {
  return state.info;
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

function formatMs(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 ? 1 : 0)} s` : `${ms} ms`;
}

/**
 * An AbortSignal that fires when `parent` fires or after `timeoutMs` (with a "timeout"
 * LuminairVerificationError as its reason). Returns {signal, done} (call done() when finished).
 */
export function deadlineSignal(timeoutMs, parent, what = "the verification") {
  const ac = new AbortController();
  let timer = null;
  const onParent = () => ac.abort(parent.reason instanceof LuminairVerificationError ? parent.reason : new LuminairVerificationError("aborted", `${what} was cancelled`));
  if (parent?.aborted) onParent();
  else parent?.addEventListener?.("abort", onParent, { once: true });
  if (timeoutMs !== Infinity && timeoutMs > 0 && !ac.signal.aborted) {
    timer = setTimeout(() => ac.abort(new LuminairVerificationError(
      "timeout",
      `${what} did not finish within ${formatMs(timeoutMs)} and was stopped (downloads, start-up and verification count together; a running verifier is restarted)`,
    )), timeoutMs);
  }
  return {
    signal: ac.signal,
    done() {
      if (timer !== null) clearTimeout(timer);
      parent?.removeEventListener?.("abort", onParent);
    },
  };
}

async function request(message, transfer, { signal, onProgress, onWork, onBootProgress, what }) {
  if (signal?.aborted) throw abortError(signal, what);
  await init({ signal, onProgress: onBootProgress });
  const worker = state.worker;
  if (!worker) throw new LuminairVerificationError("load", "the verifier worker stopped while starting");
  if (signal?.aborted) throw abortError(signal, what);
  const id = state.nextId++;
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      if (!state.pending.has(id)) return;
      // Python cannot be interrupted without cross-origin isolation: stop the worker.
      dropWorker(abortError(signal, what));
    };
    const cleanup = () => signal?.removeEventListener?.("abort", onAbort);
    state.pending.set(id, { resolve, reject, onProgress, onWork, cleanup });
    signal?.addEventListener?.("abort", onAbort, { once: true });
    worker.postMessage({ id, ...message }, transfer);
  });
}

const STEP_COUNT = 6;
// Which of the verifier's 6 steps does each part of its work estimate (verifier/budget.py): the
// statement is built in step 1, the LogUp terms summed in 3, the constraints (topology, tables)
// evaluated in 4, the openings checked in 6. Steps 2 and 5 cost little.
const PART_STEP = {
  "public values": 1, nodes: 1, "output maps": 1,
  "LogUp public terms": 3, "matrix product weights": 3,
  topology: 4, tables: 4,
  openings: 6,
};

/**
 * The share of the verification each step takes, from the verifier's work estimate by part
 * ({openings: 9307, ...}): {weights: [6 fractions summing to 1], units}. Every step keeps at
 * least 2 %; an unknown part counts for step 1.
 */
export function stepWeights(parts) {
  const units = new Array(STEP_COUNT).fill(0);
  let total = 0;
  for (const [part, v] of Object.entries(parts ?? {})) {
    const n = Number(v);
    if (!(n > 0)) continue;
    units[(PART_STEP[part] ?? 1) - 1] += n;
    total += n;
  }
  if (total <= 0) return { weights: units.map(() => 1 / STEP_COUNT), units: 0 };
  const floor = 0.02;
  const raw = units.map((u) => floor + (1 - floor * STEP_COUNT) * (u / total));
  return { weights: raw, units: total };
}

/** Map the Python VerifyResult dict to the JS result shape (web/README.md documents it). */
export function toJsResult(r) {
  const success = Boolean(r.success);
  const floor = r.default_min_security_bits ?? DEFAULT_FLOOR_BITS;
  const bits = r.security_bits ?? null;
  const development = success && (r.development === true || (bits !== null && bits < floor));
  // "not checked": over the verifier's work budget or size caps. Nothing was checked, so the
  // verdict is "unavailable", never "rejected"; workNeeded is the maxWork that admits the files.
  const kind = r.kind ?? (success ? "verified" : "rejected");
  return {
    success,
    verdict: success ? (development ? "development" : "verified") : kind === "not checked" ? "unavailable" : "rejected",
    kind,
    workNeeded: r.work_needed ?? null,
    development,
    error_message: r.error_message ?? null,
    check: r.check ?? null,
    outputs: r.outputs ?? null,
    inputs: r.inputs ?? null,
    // The symbolic dimensions' values this proof fixes ({batch: 7}); null for a concrete model.
    symbols: r.symbols ?? null,
    securityBits: bits,
    securityLabel: r.security_label ?? null,
    defaultMinSecurityBits: floor,
    modelDigest: r.model_digest ?? null,
    modelTitle: r.model_title ?? null,
    modelDescription: r.model_description ?? null,
    statement: r.statement ?? null,
    verificationTimeMs: r.verification_time_ms ?? null,
    settingsSummary: r.summary ?? null,
    training: r.training ?? null,
    // Who sees each kind of tensor: {weights: "public" | "committed", inputs: {name: "public" |
    // "private"}, outputs: "public"} (when success; null from a verifier older than format 13).
    visibility: r.visibility ?? null,
    // The model tree's root (hex) of committed weights, which `luminair audit` recomputes from the
    // weights; null for public weights (they are in settings.bin, under the model digest).
    modelRoot: r.model_root ?? null,
  };
}

/**
 * Verify proof.bin against settings.bin in the worker. Resolves with the verdict (a rejected proof
 * resolves with success: false, verdict "rejected" and error_message naming the failed check;
 * a proof below the default security floor, accepted because minSecurityBits was lowered, has
 * verdict "development"); rejects with a LuminairVerificationError (verdict "unavailable") only
 * when no verdict could be reached. `timeoutMs` covers the start-up and the verification.
 */
export async function verify(proofBytes, settingsBytes, options = {}) {
  const { timeoutMs = DEFAULT_TIMEOUT_MS, onProgress, onWork, onBootProgress, signal, minSecurityBits, maxWork } = options;
  const proof = copyBytes(proofBytes, "proofBytes");
  const settings = copyBytes(settingsBytes, "settingsBytes");
  const deadline = deadlineSignal(timeoutMs, signal, "the verification");
  try {
    const raw = await request(
      { type: "verify", proof, settings, minSecurityBits, maxWork },
      [proof, settings],
      { signal: deadline.signal, onProgress, onWork, onBootProgress, what: "the verification" },
    );
    return toJsResult(raw);
  } finally {
    deadline.done();
  }
}

/**
 * Read a luminair file without verifying it (runs the Python codec in the worker):
 * {ok, header, summary} or {ok: false, error, check}.
 */
export async function inspect(bytes, options = {}) {
  const copy = copyBytes(bytes, "bytes");
  const deadline = deadlineSignal(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.signal, "reading the file");
  try {
    return await request({ type: "inspect", bytes: copy }, [copy], { signal: deadline.signal, what: "reading the file" });
  } finally {
    deadline.done();
  }
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
