export type LuminairErrorKind =
  | "not-found" | "network" | "hosting" | "csp" | "format" | "version" | "rejected" | "timeout" | "aborted"
  | "load" | "hash" | "terminated" | "internal" | "budget";

/** "rejected": the files were checked and refused. "unavailable": nothing was checked. */
export type ErrorVerdict = "rejected" | "unavailable";

export declare class LuminairVerificationError extends Error {
  constructor(
    kind: LuminairErrorKind,
    message: string,
    details?: { check?: string; url?: string; status?: number; file?: "proof" | "settings"; contentType?: string },
  );
  readonly name: "LuminairVerificationError";
  readonly kind: LuminairErrorKind;
  /** "rejected" for kinds "rejected" and "format", else "unavailable". */
  readonly verdict: ErrorVerdict;
  readonly check?: string;
  /** The file at fault (hosting problems, downloads). */
  readonly url?: string;
  readonly status?: number;
  readonly file?: "proof" | "settings";
  readonly contentType?: string;
}

export declare function verdictForKind(kind: LuminairErrorKind): ErrorVerdict;
