// luminair-web: verify luminair proofs in the browser (Pyodide in a module Web Worker).
//   import init, { verify } from "luminair-web";
//   await init();
//   const r = await verify(proofBytes, settingsBytes, { timeoutMs: 30000, onProgress });
//   r.verdict: "verified" | "development" | "rejected"; a thrown error's verdict is "unavailable"
import init from "./client.js";

export default init;
export {
  init,
  verify,
  inspect,
  readSettingsSummary,
  configure,
  terminate,
  getSteps,
  getInfo,
  getBaseUrl,
  getManifest,
  getBootProgress,
  onBootProgress,
  cacheName,
  clearCache,
  workerStarts,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_RELEASE_AFTER_MS,
} from "./client.js";
export { LuminairVerificationError, verdictForKind } from "./errors.js";
export { diagnoseHosting } from "./hosting.js";
export {
  LuminairUtils,
  isValidProofBinary,
  isValidSettingsBinary,
  getProofSize,
  readHeader,
  readSettingsInfo,
  checkFiles,
  fetchBinary,
  FORMAT_VERSION,
  PROOF_MAGIC,
  SETTINGS_MAGIC,
} from "./utils.js";
export { makeZip } from "./zip.js";
export { layoutGraph, groupGraph } from "./graph.js";
