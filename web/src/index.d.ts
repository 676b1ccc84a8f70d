import type { Bytes } from "./utils.js";
export * from "./utils.js";
export { LuminairVerificationError, verdictForKind, type LuminairErrorKind, type ErrorVerdict } from "./errors.js";

export interface Tensor {
  /** Concrete sizes: a symbolic dimension (a batch) has the value the proof fixes. */
  shape: number[];
  values: number[];
  /** Outputs, when the verifier reports it: the node the output reads. */
  source?: { node: number; op: string; name: string };
  /** Outputs: "identity", or the source element of each output element (-1: the constant 0). */
  index_map?: "identity" | number[];
}

export interface GraphNode {
  id: number | string;
  op: string;
  label: string;
  /** Sizes; a symbolic model's settings name a symbolic dimension ("batch"). */
  shape: (number | string)[];
  private?: boolean | null;
}

export interface GraphSummary {
  nodes: GraphNode[];
  edges: [number | string, number | string][];
}

/** A node of the grouped graph: a primitive, or a high-level op made of several. */
export interface GroupedNode extends GraphNode {
  kind: "node" | "group";
  /** The primitives it stands for (a primitive: itself). */
  members: { id: number | string; op: string; label: string; shape: (number | string)[] }[];
  /** Groups: the constants (weights, scalars) folded in. */
  constants?: { id: number | string; op: string; label: string; shape: (number | string)[] }[];
  /** Groups: the primitive whose value the group outputs. */
  out?: number | string;
}

export interface SettingsSummary {
  file: "settings";
  kind: string;
  model_digest: string;
  size_bytes: number;
  config: { pow_bits: number; log_blowup: number; n_queries: number; log_last_layer: number; security_bits: number; label: string };
  graph?: GraphSummary;
  /** The public inputs and outputs, with symbolic dimensions by name (["batch", 16]). */
  inputs?: { name: string; node: number; shape: (number | string)[]; private: boolean }[];
  outputs?: { name: string; node: number; shape: (number | string)[]; [key: string]: unknown }[];
  /** A symbolic model's dimensions and the values each may take (one settings.bin for all). */
  symbols?: SymbolRange[];
  [key: string]: unknown;
}

export interface SymbolRange {
  name: string;
  min: number;
  max: number;
}

/**
 * The verdict of a result: "unavailable" for files over the verifier's work budget or size caps
 * (kind "not checked"); a thrown LuminairVerificationError also stands for "unavailable".
 */
export type ResultVerdict = "verified" | "development" | "rejected" | "unavailable";
export type Verdict = ResultVerdict;

/** What the verifier did: checked and accepted, checked and refused, or nothing (work budget). */
export type ResultKind = "verified" | "rejected" | "not checked";

/** The verdict. A rejected proof is a result with success: false, never an exception. */
export interface VerifyResult {
  success: boolean;
  /** "development": valid, but below the default security floor (accepted because minSecurityBits was lowered). */
  verdict: ResultVerdict;
  /** "not checked": over the work budget or the size caps; `workNeeded` is the maxWork that admits the files. */
  kind: ResultKind;
  /** The maxWork (max-work="N", --max-work N) these files need, when they were not checked; else null. */
  workNeeded: number | null;
  development: boolean;
  /** The verifier's default floor (96): below it a valid proof is a development proof. */
  defaultMinSecurityBits: number;
  /** The publisher's labels from settings.bin (not part of what is proven), when present. */
  modelTitle: string | null;
  modelDescription: string | null;
  /** One line naming the failed check ("Merkle path: ...", "FRI: ..."), or null. */
  error_message: string | null;
  /** The failed check's name, e.g. "Merkle path", "OODS mismatch", "malformed file". */
  check: string | null;
  /** The public outputs the proof attests (when success). */
  outputs: Record<string, Tensor> | null;
  inputs: Record<string, Tensor> | null;
  /** The symbolic dimensions' values this proof fixes ({batch: 7}); null for a concrete model. */
  symbols: Record<string, number> | null;
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
  /** A training step's statement (the graph uses the train/ roles), when success; else null. */
  training: TrainingStatement | null;
  /** Who sees each kind of tensor, when success (null when rejected or not checked). */
  visibility: Visibility | null;
  /** The model tree's root (hex) when the weights are committed (settings.bin holds the root, not
   * the weights; `luminair audit MODEL SETTINGS` recomputes it); null for public weights. */
  modelRoot: string | null;
}

/** Who sees each kind of tensor of a verified proof. */
export interface Visibility {
  /** "public": the weights are in settings.bin (under the model digest); "committed": only the
   * model root is, and the verifier never saw the weights. */
  weights: "public" | "committed";
  /** By input name: "public" (in the proof, shown) or "private" (the prover's, never revealed). */
  inputs: Record<string, "public" | "private">;
  outputs: "public";
}

/** What a verified training-step proof attests; the digests are computed by the verifier from the
 * public values (BLAKE2s hex). */
export interface TrainingStatement {
  step: number;
  seed: number;
  loss: number;
  old_weights_digest: string;
  new_weights_digest: string;
  old_state_digest: string;
  new_state_digest: string;
  params: { index: number; name: string; shape: number[]; noise_bits: number; state: string[] }[];
  batch_inputs: string[];
  private_batch_inputs: string[];
}

export interface ProgressEvent {
  step: number;
  of: number;
  label: string;
}

export interface BootProgress {
  phase: "download" | "start" | "ready";
  /** Bytes of the runtime downloaded so far (or read from the cache). */
  loaded: number;
  total: number;
}

export interface VerifyOptions {
  /** Stop if no verdict within this time, start-up included (a running verifier is terminated and restarted); default 120000. */
  timeoutMs?: number;
  /** Start-up progress in bytes (when this call starts the verifier). */
  onBootProgress?: (progress: BootProgress) => void;
  /** Called from the verifier's own steps (6 of them). */
  onProgress?: (progress: ProgressEvent) => void;
  /** Once, in step 1: each step's share of the work the files declare (the verifier's own estimate). */
  onWork?: (work: { weights: number[]; units: number }) => void;
  /** Cancel: terminates and restarts the worker. */
  signal?: AbortSignal;
  /** Lower the verifier's security floor (default 96 bits) to check development proofs. */
  minSecurityBits?: number;
  /** The verifier's work budget in units of about 1 us (default: what the files' bytes back, at
   * most about 1 s); set it to check models larger than that. */
  maxWork?: number;
}

export interface VerifierInfo {
  pyodideVersion: string;
  verifierVersion: string;
  steps: string[];
  /** The verifier's default security floor. */
  minSecurityBits: number;
  bootMs: number;
  /** Runtime files served from the opt-in cache. */
  cachedFiles: number;
  /** Hosting problems that did not stop the start (e.g. a .wasm served with the wrong MIME type). */
  warnings: string[];
}

export interface Manifest {
  file: string;
  sha256: string;
  size: number;
  version: string;
  formatVersion: number;
  pyodideVersion: string;
  stdlib: { file: string; sha256: string; size: number };
  runtime: Record<string, number>;
  lockInfo: Record<string, string>;
}

export declare const DEFAULT_TIMEOUT_MS: number;
/** How long an idle worker is kept after its last verdict (configure({ releaseAfterMs })). */
export declare const DEFAULT_RELEASE_AFTER_MS: number;

/** Start the worker once, load Pyodide and the pinned verifier wheel. */
declare function init(options?: {
  baseUrl?: string | URL;
  /** Keep the runtime files in Cache Storage across visits (opt-in, for the page). */
  cache?: boolean;
  onProgress?: (progress: BootProgress) => void;
  signal?: AbortSignal;
}): Promise<VerifierInfo>;
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
  /** Keep the runtime files in Cache Storage across visits (off by default). */
  cache?: boolean;
  /** Check the runtime files' status and MIME type beside the start-up (on by default). */
  hostingCheck?: boolean;
  startTimeoutMs?: number;
  /** Stop the worker once idle this long after a verdict, giving its ~150 MB back (default 60000; 0 keeps it). */
  releaseAfterMs?: number;
  workerFactory?: ((url: string) => Worker) | null;
  fetch?: typeof fetch | null;
}): void;
export declare function terminate(): void;
export declare function getSteps(): string[] | null;
export declare function getInfo(): VerifierInfo | null;
export declare function getBootProgress(): BootProgress | null;
export declare function onBootProgress(listener: (progress: BootProgress) => void): () => void;
/** The Cache Storage name of this build's runtime files. */
export declare function cacheName(): string;
/** Delete the opt-in runtime cache (all versions); resolves with the number of caches removed. */
export declare function clearCache(): Promise<number>;
export interface HostingProblem {
  fatal: boolean;
  kind: "hosting";
  url: string;
  status: number;
  contentType: string;
  message: string;
}
/** Check every runtime file's HTTP status and MIME type under baseUrl. */
export declare function diagnoseHosting(
  baseUrl: string,
  manifest: Manifest,
  options?: { fetch?: typeof fetch; skip?: Set<string> },
): Promise<{ problems: HostingProblem[]; warnings: HostingProblem[]; ms: number }>;
export declare function getBaseUrl(): string;
export declare function getManifest(): Manifest;
export declare function workerStarts(): number;
export declare function makeZip(entries: { name: string; data: Uint8Array | ArrayBuffer }[]): Uint8Array;
export declare function layoutGraph(graph: GraphSummary | { nodes: GroupedNode[]; edges: [number | string, number | string][] }): {
  nodes: (GraphNode & { level: number; x: number; y: number; w: number; h: number })[];
  /** Each edge as a polyline (through reserved slots on long edges) and an SVG path. */
  edges: { from: number | string; to: number | string; points: [number, number][]; path: string }[];
  width: number;
  height: number;
  cyclic: boolean;
};
/** Group primitives into high-level ops (MatMul, Linear, Conv, ReLU, Softmax, LayerNorm, Sigmoid, Tanh, GELU, SiLU). */
export declare function groupGraph(graph: GraphSummary): { nodes: GroupedNode[]; edges: [number | string, number | string][]; groups: number };
