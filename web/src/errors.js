/**
 * The one error type of luminair-web. `kind` says what went wrong:
 *  - "not-found"  a file URL answered 404/410
 *  - "network"    a download failed (offline, DNS, CORS) or the server answered another error status
 *  - "format"     the bytes are not a luminair proof/settings file (or the two files were swapped)
 *  - "version"    a luminair file of a format version this verifier does not read
 *  - "rejected"   the verifier checked the proof and rejected it (`check` names the failed check)
 *  - "timeout"    the verification did not finish within `timeoutMs`; the worker was restarted
 *  - "aborted"    the caller's AbortSignal fired; the worker was restarted
 *  - "load"       the worker, Pyodide or the verifier wheel could not be loaded
 *  - "hash"       the verifier wheel's SHA-256 did not match the pinned value
 *  - "terminated" terminate() was called while the request was pending
 *  - "internal"   a bug: an unexpected exception in the worker
 * `verify()` never rejects for a bad proof: it resolves with `success: false`. Rejections (and the
 * element's error events) use this class.
 */
export class LuminairVerificationError extends Error {
  constructor(kind, message, details = {}) {
    super(message);
    this.name = "LuminairVerificationError";
    this.kind = kind;
    for (const key of ["check", "url", "status", "file"]) {
      if (details[key] !== undefined) this[key] = details[key];
    }
  }
}
