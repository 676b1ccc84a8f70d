// Side-effect entry: registers <luminair-verify>.
//   <script type="module" src="/luminair/define.js"></script>
import { LuminairVerifyElement } from "./element.js";

if (typeof customElements !== "undefined") LuminairVerifyElement.define();

export { LuminairVerifyElement };
