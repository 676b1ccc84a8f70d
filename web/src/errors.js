/**
 * The one error type of luminair-web. `kind` says what went wrong:
 *  - "not-found"  a file URL answered 404/410
 *  - "network"    a download failed (offline, DNS, CORS) or the server answered another error status
 *  - "hosting"    a file of the verifier runtime is missing, blocked or served with the wrong MIME
 *                 type, or a page returned HTML where a luminair file was expected (`url` names it)
 *  - "csp"        the Content-Security-Policy forbids compiling WebAssembly ('wasm-unsafe-eval')
 *  - "format"     the bytes are not a luminair proof/settings file (or the two files were swapped)
 *  - "version"    a luminair file of a format version this verifier does not read
 *  - "rejected"   the verifier checked the proof and rejected it (`check` names the failed check)
 *  - "timeout"    no verdict within `timeoutMs` (downloads, start-up and verification together)
 *  - "aborted"    the caller's AbortSignal fired
 *  - "load"       the worker, Pyodide or the verifier wheel could not be loaded
 *  - "hash"       the verifier wheel or its standard library did not match its pinned SHA-256
 *  - "terminated" terminate() was called while the request was pending
 *  - "internal"   a bug: an unexpected exception in the worker
 *  - "budget"     (element events) the files declare more work than the verifier's budget, or
 *                 exceed its size caps: not checked; max-work="N" / maxWork grants the budget
 * `verify()` never rejects for a bad proof: it resolves with `success: false`. Rejections (and the
 * element's error events) use this class.
 *
 * Every error also has a `verdict`: "rejected" when the files were checked and are not a valid
 * proof ("rejected", "format"), else "unavailable": nothing was checked, so nothing is known about
 * the proof.
 */
export class LuminairVerificationError extends Error {
  constructor(kind, message, details = {}) {
    super(message);
    this.name = "LuminairVerificationError";
    this.kind = kind;
    for (const key of ["check", "url", "status", "file", "contentType"]) {
      if (details[key] !== undefined) this[key] = details[key];
    }
  }

  /** "rejected" (the files were checked and refused) or "unavailable" (nothing was checked). */
  get verdict() {
    return verdictForKind(this.kind);
  }
}

const REJECTED_KINDS = new Set(["rejected", "format"]);

/** The verdict an error kind stands for: "rejected" or "unavailable". */
export function verdictForKind(kind) {
  return REJECTED_KINDS.has(kind) ? "rejected" : "unavailable";
}
