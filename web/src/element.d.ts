import type { LuminairErrorKind } from "./errors.js";
import type { ProgressEvent, SymbolRange, Tensor, Verdict, VerifyResult, Visibility } from "./index.js";

/** idle, busy (loading, verifying), or a verdict. */
export type LuminairStatus = "idle" | "loading" | "verifying" | "verified" | "development" | "rejected" | "unavailable";

export interface VerifyStartDetail {
  proof: string | null;
  settings: string | null;
}
export type VerifyProgressDetail = ProgressEvent;
export interface VerifySuccessDetail {
  verdict: "verified" | "development";
  development: boolean;
  modelTitle: string | null;
  modelDescription: string | null;
  outputs: Record<string, Tensor> | null;
  inputs: Record<string, Tensor> | null;
  /** The symbolic dimensions' values the proof fixes ({batch: 7}); null for a concrete model. */
  symbols: Record<string, number> | null;
  modelDigest: string | null;
  /** Who sees the weights, each input and the outputs (public, committed, private). */
  visibility: Visibility | null;
  /** The model root (hex) of committed weights; null for public weights. */
  modelRoot: string | null;
  securityBits: number | null;
  securityLabel: string | null;
  statement: string | null;
  verificationTimeMs: number | null;
  totalTimeMs: number;
  result: LuminairVerifyResult;
}
export interface VerifyErrorDetail {
  kind: LuminairErrorKind;
  verdict: "rejected" | "unavailable";
  /** The file at fault, when known (hosting problems, downloads). */
  url: string | null;
  message: string;
  check: string | null;
  result: LuminairVerifyResult | null;
}
export interface LuminairVerifyResult extends VerifyResult {
  /** Click (or load, for the badge) to verdict, including downloads and start-up. */
  totalTimeMs: number;
}

/**
 * <luminair-verify proof="/proof.bin" settings="/settings.bin" title="..." button-text="VERIFY"
 *   author="..." author-url="..." model-description="..." theme="auto|light|dark" preload
 *   mode="button|badge" label-text="VERIFIED COMPUTE" variant="default|secondary|destructive|outline"
 *   timeout-ms="120000" min-security-bits="96" preload="hover|idle|eager|none" cache>
 */
export declare class LuminairVerifyElement extends HTMLElement {
  static define(tag?: string, registry?: CustomElementRegistry): typeof LuminairVerifyElement;
  static readonly observedAttributes: string[];
  proof: string | null;
  settings: string | null;
  buttonText: string;
  labelText: string;
  author: string | null;
  authorUrl: string | null;
  modelDescription: string | null;
  theme: "auto" | "light" | "dark";
  /** When to start the verifier before a click; a bare `preload` attribute is "eager". */
  preload: "hover" | "idle" | "eager" | "none";
  /** Keep the runtime files in Cache Storage across visits (opt-in, for the whole page). */
  cache: boolean;
  mode: "button" | "badge";
  variant: string;
  timeoutMs: number;
  minSecurityBits: number | undefined;
  /** The verifier's work budget (the `max-work` attribute); undefined: the default. */
  maxWork: number | undefined;
  /** proof.bin as bytes; takes precedence over the proof URL. */
  proofBytes: Uint8Array | null;
  /** settings.bin as bytes; takes precedence over the settings URL. */
  settingsBytes: Uint8Array | null;
  readonly result: LuminairVerifyResult | null;
  readonly error: { kind: LuminairErrorKind; message: string; check: string | null; verdict: "rejected" | "unavailable"; url: string | null } | null;
  readonly status: LuminairStatus;
  /** The verdict reached, or null before one. It stays after the dialog closes. */
  readonly verdict: Verdict | null;
  /** Open the modal without verifying (its "Verify now" button starts a verification). */
  open(): void;
  close(): void;
  verify(): Promise<LuminairVerifyResult>;
  downloadProof(): boolean;
}

/** The modal's words for files over the verifier's work budget: the budget and every way to grant it. */
export declare function budgetAdvice(needed: number | null): string;
/** The modal's words for a proof below the security floor, from the settings' configuration. */
export declare function floorAdvice(config: { powBits: number; logBlowup: number; nQueries: number; securityBits: number } | null, floor?: number): string | null;
/** An output as shown next to the verdict: its values, or for more than `limit` its class and top values. */
export declare function summarizeOutput(tensor: Tensor | number[] | null | undefined, limit?: number): { text: string; full: string | null };
export declare function isDevelopmentSecurity(bits: number | null | undefined, label: string | null | undefined, floor?: number): boolean;
/** "identity (...)" or a summary of an output's index map (-1 is the constant 0); null when absent. */
export declare function describeIndexMap(map: "identity" | number[] | undefined | null, limit?: number): string | null;
export declare function describeOutputSource(tensor: Tensor | null | undefined): string | null;
/** Rows of a batched tensor shown in the modal; the rest are counted. */
export declare const MAX_BATCH_ROWS: number;
/** The symbol whose value is a verified tensor's first axis, or null. */
export declare function batchAxis(
  tensor: Tensor | null | undefined,
  symbols: Record<string, number> | null | undefined,
  declared?: (number | string)[] | null,
): { symbol: string; size: number; rowShape: number[]; rowLength: number } | null;
export declare function batchRows(values: number[], size: number, rowLength: number, limit?: number): { rows: { index: number; values: number[] }[]; more: number };
/** "batch = 7 (fixed by this proof; one settings.bin serves every value from 1 to 256)", or null. */
export declare function describeSymbols(symbols: Record<string, number> | null | undefined, declared?: SymbolRange[] | null): string | null;

declare global {
  interface HTMLElementTagNameMap {
    "luminair-verify": LuminairVerifyElement;
  }
  interface HTMLElementEventMap {
    "luminair-verify-start": CustomEvent<VerifyStartDetail>;
    "luminair-verify-progress": CustomEvent<VerifyProgressDetail>;
    "luminair-verify-success": CustomEvent<VerifySuccessDetail>;
    "luminair-verify-error": CustomEvent<VerifyErrorDetail>;
  }
}
