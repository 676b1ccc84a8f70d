// Header and size checks that need no Python (they mirror luminair.verifier.formats.sniff), the
// fixed-offset part of settings.bin, and a fetch wrapper that tells "not found" from "network".
import { LuminairVerificationError } from "./errors.js";
import { MANIFEST } from "./manifest.js";

export const PROOF_MAGIC = "LMNRPROF";
export const SETTINGS_MAGIC = "LMNRSETT";
/** A segmented proof's bundle: a proof.bin of segments (docs/segments.md). */
export const BUNDLE_MAGIC = "LMNRSEGS";
/** The file format version this package's verifier reads (from the verifier's sources, at build time). */
export const FORMAT_VERSION = MANIFEST.formatVersion ?? 1;
/** Magic (8 bytes) + u16 little-endian version. */
export const HEADER_BYTES = 10;
/** proof.bin = header | settings digest (32 B) | public values (u32 count, ...) | STARK proof. */
export const MIN_PROOF_BYTES = HEADER_BYTES + 32 + 4;
/** settings.bin = header | u8 kind | config (u8 pow, u8 log blowup, u16 queries, u8 log last layer, ...) | body. */
export const MIN_SETTINGS_BYTES = HEADER_BYTES + 1 + 5;
/** Files above this size are refused before anything is decoded. */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;

const KIND_NAMES = { 1: "example AIR", 2: "graph" };

function asBytes(bytes) {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new TypeError("expected a Uint8Array, an ArrayBuffer or another ArrayBuffer view");
}

function startsWithAscii(u8, text) {
  if (u8.length < text.length) return false;
  for (let i = 0; i < text.length; i++) if (u8[i] !== text.charCodeAt(i)) return false;
  return true;
}

/**
 * Identify a luminair file from its first 10 bytes: `{kind: "proof"|"settings", version,
 * supported, size}`. Throws LuminairVerificationError (kind "format") for anything else.
 */
export function readHeader(bytes) {
  const u8 = asBytes(bytes);
  for (const [magic, kind] of [[PROOF_MAGIC, "proof"], [SETTINGS_MAGIC, "settings"], [BUNDLE_MAGIC, "proof"]]) {
    if (startsWithAscii(u8, magic)) {
      if (u8.length < HEADER_BYTES) {
        throw new LuminairVerificationError("format", `${kind} file: truncated header (${u8.length} bytes)`);
      }
      const version = u8[8] | (u8[9] << 8);
      const head = { kind, version, supported: version === FORMAT_VERSION, size: u8.length };
      return magic === BUNDLE_MAGIC ? { ...head, segmented: true } : head;
    }
  }
  if (u8.length === 0) throw new LuminairVerificationError("format", "the file is empty");
  throw new LuminairVerificationError("format", "not a luminair file (bad magic bytes)");
}

function isValid(bytes, kind, minBytes) {
  try {
    const u8 = asBytes(bytes);
    const h = readHeader(u8);
    return h.kind === kind && h.supported && u8.length >= minBytes && u8.length <= MAX_FILE_BYTES;
  } catch {
    return false;
  }
}

/** True for bytes that start like a proof.bin this verifier reads (magic, version, minimum size). */
export function isValidProofBinary(bytes) {
  return isValid(bytes, "proof", MIN_PROOF_BYTES);
}

/** True for bytes that start like a settings.bin this verifier reads. */
export function isValidSettingsBinary(bytes) {
  return isValid(bytes, "settings", MIN_SETTINGS_BYTES);
}

/** Size in bytes of a luminair proof; throws LuminairVerificationError for anything that is not one. */
export function getProofSize(bytes) {
  const u8 = asBytes(bytes);
  const h = readHeader(u8);
  if (h.kind !== "proof") throw new LuminairVerificationError("format", "this is a luminair settings file, not a proof file");
  return u8.length;
}

/**
 * The fixed-offset part of settings.bin, read without Python and without verifying:
 * `{version, kind, kindName, config: {powBits, logBlowup, nQueries, logLastLayer, securityBits}, size}`.
 * securityBits is the conjectured security pow_bits + log_blowup * n_queries (docs/protocol.md "17. Security").
 * For the model digest and the graph, use `readSettingsSummary` (it runs the Python codec).
 */
export function readSettingsInfo(bytes) {
  const u8 = asBytes(bytes);
  const h = readHeader(u8);
  if (h.kind !== "settings") throw new LuminairVerificationError("format", "this is a luminair proof file, not a settings file", { file: "settings" });
  if (!h.supported) throw new LuminairVerificationError("version", versionMessage("settings", h.version), { file: "settings" });
  if (u8.length < MIN_SETTINGS_BYTES) throw new LuminairVerificationError("format", `settings file: truncated (${u8.length} bytes)`, { file: "settings" });
  const kind = u8[10];
  const powBits = u8[11];
  const logBlowup = u8[12];
  const nQueries = u8[13] | (u8[14] << 8);
  const logLastLayer = u8[15];
  return {
    version: h.version,
    kind,
    kindName: KIND_NAMES[kind] ?? `unknown kind ${kind}`,
    config: { powBits, logBlowup, nQueries, logLastLayer, securityBits: powBits + logBlowup * nQueries },
    size: u8.length,
  };
}

function versionMessage(file, version) {
  const newer = version > FORMAT_VERSION ? " (made by a newer luminair: update the verifier)" : "";
  return `${file}.bin uses format version ${version}, but this verifier reads version ${FORMAT_VERSION}${newer}`;
}

/**
 * Check both files before starting Python. Returns null when both look right, else a
 * LuminairVerificationError with kind "format" or "version" and `file` set to "proof" or "settings".
 */
export function checkFiles(proofBytes, settingsBytes) {
  const checks = [["proof", proofBytes, MIN_PROOF_BYTES], ["settings", settingsBytes, MIN_SETTINGS_BYTES]];
  for (const [file, bytes, minBytes] of checks) {
    let h;
    try {
      h = readHeader(bytes);
    } catch (e) {
      const detail = e.message === "the file is empty" ? "the file is empty" : "its first bytes are not a luminair tag";
      return new LuminairVerificationError("format", `the ${file} file is not a luminair ${file} file (${detail})`, { file });
    }
    if (h.kind !== file) {
      return new LuminairVerificationError("format", `the ${file} file is a luminair ${h.kind} file, not a ${file} file (are the two files swapped?)`, { file });
    }
    if (!h.supported) return new LuminairVerificationError("version", versionMessage(file, h.version), { file });
    if (h.size < minBytes) return new LuminairVerificationError("format", `the ${file} file is truncated (${h.size} bytes)`, { file });
    if (h.size > MAX_FILE_BYTES) return new LuminairVerificationError("format", `the ${file} file is larger than ${MAX_FILE_BYTES} bytes`, { file });
  }
  return null;
}

/**
 * Download a binary file. Throws LuminairVerificationError with kind "not-found" (404/410, or an
 * HTML page where a binary file was expected: a catch-all route answering for a missing file) or
 * "network" (the request failed: offline, blocked by CORS, other HTTP status).
 * `onProgress({loaded, total})` reports the bytes received (total: Content-Length, or null).
 */
export async function fetchBinary(url, { fetch: fetchImpl = globalThis.fetch, signal, file, onProgress } = {}) {
  let res;
  try {
    res = await fetchImpl(url, { signal, credentials: "same-origin" });
  } catch (e) {
    if (signal?.aborted && signal.reason instanceof LuminairVerificationError) throw signal.reason;
    if (e?.name === "AbortError") throw new LuminairVerificationError("aborted", `the download of ${url} was cancelled`, { url, file });
    throw new LuminairVerificationError(
      "network",
      `could not download ${url}: the request failed (${e?.message ?? e}). Check the connection; a file on another site must allow cross-origin (CORS) requests.`,
      { url, file },
    );
  }
  if (res.status === 404 || res.status === 410) {
    throw new LuminairVerificationError("not-found", `file not found (HTTP ${res.status}): ${url}`, { url, status: res.status, file });
  }
  if (!res.ok) {
    throw new LuminairVerificationError("network", `the server answered HTTP ${res.status} for ${url}`, { url, status: res.status, file });
  }
  if (/^text\/html\b/i.test(res.headers?.get?.("content-type") ?? "")) {
    throw new LuminairVerificationError("not-found", `${url} returned an HTML page (text/html), not the ${file ?? "binary"} file: it is probably missing and a catch-all route answered`, { url, status: res.status, file });
  }
  const declared = Number(res.headers?.get?.("content-length"));
  if (declared > MAX_FILE_BYTES) {
    throw new LuminairVerificationError("format", `${url} is larger than ${MAX_FILE_BYTES} bytes`, { url, file });
  }
  try {
    if (!onProgress || !res.body?.getReader) return new Uint8Array(await res.arrayBuffer());
    const total = declared > 0 ? declared : null;
    const reader = res.body.getReader();
    const chunks = [];
    let loaded = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      loaded += value.byteLength;
      if (loaded > MAX_FILE_BYTES) throw new LuminairVerificationError("format", `${url} is larger than ${MAX_FILE_BYTES} bytes`, { url, file });
      onProgress({ loaded, total });
    }
    const out = new Uint8Array(loaded);
    let at = 0;
    for (const c of chunks) (out.set(c, at), (at += c.byteLength));
    return out;
  } catch (e) {
    if (e instanceof LuminairVerificationError) throw e;
    if (signal?.aborted && signal.reason instanceof LuminairVerificationError) throw signal.reason;
    throw new LuminairVerificationError("network", `the download of ${url} failed: ${e?.message ?? e}`, { url, file });
  }
}

/** LuminAIR's `LuminairUtils` names, implemented for real. */
export const LuminairUtils = Object.freeze({
  isValidProofBinary,
  isValidSettingsBinary,
  getProofSize,
  readHeader,
  readSettingsInfo,
  checkFiles,
});
