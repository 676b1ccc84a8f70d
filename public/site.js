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
// The badge verifies as soon as it is connected, so it is only added on request: the page itself
// starts no worker until someone asks for a verification.
document.getElementById("show-badge")?.addEventListener("click", (e) => {
  const badge = document.createElement("luminair-verify");
  badge.id = "main-badge";
  badge.setAttribute("mode", "badge");
  badge.setAttribute("proof", "./proof.bin");
  badge.setAttribute("settings", "./settings.bin");
  badge.setAttribute("title", "Verified compute");
  badge.setAttribute("author", "luminair");
  e.currentTarget.replaceWith(badge);
});
