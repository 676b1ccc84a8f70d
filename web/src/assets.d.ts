import type { Manifest } from "./index.js";

export declare const RUNTIME_FILES: string[];
export declare const MODULE_FILES: string[];
export declare function sha256File(path: string): string;
export declare function pyodideDir(): string;
export declare function readManifest(): Promise<Manifest>;
/** Copy the folder a site hosts (modules, worker, wheel, Pyodide runtime, lock file) to `target`. */
export declare function copyAssets(
  target: string,
  options?: { micropipWheel?: string | null; clean?: boolean },
): Promise<{ target: string; manifest: Manifest; files: string[]; pyodideVersion: string }>;
