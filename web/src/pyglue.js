// The Python side of the worker, shared with the Node tests so that both run the same code.
// Everything crosses the boundary as bytes in and one JSON string out: no proxies to leak.

export const PY_GLUE = `
import json as _json
import luminair.verifier as _lv
from luminair.verifier import verify as _verify, STEPS as _STEPS
from luminair.verifier.summary import settings_summary as _settings_summary, proof_summary as _proof_summary
from luminair.verifier.formats import sniff as _sniff


def _preimport():
    # Import every verifier module now (at start-up, often during preload) rather than inside
    # the first verify() call: the lazily imported graph modules otherwise add to the first click.
    import importlib, pkgutil
    for m in pkgutil.walk_packages(_lv.__path__, _lv.__name__ + "."):
        try:
            importlib.import_module(m.name)
        except Exception:
            pass


_preimport()


def _as_bytes(x):
    if isinstance(x, (bytes, bytearray, memoryview)):
        return bytes(x)
    return x.to_bytes()  # a JsProxy of a Uint8Array


def _dumps(obj):
    return _json.dumps(obj, default=str)


def luminair_info():
    return _dumps({"verifier": getattr(_lv, "__version__", None), "steps": list(_STEPS)})


def luminair_verify(proof, settings, progress=None, min_security_bits=None):
    kwargs = {}
    if progress is not None:
        kwargs["progress"] = lambda step, of, label: progress(int(step), int(of), str(label))
    if min_security_bits is not None:
        kwargs["min_security_bits"] = int(min_security_bits)
    settings_b = _as_bytes(settings)
    r = _verify(_as_bytes(proof), settings_b, **kwargs).to_dict()
    r.pop("extra", None)
    if r["success"]:
        # The graph view is drawn from the settings this proof was just verified against.
        try:
            r["summary"] = _settings_summary(settings_b)
        except Exception as e:  # a summary failure must not turn a valid proof into an error
            r["summary"] = None
            r["summary_error"] = f"{type(e).__name__}: {e}"
    return _dumps(r)


def luminair_inspect(data):
    data = _as_bytes(data)
    try:
        head = _sniff(data)
        if not head["supported"]:
            return _dumps({"ok": False, "header": head, "error": f"unsupported format version {head['version']}"})
        summary = _settings_summary(data) if head["kind"] == "settings" else _proof_summary(data)
        return _dumps({"ok": True, "header": head, "summary": summary})
    except Exception as e:
        return _dumps({"ok": False, "error": getattr(e, "message", None) or f"{type(e).__name__}: {e}",
                       "check": getattr(e, "check", None)})
`;

/** Run the glue in a loaded Pyodide whose sys.path already holds the verifier. */
export function installGlue(py) {
  py.runPython(PY_GLUE);
  const info = JSON.parse(py.globals.get("luminair_info")());
  return {
    info,
    verify(proof, settings, { onProgress, minSecurityBits } = {}) {
      const fn = py.globals.get("luminair_verify");
      try {
        return JSON.parse(fn(proof, settings, onProgress ?? undefined, minSecurityBits ?? undefined));
      } finally {
        fn.destroy();
      }
    },
    inspect(bytes) {
      const fn = py.globals.get("luminair_inspect");
      try {
        return JSON.parse(fn(bytes));
      } finally {
        fn.destroy();
      }
    },
  };
}

/** Lower-case hex of bytes. */
export function toHex(buf) {
  return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 hex of bytes with WebCrypto when available (secure contexts, Node), else null. */
export async function sha256Hex(bytes) {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  return toHex(await subtle.digest("SHA-256", bytes));
}

/**
 * Install the verifier wheel into Pyodide after checking its SHA-256 against the pinned value.
 * Falls back to Python's hashlib where WebCrypto is missing (plain-http LAN origins).
 * Throws an Error with `kind = "hash"` on a mismatch.
 */
export async function installWheel(py, bytes, expectedSha256) {
  const u8 = bytes instanceof Uint8Array ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);
  let actual = await sha256Hex(u8);
  if (actual === null) {
    py.globals.set("_lv_wheel", u8);
    actual = py.runPython("import hashlib; hashlib.sha256(_lv_wheel.to_bytes()).hexdigest()");
    py.runPython("del _lv_wheel");
  }
  if (actual !== expectedSha256) {
    const err = new Error(`the verifier wheel's SHA-256 is ${actual}, expected ${expectedSha256}: refusing to load it`);
    err.kind = "hash";
    throw err;
  }
  // A Node Buffer is not accepted by unpackArchive: always hand over a plain Uint8Array.
  py.unpackArchive(new Uint8Array(u8), "wheel");
}
