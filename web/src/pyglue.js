// The Python side of the worker, shared with the Node tests so that both run the same code.
// Everything crosses the boundary as bytes in and one JSON string out: no proxies to leak.

export const PY_GLUE = `
import json as _json
import luminair.verifier as _lv
import luminair.verifier.budget as _budget
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


try:
    from luminair.verifier.config import DEFAULT_MIN_SECURITY_BITS as _FLOOR
except Exception:  # an older verifier
    _FLOOR = 96


def luminair_info():
    return _dumps({"verifier": getattr(_lv, "__version__", None), "steps": list(_STEPS), "min_security_bits": _FLOOR})


def _reporting_work(report):
    """budget.check_work, also handing the verifier's complete work estimate (by part) to
    report(json) once: the widget weights its progress bar by it. Installed only for the one call."""
    check = _budget.check_work
    reported = []

    def check_and_report(work, budget, complete=True, limit=None):
        if complete and not reported:
            reported.append(True)
            try:
                report(_dumps({k: float(v) for k, v in work.items()}))
            except Exception:  # a progress display must never change a verdict
                pass
        return check(work, budget, complete, limit)

    return check, check_and_report


def luminair_verify(proof, settings, progress=None, min_security_bits=None, max_work=None, work=None):
    kwargs = {}
    if max_work is not None:
        kwargs["max_work"] = int(max_work)
    if progress is not None:
        kwargs["progress"] = lambda step, of, label: progress(int(step), int(of), str(label))
    if min_security_bits is not None:
        kwargs["min_security_bits"] = int(min_security_bits)
    settings_b = _as_bytes(settings)
    if work is not None:
        check, _budget.check_work = _reporting_work(work)
    try:
        r = _verify(_as_bytes(proof), settings_b, **kwargs).to_dict()
    finally:
        if work is not None:
            _budget.check_work = check
    training = (r.pop("extra", None) or {}).get("training")
    if training is not None:  # a training step: step, seed, loss, weights digests (verifier-computed)
        r["training"] = training
    # A proof below the default floor only verifies because the caller lowered the floor: it is a
    # development proof, shown as such everywhere.
    r["development"] = bool(r["success"] and r.get("security_bits") is not None and r["security_bits"] < _FLOOR)
    r["default_min_security_bits"] = _FLOOR
    if r["success"]:
        # The graph view is drawn from the settings this proof was just verified against.
        try:
            r["summary"] = _settings_summary(settings_b, kwargs.get("max_work"))  # (the budget it was verified with)
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

/**
 * Run the glue in a loaded Pyodide whose sys.path already holds the verifier (with run: false,
 * only wire up a glue that already ran, e.g. in a Pyodide restored from a memory snapshot).
 */
export function installGlue(py, { run = true } = {}) {
  if (run) py.runPython(PY_GLUE);
  const info = JSON.parse(py.globals.get("luminair_info")());
  return {
    info,
    verify(proof, settings, { onProgress, minSecurityBits, maxWork, onWork } = {}) {
      const fn = py.globals.get("luminair_verify");
      const work = onWork ? (json) => onWork(JSON.parse(json)) : undefined;
      try {
        return JSON.parse(fn(proof, settings, onProgress ?? undefined, minSecurityBits ?? undefined, maxWork ?? undefined, work));
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

const K256 = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 in plain JavaScript (FIPS 180-4), for pages without WebCrypto (plain-http LAN origins). */
export function sha256HexJs(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const n = u8.length;
  const total = Math.ceil((n + 9) / 64) * 64;
  const buf = new Uint8Array(total);
  buf.set(u8);
  buf[n] = 0x80;
  const dv = new DataView(buf.buffer);
  dv.setUint32(total - 8, Math.floor(n / 0x20000000), false);
  dv.setUint32(total - 4, (n << 3) >>> 0, false);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = dv.getUint32(off + i * 4, false);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15], b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (hh + S1 + ((e & f) ^ (~e & g)) + K256[i] + w[i]) >>> 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  return Array.from(h, (x) => x.toString(16).padStart(8, "0")).join("");
}

/** SHA-256 hex with WebCrypto when available, else in plain JavaScript. */
export async function sha256HexAny(bytes) {
  return (await sha256Hex(bytes)) ?? sha256HexJs(bytes);
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
