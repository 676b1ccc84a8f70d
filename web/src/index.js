// luminair-web: verify luminair proofs in the browser (Pyodide in a module Web Worker).
//   import init, { verify } from "luminair-web";
//   await init();
//   const r = await verify(proofBytes, settingsBytes, { timeoutMs: 30000, onProgress });
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
  getBaseUrl,
  getManifest,
  workerStarts,
} from "./client.js";
export { LuminairVerificationError } from "./errors.js";
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
export { layoutGraph } from "./graph.js";
