// The graph view: nodes and edges from the verified settings summary, laid out by levels
// (longest path from a source), drawn as SVG. `layoutGraph` is DOM-free (tested under Node).

const NODE_W = 168;
const NODE_H = 44;
const GAP_X = 28;
const GAP_Y = 36;
const PAD = 12;

/**
 * Lay out `{nodes: [{id, op, label, shape}], edges: [[src, dst], ...]}` by levels.
 * Returns {nodes: [{id, op, label, shape, level, x, y, w, h}], edges: [{from, to, points}], width, height, cyclic}.
 * Edges naming unknown nodes are ignored; a cycle (never produced by the prover) is broken
 * by placing the remaining nodes on one extra level.
 */
export function layoutGraph(graph) {
  const nodes = Array.isArray(graph?.nodes) ? graph.nodes : [];
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const edges = (Array.isArray(graph?.edges) ? graph.edges : []).filter(
    (e) => Array.isArray(e) && byId.has(e[0]) && byId.has(e[1]) && e[0] !== e[1],
  );
  const indeg = new Map(nodes.map((n) => [n.id, 0]));
  const out = new Map(nodes.map((n) => [n.id, []]));
  for (const [a, b] of edges) {
    indeg.set(b, indeg.get(b) + 1);
    out.get(a).push(b);
  }
  const level = new Map();
  let queue = nodes.filter((n) => indeg.get(n.id) === 0).map((n) => n.id);
  for (const id of queue) level.set(id, 0);
  const seen = new Set();
  while (queue.length) {
    const next = [];
    for (const id of queue) {
      seen.add(id);
      for (const b of out.get(id)) {
        level.set(b, Math.max(level.get(b) ?? 0, level.get(id) + 1));
        indeg.set(b, indeg.get(b) - 1);
        if (indeg.get(b) === 0) next.push(b);
      }
    }
    queue = next;
  }
  const cyclic = seen.size < nodes.length;
  if (cyclic) {
    const extra = Math.max(0, ...level.values()) + 1;
    for (const n of nodes) if (!seen.has(n.id)) level.set(n.id, extra);
  }
  const rows = [];
  for (const n of nodes) {
    const l = level.get(n.id) ?? 0;
    (rows[l] ??= []).push(n);
  }
  const widest = Math.max(1, ...rows.map((r) => (r ? r.length : 0)));
  const width = PAD * 2 + widest * NODE_W + (widest - 1) * GAP_X;
  const placed = new Map();
  rows.forEach((row, l) => {
    if (!row) return;
    const rowW = row.length * NODE_W + (row.length - 1) * GAP_X;
    const x0 = (width - rowW) / 2;
    row.forEach((n, i) => {
      placed.set(n.id, {
        id: n.id,
        op: String(n.op ?? ""),
        label: String(n.label ?? n.op ?? n.id),
        shape: Array.isArray(n.shape) ? n.shape : [],
        private: n.private === true,
        level: l,
        x: x0 + i * (NODE_W + GAP_X),
        y: PAD + l * (NODE_H + GAP_Y),
        w: NODE_W,
        h: NODE_H,
      });
    });
  });
  const height = PAD * 2 + Math.max(1, rows.length) * NODE_H + Math.max(0, rows.length - 1) * GAP_Y;
  return {
    nodes: nodes.map((n) => placed.get(n.id)),
    edges: edges.map(([a, b]) => {
      const p = placed.get(a);
      const q = placed.get(b);
      return { from: a, to: b, points: [p.x + p.w / 2, p.y + p.h, q.x + q.w / 2, q.y] };
    }),
    width,
    height,
    cyclic,
  };
}

function clip(text, n) {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

const SVG = "http://www.w3.org/2000/svg";

/** Draw a laid-out graph as an <svg> element (text via textContent, never markup). */
export function renderGraph(doc, graph) {
  const g = layoutGraph(graph);
  const svg = doc.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${g.width} ${g.height}`);
  svg.setAttribute("width", String(g.width));
  svg.setAttribute("height", String(g.height));
  svg.style.minWidth = `${Math.round(g.width * 0.7)}px`; // shrink to fit, but keep labels legible (scroll beyond)
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `Model graph: ${g.nodes.length} node${g.nodes.length === 1 ? "" : "s"}, ${g.edges.length} edge${g.edges.length === 1 ? "" : "s"}`);
  const defs = doc.createElementNS(SVG, "defs");
  const marker = doc.createElementNS(SVG, "marker");
  for (const [k, v] of Object.entries({ id: "lv-arrow", viewBox: "0 0 8 8", refX: "8", refY: "4", markerWidth: "7", markerHeight: "7", orient: "auto" })) marker.setAttribute(k, v);
  const tip = doc.createElementNS(SVG, "path");
  tip.setAttribute("d", "M0,0 L8,4 L0,8 z");
  tip.setAttribute("class", "edge-tip");
  marker.append(tip);
  defs.append(marker);
  svg.append(defs);
  for (const e of g.edges) {
    const line = doc.createElementNS(SVG, "line");
    const [x1, y1, x2, y2] = e.points;
    line.setAttribute("x1", x1);
    line.setAttribute("y1", y1);
    line.setAttribute("x2", x2);
    line.setAttribute("y2", y2);
    line.setAttribute("class", "edge");
    line.setAttribute("marker-end", "url(#lv-arrow)");
    svg.append(line);
  }
  for (const n of g.nodes) {
    const group = doc.createElementNS(SVG, "g");
    group.setAttribute("class", `node op-${n.op.toLowerCase().replace(/[^a-z0-9]+/g, "-")}${n.private ? " private" : ""}`);
    group.setAttribute("data-node-id", String(n.id));
    const rect = doc.createElementNS(SVG, "rect");
    for (const [k, v] of Object.entries({ x: n.x, y: n.y, width: n.w, height: n.h, rx: 8 })) rect.setAttribute(k, String(v));
    const title = doc.createElementNS(SVG, "title");
    title.textContent = `${n.label} (${n.op})${n.shape.length ? ` shape [${n.shape.join(", ")}]` : ""}${n.private ? ", private input (not in proof.bin)" : ""}`;
    const t1 = doc.createElementNS(SVG, "text");
    t1.setAttribute("x", String(n.x + n.w / 2));
    t1.setAttribute("y", String(n.y + (n.shape.length ? 18 : 27)));
    t1.setAttribute("class", "label");
    t1.textContent = clip(n.label, 22);
    group.append(title, rect, t1);
    if (n.shape.length) {
      const t2 = doc.createElementNS(SVG, "text");
      t2.setAttribute("x", String(n.x + n.w / 2));
      t2.setAttribute("y", String(n.y + 34));
      t2.setAttribute("class", "shape");
      t2.textContent = clip(`${n.op !== n.label ? `${n.op} ` : ""}[${n.shape.join("×")}]`, 26);
      group.append(t2);
    }
    svg.append(group);
  }
  return svg;
}
