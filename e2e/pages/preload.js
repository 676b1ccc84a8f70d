// The element's preload / cache attributes from the page's query string, set before it is defined.
const el = document.getElementById("pre");
const q = location.search.slice(1);
if (q === "idle" || q === "none" || q === "hover") el.setAttribute("preload", q);
else if (q === "cache") el.setAttribute("cache", "");
else if (q !== "defaults") el.setAttribute("preload", ""); // ?defaults: no attribute at all
await import("../luminair/define.js");
