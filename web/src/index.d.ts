import type { Bytes } from "./utils.js";
export * from "./utils.js";
export { LuminairVerificationError, type LuminairErrorKind } from "./errors.js";

export interface Tensor {
  shape: number[];
  values: number[];
}

export interface GraphSummary {
  nodes: { id: number | string; op: string; label: string; shape: number[] }[];
  edges: [number | string, number | string][];
}

export interface SettingsSummary {
  file: "settings";
  kind: string;
  model_digest: string;
  size_bytes: number;
  config: { pow_bits: number; log_blowup: number; n_queries: number; log_last_layer: number; security_bits: number; label: string };
  graph?: GraphSummary;
  [key: string]: unknown;
}

/** The verdict. A rejected proof is a result with success: false, never an exception. */
export interface VerifyResult {
  success: boolean;
  /** One line naming the failed check ("Merkle path: ...", "FRI: ..."), or null. */
  error_message: string | null;
  /** The failed check's name, e.g. "Merkle path", "OODS mismatch", "malformed file". */
  check: string | null;
  /** The public outputs the proof attests (when success). */
  outputs: Record<string, Tensor> | null;
  inputs: Record<string, Tensor> | null;
  securityBits: number | null;
  /** e.g. "default preset"; development presets say so ("fast preset - DEVELOPMENT ONLY, not secure"). */
  securityLabel: string | null;
  /** BLAKE2s of settings.bin, hex. */
  modelDigest: string | null;
  statement: string | null;
  /** Time the Python verifier took, in Pyodide. */
  verificationTimeMs: number | null;
  /** Summary of the verified settings (graph, config), when success. */
  settingsSummary: SettingsSummary | null;
}

export interface ProgressEvent {
  step: number;
  of: number;
  label: string;
}

export interface VerifyOptions {
  /** Stop (terminate and restart the worker) if the verification takes longer; default 60000. */
  timeoutMs?: number;
  /** Called from the verifier's own steps (6 of them). */
  onProgress?: (progress: ProgressEvent) => void;
  /** Cancel: terminates and restarts the worker. */
  signal?: AbortSignal;
  /** Lower the verifier's security floor (default 96 bits) to check development proofs. */
  minSecurityBits?: number;
}

export interface VerifierInfo {
  pyodideVersion: string;
  verifierVersion: string;
  steps: string[];
  bootMs: number;
}

export interface Manifest {
  file: string;
  sha256: string;
  version: string;
  pyodideVersion: string;
}

/** Start the worker once, load Pyodide and the pinned verifier wheel. */
declare function init(options?: { baseUrl?: string | URL }): Promise<VerifierInfo>;
export default init;
export { init };
export declare function verify(proofBytes: Bytes, settingsBytes: Bytes, options?: VerifyOptions): Promise<VerifyResult>;
export declare function inspect(
  bytes: Bytes,
  options?: { timeoutMs?: number; signal?: AbortSignal },
): Promise<{ ok: true; header: { kind: "proof" | "settings"; version: number; supported: boolean; size: number }; summary: Record<string, unknown> } | { ok: false; error: string; check?: string | null }>;
/** Model digest, config and graph of settings.bin, without verifying (runs the Python codec). */
export declare function readSettingsSummary(settingsBytes: Bytes, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<SettingsSummary>;
/** Where the hosted luminair folder lives when it is not next to this module (e.g. after bundling). */
export declare function configure(options: {
  baseUrl?: string | URL | null;
  startTimeoutMs?: number;
  workerFactory?: ((url: string) => Worker) | null;
}): void;
export declare function terminate(): void;
export declare function getSteps(): string[] | null;
export declare function getBaseUrl(): string;
export declare function getManifest(): Manifest;
export declare function workerStarts(): number;
export declare function makeZip(entries: { name: string; data: Uint8Array | ArrayBuffer }[]): Uint8Array;
export declare function layoutGraph(graph: GraphSummary): {
  nodes: { id: number | string; op: string; label: string; shape: number[]; level: number; x: number; y: number; w: number; h: number }[];
  edges: { from: number | string; to: number | string; points: [number, number, number, number] }[];
  width: number;
  height: number;
  cyclic: boolean;
};
