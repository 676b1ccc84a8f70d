// luminair-web module Worker: loads Pyodide and the pinned verifier wheel once, then answers
// id-tagged requests. Started by client.js as `new Worker(url, { type: "module" })`.
//
// main -> worker  {id, type: "boot", baseUrl, manifest, cache}
//                 {id, type: "verify", proof, settings, minSecurityBits, maxWork}
//                 {id, type: "inspect", bytes}
// worker -> main  {type: "boot-progress", phase, loaded, total}     (throttled; phase: download | start)
//                 {type: "ready", pyodideVersion, verifierVersion, steps, minSecurityBits, bootMs, cached, warnings}
//                 {type: "boot-error", kind, message, url}
//                 {id, type: "progress", step, of, label}      (zero or more per verify)
//                 {id, type: "work", parts}                    (the verifier's work estimate by part, once)
//                 {id, type: "result", result}                 (a rejected proof is a result)
//                 {id, type: "error", kind, message}           (kind: load | hash | internal)
//
// Start-up, in order: (1) a probe compile of an empty WebAssembly module, which fails at once under
// a Content-Security-Policy without 'wasm-unsafe-eval' (Pyodide itself would then wait forever);
// (2) the runtime files are fetched through a wrapper of `fetch` that counts bytes (download
// progress), relabels a .wasm served with the wrong MIME type (so streaming compilation works),
// serves and fills the opt-in Cache Storage, and fails the start at once on an HTTP error or a
// blocked request; (3) loadPyodide with the verifier's own bytecode standard library (pinned by
// SHA-256) and an inline lock file; (4) the pinned wheel and the verifier's bytecode (pinned);
// (5) the glue imports every verifier module.
// The glue is imported, not a static import: the downloads below start as soon as this file has
// run, one round trip earlier than after fetching the module graph (pyglue.js arrives meanwhile).
const glueModule = import("./pyglue.js");
glueModule.catch(() => {}); // reported by boot()

let booting = null;

// The smallest valid module: "\0asm", version 1.
const EMPTY_WASM = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);

function fail(kind, message, url) {
  return Object.assign(new Error(message), { kind, url });
}

async function probeWasm() {
  try {
    await WebAssembly.compile(EMPTY_WASM);
  } catch (e) {
    throw fail(
      "csp",
      `this page's Content-Security-Policy does not allow WebAssembly, so the verifier cannot run: add 'wasm-unsafe-eval' to script-src (for the worker, in the policy sent with worker.js). The browser said: ${e?.message ?? e}`,
    );
  }
}

function makeProgress(total, startAt = total) {
  let loaded = 0;
  let phase = "download";
  let last = 0;
  let timer = null;
  const send = () => {
    timer = null;
    last = Date.now();
    self.postMessage({ type: "boot-progress", phase, loaded: Math.min(loaded, total), total });
  };
  const schedule = (now) => {
    if (now || Date.now() - last >= 100) {
      if (timer) clearTimeout(timer);
      send();
    } else if (!timer) {
      timer = setTimeout(send, 100 - (Date.now() - last));
    }
  };
  return {
    add(n) {
      loaded += n;
      if (loaded >= startAt && phase === "download") phase = "start"; // downloads done: Python starts
      schedule(false);
    },
    phase(p) {
      phase = p;
      schedule(true);
    },
    get loaded() {
      return loaded;
    },
  };
}

/** Read a response body to the end, counting bytes (the caller keeps the original response). */
async function count(res, progress) {
  if (!res.body) return;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    progress.add(value.byteLength);
  }
}

async function boot(msg) {
  const t0 = performance.now();
  const { baseUrl, manifest } = msg;
  const url = (p) => new URL(p, baseUrl).href;
  const glueLoaded = glueModule.catch((e) => {
    throw fail("load", `could not load ${url("pyglue.js")}: ${e?.message ?? e}`, url("pyglue.js"));
  });
  glueLoaded.catch(() => {});
  const wasmUrl = url("pyodide/pyodide.asm.wasm");
  const stdlibUrl = url(manifest.stdlib.file);
  const wheelUrl = url(manifest.file);
  const bytecodeUrl = manifest.bytecode ? url(manifest.bytecode.file) : null;
  const sizes = manifest.runtime ?? {};
  const total = (sizes["pyodide.mjs"] ?? 0) + (sizes["pyodide.asm.mjs"] ?? 0) + (sizes["pyodide.asm.wasm"] ?? 0) + manifest.stdlib.size + (manifest.size ?? 0) + (manifest.bytecode?.size ?? 0);
  const progress = makeProgress(total, total - (sizes["pyodide.asm.mjs"] ?? 0));
  const marks = {}; // ms since the start, for the bench and Details
  progress.phase("download");

  await probeWasm();

  let cache = null;
  if (msg.cache && globalThis.caches) {
    try {
      cache = await caches.open(msg.cache);
      // Older versions of the runtime (another cache name) are dropped once this one is in use.
      for (const name of await caches.keys()) if (name.startsWith("luminair-runtime-") && name !== msg.cache) caches.delete(name);
    } catch {
      cache = null; // storage disabled (private mode, quota): run without it
    }
  }
  const toCache = []; // [url, response] stored once the verifier has started (never a broken file)
  const fromCache = [];
  const warnings = [];
  let failStart;
  const failed = new Promise((_, reject) => {
    failStart = reject;
  });
  failed.catch(() => {});

  const nativeFetch = self.fetch.bind(self);
  const wanted = new Set([wasmUrl, stdlibUrl, wheelUrl, bytecodeUrl].filter(Boolean));
  async function runtimeFetch(input, init) {
    const target = typeof input === "string" ? input : input instanceof URL ? input.href : input?.url;
    if (!wanted.has(target)) return nativeFetch(input, init);
    if (cache) {
      const hit = await cache.match(target).catch(() => undefined);
      if (hit) {
        fromCache.push(target);
        if (target === wasmUrl) marks.wasmRequested = marks.wasmDownloaded = performance.now() - t0;
        progress.add(Number(hit.headers.get("x-luminair-size")) || 0);
        return hit;
      }
    }
    let res;
    try {
      res = await nativeFetch(target, { credentials: "same-origin" });
    } catch (e) {
      const err = fail("hosting", `${target} could not be fetched (${e?.message ?? e}): the request was blocked or failed`, target);
      failStart(err);
      throw err;
    }
    if (!res.ok) {
      const err = fail("hosting", `${target} ${res.status === 404 ? "is missing" : "could not be downloaded"} (HTTP ${res.status})`, target);
      failStart(err);
      throw err;
    }
    const type = (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (target === wasmUrl && type !== "application/wasm") {
      // WebAssembly.instantiateStreaming refuses any other type, and Pyodide then never starts:
      // hand it the same bytes under the right type (the server should be fixed; see the warning).
      warnings.push(`${target} is served as "${type || "no type"}" instead of application/wasm`);
      const headers = new Headers(res.headers);
      headers.set("content-type", "application/wasm");
      res = new Response(res.body, { status: res.status, statusText: res.statusText, headers });
    }
    const counted = count(res.clone(), progress);
    counted.catch(() => {});
    if (target === wasmUrl) {
      marks.wasmRequested = performance.now() - t0;
      counted.then(() => (marks.wasmDownloaded = performance.now() - t0));
    }
    if (cache) toCache.push([target, res.clone()]);
    return res;
  }
  // The WebAssembly is the largest file and Pyodide asks for it only once pyodide.asm.mjs has
  // loaded: request it now (first, so it leads the downloads) and hand Pyodide this response.
  const early = new Map([[wasmUrl, runtimeFetch(wasmUrl)]]);
  early.get(wasmUrl).catch(() => {});
  self.fetch = (input, init) => {
    const target = typeof input === "string" ? input : input instanceof URL ? input.href : input?.url;
    const hit = early.get(target);
    if (!hit) return runtimeFetch(input, init);
    early.delete(target);
    return hit;
  };

  // The bytecode standard library and the wheel: fetched here, checked against their pins, and
  // handed to Pyodide from memory.
  const pinned = async (u, sha256, what) => {
    const res = await runtimeFetch(u);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const actual = await (await glueLoaded).sha256HexAny(bytes);
    if (actual !== sha256) {
      if (cache) cache.delete(u).catch(() => {});
      throw fail("hash", `the verifier's ${what} ${u} has SHA-256 ${actual}, expected ${sha256}: refusing to load it`, u);
    }
    return bytes;
  };
  const stdlib = pinned(stdlibUrl, manifest.stdlib.sha256, "standard library");
  const wheel = pinned(wheelUrl, manifest.sha256, "wheel");
  const bytecode = bytecodeUrl ? pinned(bytecodeUrl, manifest.bytecode.sha256, "bytecode") : Promise.resolve(null);
  stdlib.catch(() => {});
  wheel.catch(() => {});
  bytecode.catch(() => {});

  // With the opt-in cache, a repeat visit restores Python from a memory snapshot taken (in this
  // browser) on the first visit, after the verifier was imported: no Python start, no imports.
  const snapshotKey = url("pyodide/luminair-memory-snapshot.bin"); // a cache key, never fetched
  let snapshot = null;
  if (cache) {
    const hit = await cache.match(snapshotKey).catch(() => undefined);
    if (hit) snapshot = new Uint8Array(await hit.arrayBuffer());
  }
  const pyodideUrl = url("pyodide/pyodide.mjs");
  // pyodide.asm.mjs (the Emscripten glue, a module with no side effects) is imported by Pyodide
  // only once pyodide.mjs has loaded: import it now, beside pyodide.mjs, so that it downloads and
  // parses while the large files download (Pyodide's own import of the same URL reuses it).
  const asmUrl = url("pyodide/pyodide.asm.mjs");
  const asmModule = import(asmUrl);
  asmModule.catch(() => {}); // Pyodide's own import reports a failure
  const start = async (restore) => {
    let loadPyodide;
    try {
      ({ loadPyodide } = await import(pyodideUrl));
    } catch (e) {
      throw fail("load", `could not load the Pyodide runtime from ${pyodideUrl}: ${e?.message ?? e}`, pyodideUrl);
    }
    progress.add(sizes["pyodide.mjs"] ?? 0);
    marks.loaderImported = performance.now() - t0;
    // Pyodide starts now (the WebAssembly compiles while it downloads); it asks for the standard
    // library when it needs it and gets the pinned bytes once they have arrived and been checked.
    const stdlibFetch = self.fetch;
    self.fetch = (input, init) => {
      const target = typeof input === "string" ? input : input instanceof URL ? input.href : input?.url;
      return target === stdlibUrl ? stdlib.then((b) => new Response(b)) : stdlibFetch(input, init);
    };
    const loading = loadPyodide({
      indexURL: url("pyodide/"),
      stdLibURL: stdlibUrl,
      // Nothing is loaded by package name: an inline lock file saves fetching pyodide-lock.json.
      lockFileContents: { info: manifest.lockInfo ?? {}, packages: {} },
      ...(restore ? { _loadSnapshot: restore } : cache ? { _makeSnapshot: true } : {}),
    });
    loading.catch(() => {});
    await stdlib; // a standard library that fails its pin is reported as that, not as Pyodide's failure
    try {
      return await loading;
    } catch (e) {
      throw fail("load", `Pyodide failed to start: ${e?.message ?? e}`);
    }
  };

  let py = null;
  let glue = null;
  let restored = false;
  let tPython;
  let tWheel;
  const { PY_GLUE, installGlue, installWheel } = await Promise.race([glueLoaded, failed]);
  if (snapshot) {
    try {
      py = await Promise.race([start(snapshot), failed]);
      glue = installGlue(py, { run: false }); // the glue ran before the snapshot was taken
      restored = true;
    } catch (e) {
      if (e?.kind === "hosting" || e?.kind === "hash") throw e;
      cache.delete(snapshotKey).catch(() => {}); // a stale or broken snapshot: start normally
      py = null;
    }
  }
  if (!restored) {
    const started = start(null);
    started.catch(() => {});
    py = await Promise.race([started, failed]);
  }
  tPython = performance.now();
  progress.add(sizes["pyodide.asm.mjs"] ?? 0); // imported by Pyodide itself, not through our fetch
  progress.phase("start");
  let snapshotBytes = null;
  if (!restored) {
    await installWheel(py, await Promise.race([wheel, failed]), manifest.sha256);
    // The verifier's modules compiled at build time from these very sources (pinned together): the
    // imports below then compile nothing.
    const pyc = await Promise.race([bytecode, failed]);
    if (pyc) py.unpackArchive(pyc, "zip");
    tWheel = performance.now();
    try {
      py.runPython(PY_GLUE); // imports every verifier module
      if (cache) {
        try {
          snapshotBytes = py.makeMemorySnapshot();
        } catch {
          snapshotBytes = null; // not fatal: the next visit starts normally
        }
      }
      glue = installGlue(py, { run: false });
    } catch (e) {
      throw fail("load", `the verifier failed to import: ${e?.message ?? e}`);
    }
  } else {
    tWheel = performance.now();
  }
  const tGlue = performance.now();
  self.fetch = nativeFetch;
  if (snapshotBytes) toCache.push([snapshotKey, new Response(snapshotBytes, { headers: { "content-type": "application/octet-stream" } })]);
  if (cache) {
    for (const [u, res] of toCache) {
      const headers = new Headers(res.headers);
      const body = await res.arrayBuffer();
      // the decoded size (progress counts decoded bytes): a compressed response's content-length is smaller
      headers.set("x-luminair-size", String(body.byteLength));
      headers.delete("content-encoding");
      headers.delete("content-length");
      cache.put(u, new Response(body, { status: 200, headers })).catch(() => {});
    }
  }
  self.postMessage({
    type: "ready",
    pyodideVersion: py.version,
    verifierVersion: glue.info.verifier,
    steps: glue.info.steps,
    minSecurityBits: glue.info.min_security_bits,
    bootMs: performance.now() - t0,
    // where the start-up went: Pyodide (download, compile, Python's start), the wheel, the imports
    phasesMs: { pyodide: tPython - t0, wheel: tWheel - tPython, imports: tGlue - tWheel },
    marksMs: marks,
    cached: fromCache.length,
    snapshot: restored ? "restored" : snapshotBytes ? "saved" : null,
    warnings,
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
      booting = boot(msg);
      booting.catch((e) => self.postMessage({ type: "boot-error", kind: e?.kind ?? "load", message: e?.message ?? String(e), url: e?.url }));
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
        onWork: (parts) => self.postMessage({ id, type: "work", parts }),
        minSecurityBits: msg.minSecurityBits,
        maxWork: msg.maxWork,
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
