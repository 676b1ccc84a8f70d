// luminair-web module Worker: loads Pyodide and the pinned verifier wheel once, then answers
// id-tagged requests. Started by client.js as `new Worker(url, { type: "module" })`.
//
// main -> worker  {id, type: "boot", baseUrl, wheel: {file, sha256}}
//                 {id, type: "verify", proof, settings, minSecurityBits}
//                 {id, type: "inspect", bytes}
// worker -> main  {type: "ready", pyodideVersion, verifierVersion, steps, bootMs}
//                 {type: "boot-error", kind, message}
//                 {id, type: "progress", step, of, label}      (zero or more per verify)
//                 {id, type: "result", result}                 (a rejected proof is a result)
//                 {id, type: "error", kind, message}           (kind: load | hash | internal)
import { installGlue, installWheel, sha256Hex } from "./pyglue.js";

let booting = null;

async function fetchWheel(baseUrl, wheel) {
  const wheelUrl = new URL(wheel.file, baseUrl).href;
  let res;
  try {
    res = await fetch(wheelUrl);
  } catch (e) {
    throw Object.assign(new Error(`could not download the verifier wheel ${wheelUrl}: ${e?.message ?? e}`), { kind: "load" });
  }
  if (!res.ok) {
    throw Object.assign(new Error(`could not download the verifier wheel ${wheelUrl}: HTTP ${res.status}`), { kind: "load" });
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  // Fail fast, before Pyodide has even started, when WebCrypto can check the pin here.
  const actual = await sha256Hex(bytes);
  if (actual !== null && actual !== wheel.sha256) {
    throw Object.assign(new Error(`the verifier wheel ${wheelUrl} has SHA-256 ${actual}, expected ${wheel.sha256}: refusing to load it`), { kind: "hash" });
  }
  return bytes;
}

async function startPyodide(baseUrl) {
  const pyodideUrl = new URL("pyodide/pyodide.mjs", baseUrl).href;
  let loadPyodide;
  try {
    ({ loadPyodide } = await import(pyodideUrl));
  } catch (e) {
    throw Object.assign(new Error(`could not load the Pyodide runtime from ${pyodideUrl}: ${e?.message ?? e}`), { kind: "load" });
  }
  try {
    return await loadPyodide({ indexURL: new URL("pyodide/", baseUrl).href });
  } catch (e) {
    throw Object.assign(new Error(`Pyodide failed to start: ${e?.message ?? e}`), { kind: "load" });
  }
}

async function boot(baseUrl, wheel) {
  const t0 = performance.now();
  const pyodide = startPyodide(baseUrl); // in parallel with the wheel download
  pyodide.catch(() => {});
  const wheelBytes = await fetchWheel(baseUrl, wheel);
  const py = await pyodide;
  await installWheel(py, wheelBytes, wheel.sha256); // checks the pin again (hashlib where WebCrypto is missing)
  let glue;
  try {
    glue = installGlue(py);
  } catch (e) {
    throw Object.assign(new Error(`the verifier failed to import: ${e?.message ?? e}`), { kind: "load" });
  }
  self.postMessage({
    type: "ready",
    pyodideVersion: py.version,
    verifierVersion: glue.info.verifier,
    steps: glue.info.steps,
    bootMs: performance.now() - t0,
  });
  return glue;
}

function toBytes(x) {
  if (x instanceof Uint8Array) return x;
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  throw new TypeError("expected bytes (Uint8Array or ArrayBuffer)");
}

self.onmessage = async (event) => {
  const msg = event.data ?? {};
  if (msg.type === "boot") {
    if (!booting) {
      booting = boot(msg.baseUrl, msg.wheel);
      booting.catch((e) => self.postMessage({ type: "boot-error", kind: e?.kind ?? "load", message: e?.message ?? String(e) }));
    }
    return;
  }
  const { id } = msg;
  if (!booting) {
    self.postMessage({ id, type: "error", kind: "internal", message: "the worker received a request before boot" });
    return;
  }
  let glue;
  try {
    glue = await booting;
  } catch (e) {
    self.postMessage({ id, type: "error", kind: e?.kind ?? "load", message: e?.message ?? String(e) });
    return;
  }
  try {
    if (msg.type === "verify") {
      const onProgress = (step, of, label) => self.postMessage({ id, type: "progress", step, of, label });
      const result = glue.verify(toBytes(msg.proof), toBytes(msg.settings), {
        onProgress,
        minSecurityBits: msg.minSecurityBits,
      });
      self.postMessage({ id, type: "result", result });
    } else if (msg.type === "inspect") {
      self.postMessage({ id, type: "result", result: glue.inspect(toBytes(msg.bytes)) });
    } else {
      self.postMessage({ id, type: "error", kind: "internal", message: `unknown request type ${msg.type}` });
    }
  } catch (e) {
    self.postMessage({ id, type: "error", kind: "internal", message: e?.message ?? String(e) });
  }
};
