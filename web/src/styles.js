// The element's styles, applied through a constructable stylesheet (adoptedStyleSheets), which a
// strict `style-src 'self'` CSP allows where an inline <style> in a shadow root is blocked.
//
// Browser support: no light-dark(), no :state(), no container queries: the colours of each theme
// are plain custom properties on an inner `.root` wrapper (dark through prefers-color-scheme, the
// `theme` attribute or a `dark` class on <html>, which the element mirrors as a class). Long text
// wraps with overflow-wrap: anywhere (never word-break: break-all). Nothing animates forever.
const LIGHT = `
  --_accent: var(--luminair-accent, #4f46e5);
  --_on-accent: var(--luminair-on-accent, #ffffff);
  --_bg: var(--luminair-bg, #ffffff);
  --_fg: var(--luminair-fg, #111827);
  --_muted: var(--luminair-muted, #5b6472);
  --_border: var(--luminair-border, #e5e7eb);
  --_panel: var(--luminair-panel, #f9fafb);
  --_ok: var(--luminair-ok, #15803d);
  --_ok-bg: #dcfce7;
  --_bad: var(--luminair-bad, #b91c1c);
  --_bad-bg: #fee2e2;
  --_warn: var(--luminair-warn, #b45309);
  --_warn-bg: #fef3c7;
  --_na: var(--luminair-unavailable, #475569);
  --_na-bg: #f1f5f9;
  color-scheme: light;`;

const DARK = `
  --_accent: var(--luminair-accent, #a5b4fc);
  --_on-accent: var(--luminair-on-accent, #0b0d12);
  --_bg: var(--luminair-bg, #0b0d12);
  --_fg: var(--luminair-fg, #e5e7eb);
  --_muted: var(--luminair-muted, #9ca3af);
  --_border: var(--luminair-border, #1f2937);
  --_panel: var(--luminair-panel, #111827);
  --_ok: var(--luminair-ok, #4ade80);
  --_ok-bg: #052e16;
  --_bad: var(--luminair-bad, #f87171);
  --_bad-bg: #450a0a;
  --_warn: var(--luminair-warn, #fbbf24);
  --_warn-bg: #451a03;
  --_na: var(--luminair-unavailable, #cbd5e1);
  --_na-bg: #1e293b;
  color-scheme: dark;`;

export const CSS = `
:host { display: inline-block; max-width: 100%; }
:host([hidden]) { display: none; }
.root {
  ${LIGHT}
  --_radius: var(--luminair-radius, 10px);
  --_font: var(--luminair-font, ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  --_mono: var(--luminair-mono, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace);
  font-family: var(--_font);
  max-width: 100%;
}
@media (prefers-color-scheme: dark) { .root:not(.light) { ${DARK} } }
.root.dark { ${DARK} }

.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }

.trigger {
  font: 600 0.85rem/1.2 var(--_font);
  letter-spacing: 0.04em;
  display: inline-flex; align-items: center; gap: 0.5em;
  max-width: 100%;
  padding: 0.7em 1.1em;
  border-radius: var(--_radius);
  border: 1px solid var(--_accent);
  background: var(--_accent);
  color: var(--_on-accent);
  cursor: pointer;
  text-align: start;
}
.trigger:hover { filter: brightness(1.08); }
.trigger:focus-visible, .close:focus-visible, .action:focus-visible, .gbtn:focus-visible, a:focus-visible {
  outline: 3px solid var(--_accent); outline-offset: 2px;
}
.icon { flex: none; min-width: 0.8em; text-align: center; }
.icon:empty::before { content: ""; display: inline-block; width: 0.55em; height: 0.55em; border-radius: 50%; background: currentColor; opacity: 0.85; }
.tag { font-weight: 700; }
.trigger.variant-secondary { background: var(--_panel); color: var(--_fg); border-color: var(--_border); }
.trigger.variant-outline { background: transparent; color: var(--_accent); }
.trigger.variant-destructive { background: var(--_bad); border-color: var(--_bad); color: var(--_on-accent); }
.trigger.badge { border-radius: 999px; padding: 0.45em 0.9em; font-size: 0.75rem; }
.trigger[data-state="loading"].badge, .trigger[data-state="verifying"].badge, .trigger[data-state="idle"].badge {
  background: var(--_panel); color: var(--_fg); border-color: var(--_border);
}
/* The verdict, on the button and the badge alike: its own colour, icon and words. */
.trigger[data-state="verified"] { background: var(--_ok-bg); color: var(--_ok); border-color: var(--_ok); }
.trigger[data-state="development"] { background: var(--_warn-bg); color: var(--_warn); border-color: var(--_warn); }
.trigger[data-state="rejected"] { background: var(--_bad-bg); color: var(--_bad); border-color: var(--_bad); }
.trigger[data-state="unavailable"] { background: var(--_na-bg); color: var(--_na); border-color: var(--_na); border-style: dashed; }

dialog {
  width: min(1100px, calc(100vw - 1.5rem));
  max-width: calc(100vw - 1.5rem);
  max-height: calc(100vh - 1.5rem);
  box-sizing: border-box;
  padding: 0;
  border: 1px solid var(--_border);
  border-radius: calc(var(--_radius) + 4px);
  background: var(--_bg);
  color: var(--_fg);
  font-family: var(--_font);
  box-shadow: 0 24px 60px rgb(0 0 0 / 0.35);
  overflow: hidden;
}
dialog[open] { display: flex; flex-direction: column; }
dialog::backdrop { background: rgb(3 7 18 / 0.55); }
.head { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 0.75rem; padding: 0.9rem 1.25rem; border-bottom: 1px solid var(--_border); }
.head h2 { margin: 0; font-size: 1.15rem; flex: 1 1 6rem; min-width: 0; overflow-wrap: anywhere; }
.pill { font-size: 0.75rem; font-weight: 700; padding: 0.3em 0.7em; border-radius: 999px; border: 1px solid var(--_border); color: var(--_muted); white-space: nowrap; }
.pill[data-state="verified"] { color: var(--_ok); border-color: var(--_ok); background: var(--_ok-bg); }
.pill[data-state="development"] { color: var(--_warn); border-color: var(--_warn); background: var(--_warn-bg); }
.pill[data-state="rejected"] { color: var(--_bad); border-color: var(--_bad); background: var(--_bad-bg); }
.pill[data-state="unavailable"] { color: var(--_na); border-color: var(--_na); border-style: dashed; }
.pill[data-state="loading"], .pill[data-state="verifying"] { color: var(--_fg); }
.close { flex: none; background: none; border: 1px solid var(--_border); color: var(--_fg); border-radius: 8px; width: 2rem; height: 2rem; cursor: pointer; font-size: 1.1rem; line-height: 1; }
.body { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1.25rem; padding: 1.25rem; overflow: auto; min-height: 0; box-sizing: border-box; }
.body > section { min-width: 0; }
@media (max-width: 760px) { .body { grid-template-columns: minmax(0, 1fr); } }
h3 { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.06em; color: var(--_muted); margin: 1rem 0 0.5rem; }
h3:first-child { margin-top: 0; }
.io-inputs h3 { margin-top: 1rem; }
.meta { margin: 0 0 0.5rem; color: var(--_muted); font-size: 0.9rem; overflow-wrap: anywhere; }
.meta a { color: var(--_accent); }
.claim { font-size: 0.88rem; line-height: 1.45; margin: 1rem 0 0.5rem; }
.claim strong { color: var(--_fg); }
.progress { display: grid; gap: 0.3rem; margin: 0.6rem 0 0.8rem; font-size: 0.82rem; color: var(--_muted); }
.progress .track { height: 6px; border-radius: 999px; background: var(--_panel); border: 1px solid var(--_border); overflow: hidden; }
.progress .fill { height: 100%; width: 100%; background: var(--_accent); transform-origin: left center; transform: scaleX(0); transition: transform 0.2s linear; }
@media (prefers-reduced-motion: reduce) { .progress .fill { transition: none; } }
.steps { list-style: none; margin: 0; padding: 0.6rem 0.75rem; background: var(--_panel); border: 1px solid var(--_border); border-radius: var(--_radius); font: 0.82rem/1.5 var(--_mono); }
.step { display: flex; gap: 0.6em; align-items: baseline; color: var(--_muted); min-width: 0; }
.step .text { min-width: 0; overflow-wrap: anywhere; }
.step .mark { width: 1.1em; text-align: center; flex: none; }
.step[data-status="in-progress"] { color: var(--_fg); }
.step[data-status="in-progress"] .mark { color: var(--_accent); }
.step[data-status="completed"] { color: var(--_fg); }
.step[data-status="completed"] .mark { color: var(--_ok); }
.step[data-status="error"] { color: var(--_bad); }
.step[data-status="skipped"] { color: var(--_na); }
.result { margin-top: 0.4rem; padding: 0.8rem 0.9rem; border-radius: var(--_radius); border: 1px solid var(--_border); font-size: 0.9rem; line-height: 1.45; }
.result[data-state="verified"] { border-color: var(--_ok); background: var(--_ok-bg); }
.result[data-state="development"] { border-color: var(--_warn); background: var(--_warn-bg); }
.result[data-state="rejected"] { border-color: var(--_bad); background: var(--_bad-bg); }
.result[data-state="unavailable"] { border-color: var(--_na); border-style: dashed; background: var(--_na-bg); }
.result .verdict { font-weight: 700; font-size: 1rem; display: flex; gap: 0.45em; margin-bottom: 0.25rem; overflow-wrap: anywhere; }
.result .verdict-icon { flex: none; }
.result[data-state="verified"] .verdict { color: var(--_ok); }
.result[data-state="development"] .verdict { color: var(--_warn); }
.result[data-state="rejected"] .verdict { color: var(--_bad); }
.result[data-state="unavailable"] .verdict { color: var(--_na); }
.result .detail { display: block; font-family: var(--_mono); font-size: 0.8rem; overflow-wrap: anywhere; color: var(--_fg); }
.result .note { display: block; margin-top: 0.35rem; font-size: 0.82rem; color: var(--_fg); }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.35rem 0.9rem; margin: 0; font-size: 0.85rem; }
dl.facts dt { color: var(--_muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; min-width: 0; }
.mono { font-family: var(--_mono); font-size: 0.8rem; }
.dev { color: var(--_warn); font-weight: 700; }
.label-note { color: var(--_muted); font-size: 0.8rem; }
/* Who saw what: one line per weights / input / outputs, the level in bold, its meaning muted. */
.vis-item { display: block; }
.vis-level { font-weight: 700; }
.vis-item[data-level="committed"] .vis-level, .vis-item[data-level="private"] .vis-level { color: var(--_accent); }
.vis-note { color: var(--_muted); font-size: 0.8rem; }
.graph { min-width: 0; }
.graph .empty { color: var(--_muted); font-size: 0.85rem; padding: 0.75rem; border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_panel); }
.graph-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 0.35rem; margin-bottom: 0.4rem; }
.gbtn { font: 600 0.78rem var(--_font); min-width: 2rem; height: 1.9rem; padding: 0 0.6em; border-radius: 7px; border: 1px solid var(--_border); background: var(--_panel); color: var(--_fg); cursor: pointer; }
.gbtn:disabled { opacity: 0.45; cursor: default; }
.gbtn[aria-pressed="true"] { border-color: var(--_accent); color: var(--_accent); }
.graph-count { font-size: 0.78rem; color: var(--_muted); margin-inline-start: auto; }
/* Fit = the graph's width in the pane, never above its natural size: boxes stay legible and a
   tall graph (a transformer's layers) scrolls inside the pane. */
.graph-pane { border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_panel); overflow: hidden auto; max-height: min(480px, 62vh); overscroll-behavior: contain; }
.graph-pane svg { display: block; width: 100%; height: auto; margin: 0 auto; user-select: none; -webkit-user-select: none; }
.zoomed .graph-pane { cursor: grab; touch-action: none; }
.graph-info { font-size: 0.78rem; color: var(--_muted); margin: 0.35rem 0 0; min-height: 1.2em; overflow-wrap: anywhere; }
.graph .node rect { fill: var(--_bg); stroke: var(--_accent); stroke-width: 1.5; }
.graph .node.group rect { stroke-width: 2.5; }
.graph .node.input rect { stroke: var(--_muted); }
.graph .node.output rect { stroke: var(--_ok); stroke-width: 2.5; }
.graph .node.op-constant rect { stroke: var(--_border); }
.graph .label { fill: var(--_fg); font: 600 12px var(--_font); text-anchor: middle; }
.graph .shape { fill: var(--_muted); font: 11px var(--_mono); text-anchor: middle; }
.graph .node.private rect { stroke-dasharray: 4 3; }
.graph .edge { stroke: var(--_muted); stroke-width: 1.4; fill: none; }
.graph .edge-tip { fill: var(--_muted); }
table.io { border-collapse: collapse; width: 100%; font-size: 0.82rem; table-layout: fixed; }
table.io th, table.io td { text-align: left; padding: 0.3rem 0.4rem; border-bottom: 1px solid var(--_border); vertical-align: top; overflow-wrap: anywhere; }
table.io th:nth-child(1) { width: 22%; }
table.io th:nth-child(2) { width: 16%; }
table.io td.values, table.io td.source { font-family: var(--_mono); }
table.io td.source { font-size: 0.76rem; color: var(--_muted); }
table.io td.batched { font-family: var(--_font); color: var(--_muted); }
/* One row per batch element, in a row that spans the table under its tensor. */
table.io tr.batch-rows > td { padding: 0 0 0.5rem; }
table.io table.batch { border-collapse: collapse; width: 100%; table-layout: fixed; background: var(--_panel); border: 1px solid var(--_border); border-radius: 6px; }
table.io table.batch th { width: auto; color: var(--_muted); font-weight: 600; }
table.io table.batch th:nth-child(1) { width: 4.5em; }
table.io table.batch th[scope="row"], table.io table.batch thead th:nth-child(1) { font-family: var(--_mono); text-align: right; }
table.io table.batch tr:last-child > * { border-bottom: 0; }
table.io table.batch tr.more td { color: var(--_muted); font-style: italic; }
.io-outputs { margin-top: 0.6rem; }
.io-outputs h3 { margin-top: 0.4rem; }
table.io details.all-values { margin-top: 0.2rem; font-family: var(--_font); }
table.io details.all-values summary { cursor: pointer; color: var(--_accent); font-size: 0.78rem; }
table.io .values-list { display: block; font-family: var(--_mono); font-size: 0.76rem; max-height: 10rem; overflow: auto; }
.steps:empty { display: none; }
dd.tip { color: var(--_muted); font-size: 0.8rem; }
.actions { display: flex; gap: 0.6rem; margin: 0.8rem 0 1rem; flex-wrap: wrap; }
.action { font: 600 0.82rem var(--_font); padding: 0.55em 0.9em; border-radius: 8px; border: 1px solid var(--_border); background: var(--_panel); color: var(--_fg); cursor: pointer; }
.action:disabled { opacity: 0.5; cursor: not-allowed; }
.foot { font-size: 0.78rem; color: var(--_muted); margin-top: 0.9rem; }
@media (max-width: 480px) {
  dialog { width: calc(100vw - 0.75rem); max-width: calc(100vw - 0.75rem); max-height: calc(100vh - 0.75rem); }
  .head { padding: 0.7rem 0.8rem; }
  .body { padding: 0.8rem; gap: 1rem; }
  dl.facts { grid-template-columns: minmax(0, 1fr); }
  dl.facts dd { margin-bottom: 0.35rem; }
  table.io, table.io tbody, table.io tr, table.io td { display: block; }
  table.io thead { display: none; }
  table.io tr { border-bottom: 1px solid var(--_border); padding: 0.3rem 0; }
  table.io td { border: 0; padding: 0.1rem 0; }
  table.io td[data-label]::before { content: attr(data-label) ": "; color: var(--_muted); font-family: var(--_font); }
  table.io table.batch { display: block; }
  table.io table.batch th[scope="row"] { display: block; width: auto; text-align: left; padding: 0.2rem 0.4rem 0; }
  table.io table.batch th[data-label]::before { content: attr(data-label) " "; font-family: var(--_font); }
  table.io table.batch td { padding: 0 0.4rem 0.2rem; }
}
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
