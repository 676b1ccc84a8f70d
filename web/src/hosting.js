// Hosting diagnostics: before (and while) the verifier starts, ask the server for every file of the
// runtime and check its HTTP status and MIME type, so that a wrongly hosted folder is reported in a
// second or two with the URL at fault, instead of a start-up that never finishes.
import { LuminairVerificationError } from "./errors.js";

const JS_TYPE = /^(text|application)\/(x-)?(javascript|ecmascript)\b/i;
const HTML_TYPE = /^text\/html\b/i;

/**
 * The files the verifier runtime loads, relative to the hosted folder, with what they must be:
 * `js` (a module script: must be served as JavaScript), `wasm` (should be application/wasm),
 * `data` (any type, but not an HTML page).
 */
export function runtimeFiles(manifest) {
  return [
    { path: "worker.js", type: "js" },
    { path: "pyglue.js", type: "js" },
    { path: "pyodide/pyodide.mjs", type: "js" },
    { path: "pyodide/pyodide.asm.mjs", type: "js" },
    { path: "pyodide/pyodide.asm.wasm", type: "wasm" },
    ...(manifest?.stdlib ? [{ path: manifest.stdlib.file, type: "data" }] : []),
    ...(manifest?.bytecode ? [{ path: manifest.bytecode.file, type: "data" }] : []),
    ...(manifest?.file ? [{ path: manifest.file, type: "data" }] : []),
  ];
}

function mime(res) {
  return (res.headers?.get?.("content-type") ?? "").split(";")[0].trim().toLowerCase();
}

/**
 * Judge one response to a file of the runtime. Returns null when it is fine, else
 * {fatal, kind, message, url, status, contentType}. A .wasm file with another MIME type is not
 * fatal (the worker relabels it so streaming compilation still works) but is reported.
 */
export function judgeResponse(url, type, res) {
  const status = res.status;
  const contentType = mime(res);
  if (status === 404 || status === 410) {
    return { fatal: true, kind: "hosting", url, status, contentType, message: `${url} is missing (HTTP ${status}): host the whole luminair folder, unchanged` };
  }
  if (status === 405 || status === 501) return null; // the server does not answer HEAD: no verdict
  if (!(status >= 200 && status < 300)) {
    return { fatal: true, kind: "hosting", url, status, contentType, message: `${url}: the server answered HTTP ${status}` };
  }
  if (HTML_TYPE.test(contentType) && type !== "js") {
    return { fatal: true, kind: "hosting", url, status, contentType, message: `${url} returned an HTML page (text/html) instead of the file: the file is probably missing behind a catch-all route` };
  }
  if (type === "js" && !JS_TYPE.test(contentType)) {
    return {
      fatal: true, kind: "hosting", url, status, contentType,
      message: `${url} is served as "${contentType || "no type"}", but browsers only run JavaScript modules served as text/javascript: map .js and .mjs to text/javascript on the server`,
    };
  }
  if (type === "wasm" && contentType !== "application/wasm") {
    return {
      fatal: false, kind: "hosting", url, status, contentType,
      message: `${url} is served as "${contentType || "no type"}" instead of application/wasm: the verifier compiles a relabelled copy; map .wasm to application/wasm for the fastest start`,
    };
  }
  return null;
}

async function probe(url, type, fetchImpl) {
  let res;
  try {
    res = await fetchImpl(url, { method: "HEAD", credentials: "same-origin" });
    if (res.status === 405 || res.status === 501) {
      const ac = new AbortController();
      res = await fetchImpl(url, { credentials: "same-origin", signal: ac.signal });
      ac.abort(); // the headers are enough
    }
  } catch (e) {
    return {
      fatal: true, kind: "hosting", url, status: 0, contentType: "",
      message: `${url} could not be fetched (${e?.message ?? e}): the request was blocked or failed (offline, an extension, a Content-Security-Policy connect-src, or a cross-origin host without CORS)`,
    };
  }
  return judgeResponse(url, type, res);
}

/**
 * Check every runtime file under `baseUrl` in parallel. Resolves with {problems, warnings, ms}:
 * `problems` are fatal (the verifier cannot start), `warnings` are not. URLs in `skip` (for
 * example files already in the opt-in cache) are not requested.
 */
export async function diagnoseHosting(baseUrl, manifest, { fetch: fetchImpl = globalThis.fetch?.bind(globalThis), skip = new Set() } = {}) {
  const t0 = Date.now();
  const files = runtimeFiles(manifest).map((f) => ({ ...f, url: new URL(f.path, baseUrl).href })).filter((f) => !skip.has(f.url));
  const results = await Promise.all(files.map((f) => probe(f.url, f.type, fetchImpl)));
  const found = results.filter(Boolean);
  return { problems: found.filter((p) => p.fatal), warnings: found.filter((p) => !p.fatal), ms: Date.now() - t0 };
}

/** The error for a fatal hosting problem. */
export function hostingError(problem) {
  return new LuminairVerificationError(problem.kind, problem.message, { url: problem.url, status: problem.status, contentType: problem.contentType });
}
