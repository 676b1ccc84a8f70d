// <luminair-verify>: a verify button (or a badge that verifies on load) that opens a native
// <dialog> with the verifier's steps and a determinate progress bar, the verdict, the verified model
// digest, public outputs (with the node each one reads; a batched one as a row per batch element),
// the symbol values a batched proof fixes, security, time, a graph view drawn from the verified
// settings, and "download proof".
//
// Verdicts: "verified", "development" (valid, but below the default security floor: only accepted
// because min-security-bits was lowered), "rejected" (a check failed: the claim is not proven) and
// "unavailable" (nothing was checked: hosting, network, start-up, timeout). The verdict stays on
// the button after the dialog closes; a verdict that arrives while it is closed is announced.
import { configure, deadlineSignal, getInfo, getSteps, init, verify as verifyInWorker } from "./client.js";
import { LuminairVerificationError, verdictForKind } from "./errors.js";
import { createGraphView } from "./graph.js";
import { getSheet } from "./styles.js";
import { checkFiles, fetchBinary, readSettingsInfo } from "./utils.js";
import { makeZip } from "./zip.js";

const OBSERVED = [
  "proof", "settings", "title", "button-text", "author", "author-url", "model-description",
  "theme", "preload", "mode", "label-text", "variant", "timeout-ms", "min-security-bits", "max-work", "cache",
];

const DEFAULTS = {
  title: "Can't be evil.",
  buttonText: "VERIFY",
  labelText: "VERIFIED COMPUTE",
  timeoutMs: 120_000,
};

/** Headlines for each error kind (the detail line carries the specific message). */
const HEADLINES = {
  "not-found": "File not found",
  network: "Could not download the files",
  hosting: "The verifier's files are not hosted correctly",
  csp: "This page's security policy blocks the verifier",
  format: "Not a luminair file",
  version: "Unsupported file version",
  rejected: "Verification failed",
  timeout: "Verification timed out",
  aborted: "Verification cancelled",
  load: "The verifier could not start",
  hash: "The verifier failed its integrity check",
  terminated: "Verification stopped",
  internal: "Internal error",
  budget: "Not checked: over the verifier's work budget",
};

/** Icon, button words, pill words and one-line meaning of each state. */
const STATES = {
  idle: { icon: "", button: null, pill: "Not verified" },
  loading: { icon: "", button: "VERIFYING…", pill: "Loading" },
  verifying: { icon: "", button: "VERIFYING…", pill: "Verifying" },
  verified: { icon: "✓", button: "VERIFIED", pill: "Verified", say: "Verified" },
  development: { icon: "⚠", button: "DEVELOPMENT PROOF", pill: "Development proof", say: "Development proof: valid, but below the default security level; not secure" },
  rejected: { icon: "✗", button: "PROOF REJECTED", pill: "Rejected", say: "Proof rejected" },
  unavailable: { icon: "⊘", button: "NOT CHECKED", pill: "Unavailable", say: "Not checked: the verifier was unavailable" },
};
const VERDICTS = new Set(["verified", "development", "rejected", "unavailable"]);
const MARKS = { pending: "○", "in-progress": "◌", completed: "✓", error: "✗", skipped: "–" };
const DEV_FLOOR_BITS = 96;
const NOT_CHECKED = "Nothing was checked: this says nothing about the proof. The site's files or the connection are at fault, not necessarily the proof.";
/** Work units a second of CPython (the verifier's unit is about 1 us); Pyodide runs about 2.5x slower. */
const UNITS_PER_SECOND = 1e6;
const PYODIDE_MS_PER_UNIT = 0.0025;

/**
 * What to say about files over the verifier's work budget (or its size caps): the budget they
 * need and every way to grant it. `needed` null: no budget admits them.
 */
export function budgetAdvice(needed) {
  if (needed == null) return "Nothing was checked: these files are larger than any budget admits, so this verifier does not read them. This says nothing about the proof.";
  const secs = needed / UNITS_PER_SECOND;
  return `Nothing was checked: this says nothing about the proof. These files declare more work than this verifier spends by default (${needed} units, about ${secs.toFixed(1)} s of CPython, longer in the browser). The site can allow it with max-work="${needed}" on <luminair-verify> (maxWork: ${needed} in the JS API and the React props; luminair verify --max-work ${needed} on the command line), or you can check it here anyway.`;
}

/**
 * Plain words for a proof refused for its configuration (below the security floor), from the
 * settings' own configuration: what it is, why it is refused, and the attribute that checks it.
 */
export function floorAdvice(config, floor = DEV_FLOOR_BITS) {
  if (!config) return null;
  const bits = config.securityBits;
  return `This proof was made with a development configuration: about ${bits} bits of conjectured security (${config.powBits} bits of grinding, blowup 2^${config.logBlowup}, ${config.nQueries} queries, e.g. luminair prove --preset fast). This verifier accepts ${floor} bits or more, because anyone could forge a weaker proof with modest computing power. To check it anyway as a development proof, set min-security-bits="${bits}" (minSecurityBits: ${bits} in the JS API and React); it is then shown in amber, never as verified.`;
}

/** The opt-in cache is the site owner's call (it stores ~45 MB per site in the visitor's browser). */
const CACHE_TIP = "start in about 0.5 s instead of 1-1.5 s when the site sets the cache attribute (it keeps the runtime and a snapshot of Python, about 45 MB, in this browser's storage for this site)";
let cacheTipLogged = false;
function suggestCache(dd) {
  dd.classList.add("tip");
  if (cacheTipLogged) return;
  cacheTipLogged = true;
  console.info(`luminair-web: repeat visits ${CACHE_TIP}: <luminair-verify cache> or configure({ cache: true }).`);
}

/** Flat index of the largest values, largest first (ties: the lower index first). */
function topIndices(values, k) {
  return values.map((v, i) => [v, i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, k).map((p) => p[1]);
}

/**
 * How an output is shown next to the verdict: `text` (the values when there are few; else, for a
 * vector, the class its largest value picks (a classifier's ArgMax) and the top values, for any
 * larger tensor its top values), `full` (every value, for a disclosure) or null.
 */
export function summarizeOutput(tensor, limit = 8) {
  if (tensor && typeof tensor === "object" && tensor.committed) return { text: `committed · digest ${tensor.digest}`, full: null };
  const values = tensor && typeof tensor === "object" && "values" in tensor ? tensor.values : tensor;
  if (!Array.isArray(values)) return { text: String(values), full: null };
  if (values.length <= limit) return { text: formatValues(values), full: null };
  const shape = Array.isArray(tensor?.shape) ? tensor.shape : [values.length];
  const vector = shape.filter((d) => d !== 1).length <= 1;
  const top = topIndices(values, 3);
  const tops = top.map((i) => `#${i} ${values[i]}`).join(", ");
  const head = vector ? `class ${top[0]} (the largest of ${values.length} values) · top 3: ${tops}` : `${values.length} values · largest: ${tops}`;
  return { text: head, full: formatValues(values, 4096) };
}

const TEMPLATE = `
<div class="root">
<button part="button trigger" class="trigger" type="button" aria-haspopup="dialog"><span class="icon" aria-hidden="true"></span><slot><span class="label"></span></slot><span class="tag" hidden></span></button>
<span class="sr-only announce" role="status" aria-live="polite"></span>
<dialog part="dialog" aria-labelledby="lv-title" aria-describedby="lv-claim">
  <div class="head">
    <h2 id="lv-title"></h2>
    <span class="pill" part="status" role="status"></span>
    <button class="close" type="button" aria-label="Close" autofocus>×</button>
  </div>
  <div class="body">
    <section aria-label="Verification">
      <p class="meta"><span class="by" hidden>By <a class="author" target="_blank" rel="noopener noreferrer"></a><span class="author-text"></span></span><span class="desc"></span></p>
      <div class="progress" part="progress" hidden>
        <div class="track" role="progressbar" aria-label="Verification progress" aria-valuemin="0" aria-valuemax="100"><div class="fill"></div></div>
        <span class="progress-text"></span>
      </div>
      <div class="result" part="result verdict" data-state="idle" aria-live="polite"><span class="verdict"><span class="verdict-icon" aria-hidden="true"></span><span class="verdict-text">Not verified yet</span></span><span class="detail"></span><span class="note" hidden></span></div>
      <div class="io-outputs" part="outputs" hidden><h3>Public outputs</h3><table class="io outputs"><thead><tr><th>Name</th><th>Shape</th><th>Values</th></tr></thead><tbody></tbody></table></div>
      <div class="actions">
        <button class="action retry" type="button">Verify now</button>
        <button class="action grant" type="button" hidden>Check anyway</button>
        <button class="action download" part="download" type="button" disabled>Download proof</button>
      </div>
      <h3 class="steps-title" hidden>Verification steps</h3>
      <ol class="steps" part="steps" aria-live="polite"></ol>
      <p class="claim" id="lv-claim">Checked here, in your browser, by a Python verifier running in WebAssembly: the files are not sent anywhere. A valid proof shows that <strong>this exact model, with these weights (<span class="claim-weights">fixed by settings.bin and its digest below</span>), on these public inputs, gave these outputs</strong>. It is not zero-knowledge: do not rely on it to keep anything secret. It says nothing about whether the model is accurate or fair.</p>
      <p class="foot">Circle-STARK proof over M31, checked by luminair's pure-Python verifier in Pyodide.</p>
    </section>
    <section aria-label="Verified details">
      <h3>Model graph</h3>
      <div class="graph" part="graph"><div class="empty">Shown once the proof is verified.</div></div>
      <h3>Details</h3>
      <dl class="facts" part="facts"></dl>
      <div class="io-inputs" hidden><h3>Public inputs</h3><table class="io inputs" part="inputs"><thead><tr><th>Name</th><th>Shape</th><th>Values</th></tr></thead><tbody></tbody></table></div>
    </section>
  </div>
</dialog>
</div>`;

function formatDuration(ms) {
  if (ms == null) return "—";
  return ms < 1000 ? `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

function formatBytes(n) {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

function formatMB(n) {
  return `${(n / 1e6).toFixed(1)} MB`;
}

function formatValues(values, limit = 24) {
  if (!Array.isArray(values)) return String(values);
  const shown = values.slice(0, limit).map((v) => String(v)); // exact: these are the attested values
  return `[${shown.join(", ")}${values.length > limit ? `, … (${values.length} values)` : ""}]`;
}

/**
 * A readable summary of an output's index map: "identity", or the first entries of the list of
 * source elements (-1 is the constant 0), with counts when it is long.
 */
export function describeIndexMap(map, limit = 8) {
  if (map === "identity") return "identity (element i reads element i)";
  if (!Array.isArray(map)) return null;
  const zeros = map.filter((v) => v === -1).length;
  const shown = map.slice(0, limit).map((v) => (v === -1 ? "0" : String(v)));
  const more = map.length > limit ? `, … (${map.length} entries)` : "";
  const zeroNote = zeros ? `; ${zeros === map.length ? "all" : zeros} constant 0${zeros === 1 ? "" : "s"}` : "";
  return `index map [${shown.join(", ")}${more}]${zeroNote}`;
}

/** "node 13 (Add output) · identity (...)" for an output's source, or null when absent. */
export function describeOutputSource(tensor) {
  const src = tensor && typeof tensor === "object" ? tensor.source : null;
  const map = tensor && typeof tensor === "object" ? describeIndexMap(tensor.index_map) : null;
  if (!src && !map) return null;
  const parts = [];
  if (src && src.node !== undefined) parts.push(`node ${src.node}${src.op ? ` (${src.op}${src.name ? ` ${src.name}` : ""})` : ""}`);
  if (map) parts.push(map);
  return parts.join(" · ");
}

/** At most this many rows of a batched tensor are shown (the rest is counted). */
export const MAX_BATCH_ROWS = 64;

/**
 * The symbol whose value is the first axis of a verified tensor ({symbol: "batch", size: 7}), or
 * null. `declared` is the tensor's shape in the settings summary (["batch", 16]): it says which
 * axis is symbolic, so a concrete axis that happens to equal the value is never taken for a batch.
 * Without it (no summary), the first axis counts when exactly one symbol has its value.
 */
export function batchAxis(tensor, symbols, declared) {
  if (!symbols || typeof symbols !== "object" || !tensor || typeof tensor !== "object") return null;
  const { shape, values } = tensor;
  if (!Array.isArray(shape) || shape.length === 0 || !Array.isArray(values)) return null;
  const size = shape[0];
  let symbol = null;
  if (Array.isArray(declared)) {
    if (typeof declared[0] === "string" && symbols[declared[0]] === size) symbol = declared[0];
  } else {
    const same = Object.keys(symbols).filter((k) => symbols[k] === size);
    if (same.length === 1) symbol = same[0];
  }
  const rowLength = shape.slice(1).reduce((a, b) => a * b, 1);
  if (symbol === null || !Number.isInteger(size) || size < 1 || values.length !== size * rowLength) return null;
  return { symbol, size, rowShape: shape.slice(1), rowLength };
}

/** The first `limit` rows of a batched tensor's values: {rows: [{index, values}], more}. */
export function batchRows(values, size, rowLength, limit = MAX_BATCH_ROWS) {
  const shown = Math.min(size, limit);
  const rows = [];
  for (let i = 0; i < shown; i++) rows.push({ index: i, values: values.slice(i * rowLength, (i + 1) * rowLength) });
  return { rows, more: size - shown };
}

/**
 * "batch = 7 (fixed by this proof; one settings.bin serves every value from 1 to 256)" for the
 * symbols a proof fixes, with their ranges from the settings summary when known; null when none.
 */
export function describeSymbols(symbols, declared) {
  const names = symbols && typeof symbols === "object" ? Object.keys(symbols) : [];
  if (!names.length) return null;
  const values = names.map((k) => `${k} = ${symbols[k]}`).join(", ");
  const ranges = (Array.isArray(declared) ? declared : []).filter((d) => d && names.includes(d.name) && d.min != null && d.max != null);
  let span = "";
  if (ranges.length === 1 && names.length === 1) span = ` from ${ranges[0].min} to ${ranges[0].max}`;
  else if (ranges.length) span = `: ${ranges.map((d) => `${d.name} ${d.min} to ${d.max}`).join(", ")}`;
  return `${values} (fixed by this proof; one settings.bin serves every value${span})`;
}

// Which weights the claim above the facts speaks of: the words in its parentheses.
const CLAIM_WEIGHTS = {
  public: "fixed by settings.bin and its digest below",
  committed: "committed: fixed by the model root that settings.bin holds, below",
};

// What each visibility means, in plain words (the modal's Weights, Inputs and Outputs facts).
// Proofs are not zero-knowledge: neither committed weights nor private inputs are written in the
// files, but no hiding is claimed (docs/statement.md).
export const VISIBILITY_NOTES = {
  weights: {
    public: "in settings.bin, under the model digest: anyone can read them",
    committed: "bound by the model root; the verifier never saw them (not hidden in the zero-knowledge sense)",
  },
  inputs: {
    public: "in the proof and shown here: the proof is about exactly these values",
    private: "the prover's: not written in proof.bin, yet bound by the proof (not hidden in the zero-knowledge sense)",
    committed: "only a digest of the values is in the proof (shown with the inputs): anyone holding them checks it with luminair verify --input",
  },
  outputs: {
    public: "in the proof and shown here, as the model computed them",
    committed: "only a digest of the values is in the proof (shown with the outputs): anyone holding them checks it with luminair verify --output",
  },
};

/**
 * The modal's visibility facts from a result's `visibility` ({weights, inputs: {name: level},
 * outputs}): [{term: "Weights" | "Inputs" | "Outputs", part, items: [{name, level, note}]}] (name
 * only for inputs); [] when the verifier did not report it (an older verifier or no verdict).
 */
export function describeVisibility(visibility) {
  if (!visibility || typeof visibility !== "object") return [];
  const item = (part, level, name = null) => ({ name, level: String(level), note: VISIBILITY_NOTES[part][level] ?? "" });
  const facts = [];
  if (visibility.weights) facts.push({ term: "Weights", part: "weights", items: [item("weights", visibility.weights)] });
  const inputs = visibility.inputs && typeof visibility.inputs === "object" ? Object.entries(visibility.inputs) : [];
  if (inputs.length) facts.push({ term: "Inputs", part: "inputs", items: inputs.map(([name, level]) => item("inputs", level, name)) });
  if (visibility.outputs) facts.push({ term: "Outputs", part: "outputs", items: [item("outputs", visibility.outputs)] });
  return facts;
}

/** Whether a result's security must be labelled as a development setting. */
export function isDevelopmentSecurity(bits, label, floor = DEV_FLOOR_BITS) {
  return (bits != null && bits < floor) || /development|not secure/i.test(label ?? "");
}

// SSR-safe: importing this module outside a browser defines a class that is never registered.
const Base = globalThis.HTMLElement ?? class {};

export class LuminairVerifyElement extends Base {
  static define(tag = "luminair-verify", registry = customElements) {
    if (!registry.get(tag)) registry.define(tag, this);
    return this;
  }

  static get observedAttributes() {
    return OBSERVED;
  }

  #root;
  #els = {};
  #proofBytes = null;
  #settingsBytes = null;
  #verified = null; // {proof, settings} bytes of the last run, for "download proof"
  #result = null;
  #error = null;
  #status = "idle";
  #runId = 0;
  #running = null;
  #steps = [];
  #observer = null;
  #autoRan = false;
  #connected = false; // set by connectedCallback (attributeChangedCallback runs first on upgrade)
  #percent = null;
  #slotted = false;
  #idleHandle = null;
  #granted = null; // a work budget the visitor granted with "Check anyway" (for the current files)
  #creep = null; // the timer that moves the bar through a long verifier step

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: "open" });
    this.#root.adoptedStyleSheets = [getSheet()];
    this.#root.innerHTML = TEMPLATE; // static markup only; every dynamic value goes in via textContent
    const $ = (s) => this.#root.querySelector(s);
    this.#els = {
      wrap: $(".root"),
      button: $(".trigger"),
      icon: $(".trigger .icon"),
      label: $(".trigger .label"),
      tag: $(".trigger .tag"),
      slot: $(".trigger slot"),
      announce: $(".announce"),
      dialog: $("dialog"),
      title: $("#lv-title"),
      pill: $(".pill"),
      close: $(".close"),
      by: $(".by"),
      author: $("a.author"),
      authorText: $(".author-text"),
      desc: $(".desc"),
      progress: $(".progress"),
      progressTrack: $(".progress .track"),
      progressFill: $(".progress .fill"),
      progressText: $(".progress-text"),
      steps: $(".steps"),
      stepsTitle: $(".steps-title"),
      result: $(".result"),
      verdictIcon: $(".result .verdict-icon"),
      verdict: $(".result .verdict-text"),
      detail: $(".result .detail"),
      note: $(".result .note"),
      download: $(".download"),
      retry: $(".retry"),
      grant: $(".grant"),
      graph: $(".graph"),
      facts: $("dl.facts"),
      claimWeights: $(".claim-weights"),
      outputs: $(".io-outputs"),
      outputsBody: $("table.outputs tbody"),
      inputs: $(".io-inputs"),
      inputsBody: $("table.inputs tbody"),
    };
    this.#els.button.addEventListener("click", () => this.#onTrigger());
    this.#els.button.addEventListener("pointerenter", () => this.#preloadOn("hover"));
    this.#els.button.addEventListener("focus", () => this.#preloadOn("hover"));
    this.#els.slot.addEventListener("slotchange", () => {
      this.#slotted = this.#els.slot.assignedNodes({ flatten: true }).some((n) => n.nodeType === 1 || n.textContent.trim());
      this.#render();
    });
    this.#els.close.addEventListener("click", () => this.close());
    this.#els.dialog.addEventListener("close", () => this.#els.button.focus());
    this.#els.dialog.addEventListener("click", (e) => {
      if (e.target === this.#els.dialog) this.close(); // a click on the backdrop
    });
    this.#els.download.addEventListener("click", () => this.downloadProof());
    this.#els.retry.addEventListener("click", () => this.verify().catch(() => {}));
    // Over the work budget: the visitor may spend the time the files declare, for this run only.
    this.#els.grant.addEventListener("click", () => {
      this.#granted = this.result?.workNeeded ?? null;
      this.verify().catch(() => {});
    });
  }

  connectedCallback() {
    // Properties set before the element was upgraded live on the instance: re-apply them.
    for (const prop of ["proofBytes", "settingsBytes"]) {
      if (Object.prototype.hasOwnProperty.call(this, prop)) {
        const v = this[prop];
        delete this[prop];
        this[prop] = v;
      }
    }
    this.#connected = true;
    if (this.hasAttribute("cache")) configure({ cache: true });
    this.#render();
    this.#watchTheme();
    this.#setStatus(this.#status);
    this.#schedulePreload();
    if (this.mode === "badge" && !this.#autoRan) {
      this.#autoRan = true;
      queueMicrotask(() => this.isConnected && this.verify().catch(() => {}));
    }
  }

  disconnectedCallback() {
    this.#connected = false;
    this.#observer?.disconnect();
    this.#observer = null;
    this.#cancelIdle();
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return;
    if (name === "theme") this.#watchTheme();
    if (name === "cache" && newValue !== null) configure({ cache: true });
    if (name === "preload" && this.#connected) this.#schedulePreload();
    if ((name === "proof" || name === "settings") && this.#connected) {
      this.#sourcesChanged();
      return;
    }
    this.#render();
  }

  // --- properties -------------------------------------------------------------------------------

  get proof() { return this.getAttribute("proof"); }
  set proof(v) { this.#setAttr("proof", v); }
  get settings() { return this.getAttribute("settings"); }
  set settings(v) { this.#setAttr("settings", v); }
  get buttonText() { return this.getAttribute("button-text") ?? DEFAULTS.buttonText; }
  set buttonText(v) { this.#setAttr("button-text", v); }
  get labelText() { return this.getAttribute("label-text") ?? DEFAULTS.labelText; }
  set labelText(v) { this.#setAttr("label-text", v); }
  get author() { return this.getAttribute("author"); }
  set author(v) { this.#setAttr("author", v); }
  get authorUrl() { return this.getAttribute("author-url"); }
  set authorUrl(v) { this.#setAttr("author-url", v); }
  get modelDescription() { return this.getAttribute("model-description"); }
  set modelDescription(v) { this.#setAttr("model-description", v); }
  get theme() {
    const t = this.getAttribute("theme");
    return t === "light" || t === "dark" ? t : "auto";
  }
  set theme(v) { this.#setAttr("theme", v); }
  /**
   * When to start the verifier before a click: "idle" (default: once the page has loaded and the
   * browser is idle, so that a click seconds later finds it running), "hover" (pointer over or
   * focus on the button), "eager" (at once; a bare `preload` attribute means eager) or "none" (on
   * click). Pointer or focus on the button always starts it, except with "none".
   */
  get preload() {
    if (!this.hasAttribute("preload")) return "idle";
    const v = (this.getAttribute("preload") ?? "").trim().toLowerCase();
    return v === "" || v === "true" || v === "eager" ? "eager" : ["idle", "hover", "none"].includes(v) ? v : "idle";
  }
  set preload(v) {
    if (v === true) this.setAttribute("preload", "eager");
    else if (v === false || v == null) this.removeAttribute("preload");
    else this.setAttribute("preload", String(v));
  }
  /** Keep the runtime files in Cache Storage across visits (opt-in, for the whole page). */
  get cache() { return this.hasAttribute("cache"); }
  set cache(v) { this.toggleAttribute("cache", Boolean(v)); }
  get mode() { return this.getAttribute("mode") === "badge" ? "badge" : "button"; }
  set mode(v) { this.#setAttr("mode", v); }
  get variant() { return this.getAttribute("variant") ?? "default"; }
  set variant(v) { this.#setAttr("variant", v); }
  /** The whole path from click to verdict: downloads, start-up and verification. Default 120 s. */
  get timeoutMs() {
    const v = Number(this.getAttribute("timeout-ms"));
    return this.hasAttribute("timeout-ms") && Number.isFinite(v) && v > 0 ? v : DEFAULTS.timeoutMs;
  }
  set timeoutMs(v) { this.#setAttr("timeout-ms", v == null ? null : String(v)); }
  get minSecurityBits() {
    const v = Number(this.getAttribute("min-security-bits"));
    return this.hasAttribute("min-security-bits") && Number.isInteger(v) && v >= 0 ? v : undefined;
  }
  set minSecurityBits(v) { this.#setAttr("min-security-bits", v == null ? null : String(v)); }
  /** The verifier's work budget (units of about 1 us); unset: what the files' bytes back, at most
   * about 1 s. Set it to check a model larger than that (a large convolution, say). */
  get maxWork() {
    const v = Number(this.getAttribute("max-work"));
    return this.hasAttribute("max-work") && Number.isInteger(v) && v > 0 ? v : undefined;
  }
  set maxWork(v) { this.#setAttr("max-work", v == null ? null : String(v)); }

  /** proof.bin as bytes; takes precedence over the `proof` URL. */
  get proofBytes() { return this.#proofBytes; }
  set proofBytes(v) {
    this.#proofBytes = v == null ? null : new Uint8Array(v);
    if (this.#connected) this.#sourcesChanged();
  }
  /** settings.bin as bytes; takes precedence over the `settings` URL. */
  get settingsBytes() { return this.#settingsBytes; }
  set settingsBytes(v) {
    this.#settingsBytes = v == null ? null : new Uint8Array(v);
    if (this.#connected) this.#sourcesChanged();
  }
  /** The last verification result (see luminair-web's VerifyResult), or null. */
  get result() { return this.#result; }
  /** The last error ({kind, message, check, verdict}) when the verdict is rejected or unavailable, else null. */
  get error() { return this.#error; }
  /** idle | loading | verifying | verified | development | rejected | unavailable */
  get status() { return this.#status; }
  /** The verdict: verified | development | rejected | unavailable, or null before one is reached. */
  get verdict() { return VERDICTS.has(this.#status) ? this.#status : null; }

  // --- public methods ---------------------------------------------------------------------------

  /** Open the modal (without starting a verification: its "Verify now" button starts one). */
  open() {
    if (!this.#els.dialog.open) this.#els.dialog.showModal();
  }

  /** Close the modal; focus returns to the button. The verdict stays on the button. */
  close() {
    if (this.#els.dialog.open) this.#els.dialog.close();
  }

  /** Run a verification now; resolves with the result (rejects with LuminairVerificationError). */
  verify() {
    const run = this.#run();
    this.#running = run;
    run.finally(() => {
      if (this.#running === run) this.#running = null;
    }).catch(() => {});
    return run;
  }

  /** Save proof.bin and settings.bin (as luminair-proof.zip) exactly as they were verified. */
  downloadProof() {
    if (!this.#verified) return false;
    const zip = makeZip([
      { name: "proof.bin", data: this.#verified.proof },
      { name: "settings.bin", data: this.#verified.settings },
    ]);
    const url = URL.createObjectURL(new Blob([zip], { type: "application/zip" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = "luminair-proof.zip";
    this.#root.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    return true;
  }

  // --- internals --------------------------------------------------------------------------------

  #setAttr(name, v) {
    if (v == null || v === false) this.removeAttribute(name);
    else this.setAttribute(name, String(v));
  }

  #warmUp() {
    init().catch(() => {}); // a start-up failure is reported when a verification needs the worker
  }

  #preloadOn(trigger) {
    if (this.preload === trigger || (trigger === "hover" && this.preload !== "none")) this.#warmUp();
  }

  #cancelIdle() {
    if (this.#idleHandle === null) return;
    if (globalThis.cancelIdleCallback) cancelIdleCallback(this.#idleHandle);
    clearTimeout(this.#idleHandle);
    this.#idleHandle = null;
  }

  #schedulePreload() {
    this.#cancelIdle();
    const when = this.preload;
    if (when === "eager") this.#warmUp();
    else if (when === "idle") {
      const go = () => {
        const run = () => {
          this.#idleHandle = null;
          if (this.isConnected) this.#warmUp();
        };
        this.#idleHandle = globalThis.requestIdleCallback ? requestIdleCallback(run, { timeout: 3000 }) : setTimeout(run, 300);
      };
      if (document.readyState === "complete") go();
      else window.addEventListener("load", go, { once: true });
    }
  }

  #onTrigger() {
    this.open();
    if (this.#running) return;
    // A reached verdict is shown again; "not checked" (or nothing yet) starts a verification.
    if (this.#status === "idle" || this.#status === "unavailable") this.verify().catch(() => {});
  }

  #sourcesChanged() {
    this.#runId += 1; // any run in flight is now stale
    this.#running = null;
    this.#result = null;
    this.#error = null;
    this.#verified = null;
    this.#percent = null;
    this.#granted = null;
    this.#setStatus("idle");
    this.#resetPanels();
    if (this.mode === "badge") this.verify().catch(() => {});
  }

  #watchTheme() {
    const wrap = this.#els.wrap;
    const apply = () => {
      const t = this.theme;
      const root = document.documentElement;
      const dark = t === "dark" || (t === "auto" && root.classList.contains("dark"));
      const light = !dark && (t === "light" || (t === "auto" && root.classList.contains("light")));
      wrap.classList.toggle("dark", dark);
      wrap.classList.toggle("light", light);
    };
    apply();
    if (!this.#observer && this.isConnected) {
      this.#observer = new MutationObserver(apply);
      this.#observer.observe(document.documentElement, { attributes: true, attributeFilter: ["class"] });
    }
  }

  #render() {
    const e = this.#els;
    e.title.textContent = this.getAttribute("title") ?? DEFAULTS.title;
    const author = this.author;
    e.by.hidden = !author;
    const url = this.authorUrl;
    const safeUrl = url && /^(https?:|\/|\.\/|\.\.\/)/i.test(url) ? url : null;
    e.author.hidden = !safeUrl;
    e.authorText.hidden = Boolean(safeUrl);
    e.author.textContent = author ?? "";
    e.authorText.textContent = author ?? "";
    if (safeUrl) e.author.href = safeUrl;
    else e.author.removeAttribute("href");
    const desc = this.modelDescription;
    e.desc.textContent = desc ? `${author ? " · " : ""}${desc}` : "";
    const badge = this.mode === "badge";
    const s = this.#status;
    e.button.className = `trigger${badge ? " badge" : ""} variant-${["secondary", "destructive", "outline"].includes(this.variant) ? this.variant : "default"}`;
    e.button.setAttribute("part", badge ? "button trigger badge" : "button trigger");
    e.button.dataset.state = s;
    const busy = s === "loading" || s === "verifying";
    const pct = busy && this.#percent !== null ? ` ${this.#percent}%` : "";
    let words;
    if (busy) words = `VERIFYING…${pct}`;
    else if (s === "idle") words = badge ? "VERIFYING…" : this.buttonText;
    else if (s === "verified") words = badge ? this.labelText : STATES.verified.button;
    else words = STATES[s].button;
    e.label.textContent = words;
    e.icon.textContent = STATES[s].icon;
    // A custom (slotted) label stays; the verdict is added next to it.
    const showTag = this.#slotted && (busy || VERDICTS.has(s));
    e.tag.hidden = !showTag;
    e.tag.textContent = showTag ? `· ${busy ? `verifying…${pct}` : STATES[s].pill}` : "";
    e.button.setAttribute("aria-busy", String(busy));
    e.retry.hidden = busy;
    if (e.result.dataset.state === "idle") e.detail.textContent = s === "idle" ? "Verify now checks the proof here, in your browser." : "";
    e.retry.textContent = s === "idle" ? "Verify now" : "Verify again";
    if (busy) e.grant.hidden = true;
    e.pill.textContent = STATES[s].pill;
    e.pill.dataset.state = s;
  }

  #setStatus(status) {
    this.#status = status;
    if (this.getAttribute("status") !== status) this.setAttribute("status", status);
    this.#render();
  }

  #emit(name, detail) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }

  /** A verdict reached while the dialog is closed is announced (and shown on the button). */
  #announce(status, extra) {
    const e = this.#els;
    if (e.dialog.open) return;
    const title = this.getAttribute("title") ?? DEFAULTS.title;
    e.announce.textContent = "";
    // a fresh text node so that the same words are announced again on a later verdict
    queueMicrotask(() => {
      e.announce.textContent = `${title}: ${STATES[status].say}${extra ? ` (${extra})` : ""}.`;
    });
  }

  #resetPanels() {
    const e = this.#els;
    this.#steps = [];
    e.steps.replaceChildren();
    e.stepsTitle.hidden = true;
    e.result.dataset.state = "idle";
    delete e.result.dataset.kind;
    e.verdictIcon.textContent = "";
    e.verdict.textContent = "Not verified yet";
    e.detail.textContent = "";
    e.note.hidden = true;
    e.note.textContent = "";
    e.download.disabled = true;
    e.grant.hidden = true;
    e.facts.replaceChildren();
    e.claimWeights.textContent = CLAIM_WEIGHTS.public;
    e.outputs.hidden = true;
    e.inputs.hidden = true;
    e.progress.hidden = true;
    const empty = document.createElement("div");
    empty.className = "empty";
    empty.textContent = "Shown once the proof is verified.";
    e.graph.replaceChildren(empty);
  }

  #setProgress(fraction, text) {
    const e = this.#els;
    const f = Math.max(0, Math.min(1, fraction));
    const pct = Math.floor(f * 100);
    e.progress.hidden = false;
    e.progressFill.style.transform = `scaleX(${f.toFixed(3)})`;
    e.progressTrack.setAttribute("aria-valuenow", String(pct));
    e.progressTrack.setAttribute("aria-valuetext", text);
    e.progressText.textContent = text;
    if (pct !== this.#percent) {
      this.#percent = pct;
      this.#render();
    }
  }

  #addStep(key, label) {
    const li = document.createElement("li");
    li.className = "step";
    li.dataset.step = key;
    const mark = document.createElement("span");
    mark.className = "mark";
    mark.setAttribute("aria-hidden", "true");
    const text = document.createElement("span");
    text.className = "text";
    text.textContent = label;
    li.append(mark, text);
    this.#els.steps.append(li);
    this.#els.stepsTitle.hidden = false;
    const step = { key, li, mark, text, label, note: null };
    this.#steps.push(step);
    this.#setStep(key, "pending");
    return step;
  }

  #setStep(key, status, note) {
    const step = this.#steps.find((s) => s.key === key);
    if (!step) return;
    if (note !== undefined) step.note = note;
    step.li.dataset.status = status;
    step.mark.textContent = MARKS[status];
    step.text.textContent = step.note ? `${step.label} — ${step.note}` : step.label;
    step.li.setAttribute("aria-label", `${step.label}: ${status.replace("-", " ")}`);
  }

  #failInProgress(mark = "error") {
    for (const s of this.#steps) {
      if (s.li.dataset.status === "in-progress") this.#setStep(s.key, mark);
      else if (mark === "skipped" && s.li.dataset.status === "pending") this.#setStep(s.key, "skipped");
    }
  }

  #sourceUrl(name) {
    const v = this.getAttribute(name);
    if (!v) return null;
    return new URL(v, this.ownerDocument?.baseURI ?? document.baseURI).href;
  }

  async #loadFiles(signal, onBytes) {
    const got = { proof: 0, settings: 0 };
    const get = async (name, bytes) => {
      if (bytes) return new Uint8Array(bytes);
      const url = this.#sourceUrl(name);
      if (!url) throw new LuminairVerificationError("not-found", `no ${name} file: set the ${name} attribute or the ${name}Bytes property`, { file: name });
      return fetchBinary(url, {
        file: name,
        signal,
        onProgress: ({ loaded }) => {
          got[name] = loaded;
          onBytes(got.proof + got.settings);
        },
      });
    };
    return Promise.all([get("proof", this.#proofBytes), get("settings", this.#settingsBytes)]);
  }

  async #run() {
    const runId = ++this.#runId;
    const stale = () => runId !== this.#runId;
    const t0 = performance.now();
    this.#result = null;
    this.#error = null;
    this.#percent = null;
    this.#resetPanels();
    this.#setStatus("loading");
    this.#emit("luminair-verify-start", { proof: this.#proofBytes ? null : this.#sourceUrl("proof"), settings: this.#settingsBytes ? null : this.#sourceUrl("settings") });
    this.#addStep("files", "Download proof and settings");
    this.#addStep("start", "Start the verifier (Pyodide)");
    // Progress: files 0-5 %, start-up 5-80 % (bytes, then Python), the verifier's steps 80-100 %.
    this.#setProgress(0, "Downloading the proof and settings…");
    const deadline = deadlineSignal(this.timeoutMs, null, "the verification");
    let verdict = null;
    let info = null;
    try {
      this.#setStep("files", "in-progress");
      // The verifier starts while the files download (both need the network; the start is longer).
      let filesDone = false;
      let lastBoot = null;
      const showBoot = ({ phase, loaded, total }) => {
        if (stale() || !total) return;
        if (phase === "download") {
          const text = `Downloading the verifier: ${formatMB(loaded)} of ${formatMB(total)}`;
          this.#setStep("start", "in-progress", `${formatMB(loaded)} of ${formatMB(total)}`);
          this.#setProgress(0.05 + 0.65 * (loaded / total), text);
        } else if (phase === "start") {
          this.#setStep("start", "in-progress", "starting Python");
          this.#setProgress(0.72, "Starting Python…");
        }
      };
      const booting = init({
        signal: deadline.signal,
        onProgress: (p) => (filesDone ? showBoot(p) : (lastBoot = p)),
      });
      booting.catch(() => {}); // awaited below, once the files are in
      const [proof, settings] = await this.#loadFiles(deadline.signal, (n) => {
        if (!stale()) this.#setProgress(0.04, `Downloading the proof and settings: ${formatBytes(n)}`);
      });
      if (stale()) return this.#staleResult();
      this.#verified = { proof, settings };
      this.#els.download.disabled = false;
      const bad = checkFiles(proof, settings);
      if (bad) throw bad;
      this.#setStep("files", "completed", `${formatBytes(proof.length)} + ${formatBytes(settings.length)}`);
      this.#setStep("start", "in-progress");
      this.#setProgress(0.05, "Starting the verifier…");
      filesDone = true;
      if (lastBoot) showBoot(lastBoot);
      info = await booting;
      if (stale()) return this.#staleResult();
      const cachedNote = info.cachedFiles ? `, ${info.cachedFiles} file${info.cachedFiles === 1 ? "" : "s"} from the cache` : "";
      this.#setStep("start", "completed", `Pyodide ${info.pyodideVersion}, verifier ${info.verifierVersion}${cachedNote}`);
      this.#setProgress(0.8, "Verifying…");
      const labels = getSteps() ?? info.steps ?? [];
      labels.forEach((label, i) => this.#addStep(`v${i + 1}`, label));
      this.#setStatus("verifying");
      // The verifier's steps share 80-100 %, each by the work the files declare for it (once the
      // verifier has estimated it, in step 1); within a long step the bar moves toward its end at
      // the pace that work predicts, and stops short of it.
      let weights = null;
      let units = null;
      verdict = await verifyInWorker(proof, settings, {
        timeoutMs: Infinity, // the deadline covers the whole path
        signal: deadline.signal,
        minSecurityBits: this.minSecurityBits,
        maxWork: this.#granted ?? this.maxWork,
        onWork: (work) => {
          weights = work.weights;
          units = work.units;
        },
        onProgress: ({ step, of, label }) => {
          if (stale()) return;
          for (let i = 1; i < step; i++) this.#setStep(`v${i}`, "completed");
          if (!this.#steps.some((s) => s.key === `v${step}`)) this.#addStep(`v${step}`, label);
          this.#setStep(`v${step}`, "in-progress");
          const share = (i) => (weights ? weights[i - 1] : 1 / of);
          let done = 0;
          for (let i = 1; i < step; i++) done += share(i);
          const text = `Step ${step} of ${of}: ${label}`;
          this.#setProgress(0.8 + 0.2 * done, text);
          this.#creepThrough(0.8 + 0.2 * done, 0.2 * share(step), units ? units * share(step) * PYODIDE_MS_PER_UNIT : 0, text, stale);
          this.#emit("luminair-verify-progress", { step, of, label });
        },
      });
      this.#stopCreep();
      if (stale()) return this.#staleResult();
    } catch (err) {
      this.#stopCreep();
      if (stale()) return this.#staleResult();
      const e = err instanceof LuminairVerificationError ? err : new LuminairVerificationError("internal", err?.message ?? String(err));
      this.#failInProgress("error");
      this.#failInProgress("skipped");
      this.#showError(e.kind, e.message, null, performance.now() - t0, null, e);
      throw e;
    } finally {
      deadline.done();
    }
    const totalTimeMs = performance.now() - t0;
    this.#result = { ...verdict, totalTimeMs };
    if (verdict.success) {
      for (const s of this.#steps) this.#setStep(s.key, "completed");
      const status = verdict.development ? "development" : "verified";
      this.#showSuccess(this.#result, info ?? getInfo());
      this.#setStatus(status);
      this.#announce(status, status === "development" ? `${verdict.securityBits} bits` : null);
      this.#emit("luminair-verify-success", {
        verdict: status,
        outputs: verdict.outputs,
        inputs: verdict.inputs,
        symbols: verdict.symbols ?? null,
        modelDigest: verdict.modelDigest,
        visibility: verdict.visibility ?? null,
        modelRoot: verdict.modelRoot ?? null,
        modelTitle: verdict.modelTitle,
        modelDescription: verdict.modelDescription,
        securityBits: verdict.securityBits,
        securityLabel: verdict.securityLabel,
        development: verdict.development,
        statement: verdict.statement,
        verificationTimeMs: verdict.verificationTimeMs,
        totalTimeMs,
        result: this.#result,
      });
      return this.#result;
    }
    this.#failInProgress(verdict.kind === "not checked" ? "skipped" : "error");
    this.#failInProgress("skipped");
    // A malformed file is refused (rejected); files over the work budget, a version this verifier
    // cannot read, or a bug in the verifier checked nothing (unavailable).
    const kind = verdict.kind === "not checked"
      ? "budget"
      : { "malformed file": "format", "unsupported version": "version", "internal error": "internal" }[verdict.check] ?? "rejected";
    this.#showError(kind, verdict.error_message, verdict.check, totalTimeMs, verdict);
    return this.#result;
  }

  /** Move the bar from `from` toward `from + span` over about `expectedMs`, never reaching the end. */
  #creepThrough(from, span, expectedMs, text, stale) {
    this.#stopCreep();
    if (!(expectedMs > 300) || span <= 0) return;
    const t0 = performance.now();
    this.#creep = setInterval(() => {
      if (stale()) return this.#stopCreep();
      const f = 1 - Math.exp(-(performance.now() - t0) / expectedMs);
      this.#setProgress(from + span * Math.min(0.95, f), text);
    }, 250);
  }

  #stopCreep() {
    if (this.#creep !== null) clearInterval(this.#creep);
    this.#creep = null;
  }

  #staleResult() {
    return this.#result;
  }

  #showError(kind, message, check, totalTimeMs, verdict = null, err = null) {
    const e = this.#els;
    const status = verdictForKind(kind);
    this.#error = { kind, message, check: check ?? null, verdict: status, url: err?.url ?? null };
    const floor = check === "config below floor" ? floorAdvice(this.#settingsConfig(), verdict?.defaultMinSecurityBits ?? DEV_FLOOR_BITS) : null;
    let headline = kind === "rejected" && check ? `Verification failed: ${check} check` : HEADLINES[kind] ?? "Error";
    if (floor) headline = "Not accepted: a development proof, below the security floor";
    e.progress.hidden = true;
    e.result.dataset.state = status;
    e.result.dataset.kind = kind;
    e.verdictIcon.textContent = STATES[status].icon;
    e.verdict.textContent = headline;
    e.detail.textContent = floor ?? message ?? "";
    e.note.hidden = false;
    e.note.textContent = kind === "budget" ? budgetAdvice(verdict?.workNeeded ?? null)
      : status === "unavailable" ? NOT_CHECKED : "The proof was not accepted: nothing it claims is proven.";
    e.grant.hidden = !(kind === "budget" && verdict?.workNeeded != null);
    if (!e.grant.hidden) e.grant.textContent = `Check anyway (about ${Math.max(1, Math.round((verdict.workNeeded * PYODIDE_MS_PER_UNIT) / 1000))} s)`;
    this.#fact("Outcome", status === "unavailable" ? "Not checked — no verdict: this says nothing about the proof." : "Rejected — the proof was not accepted: nothing is proven.");
    if (floor) this.#fact("Verifier's message", message ?? "", "mono");
    if (kind === "budget" && verdict?.workNeeded != null) this.#fact("Work budget needed", `max-work="${verdict.workNeeded}"`, "mono");
    if (err?.url) this.#fact("At fault", err.url, "mono");
    // the model digest read from settings.bin (the model's identity), even when the proof failed
    if (verdict?.modelDigest) this.#fact("Model digest", verdict.modelDigest, "mono");
    this.#fact("Time", formatDuration(totalTimeMs));
    this.#setStatus(status);
    this.#announce(status, headline);
    this.#emit("luminair-verify-error", { kind, verdict: status, message, check: check ?? null, url: err?.url ?? null, result: verdict ? this.#result : null });
  }

  /** The configuration of the settings being verified (read without Python), or null. */
  #settingsConfig() {
    try {
      return this.#verified ? readSettingsInfo(this.#verified.settings).config : null;
    } catch {
      return null;
    }
  }

  #fact(term, value, cls) {
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    if (cls) dd.className = cls;
    if (value instanceof Node) dd.append(value);
    else dd.textContent = value;
    this.#els.facts.append(dt, dd);
    return dd;
  }

  /**
   * `symbols`: the values the proof fixes ({batch: 7}) and `declared`: each tensor's shape in the
   * settings summary, by name. A tensor whose first axis is a symbol gets a row per element below it.
   */
  #fillTable(wrap, body, tensors, summarize, symbols = null, declared = new Map()) {
    body.replaceChildren();
    const entries = tensors ? Object.entries(tensors) : [];
    wrap.hidden = entries.length === 0;
    for (const [name, t] of entries) {
      const tr = document.createElement("tr");
      const values = t && typeof t === "object" && "values" in t ? t.values : t;
      const shape = t && typeof t === "object" && Array.isArray(t.shape) ? `[${t.shape.join("×")}]` : "";
      const batch = batchAxis(t, symbols, declared.get(name));
      const shown = t && t.committed  // a committed input or output: its digest, no values
        ? { text: `committed · digest ${t.digest}`, full: null }
        : batch
        ? { text: `${batch.size} row${batch.size === 1 ? "" : "s"} below, one per ${batch.symbol} element`, full: null }
        : summarize ? summarizeOutput(t) : { text: formatValues(values), full: null };
      for (const [text, cls, label] of [[name, "", "Name"], [shape, "", "Shape"], [shown.text, batch ? "values batched" : "values", "Values"]]) {
        const td = document.createElement("td");
        if (cls) td.className = cls;
        td.dataset.label = label;
        td.textContent = text;
        if (label === "Values" && shown.full) {
          const more = document.createElement("details");
          more.className = "all-values";
          const sum = document.createElement("summary");
          sum.textContent = `all ${values.length} values`;
          const list = document.createElement("span");
          list.className = "values-list";
          list.textContent = shown.full;
          more.append(sum, list);
          td.append(more);
        }
        tr.append(td);
      }
      body.append(tr);
      if (batch) body.append(this.#batchTable(name, values, batch, 3));
    }
  }

  /** A row spanning the table that holds one row per batch element (index, then its values). */
  #batchTable(name, values, { symbol, size, rowShape, rowLength }, columns) {
    const tr = document.createElement("tr");
    tr.className = "batch-rows";
    const cell = document.createElement("td");
    cell.colSpan = columns;
    const table = document.createElement("table");
    table.className = "batch";
    table.dataset.name = name;
    const caption = document.createElement("caption");
    caption.className = "sr-only";
    caption.textContent = `${name}, one row per ${symbol} element (${symbol} = ${size})`;
    const head = document.createElement("thead");
    const hr = document.createElement("tr");
    for (const text of [symbol, `Values${rowShape.length ? ` [${rowShape.join("×")}]` : ""}`]) {
      const h = document.createElement("th");
      h.scope = "col";
      h.textContent = text;
      hr.append(h);
    }
    head.append(hr);
    const tbody = document.createElement("tbody");
    const { rows, more } = batchRows(values, size, rowLength);
    for (const row of rows) {
      const r = document.createElement("tr");
      const index = document.createElement("th");
      index.scope = "row";
      index.dataset.label = symbol; // the narrow layout has no header row: "batch 3"
      index.textContent = String(row.index);
      const td = document.createElement("td");
      td.className = "values";
      td.dataset.label = "Values";
      td.textContent = rowShape.length ? formatValues(row.values) : String(row.values[0]);
      r.append(index, td);
      tbody.append(r);
    }
    if (more > 0) {
      const r = document.createElement("tr");
      r.className = "more";
      const td = document.createElement("td");
      td.colSpan = 2;
      td.textContent = `… ${more} more (${symbol} ${rows.length} to ${size - 1} not shown; every value is in the verified result)`;
      r.append(td);
      tbody.append(r);
    }
    table.append(caption, head, tbody);
    cell.append(table);
    tr.append(cell);
    return tr;
  }

  /** Weights, Model root (committed weights), Inputs and Outputs: who saw what, in plain words. */
  #showVisibility(visibility, modelRoot) {
    for (const { term, part, items } of describeVisibility(visibility)) {
      const box = document.createElement("span");
      box.className = "visibility";
      for (const { name, level, note } of items) {
        const line = document.createElement("span");
        line.className = "vis-item";
        line.dataset.level = level;
        if (name !== null) {
          const n = document.createElement("span");
          n.className = "vis-name mono";
          n.textContent = name;
          line.append(n, " ");
        }
        const tag = document.createElement("span");
        tag.className = "vis-level";
        tag.textContent = level;
        line.append(tag);
        if (note) {
          const words = document.createElement("span");
          words.className = "vis-note";
          words.textContent = ` — ${note}`;
          line.append(words);
        }
        box.append(line);
      }
      const dd = this.#fact(term, box, "vis");
      dd.dataset.part = part;
      if (part === "weights" && modelRoot) {
        this.#modelRoot(modelRoot);
        modelRoot = null;
      }
    }
    if (modelRoot) this.#modelRoot(modelRoot);
  }

  /** The committed weights' model root: hex (monospace, like the digest) and how to check it. */
  #modelRoot(hex) {
    const box = document.createElement("span");
    const value = document.createElement("span");
    value.className = "mono digest";
    value.textContent = hex;
    const note = document.createElement("span");
    note.className = "label-note";
    note.textContent = " (luminair audit MODEL SETTINGS recomputes it from the weights)";
    box.append(value, note);
    this.#fact("Model root", box, "model-root");
  }

  #showSuccess(r, info) {
    const e = this.#els;
    const dev = r.development || isDevelopmentSecurity(r.securityBits, r.securityLabel, r.defaultMinSecurityBits ?? DEV_FLOOR_BITS);
    const status = dev ? "development" : "verified";
    const floor = r.defaultMinSecurityBits ?? DEV_FLOOR_BITS;
    e.progress.hidden = true;
    e.result.dataset.state = status;
    e.result.dataset.kind = status;
    e.verdictIcon.textContent = STATES[status].icon;
    e.verdict.textContent = dev ? "Development proof" : "Verified";
    const digestShort = r.modelDigest ? `${r.modelDigest.slice(0, 16)}…` : "";
    e.detail.textContent = `Running the model with digest ${digestShort} on the public inputs gave the public outputs shown. Checked in ${formatDuration(r.verificationTimeMs)}.`;
    e.note.hidden = !dev;
    e.note.textContent = dev
      ? `The proof checks out, but only at ${r.securityBits} bits of conjectured security, below the default floor of ${floor} bits: it was accepted because the floor was lowered (min-security-bits). Anyone could forge such a proof with modest computing power: treat it as a test, not as evidence.`
      : "";
    if (r.statement) this.#fact("Statement", r.statement);
    const symbols = describeSymbols(r.symbols, r.settingsSummary?.symbols);
    if (symbols) this.#fact("Symbols", symbols, "symbols");
    const t = r.training;
    if (t) {  // a training step: the verifier recomputed the rounding noise and the digests
      this.#fact("Training step", `step ${t.step} (seed ${t.seed}), ${t.params.length} parameter tensors`);
      this.#fact("Loss", `${t.loss}`);
      this.#fact("Weights before", t.old_weights_digest, "mono digest");
      this.#fact("Weights after", t.new_weights_digest, "mono digest");
      if (t.private_batch_inputs.length) this.#fact("Private batch", t.private_batch_inputs.join(", "));
    }
    this.#fact("Model digest", r.modelDigest ?? "—", "mono digest");
    this.#showVisibility(r.visibility, r.modelRoot);
    e.claimWeights.textContent = r.visibility?.weights === "committed" ? CLAIM_WEIGHTS.committed : CLAIM_WEIGHTS.public;
    const title = r.modelTitle ?? r.settingsSummary?.title ?? null;
    const description = r.modelDescription ?? null;
    if (title || description) {
      const span = document.createElement("span");
      span.className = "publisher-label";
      span.textContent = [title, description].filter(Boolean).join(" — ");
      const note = document.createElement("span");
      note.className = "label-note";
      note.textContent = " (named by whoever published settings.bin; not part of what is proven)";
      span.append(note);
      this.#fact("Publisher's label", span);
    }
    const sec = document.createElement("span");
    sec.className = dev ? "security dev" : "security";
    sec.textContent = `${dev ? "⚠ " : ""}${r.securityBits} bits${r.securityLabel ? ` (${r.securityLabel})` : ""}${dev ? ` — DEVELOPMENT PROOF: below the ${floor}-bit default floor, not secure` : ""}`;
    this.#fact("Security", sec);
    this.#fact("Verification time", `${formatDuration(r.verificationTimeMs)} in Pyodide (${formatDuration(r.totalTimeMs)} from click, with downloads and start-up)`);
    if (this.#verified) this.#fact("Proof size", formatBytes(this.#verified.proof.length));
    if (info) {
      const cached = info.cachedFiles ? `; ${info.cachedFiles} runtime file${info.cachedFiles === 1 ? "" : "s"} from the cache` : "";
      this.#fact("Runtime", `Pyodide ${info.pyodideVersion}, verifier ${info.verifierVersion}; started in ${formatDuration(info.bootMs)}${cached}`);
      if (!info.snapshot && !info.cachedFiles) suggestCache(this.#fact("Repeat visits", CACHE_TIP));
      if (info.warnings?.length) this.#fact("Hosting", info.warnings.join("; "));
    }
    const summary = r.settingsSummary;
    // the numeric format the verifier read from settings.bin: a scale per tensor, counted
    const numbers = summary?.numeric_format?.description;
    if (typeof numbers === "string" && numbers) this.#fact("Numbers", numbers);
    const declared = (list) => new Map((Array.isArray(list) ? list : []).filter((d) => d && typeof d.name === "string").map((d) => [d.name, d.shape]));
    this.#fillTable(e.outputs, e.outputsBody, r.outputs, true, r.symbols, declared(summary?.outputs));
    this.#fillTable(e.inputs, e.inputsBody, r.inputs, false, r.symbols, declared(summary?.inputs));
    // the node and index map each output reads (when the verifier reports them), under Details
    const sources = Object.entries(r.outputs ?? {}).map(([name, t]) => [name, describeOutputSource(t)]).filter(([, d]) => d);
    if (sources.length) {
      const list = document.createElement("span");
      list.className = "sources";
      list.textContent = sources.map(([name, d]) => `${name}: ${d}`).join("; ");
      this.#fact("Outputs read from", list);
    }
    if (summary?.graph && Array.isArray(summary.graph.nodes) && summary.graph.nodes.length) {
      e.graph.replaceChildren(createGraphView(document, summary));
    } else {
      const empty = document.createElement("div");
      empty.className = "empty";
      empty.textContent = "This settings file has no graph to draw.";
      e.graph.replaceChildren(empty);
    }
  }
}
