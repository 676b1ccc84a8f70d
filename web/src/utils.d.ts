import { LuminairVerificationError } from "./errors.js";

export type Bytes = Uint8Array | ArrayBuffer | ArrayBufferView;

export declare const PROOF_MAGIC: "LMNRPROF";
export declare const SETTINGS_MAGIC: "LMNRSETT";
export declare const FORMAT_VERSION: number;
export declare const HEADER_BYTES: number;
export declare const MIN_PROOF_BYTES: number;
export declare const MIN_SETTINGS_BYTES: number;
export declare const MAX_FILE_BYTES: number;

export interface FileHeader {
  kind: "proof" | "settings";
  version: number;
  supported: boolean;
  size: number;
}

export interface SettingsInfo {
  version: number;
  kind: number;
  kindName: string;
  config: { powBits: number; logBlowup: number; nQueries: number; logLastLayer: number; securityBits: number };
  size: number;
}

/** Identify a luminair file from its first 10 bytes; throws LuminairVerificationError("format"). */
export declare function readHeader(bytes: Bytes): FileHeader;
export declare function isValidProofBinary(bytes: Bytes): boolean;
export declare function isValidSettingsBinary(bytes: Bytes): boolean;
/** Size in bytes of a luminair proof; throws for anything that is not one. */
export declare function getProofSize(bytes: Bytes): number;
/** The fixed-offset header and proof-system config of settings.bin, without Python. */
export declare function readSettingsInfo(bytes: Bytes): SettingsInfo;
/** null when both files look right, else the first problem (kind "format" or "version"). */
export declare function checkFiles(proofBytes: Bytes, settingsBytes: Bytes): LuminairVerificationError | null;
/**
 * Download bytes; throws LuminairVerificationError "not-found" (404/410, or an HTML page where a
 * binary file was expected) or "network". onProgress reports the bytes received.
 */
export declare function fetchBinary(
  url: string | URL,
  options?: {
    fetch?: typeof fetch;
    signal?: AbortSignal;
    file?: "proof" | "settings";
    onProgress?: (progress: { loaded: number; total: number | null }) => void;
  },
): Promise<Uint8Array>;

export declare const LuminairUtils: Readonly<{
  isValidProofBinary: typeof isValidProofBinary;
  isValidSettingsBinary: typeof isValidSettingsBinary;
  getProofSize: typeof getProofSize;
  readHeader: typeof readHeader;
  readSettingsInfo: typeof readSettingsInfo;
  checkFiles: typeof checkFiles;
}>;
