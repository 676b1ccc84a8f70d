// <luminair-verify>: a verify button (or a badge that verifies on load) that opens a native
// <dialog> with the verifier's steps, the verdict, the verified model digest, public outputs,
// security, time, a graph view drawn from the verified settings, and "download proof".
import { init, verify as verifyInWorker, getSteps } from "./client.js";
import { LuminairVerificationError } from "./errors.js";
import { renderGraph } from "./graph.js";
import { getSheet } from "./styles.js";
import { checkFiles, fetchBinary } from "./utils.js";
import { makeZip } from "./zip.js";

const OBSERVED = [
  "proof", "settings", "title", "button-text", "author", "author-url", "model-description",
  "theme", "preload", "mode", "label-text", "variant", "timeout-ms", "min-security-bits",
];

const DEFAULTS = {
  title: "Can't be evil.",
  buttonText: "VERIFY",
  labelText: "VERIFIED COMPUTE",
};

/** Headlines for each error kind (the detail line carries the specific message). */
const HEADLINES = {
  "not-found": "File not found",
  network: "Could not download the files",
  format: "Not a luminair file",
  version: "Unsupported file version",
  rejected: "Verification failed",
  timeout: "Verification timed out",
  aborted: "Verification cancelled",
  load: "The verifier could not start",
  hash: "The verifier failed its integrity check",
  terminated: "Verification stopped",
  internal: "Internal error",
};

const FILE_KINDS = new Set(["format", "version", "rejected"]);
const STATUS_TEXT = { idle: "Pending", loading: "Loading", verifying: "Verifying", verified: "Verified", failed: "Failed", error: "Error" };
const MARKS = { pending: "○", "in-progress": "◌", completed: "✓", error: "✗" };
const DEV_FLOOR_BITS = 96;

const TEMPLATE = `
<button part="button" class="trigger" type="button" aria-haspopup="dialog"><span class="dot" aria-hidden="true"></span><slot><span class="label"></span></slot></button>
<dialog part="dialog" aria-labelledby="lv-title" aria-describedby="lv-claim">
  <div class="head">
    <h2 id="lv-title"></h2>
    <span class="pill" part="status" role="status"></span>
    <button class="close" type="button" aria-label="Close" autofocus>×</button>
  </div>
  <div class="body">
    <section aria-label="Verification">
      <p class="meta"><span class="by" hidden>By <a class="author" target="_blank" rel="noopener noreferrer"></a><span class="author-text"></span></span><span class="desc"></span></p>
      <p class="claim" id="lv-claim">Checked here, in your browser, by a Python verifier running in WebAssembly: the files are not sent anywhere. A valid proof shows that <strong>this exact model, with these weights (fixed by settings.bin and its digest below), on these public inputs, gave these outputs</strong>. It is not zero-knowledge: do not rely on it to keep anything secret. It says nothing about whether the model is accurate or fair.</p>
      <h3>Verification steps</h3>
      <ol class="steps" part="steps" aria-live="polite"></ol>
      <div class="result" part="result" data-state="idle" aria-live="polite"><span class="verdict">Not verified yet</span><span class="detail"></span></div>
      <div class="actions">
        <button class="action download" part="download" type="button" disabled>Download proof</button>
        <button class="action retry" type="button" hidden>Verify again</button>
      </div>
      <p class="foot">Circle-STARK proof over M31, checked by luminair's pure-Python verifier in Pyodide.</p>
    </section>
    <section aria-label="Verified details">
      <h3>Model graph</h3>
      <div class="graph" part="graph"><div class="empty">Shown once the proof is verified.</div></div>
      <h3>Details</h3>
      <dl class="facts" part="facts"></dl>
      <div class="io-outputs" hidden><h3>Public outputs</h3><table class="io outputs" part="outputs"><thead><tr><th>Name</th><th>Shape</th><th>Values</th></tr></thead><tbody></tbody></table></div>
      <div class="io-inputs" hidden><h3>Public inputs</h3><table class="io inputs" part="inputs"><thead><tr><th>Name</th><th>Shape</th><th>Values</th></tr></thead><tbody></tbody></table></div>
    </section>
  </div>
</dialog>`;

function formatDuration(ms) {
  if (ms == null) return "—";
  return ms < 1000 ? `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

function formatBytes(n) {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

function formatValues(values, limit = 24) {
  if (!Array.isArray(values)) return String(values);
  const shown = values.slice(0, limit).map((v) => String(v)); // exact: these are the attested values
  return `[${shown.join(", ")}${values.length > limit ? `, … (${values.length} values)` : ""}]`;
}

/** Whether a result's security must be labelled as a development setting. */
export function isDevelopmentSecurity(bits, label) {
  return (bits != null && bits < DEV_FLOOR_BITS) || /development|not secure/i.test(label ?? "");
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

  #internals = null;
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

  constructor() {
    super();
    try {
      this.#internals = this.attachInternals();
    } catch {
      this.#internals = null;
    }
    this.#root = this.attachShadow({ mode: "open" });
    this.#root.adoptedStyleSheets = [getSheet()];
    this.#root.innerHTML = TEMPLATE; // static markup only; every dynamic value goes in via textContent
    const $ = (s) => this.#root.querySelector(s);
    this.#els = {
      button: $(".trigger"),
      label: $(".trigger .label"),
      dialog: $("dialog"),
      title: $("#lv-title"),
      pill: $(".pill"),
      close: $(".close"),
      by: $(".by"),
      author: $("a.author"),
      authorText: $(".author-text"),
      desc: $(".desc"),
      steps: $(".steps"),
      result: $(".result"),
      verdict: $(".result .verdict"),
      detail: $(".result .detail"),
      download: $(".download"),
      retry: $(".retry"),
      graph: $(".graph"),
      facts: $("dl.facts"),
      outputs: $(".io-outputs"),
      outputsBody: $("table.outputs tbody"),
      inputs: $(".io-inputs"),
      inputsBody: $("table.inputs tbody"),
    };
    this.#els.button.addEventListener("click", () => this.#onTrigger());
    this.#els.button.addEventListener("pointerenter", () => this.#warmUp());
    this.#els.button.addEventListener("focus", () => this.#warmUp());
    this.#els.close.addEventListener("click", () => this.close());
    this.#els.dialog.addEventListener("close", () => this.#els.button.focus());
    this.#els.dialog.addEventListener("click", (e) => {
      if (e.target === this.#els.dialog) this.close(); // a click on the backdrop
    });
    this.#els.download.addEventListener("click", () => this.downloadProof());
    this.#els.retry.addEventListener("click", () => this.verify().catch(() => {}));
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
    this.#render();
    this.#watchTheme();
    this.#setStatus(this.#status);
    if (this.hasAttribute("preload")) this.#warmUp();
    if (this.mode === "badge" && !this.#autoRan) {
      this.#autoRan = true;
      queueMicrotask(() => this.isConnected && this.verify().catch(() => {}));
    }
  }

  disconnectedCallback() {
    this.#connected = false;
    this.#observer?.disconnect();
    this.#observer = null;
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return;
    if (name === "theme") this.#watchTheme();
    if (name === "preload" && newValue !== null && this.#connected) this.#warmUp();
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
  get preload() { return this.hasAttribute("preload"); }
  set preload(v) { this.toggleAttribute("preload", Boolean(v)); }
  get mode() { return this.getAttribute("mode") === "badge" ? "badge" : "button"; }
  set mode(v) { this.#setAttr("mode", v); }
  get variant() { return this.getAttribute("variant") ?? "default"; }
  set variant(v) { this.#setAttr("variant", v); }
  get timeoutMs() {
    const v = Number(this.getAttribute("timeout-ms"));
    return this.hasAttribute("timeout-ms") && Number.isFinite(v) && v > 0 ? v : 60_000;
  }
  set timeoutMs(v) { this.#setAttr("timeout-ms", v == null ? null : String(v)); }
  get minSecurityBits() {
    const v = Number(this.getAttribute("min-security-bits"));
    return this.hasAttribute("min-security-bits") && Number.isInteger(v) && v >= 0 ? v : undefined;
  }
  set minSecurityBits(v) { this.#setAttr("min-security-bits", v == null ? null : String(v)); }

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
  /** The last error ({kind, message, check}) when status is "failed" or "error", else null. */
  get error() { return this.#error; }
  /** idle | loading | verifying | verified | failed | error */
  get status() { return this.#status; }

  // --- public methods ---------------------------------------------------------------------------

  /** Open the modal (without starting a verification). */
  open() {
    if (!this.#els.dialog.open) this.#els.dialog.showModal();
  }

  /** Close the modal; focus returns to the button. */
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

  #onTrigger() {
    this.open();
    if (this.#running) return;
    if (this.mode === "badge" && this.#status !== "idle") return; // the badge shows its result
    this.verify().catch(() => {});
  }

  #sourcesChanged() {
    this.#runId += 1; // any run in flight is now stale
    this.#running = null;
    this.#result = null;
    this.#error = null;
    this.#verified = null;
    this.#setStatus("idle");
    this.#resetPanels();
    if (this.mode === "badge") this.verify().catch(() => {});
  }

  #watchTheme() {
    const states = this.#internals?.states;
    if (!states) return;
    const apply = () => {
      const auto = this.theme === "auto";
      const root = document.documentElement;
      const dark = auto && root.classList.contains("dark");
      const light = auto && !dark && root.classList.contains("light");
      dark ? states.add("dark") : states.delete("dark");
      light ? states.add("light") : states.delete("light");
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
    e.button.className = `trigger${badge ? " badge" : ""} variant-${["secondary", "destructive", "outline"].includes(this.variant) ? this.variant : "default"}`;
    e.button.setAttribute("part", badge ? "button badge" : "button");
    e.button.dataset.state = this.#status;
    const busy = this.#status === "loading" || this.#status === "verifying";
    if (badge) {
      e.label.textContent = busy || this.#status === "idle" ? "VERIFYING..." : this.#status === "verified" ? this.labelText : "VERIFICATION FAILED";
    } else {
      e.label.textContent = busy ? "VERIFYING..." : this.buttonText;
    }
    e.button.setAttribute("aria-busy", String(busy));
    e.pill.textContent = STATUS_TEXT[this.#status];
    e.pill.dataset.state = this.#status;
  }

  #setStatus(status) {
    this.#status = status;
    if (this.getAttribute("status") !== status) this.setAttribute("status", status);
    this.#render();
  }

  #emit(name, detail) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }

  #resetPanels() {
    const e = this.#els;
    this.#steps = [];
    e.steps.replaceChildren();
    e.result.dataset.state = "idle";
    e.verdict.textContent = "Not verified yet";
    e.detail.textContent = "";
    e.download.disabled = true;
    e.retry.hidden = true;
    e.facts.replaceChildren();
    e.outputs.hidden = true;
    e.inputs.hidden = true;
    const empty = document.createElement("div");
    empty.className = "empty";
    empty.textContent = "Shown once the proof is verified.";
    e.graph.replaceChildren(empty);
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
    const status = document.createElement("span");
    status.className = "sr-status";
    status.hidden = true;
    li.append(mark, text);
    this.#els.steps.append(li);
    const step = { key, li, mark, text, label };
    this.#steps.push(step);
    this.#setStep(key, "pending");
    return step;
  }

  #setStep(key, status, note) {
    const step = this.#steps.find((s) => s.key === key);
    if (!step) return;
    step.li.dataset.status = status;
    step.mark.textContent = MARKS[status];
    step.text.textContent = note ? `${step.label} — ${note}` : step.label;
    step.li.setAttribute("aria-label", `${step.label}: ${status.replace("-", " ")}`);
  }

  #failInProgress() {
    for (const s of this.#steps) if (s.li.dataset.status === "in-progress") this.#setStep(s.key, "error");
  }

  #sourceUrl(name) {
    const v = this.getAttribute(name);
    if (!v) return null;
    return new URL(v, this.ownerDocument?.baseURI ?? document.baseURI).href;
  }

  async #loadFiles() {
    const get = async (name, bytes) => {
      if (bytes) return new Uint8Array(bytes);
      const url = this.#sourceUrl(name);
      if (!url) throw new LuminairVerificationError("not-found", `no ${name} file: set the ${name} attribute or the ${name}Bytes property`, { file: name });
      return fetchBinary(url, { file: name });
    };
    return Promise.all([get("proof", this.#proofBytes), get("settings", this.#settingsBytes)]);
  }

  async #run() {
    const runId = ++this.#runId;
    const stale = () => runId !== this.#runId;
    const t0 = performance.now();
    this.#result = null;
    this.#error = null;
    this.#resetPanels();
    this.#setStatus("loading");
    this.#emit("luminair-verify-start", { proof: this.#proofBytes ? null : this.#sourceUrl("proof"), settings: this.#settingsBytes ? null : this.#sourceUrl("settings") });
    this.#addStep("files", "Download proof and settings");
    this.#addStep("start", "Start the verifier (Pyodide)");
    let verdict = null;
    try {
      this.#setStep("files", "in-progress");
      const [proof, settings] = await this.#loadFiles();
      if (stale()) return this.#staleResult();
      this.#verified = { proof, settings };
      this.#els.download.disabled = false;
      const bad = checkFiles(proof, settings);
      if (bad) throw bad;
      this.#setStep("files", "completed", `${formatBytes(proof.length)} + ${formatBytes(settings.length)}`);
      this.#setStep("start", "in-progress");
      const info = await init();
      if (stale()) return this.#staleResult();
      this.#setStep("start", "completed", `Pyodide ${info.pyodideVersion}, verifier ${info.verifierVersion}`);
      const labels = getSteps() ?? info.steps ?? [];
      labels.forEach((label, i) => this.#addStep(`v${i + 1}`, label));
      this.#setStatus("verifying");
      verdict = await verifyInWorker(proof, settings, {
        timeoutMs: this.timeoutMs,
        minSecurityBits: this.minSecurityBits,
        onProgress: ({ step, of, label }) => {
          if (stale()) return;
          for (let i = 1; i < step; i++) this.#setStep(`v${i}`, "completed");
          if (!this.#steps.some((s) => s.key === `v${step}`)) this.#addStep(`v${step}`, label);
          this.#setStep(`v${step}`, "in-progress");
          this.#emit("luminair-verify-progress", { step, of, label });
        },
      });
      if (stale()) return this.#staleResult();
    } catch (err) {
      if (stale()) return this.#staleResult();
      const e = err instanceof LuminairVerificationError ? err : new LuminairVerificationError("internal", err?.message ?? String(err));
      this.#failInProgress();
      this.#showError(e.kind, e.message, null, performance.now() - t0);
      throw e;
    }
    const totalTimeMs = performance.now() - t0;
    this.#result = { ...verdict, totalTimeMs };
    if (verdict.success) {
      for (const s of this.#steps) this.#setStep(s.key, "completed", s.key === "files" || s.key === "start" ? s.text.textContent.split(" — ")[1] : undefined);
      this.#showSuccess(this.#result);
      this.#setStatus("verified");
      this.#emit("luminair-verify-success", {
        outputs: verdict.outputs,
        inputs: verdict.inputs,
        modelDigest: verdict.modelDigest,
        securityBits: verdict.securityBits,
        securityLabel: verdict.securityLabel,
        statement: verdict.statement,
        verificationTimeMs: verdict.verificationTimeMs,
        totalTimeMs,
        result: this.#result,
      });
      return this.#result;
    }
    this.#failInProgress();
    const kind = verdict.check === "malformed file" ? "format" : verdict.check === "unsupported version" ? "version" : "rejected";
    this.#showError(kind, verdict.error_message, verdict.check, totalTimeMs, verdict);
    return this.#result;
  }

  #staleResult() {
    return this.#result;
  }

  #showError(kind, message, check, totalTimeMs, verdict = null) {
    const e = this.#els;
    this.#error = { kind, message, check: check ?? null };
    const fileProblem = FILE_KINDS.has(kind);
    const headline = kind === "rejected" && check ? `Verification failed: ${check} check` : HEADLINES[kind] ?? "Error";
    e.result.dataset.state = fileProblem ? "failed" : "error";
    e.result.dataset.kind = kind;
    e.verdict.textContent = headline;
    e.detail.textContent = message ?? "";
    e.retry.hidden = false;
    this.#fact("Outcome", fileProblem ? "The proof was not accepted: nothing is proven." : "No verdict: the proof was not checked.");
    if (verdict?.modelDigest) this.#fact("Settings digest", verdict.modelDigest, "mono");
    this.#fact("Time", formatDuration(totalTimeMs));
    this.#setStatus(fileProblem ? "failed" : "error");
    this.#emit("luminair-verify-error", { kind, message, check: check ?? null, result: verdict ? this.#result : null });
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

  #fillTable(wrap, body, tensors) {
    body.replaceChildren();
    const entries = tensors ? Object.entries(tensors) : [];
    wrap.hidden = entries.length === 0;
    for (const [name, t] of entries) {
      const tr = document.createElement("tr");
      const values = t && typeof t === "object" && "values" in t ? t.values : t;
      const shape = t && typeof t === "object" && Array.isArray(t.shape) ? `[${t.shape.join("×")}]` : "";
      for (const [text, cls] of [[name, ""], [shape, ""], [formatValues(values), "values"]]) {
        const td = document.createElement("td");
        if (cls) td.className = cls;
        td.textContent = text;
        tr.append(td);
      }
      body.append(tr);
    }
  }

  #showSuccess(r) {
    const e = this.#els;
    e.result.dataset.state = "verified";
    e.result.dataset.kind = "verified";
    e.verdict.textContent = "Verified";
    const digestShort = r.modelDigest ? `${r.modelDigest.slice(0, 16)}…` : "";
    e.detail.textContent = `Running the model with digest ${digestShort} on the public inputs gave the public outputs shown. Checked in ${formatDuration(r.verificationTimeMs)}.`;
    e.retry.hidden = false;
    if (r.statement) this.#fact("Statement", r.statement);
    this.#fact("Model digest", r.modelDigest ?? "—", "mono digest");
    const dev = isDevelopmentSecurity(r.securityBits, r.securityLabel);
    const sec = document.createElement("span");
    sec.className = dev ? "security dev" : "security";
    sec.textContent = `${dev ? "⚠ " : ""}${r.securityBits} bits${r.securityLabel ? ` (${r.securityLabel})` : ""}${dev && !/development/i.test(r.securityLabel ?? "") ? " — DEVELOPMENT SETTING, not secure" : ""}`;
    this.#fact("Security", sec);
    this.#fact("Verification time", `${formatDuration(r.verificationTimeMs)} in Pyodide (${formatDuration(r.totalTimeMs)} from click, with downloads and start-up)`);
    if (this.#verified) this.#fact("Proof size", formatBytes(this.#verified.proof.length));
    this.#fillTable(e.outputs, e.outputsBody, r.outputs);
    this.#fillTable(e.inputs, e.inputsBody, r.inputs);
    const graph = r.settingsSummary?.graph;
    if (graph && Array.isArray(graph.nodes) && graph.nodes.length) {
      e.graph.replaceChildren(renderGraph(document, graph));
    } else {
      const empty = document.createElement("div");
      empty.className = "empty";
      empty.textContent = "This settings file has no graph to draw.";
      e.graph.replaceChildren(empty);
    }
  }
}
