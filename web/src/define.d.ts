export { LuminairVerifyElement } from "./element.js";
