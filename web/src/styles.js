// The element's styles, applied through a constructable stylesheet (adoptedStyleSheets), which a
// strict `style-src 'self'` CSP allows where an inline <style> in a shadow root is blocked.
export const CSS = `
:host {
  display: inline-block;
  color-scheme: light dark;
  --_accent: var(--luminair-accent, light-dark(#4f46e5, #a5b4fc));
  --_bg: var(--luminair-bg, light-dark(#ffffff, #0b0d12));
  --_fg: var(--luminair-fg, light-dark(#111827, #e5e7eb));
  --_muted: var(--luminair-muted, light-dark(#6b7280, #9ca3af));
  --_border: var(--luminair-border, light-dark(#e5e7eb, #1f2937));
  --_panel: var(--luminair-panel, light-dark(#f9fafb, #111827));
  --_ok: var(--luminair-ok, light-dark(#15803d, #4ade80));
  --_bad: var(--luminair-bad, light-dark(#b91c1c, #f87171));
  --_warn: var(--luminair-warn, light-dark(#b45309, #fbbf24));
  --_radius: var(--luminair-radius, 10px);
  --_font: var(--luminair-font, ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  --_mono: var(--luminair-mono, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace);
  font-family: var(--_font);
}
:host([hidden]) { display: none; }
:host([theme="light"]) { color-scheme: light; }
:host([theme="dark"]) { color-scheme: dark; }
:host(:state(dark)) { color-scheme: dark; }
:host(:state(light)) { color-scheme: light; }

.trigger {
  font: 600 0.85rem/1 var(--_font);
  letter-spacing: 0.04em;
  display: inline-flex; align-items: center; gap: 0.5em;
  padding: 0.7em 1.1em;
  border-radius: var(--_radius);
  border: 1px solid var(--_accent);
  background: var(--_accent);
  color: light-dark(#ffffff, #0b0d12);
  cursor: pointer;
}
.trigger:hover { filter: brightness(1.08); }
.trigger:focus-visible, .close:focus-visible, .action:focus-visible, a:focus-visible {
  outline: 3px solid var(--_accent); outline-offset: 2px;
}
.trigger[aria-busy="true"] .dot { animation: lv-pulse 1s ease-in-out infinite; }
.dot { width: 0.55em; height: 0.55em; border-radius: 50%; background: currentColor; opacity: 0.85; }
@keyframes lv-pulse { 50% { opacity: 0.25; } }
@media (prefers-reduced-motion: reduce) { .trigger[aria-busy="true"] .dot, .step[data-status="in-progress"] .mark { animation: none; } }

/* Badge: verifies on load, then shows the verdict. */
.trigger.badge { border-radius: 999px; padding: 0.45em 0.9em; font-size: 0.75rem; }
.badge[data-state="verifying"], .badge[data-state="idle"] { background: light-dark(#fef3c7, #451a03); color: var(--_warn); border-color: var(--_warn); }
.badge[data-state="verified"] { background: light-dark(#dcfce7, #052e16); color: var(--_ok); border-color: var(--_ok); }
.badge[data-state="failed"], .badge[data-state="error"] { background: light-dark(#fee2e2, #450a0a); color: var(--_bad); border-color: var(--_bad); }
.trigger.variant-secondary { background: var(--_panel); color: var(--_fg); border-color: var(--_border); }
.trigger.variant-outline { background: transparent; color: var(--_accent); }
.trigger.variant-destructive { background: var(--_bad); border-color: var(--_bad); color: light-dark(#fff, #0b0d12); }

dialog {
  width: min(1100px, calc(100vw - 2rem));
  max-height: calc(100vh - 2rem);
  box-sizing: border-box;
  padding: 0;
  border: 1px solid var(--_border);
  border-radius: calc(var(--_radius) + 4px);
  background: var(--_bg);
  color: var(--_fg);
  font-family: var(--_font);
  box-shadow: 0 24px 60px rgb(0 0 0 / 0.35);
}
dialog::backdrop { background: rgb(3 7 18 / 0.55); backdrop-filter: blur(2px); }
.head { display: flex; align-items: center; gap: 0.75rem; padding: 1rem 1.25rem; border-bottom: 1px solid var(--_border); }
.head h2 { margin: 0; font-size: 1.15rem; flex: 1; }
.pill { font-size: 0.75rem; font-weight: 700; padding: 0.3em 0.7em; border-radius: 999px; border: 1px solid var(--_border); color: var(--_muted); }
.pill[data-state="verified"] { color: var(--_ok); border-color: var(--_ok); }
.pill[data-state="failed"], .pill[data-state="error"] { color: var(--_bad); border-color: var(--_bad); }
.pill[data-state="loading"], .pill[data-state="verifying"] { color: var(--_warn); border-color: var(--_warn); }
.close { background: none; border: 1px solid var(--_border); color: var(--_fg); border-radius: 8px; width: 2rem; height: 2rem; cursor: pointer; font-size: 1.1rem; line-height: 1; }
.body { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1.25rem; padding: 1.25rem; overflow: auto; max-height: calc(100vh - 7rem); box-sizing: border-box; }
@media (max-width: 760px) { .body { grid-template-columns: 1fr; } }
h3 { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.06em; color: var(--_muted); margin: 1rem 0 0.5rem; }
h3:first-child { margin-top: 0; }
.io-outputs h3, .io-inputs h3 { margin-top: 1rem; }
.meta { margin: 0 0 0.5rem; color: var(--_muted); font-size: 0.9rem; }
.meta a { color: var(--_accent); }
.claim { font-size: 0.88rem; line-height: 1.45; margin: 0 0 0.5rem; }
.claim strong { color: var(--_fg); }
.steps { list-style: none; margin: 0; padding: 0.6rem 0.75rem; background: var(--_panel); border: 1px solid var(--_border); border-radius: var(--_radius); font: 0.82rem/1.5 var(--_mono); }
.step { display: flex; gap: 0.6em; align-items: baseline; color: var(--_muted); }
.step .mark { width: 1.1em; text-align: center; flex: none; }
.step[data-status="in-progress"] { color: var(--_fg); }
.step[data-status="in-progress"] .mark { color: var(--_warn); animation: lv-pulse 1s ease-in-out infinite; }
.step[data-status="completed"] { color: var(--_fg); }
.step[data-status="completed"] .mark { color: var(--_ok); }
.step[data-status="error"] { color: var(--_bad); }
.result { margin-top: 0.9rem; padding: 0.8rem 0.9rem; border-radius: var(--_radius); border: 1px solid var(--_border); font-size: 0.9rem; line-height: 1.45; }
.result[data-state="verified"] { border-color: var(--_ok); }
.result[data-state="failed"], .result[data-state="error"] { border-color: var(--_bad); }
.result .verdict { font-weight: 700; font-size: 1rem; display: block; margin-bottom: 0.25rem; }
.result[data-state="verified"] .verdict { color: var(--_ok); }
.result[data-state="failed"] .verdict, .result[data-state="error"] .verdict { color: var(--_bad); }
.result .detail { font-family: var(--_mono); font-size: 0.8rem; word-break: break-word; color: var(--_muted); }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.35rem 0.9rem; margin: 0; font-size: 0.85rem; }
dl.facts dt { color: var(--_muted); }
dl.facts dd { margin: 0; word-break: break-all; }
.mono { font-family: var(--_mono); font-size: 0.8rem; }
.dev { color: var(--_warn); font-weight: 700; }
.graph { border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_panel); overflow: auto; max-height: 320px; padding: 0.25rem; }
.graph svg { display: block; margin: 0 auto; max-width: 100%; height: auto; }
.graph .node rect { fill: var(--_bg); stroke: var(--_accent); stroke-width: 1.5; }
.graph .label { fill: var(--_fg); font: 600 12px var(--_font); text-anchor: middle; }
.graph .shape { fill: var(--_muted); font: 11px var(--_mono); text-anchor: middle; }
.graph .node.private rect { stroke-dasharray: 4 3; }
.graph .edge { stroke: var(--_muted); stroke-width: 1.4; }
.graph .edge-tip { fill: var(--_muted); }
.graph .empty { color: var(--_muted); font-size: 0.85rem; padding: 0.75rem; }
table.io { border-collapse: collapse; width: 100%; font-size: 0.82rem; }
table.io th, table.io td { text-align: left; padding: 0.3rem 0.4rem; border-bottom: 1px solid var(--_border); vertical-align: top; }
table.io td.values { font-family: var(--_mono); word-break: break-all; }
.actions { display: flex; gap: 0.6rem; margin-top: 1rem; flex-wrap: wrap; }
.action { font: 600 0.82rem var(--_font); padding: 0.55em 0.9em; border-radius: 8px; border: 1px solid var(--_border); background: var(--_panel); color: var(--_fg); cursor: pointer; }
.action:disabled { opacity: 0.5; cursor: not-allowed; }
.foot { font-size: 0.78rem; color: var(--_muted); margin-top: 0.9rem; }
[hidden] { display: none !important; }
`;

let sheet = null;

/** One shared constructable stylesheet for every instance (created on first use, never at import). */
export function getSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
  }
  return sheet;
}
