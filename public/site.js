// Demo page glue (a file, not inline, so the page's CSP can forbid inline scripts).
const root = document.documentElement;
const toggle = document.getElementById("theme-toggle");
toggle?.addEventListener("click", () => {
  const dark = root.classList.toggle("dark");
  toggle.setAttribute("aria-pressed", String(dark));
});

function showOutputs(detail) {
  const parts = Object.entries(detail.outputs ?? {}).map(([name, t]) => `${name} = [${(t.values ?? []).slice(0, 12).join(", ")}${(t.values ?? []).length > 12 ? ", …" : ""}]`);
  document.getElementById("outputs-value").textContent = parts.join("; ") || "(no public outputs)";
  document.getElementById("digest-value").textContent = detail.modelDigest ?? "—";
}

document.addEventListener("luminair-verify-success", (e) => showOutputs(e.detail));
document.addEventListener("luminair-verify-error", (e) => {
  document.getElementById("outputs-value").textContent = `not verified (${e.detail.kind}: ${e.detail.message})`;
});
document.getElementById("show-badge")?.addEventListener("click", (e) => {
  document.getElementById("main-badge").hidden = false;
  e.currentTarget.hidden = true;
});
