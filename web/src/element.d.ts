import type { LuminairErrorKind } from "./errors.js";
import type { ProgressEvent, Tensor, VerifyResult } from "./index.js";

export type LuminairStatus = "idle" | "loading" | "verifying" | "verified" | "failed" | "error";

export interface VerifyStartDetail {
  proof: string | null;
  settings: string | null;
}
export type VerifyProgressDetail = ProgressEvent;
export interface VerifySuccessDetail {
  outputs: Record<string, Tensor> | null;
  inputs: Record<string, Tensor> | null;
  modelDigest: string | null;
  securityBits: number | null;
  securityLabel: string | null;
  statement: string | null;
  verificationTimeMs: number | null;
  totalTimeMs: number;
  result: LuminairVerifyResult;
}
export interface VerifyErrorDetail {
  kind: LuminairErrorKind;
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
 *   timeout-ms="60000" min-security-bits="96">
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
  preload: boolean;
  mode: "button" | "badge";
  variant: string;
  timeoutMs: number;
  minSecurityBits: number | undefined;
  /** proof.bin as bytes; takes precedence over the proof URL. */
  proofBytes: Uint8Array | null;
  /** settings.bin as bytes; takes precedence over the settings URL. */
  settingsBytes: Uint8Array | null;
  readonly result: LuminairVerifyResult | null;
  readonly error: { kind: LuminairErrorKind; message: string; check: string | null } | null;
  readonly status: LuminairStatus;
  open(): void;
  close(): void;
  verify(): Promise<LuminairVerifyResult>;
  downloadProof(): boolean;
}

export declare function isDevelopmentSecurity(bits: number | null | undefined, label: string | null | undefined): boolean;

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
