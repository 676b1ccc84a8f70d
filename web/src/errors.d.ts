export type LuminairErrorKind =
  | "not-found" | "network" | "format" | "version" | "rejected" | "timeout" | "aborted"
  | "load" | "hash" | "terminated" | "internal";

export declare class LuminairVerificationError extends Error {
  constructor(kind: LuminairErrorKind, message: string, details?: { check?: string; url?: string; status?: number; file?: "proof" | "settings" });
  readonly name: "LuminairVerificationError";
  readonly kind: LuminairErrorKind;
  readonly check?: string;
  readonly url?: string;
  readonly status?: number;
  readonly file?: "proof" | "settings";
}
