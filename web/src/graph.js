// The graph view, drawn from the verified settings summary.
//  * groupGraph: recognise high-level ops in the primitive graph (MatMul / Linear / Conv = a fused
//    Dot, or Mul + SumReduce, over broadcast views; ReLU = a fused Relu, or LessThan + Mul;
//    Softmax, LayerNorm, Sigmoid, Tanh, GELU, SiLU) from the verified structure alone: ops, shapes,
//    edges and the reduce axis the verifier writes right after the op (no name from the publisher
//    is trusted);
//  * layoutGraph: layered layout with dummy nodes on long edges (edges never cross a box),
//    barycentre ordering and straightened coordinates;
//  * renderGraph / createGraphView: SVG with tooltips (shapes, primitives), fit-to-pane, zoom and
//    pan, and a toggle between high-level ops and primitives.
// groupGraph and layoutGraph are DOM-free (tested under Node).

const NODE_W = 156;
const NODE_H = 44;
const DUMMY_W = 14;
const GAP_X = 26;
const GAP_Y = 40;
const PAD = 14;

function numel(shape) {
  return (Array.isArray(shape) ? shape : []).reduce((a, b) => a * b, 1);
}

function sameShape(a, b) {
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => v === b[i]);
}

/** The user-facing name in a primitive's label ("Add hidden" -> "hidden", "Mul" -> ""). */
export function nodeName(node) {
  const label = String(node?.label ?? "");
  const op = String(node?.op ?? "");
  if (!label.startsWith(op)) return label;
  return label.slice(op.length).replace(/^\(axis=\d+\)/, "").trim();
}

/**
 * The reduce axis of a SumReduce / MaxReduce / Dot. The summary's label is the verified op, then
 * `(axis=N)` from the verified node, then the publisher's name after a space: only that prefix is
 * read, so a name cannot pose as an axis.
 */
function axisOf(node) {
  const label = String(node?.label ?? "");
  const op = String(node?.op ?? "");
  if (!op || !label.startsWith(op)) return null;
  const m = /^\(axis=(\d+)\)(?: |$)/.exec(label.slice(op.length));
  return m ? Number(m[1]) : null;
}

function indexGraph(graph) {
  const nodes = Array.isArray(graph?.nodes) ? graph.nodes : [];
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const srcs = new Map(nodes.map((n) => [n.id, []]));
  const cons = new Map(nodes.map((n) => [n.id, new Set()]));
  for (const e of Array.isArray(graph?.edges) ? graph.edges : []) {
    if (!Array.isArray(e) || !byId.has(e[0]) || !byId.has(e[1]) || e[0] === e[1]) continue;
    srcs.get(e[1]).push(e[0]);
    cons.get(e[0]).add(e[1]);
  }
  const op = (id) => byId.get(id)?.op;
  const isConst = (id) => op(id) === "Constant";
  const isScalarConst = (id) => isConst(id) && numel(byId.get(id).shape) <= 1;
  const reach = (start, next) => {
    const seen = new Set();
    const stack = [start];
    while (stack.length) {
      const id = stack.pop();
      for (const n of next(id)) if (!seen.has(n)) (seen.add(n), stack.push(n));
    }
    return seen;
  };
  const ancestors = (id) => reach(id, (x) => srcs.get(x));
  const descendants = (id) => reach(id, (x) => cons.get(x));
  return { nodes, byId, srcs, cons, op, isConst, isScalarConst, ancestors, descendants };
}

/**
 * The nodes strictly between `x` and `out` (plus `out`): a valid region has `x` as its only
 * non-constant input and `out` as its only exit. Constants used only inside are part of it;
 * shared scalar constants may feed it. Returns a Set or null.
 */
function region(ix, x, out) {
  const desc = ix.descendants(x);
  if (!desc.has(out)) return null;
  const anc = ix.ancestors(out);
  const r = new Set([out]);
  for (const id of anc) if (desc.has(id)) r.add(id);
  for (const id of [...r]) {
    for (const s of ix.srcs.get(id)) {
      if (r.has(s) || s === x) continue;
      if (ix.isConst(s) && [...ix.cons.get(s)].every((c) => r.has(c))) r.add(s);
      else if (!ix.isConst(s)) return null; // constants shared with other ops (a mean's 1/n vector) may feed it
    }
  }
  for (const id of r) {
    if (id === out) continue;
    for (const c of ix.cons.get(id)) if (!r.has(c)) return null;
  }
  return r;
}

/**
 * The nodes from `first` to `last` (both included, everything on a path between them): a valid
 * region reads only `inputs` and constants from outside and leaves only through `last`. Set or null.
 */
function spanRegion(ix, first, last, inputs) {
  const desc = ix.descendants(first);
  if (!desc.has(last)) return null;
  const anc = ix.ancestors(last);
  const r = new Set([first, last]);
  for (const id of anc) if (desc.has(id)) r.add(id);
  for (const id of [...r]) {
    for (const s of ix.srcs.get(id)) {
      if (r.has(s) || inputs.has(s)) continue;
      if (ix.isConst(s)) {
        if ([...ix.cons.get(s)].every((c) => r.has(c))) r.add(s);
      } else return null;
    }
  }
  for (const id of r) {
    if (id === last || ix.isConst(id)) continue;
    for (const c of ix.cons.get(id)) if (!r.has(c)) return null;
  }
  return r;
}

const computedSrcs = (ix, id) => ix.srcs.get(id).filter((s) => !ix.isConst(s));

/**
 * The computed operand a sum reduces: a SumReduce, or a Dot of one computed operand with a
 * constant (a vector of 1/n for a mean, or the 1.0 that per-tensor calibration puts in place of a
 * SumReduce whose total needs a coarser scale). Returns its id, or null.
 */
function summand(ix, s) {
  if (ix.op(s) === "SumReduce") return ix.srcs.get(s)[0] ?? null;
  const src = ix.srcs.get(s);
  if (ix.op(s) !== "Dot" || src.length !== 2 || computedSrcs(ix, s).length !== 1) return null;
  return computedSrcs(ix, s)[0];
}

/** softmax's output: Mul(e, Recip(sum(e))) with e an Exp (or Exp2). */
function isSoftmaxOut(ix, p) {
  if (ix.op(p) !== "Mul" || ix.srcs.get(p).length !== 2) return false;
  const [a, b] = ix.srcs.get(p);
  return [[a, b], [b, a]].some(([e, r]) => {
    if (ix.op(r) !== "Recip") return false;
    return summand(ix, ix.srcs.get(r)[0]) === e && (ix.op(e) === "Exp" || ix.op(e) === "Exp2");
  });
}

const count = (ix, set, op) => [...set].filter((id) => ix.op(id) === op).length;

/**
 * Whether `src` is read by the Dot `d` without a broadcast: its shape is the product's (the Dot's
 * output with the reduced axis put back), as in a sum of squares or a plain reduction.
 */
function productShaped(ix, d, src) {
  const out = ix.byId.get(d).shape;
  const s = ix.byId.get(src).shape;
  const axis = axisOf(ix.byId.get(d));
  if (!Array.isArray(out) || !Array.isArray(s) || axis === null || s.length !== out.length + 1) return false;
  return sameShape([...s.slice(0, axis), ...s.slice(axis + 1)], out);
}

/**
 * A square: Mul(x, x), or a fused sum of squares Dot(x, x); the same node read without a broadcast
 * (x @ x.T reads x twice through different views, and is no square).
 */
function isSquare(ix, id) {
  const s = ix.srcs.get(id);
  if (s.length < 2 || s[0] !== s[1]) return false;
  if (ix.op(id) === "Mul") return s.length === 2 && sameShape(ix.byId.get(s[0]).shape, ix.byId.get(id).shape);
  if (ix.op(id) === "Dot") return s.length <= 3 && productShaped(ix, id, s[0]);
  return false;
}
const hasSquare = (ix, set) => [...set].some((id) => isSquare(ix, id));

function otherSrc(ix, id, one) {
  const s = ix.srcs.get(id);
  if (s.length !== 2) return null;
  return s[0] === one ? s[1] : s[1] === one ? s[0] : null;
}

/** Extend a group along single consumers that add / multiply a constant (bias, affine weight). */
function extendAffine(ix, members, out, ops, taken) {
  let cur = out;
  for (const wantOp of ops) {
    const next = [...ix.cons.get(cur)];
    if (next.length !== 1 || ix.op(next[0]) !== wantOp || taken.has(next[0])) break;
    const c = otherSrc(ix, next[0], cur);
    if (c === null || !ix.isConst(c) || taken.has(c) || [...ix.cons.get(c)].some((k) => k !== next[0])) break;
    members.add(next[0]);
    members.add(c);
    cur = next[0];
  }
  return cur;
}

/**
 * Add to `members` the operands of the product `m` that belong to it: constants only it reads
 * (weights), and materialised views (Contiguous, conv windows) whose every consumer is inside.
 */
function absorbOperands(ix, members, m, operands, taken) {
  for (const s of operands) {
    if (ix.isConst(s) && !taken.has(s) && [...ix.cons.get(s)].every((c) => c === m)) members.add(s);
    let v = s;
    while (ix.op(v) === "Contiguous" && !taken.has(v) && [...ix.cons.get(v)].every((c) => members.has(c))) {
      members.add(v);
      v = ix.srcs.get(v)[0];
    }
  }
}

function groupInput(ix, members, fallback) {
  return [...members].flatMap((id) => ix.srcs.get(id)).find((s) => !members.has(s)) ?? fallback;
}

const MATCHERS = [
  // scores = q·kᵀ (a Dot of two computed operands), scaled and masked, softmax, then · v: from the
  // scores product to the values product, reading only q, k, v (and constants) from outside
  function attention(ix) {
    const out = [];
    for (const d2 of ix.nodes.map((n) => n.id)) {
      if (ix.op(d2) !== "Dot") continue;
      const s2 = computedSrcs(ix, d2);
      if (s2.length !== 2) continue;
      const p = s2.find((id) => isSoftmaxOut(ix, id));
      if (p === undefined) continue;
      const v = s2[0] === p ? s2[1] : s2[0];
      let best = null;
      for (const d1 of ix.ancestors(p)) {
        if (ix.op(d1) !== "Dot" || computedSrcs(ix, d1).length !== 2) continue;
        const inputs = new Set([...computedSrcs(ix, d1), v]);
        const reg = spanRegion(ix, d1, d2, inputs);
        if (reg && (!best || reg.size < best.members.size)) best = { kind: "Attention", out: d2, input: computedSrcs(ix, d1)[0], members: reg };
      }
      if (best) out.push(best);
    }
    return out;
  },
  function softmax(ix) {
    const out = [];
    for (const o of ix.nodes.map((n) => n.id)) {
      if (ix.op(o) !== "Mul" || ix.srcs.get(o).length !== 2) continue;
      const [a, b] = ix.srcs.get(o);
      for (const [e, r] of [[a, b], [b, a]]) {
        if (ix.op(r) !== "Recip") continue;
        if (summand(ix, ix.srcs.get(r)[0]) !== e) continue;
        for (const m of ix.ancestors(o)) {
          if (ix.op(m) !== "MaxReduce") continue;
          const x = ix.srcs.get(m)[0];
          const reg = region(ix, x, o);
          if (reg && (count(ix, reg, "Exp2") + count(ix, reg, "Exp")) > 0) out.push({ kind: "Softmax", out: o, input: x, members: reg });
        }
      }
    }
    return out;
  },
  function layerNorm(ix, taken) {
    const out = [];
    for (const o of ix.nodes.map((n) => n.id)) {
      if (ix.op(o) !== "Mul" || ix.srcs.get(o).length !== 2) continue;
      const r = ix.srcs.get(o).find((s) => ix.op(s) === "Recip" && ix.op(ix.srcs.get(s)[0]) === "Sqrt");
      if (r === undefined) continue;
      // d = x - mean(x) (an Add of x and a multiple of its sum), normalised: o = d * r
      const d = otherSrc(ix, o, r);
      if (d === null || ix.op(d) !== "Add") continue;
      for (const s of ix.ancestors(o)) {
        const x = summand(ix, s);
        if (x === null || !ix.srcs.get(d).includes(x)) continue;
        const reg = region(ix, x, o);
        if (!reg || !hasSquare(ix, reg)) continue;
        const members = new Set(reg);
        const last = extendAffine(ix, members, o, ["Mul", "Add"], taken);
        out.push({ kind: "LayerNorm", out: last, input: x, members });
      }
    }
    return out;
  },
  function geluSilu(ix) {
    const out = [];
    for (const o of ix.nodes.map((n) => n.id)) {
      if (ix.op(o) !== "Mul" || ix.srcs.get(o).length !== 2) continue;
      for (const x of new Set(ix.srcs.get(o))) {
        const s = otherSrc(ix, o, x);
        if (s === null || ix.op(s) !== "Mul" || !ix.srcs.get(s).some((k) => ix.op(k) === "Recip")) continue;
        const reg = region(ix, x, o);
        if (!reg || (count(ix, reg, "Exp2") + count(ix, reg, "Exp")) === 0 || count(ix, reg, "LessThan") < 2) continue;
        out.push({ kind: hasSquare(ix, reg) ? "GELU" : "SiLU", out: o, input: x, members: reg });
      }
    }
    return out;
  },
  // GELU in its erf form: x * (erf(x / sqrt 2) + 1) (* 0.5), as ONNX exports it
  function erfGelu(ix) {
    const out = [];
    for (const e of ix.nodes.map((n) => n.id)) {
      if (ix.op(e) !== "Erf") continue;
      const scaled = ix.srcs.get(e)[0];
      const x = ix.op(scaled) === "Mul" ? computedSrcs(ix, scaled)[0] : scaled;
      let o = null;
      for (const c of ix.descendants(e)) {
        if (ix.op(c) !== "Mul" || !ix.srcs.get(c).includes(x)) continue;
        o = c;
        break;
      }
      if (o === null || x === undefined) continue;
      const next = [...ix.cons.get(o)];
      if (next.length === 1 && ix.op(next[0]) === "Mul" && ix.srcs.get(next[0]).some((k) => ix.isScalarConst(k))) o = next[0];
      const reg = region(ix, x, o);
      if (reg && reg.has(e)) out.push({ kind: "GELU", out: o, input: x, members: reg });
    }
    return out;
  },
  // max pooling: a MaxReduce over a windowed view (Contiguous into [..., kh, kw])
  function maxPool(ix) {
    const out = [];
    for (const m of ix.nodes.map((n) => n.id)) {
      if (ix.op(m) !== "MaxReduce") continue;
      const c = ix.srcs.get(m)[0];
      const cs = ix.byId.get(c)?.shape;
      const ms = ix.byId.get(m).shape;
      if (ix.op(c) !== "Contiguous" || ix.cons.get(c).size !== 1 || !Array.isArray(cs) || !Array.isArray(ms) || cs.length < ms.length + 2) continue;
      out.push({ kind: "MaxPool", out: m, input: ix.srcs.get(c)[0], members: new Set([c, m]) });
    }
    return out;
  },
  function sigmoidTanh(ix) {
    const out = [];
    for (const o of ix.nodes.map((n) => n.id)) {
      if (ix.op(o) !== "Mul" || !ix.srcs.get(o).some((k) => ix.op(k) === "Recip")) continue;
      const inputs = new Set();
      for (const l of ix.ancestors(o)) {
        if (ix.op(l) !== "LessThan") continue;
        const [p, q] = ix.srcs.get(l);
        if (ix.isScalarConst(p) && !ix.isConst(q)) inputs.add(q);
        if (ix.isScalarConst(q) && !ix.isConst(p)) inputs.add(p);
      }
      for (const x of inputs) {
        const reg = region(ix, x, o);
        if (!reg || (count(ix, reg, "Exp2") + count(ix, reg, "Exp")) === 0 || count(ix, reg, "LessThan") < 2) continue;
        out.push({ kind: hasSquare(ix, reg) ? "Tanh" : "Sigmoid", out: o, input: x, members: reg });
      }
    }
    return out;
  },
  function matmul(ix, taken) {
    const out = [];
    for (const r of ix.nodes.map((n) => n.id)) {
      if (ix.op(r) !== "SumReduce") continue;
      const m = ix.srcs.get(r)[0];
      const mn = ix.byId.get(m);
      if (ix.op(m) !== "Mul" || ix.cons.get(m).size !== 1 || !Array.isArray(mn.shape) || mn.shape.length < 3) continue;
      if (axisOf(ix.byId.get(r)) !== mn.shape.length - 1) continue;
      const ms = ix.srcs.get(m);
      if (ms.length !== 2 || ms.every((s) => sameShape(ix.byId.get(s).shape, mn.shape))) continue; // no broadcast view
      const members = new Set([m, r]);
      absorbOperands(ix, members, m, ms, taken);
      const conv = mn.shape.length === 6;
      const before = members.size;
      const last = extendAffine(ix, members, r, ["Add"], taken);
      const kind = conv ? "Conv" : members.size > before ? "Linear" : "MatMul";
      out.push({ kind, out: last, input: groupInput(ix, members, ms[0]), members });
    }
    return out;
  },
  // The fused form: one Dot node (sum over its last axis of a * b, rounded once), with an optional
  // third input, a bias of the output's shape added to each sum (a fused Add).
  function fusedDot(ix, taken) {
    const out = [];
    for (const d of ix.nodes.map((n) => n.id)) {
      if (ix.op(d) !== "Dot") continue;
      const dn = ix.byId.get(d);
      const ds = ix.srcs.get(d);
      if ((ds.length !== 2 && ds.length !== 3) || !Array.isArray(dn.shape) || dn.shape.length < 2) continue;
      if (axisOf(dn) !== dn.shape.length) continue; // over the product's last axis, as a matmul is
      const operands = ds.slice(0, 2);
      if (operands.every((s) => productShaped(ix, d, s))) continue; // no broadcast view: a plain reduction
      const members = new Set([d]);
      absorbOperands(ix, members, d, ds, taken);
      const conv = dn.shape.length + 1 === 6; // the product's rank, as for Mul + SumReduce
      const last = ds.length === 2 ? extendAffine(ix, members, d, ["Add"], taken) : d;
      const kind = conv ? "Conv" : ds.length === 3 || last !== d ? "Linear" : "MatMul";
      out.push({ kind, out: last, input: groupInput(ix, members, operands[0]), members });
    }
    return out;
  },
  function relu(ix) {
    const out = [];
    for (const m of ix.nodes.map((n) => n.id)) {
      if (ix.op(m) !== "Mul" || ix.srcs.get(m).length !== 2) continue;
      for (const l of new Set(ix.srcs.get(m))) {
        if (ix.op(l) !== "LessThan" || ix.cons.get(l).size !== 1) continue;
        const x = otherSrc(ix, m, l);
        const [c, y] = ix.srcs.get(l);
        if (x === null || y !== x || !ix.isScalarConst(c)) continue;
        const members = new Set([l, m]);
        if ([...ix.cons.get(c)].every((k) => k === l)) members.add(c);
        out.push({ kind: "ReLU", out: m, input: x, members });
      }
    }
    return out;
  },
  function fusedRelu(ix) {
    return ix.nodes
      .filter((n) => ix.op(n.id) === "Relu" && ix.srcs.get(n.id).length === 1)
      .map((n) => ({ kind: "ReLU", out: n.id, input: ix.srcs.get(n.id)[0], members: new Set([n.id]) }));
  },
];

/** What each high-level op is made of, for tooltips. */
export const GROUP_HELP = {
  MatMul: "Dot: fused multiply-accumulate over broadcast views (one rounding per output); unfused: Mul + SumReduce",
  Linear: "Dot with a bias: x·W + b as one fused multiply-accumulate (one rounding per output); unfused: Mul + SumReduce + bias Add",
  Conv: "Dot over windowed views (Contiguous windows), one rounding per output, + bias Add; unfused: Mul + SumReduce",
  ReLU: "Relu: max(x, 0) from one sign comparison (exact); unfused: x * (0 < x) as LessThan + Mul",
  Softmax: "exp(x - max) / sum: MaxReduce, Exp (fused table) or Exp2, a sum (SumReduce, or Dot with 1.0), Recip, Mul",
  LayerNorm: "(x - mean) / sqrt(var + eps): a sum (SumReduce, or Dot with a constant), a sum of squares (Dot(d, d) or Mul + SumReduce), Sqrt, Recip",
  Sigmoid: "1 / (1 + e^-x) through Exp (or Exp2) and Recip",
  Tanh: "through Exp (or Exp2) and Recip",
  GELU: "x * sigmoid(...) (tanh form), or x * (erf(x / sqrt 2) + 1) / 2",
  Attention: "softmax(q·kᵀ scaled, masked) · v: two Dot products around a Softmax",
  MaxPool: "MaxReduce over windowed views (Contiguous windows)",
  SiLU: "x * sigmoid(x)",
};

/**
 * Group the primitives of `{nodes, edges}` into high-level ops. Returns a graph of the same shape,
 * whose nodes carry `members` (the primitives, in id order), `kind` ("group" | "node") and, for
 * groups, `constants` (the weights and scalars folded in). Scalar constants whose every consumer is
 * inside a group are folded away. Ops it does not recognise stay as primitives.
 */
export function groupGraph(graph) {
  const ix = indexGraph(graph);
  const taken = new Set();
  const groups = [];
  for (const matcher of MATCHERS) {
    const found = matcher(ix, taken).sort((a, b) => b.members.size - a.members.size);
    for (const g of found) {
      if ([...g.members].some((id) => taken.has(id))) continue;
      for (const id of g.members) taken.add(id);
      groups.push(g);
    }
  }
  const groupOf = new Map();
  for (const g of groups) for (const id of g.members) groupOf.set(id, g);
  // Every other constant (weights, shared scalars) is folded into the boxes that read it: no
  // box, no edge (its name and shape are in their tooltips). The primitives view draws them all.
  const hidden = new Set();
  const folded = new Map(); // primitive id -> constants it reads
  for (const n of ix.nodes) {
    if (groupOf.has(n.id) || !ix.isConst(n.id)) continue;
    const users = [...ix.cons.get(n.id)];
    if (!users.length) continue;
    hidden.add(n.id);
    for (const u of users) {
      const g = groupOf.get(u);
      if (g) g.shared = [...(g.shared ?? []), n.id];
      else folded.set(u, [...(folded.get(u) ?? []), n.id]);
    }
  }
  const brief = (id) => {
    const n = ix.byId.get(id);
    return { id, op: String(n.op ?? ""), label: String(n.label ?? n.op ?? id), shape: Array.isArray(n.shape) ? n.shape : [] };
  };
  const nodes = [];
  const emitted = new Set();
  for (const n of ix.nodes) {
    if (hidden.has(n.id)) continue;
    const g = groupOf.get(n.id);
    if (!g) {
      nodes.push({ ...n, kind: "node", members: [brief(n.id)], ...(folded.has(n.id) ? { constants: [...new Set(folded.get(n.id))].map(brief) } : {}) });
      continue;
    }
    if (emitted.has(g)) continue;
    emitted.add(g);
    const outNode = ix.byId.get(g.out);
    const name = nodeName(outNode);
    const ids = [...g.members].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const constants = [...ids.filter((id) => ix.isConst(id)), ...new Set(g.shared ?? [])].map(brief);
    nodes.push({
      id: `g${g.out}`,
      op: g.kind,
      label: name ? `${g.kind} ${name}` : g.kind,
      shape: outNode.shape,
      private: null,
      kind: "group",
      out: g.out,
      members: ids.filter((id) => !ix.isConst(id)).map(brief),
      constants,
    });
  }
  const rep = (id) => (hidden.has(id) ? null : groupOf.has(id) ? `g${groupOf.get(id).out}` : id);
  const seen = new Set();
  const edges = [];
  for (const n of ix.nodes) {
    for (const s of ix.srcs.get(n.id)) {
      const a = rep(s);
      const b = rep(n.id);
      if (a === null || b === null || a === b) continue;
      const key = `${a}\u0000${b}`;
      if (seen.has(key)) continue;
      seen.add(key);
      edges.push([a, b]);
    }
  }
  return { nodes, edges, groups: groups.length };
}

/**
 * Lay out `{nodes: [{id, op, label, shape}], edges: [[src, dst], ...]}` in levels.
 * Returns {nodes: [{..., level, x, y, w, h}], edges: [{from, to, points: [[x, y], ...], path}],
 * width, height, cyclic}. Edges naming unknown nodes are ignored; a cycle (never produced by the
 * prover) is broken by placing the remaining nodes on one extra level. Edges spanning several
 * levels pass through reserved slots (dummy nodes), so no edge crosses a box.
 */
export function layoutGraph(graph) {
  const nodes = Array.isArray(graph?.nodes) ? graph.nodes : [];
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const edges = [];
  const seenEdge = new Set();
  for (const e of Array.isArray(graph?.edges) ? graph.edges : []) {
    if (!Array.isArray(e) || !byId.has(e[0]) || !byId.has(e[1]) || e[0] === e[1]) continue;
    const key = `${e[0]}\u0000${e[1]}`;
    if (!seenEdge.has(key)) (seenEdge.add(key), edges.push([e[0], e[1]]));
  }
  const indeg = new Map(nodes.map((n) => [n.id, 0]));
  const out = new Map(nodes.map((n) => [n.id, []]));
  const inn = new Map(nodes.map((n) => [n.id, []]));
  for (const [a, b] of edges) {
    indeg.set(b, indeg.get(b) + 1);
    out.get(a).push(b);
    inn.get(b).push(a);
  }
  const level = new Map();
  let queue = nodes.filter((n) => indeg.get(n.id) === 0).map((n) => n.id);
  for (const id of queue) level.set(id, 0);
  const seen = new Set();
  const topo = [];
  while (queue.length) {
    const next = [];
    for (const id of queue) {
      seen.add(id);
      topo.push(id);
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
    for (const n of nodes) if (!seen.has(n.id)) (level.set(n.id, extra), topo.push(n.id));
  }
  // Constants (and other sources that are not inputs) sit right above their first consumer.
  if (!cyclic) {
    for (const n of nodes) {
      if (inn.get(n.id).length || n.op === "Input" || !out.get(n.id).length) continue;
      level.set(n.id, Math.max(0, Math.min(...out.get(n.id).map((b) => level.get(b))) - 1));
    }
  }
  // Layers with dummy nodes on long edges.
  const items = new Map(); // key -> {key, node?, w, level, ins: [], outs: []}
  const layers = [];
  const put = (item) => {
    items.set(item.key, item);
    (layers[item.level] ??= []).push(item);
  };
  for (const id of topo) put({ key: `n:${id}`, id, node: byId.get(id), w: NODE_W, level: level.get(id), ins: [], outs: [] });
  const routes = [];
  edges.forEach(([a, b], i) => {
    const la = level.get(a);
    const lb = level.get(b);
    const chain = [`n:${a}`];
    if (lb > la) {
      for (let l = la + 1; l < lb; l++) {
        const key = `d:${i}:${l}`;
        put({ key, dummy: true, w: DUMMY_W, level: l, ins: [], outs: [] });
        chain.push(key);
      }
    }
    chain.push(`n:${b}`);
    for (let k = 0; k + 1 < chain.length; k++) {
      items.get(chain[k]).outs.push(chain[k + 1]);
      items.get(chain[k + 1]).ins.push(chain[k]);
    }
    routes.push({ from: a, to: b, chain, up: lb <= la });
  });
  for (let l = 0; l < layers.length; l++) layers[l] ??= [];
  // Crossing reduction: barycentre sweeps.
  const pos = new Map();
  const index = () => layers.forEach((row) => row.forEach((it, i) => pos.set(it.key, i)));
  index();
  const bary = (it, dir) => {
    const ns = dir === "down" ? it.ins : it.outs;
    return ns.length ? ns.reduce((s, k) => s + pos.get(k), 0) / ns.length : pos.get(it.key);
  };
  for (let iter = 0; iter < 8; iter++) {
    const dir = iter % 2 === 0 ? "down" : "up";
    const order = dir === "down" ? layers.keys() : [...layers.keys()].reverse();
    for (const l of order) {
      const row = layers[l];
      const keyed = row.map((it, i) => [bary(it, dir), i, it]);
      keyed.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
      layers[l] = keyed.map((k) => k[2]);
      layers[l].forEach((it, i) => pos.set(it.key, i));
    }
  }
  // Coordinates: pack each layer, then pull items toward their neighbours' centres.
  const cx = new Map();
  for (const row of layers) {
    let x = 0;
    for (const it of row) {
      cx.set(it.key, x + it.w / 2);
      x += it.w + GAP_X;
    }
  }
  const settle = (row, want) => {
    // place in order, as close to the wanted centres as the gaps allow (two sweeps, averaged)
    const n = row.length;
    const left = new Array(n);
    const right = new Array(n);
    for (let i = 0; i < n; i++) {
      const min = i ? left[i - 1] + row[i - 1].w / 2 + GAP_X + row[i].w / 2 : -Infinity;
      left[i] = Math.max(want[i], min);
    }
    for (let i = n - 1; i >= 0; i--) {
      const max = i < n - 1 ? right[i + 1] - row[i + 1].w / 2 - GAP_X - row[i].w / 2 : Infinity;
      right[i] = Math.min(want[i], max);
    }
    const res = row.map((_, i) => (left[i] + right[i]) / 2);
    for (let i = 1; i < n; i++) {
      const min = res[i - 1] + row[i - 1].w / 2 + GAP_X + row[i].w / 2;
      if (res[i] < min) res[i] = min;
    }
    row.forEach((it, i) => cx.set(it.key, res[i]));
  };
  for (let iter = 0; iter < 6; iter++) {
    const down = iter % 2 === 0;
    const order = down ? [...layers.keys()] : [...layers.keys()].reverse();
    for (const l of order) {
      const row = layers[l];
      const want = row.map((it) => {
        const ns = [...(down ? it.ins : it.outs), ...(iter > 3 ? (down ? it.outs : it.ins) : [])];
        return ns.length ? ns.reduce((s, k) => s + cx.get(k), 0) / ns.length : cx.get(it.key);
      });
      settle(row, want);
    }
  }
  let minX = Infinity;
  let maxX = -Infinity;
  for (const it of items.values()) {
    minX = Math.min(minX, cx.get(it.key) - it.w / 2);
    maxX = Math.max(maxX, cx.get(it.key) + it.w / 2);
  }
  if (!items.size) (minX = 0), (maxX = NODE_W);
  const shift = PAD - minX;
  const width = Math.max(NODE_W + 2 * PAD, maxX - minX + 2 * PAD);
  const height = PAD * 2 + Math.max(1, layers.length) * NODE_H + Math.max(0, layers.length - 1) * GAP_Y;
  const yOf = (l) => PAD + l * (NODE_H + GAP_Y);
  const placed = new Map();
  for (const it of items.values()) {
    if (it.dummy) continue;
    const n = it.node;
    placed.set(it.id, {
      ...n,
      id: it.id,
      op: String(n.op ?? ""),
      label: String(n.label ?? n.op ?? it.id),
      shape: Array.isArray(n.shape) ? n.shape : [],
      private: n.private === true,
      level: it.level,
      x: cx.get(it.key) + shift - NODE_W / 2,
      y: yOf(it.level),
      w: NODE_W,
      h: NODE_H,
    });
  }
  const routed = routes.map((r) => {
    const points = [];
    r.chain.forEach((key, k) => {
      const it = items.get(key);
      const x = cx.get(key) + shift;
      const y = yOf(it.level);
      if (it.dummy) points.push([x, y], [x, y + NODE_H]);
      else if (k === 0) points.push([x, r.up ? y : y + NODE_H]);
      else points.push([x, r.up ? y + NODE_H : y]);
    });
    let path = `M${points[0][0].toFixed(1)},${points[0][1].toFixed(1)}`;
    for (let k = 1; k < points.length; k++) {
      const [x0, y0] = points[k - 1];
      const [x1, y1] = points[k];
      if (x0 === x1) path += ` L${x1.toFixed(1)},${y1.toFixed(1)}`;
      else {
        const my = (y0 + y1) / 2;
        path += ` C${x0.toFixed(1)},${my.toFixed(1)} ${x1.toFixed(1)},${my.toFixed(1)} ${x1.toFixed(1)},${y1.toFixed(1)}`;
      }
    }
    return { from: r.from, to: r.to, points, path };
  });
  return { nodes: nodes.map((n) => placed.get(n.id)), edges: routed, width, height, cyclic };
}

function clip(text, n) {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

function shapeText(shape) {
  return Array.isArray(shape) && shape.length ? `[${shape.join("×")}]` : "scalar";
}

/** One line describing a drawn node (its tooltip and the info line under the graph). */
export function describeNode(n, { outputs = [], inputs = [] } = {}) {
  const parts = [`${n.label} — ${n.op}, output ${shapeText(n.shape)}`];
  const outId = n.kind === "group" ? n.out : n.id;
  const outs = outputs.filter((o) => o.node === outId).map((o) => o.name);
  if (outs.length) parts.push(`public output ${outs.join(", ")}`);
  const ins = inputs.filter((i) => i.node === n.id);
  if (ins.length) parts.push(ins.some((i) => i.private) ? "private input (not in proof.bin)" : "public input");
  else if (n.private === true) parts.push("private input (not in proof.bin)");
  if (n.kind === "group") {
    if (GROUP_HELP[n.op]) parts.push(GROUP_HELP[n.op]);
    parts.push(`primitives: ${n.members.map((m) => `#${m.id} ${m.label} ${shapeText(m.shape)}`).join("; ")}`);
    const named = (n.constants ?? []).filter((c) => numel(c.shape) > 1 || nodeName(c));
    if (named.length) parts.push(`weights: ${named.map((c) => `${nodeName(c) || `#${c.id}`} ${shapeText(c.shape)}`).join(", ")}`);
  } else if (n.kind === "node") {
    parts.push(`primitive #${n.id}`);
    const named = (n.constants ?? []).filter((c) => numel(c.shape) > 1 || nodeName(c));
    if (named.length) parts.push(`reads constants: ${named.map((c) => `${nodeName(c) || `#${c.id}`} ${shapeText(c.shape)}`).join(", ")}`);
  }
  return parts.join("; ");
}

const SVG = "http://www.w3.org/2000/svg";

/** Draw a graph (grouped or not) as an <svg> element (text via textContent, never markup). */
export function renderGraph(doc, graph, { outputs = [], inputs = [] } = {}) {
  const g = layoutGraph(graph);
  const svg = doc.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${g.width} ${g.height}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  svg.setAttribute("role", "img");
  svg.dataset.width = String(g.width);
  svg.dataset.height = String(g.height);
  svg.style.aspectRatio = `${g.width} / ${g.height}`;
  svg.style.maxWidth = `${g.width}px`; // Fit never enlarges the graph past its natural size
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
  const outNodes = new Set(outputs.map((o) => o.node));
  for (const e of g.edges) {
    const path = doc.createElementNS(SVG, "path");
    path.setAttribute("d", e.path);
    path.setAttribute("class", "edge");
    path.setAttribute("marker-end", "url(#lv-arrow)");
    path.dataset.from = String(e.from);
    path.dataset.to = String(e.to);
    svg.append(path);
  }
  for (const n of g.nodes) {
    const group = doc.createElementNS(SVG, "g");
    const outId = n.kind === "group" ? n.out : n.id;
    const classes = ["node", `op-${n.op.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`];
    if (n.kind === "group") classes.push("group");
    if (n.private) classes.push("private");
    if (outNodes.has(outId)) classes.push("output");
    if (n.op === "Input") classes.push("input");
    group.setAttribute("class", classes.join(" "));
    group.setAttribute("data-node-id", String(n.id));
    const rect = doc.createElementNS(SVG, "rect");
    for (const [k, v] of Object.entries({ x: n.x, y: n.y, width: n.w, height: n.h, rx: n.kind === "group" ? 12 : 7 })) rect.setAttribute(k, String(v));
    const title = doc.createElementNS(SVG, "title");
    title.textContent = describeNode(n, { outputs, inputs });
    const t1 = doc.createElementNS(SVG, "text");
    t1.setAttribute("x", String(n.x + n.w / 2));
    t1.setAttribute("y", String(n.y + 18));
    t1.setAttribute("class", "label");
    t1.textContent = clip(n.label, 21);
    const t2 = doc.createElementNS(SVG, "text");
    t2.setAttribute("x", String(n.x + n.w / 2));
    t2.setAttribute("y", String(n.y + 34));
    t2.setAttribute("class", "shape");
    const sub = n.kind === "group" ? `${n.members.length} op${n.members.length === 1 ? "" : "s"}` : n.op !== n.label.split(" ")[0] ? n.op : "";
    t2.textContent = clip(`${sub ? `${sub} ` : ""}${shapeText(n.shape)}`, 24);
    group.append(title, rect, t1, t2);
    svg.append(group);
  }
  return svg;
}

const ZOOM_STEP = 1.4;

/**
 * The interactive graph pane: a toolbar (zoom out, zoom in, fit, primitives toggle), the SVG
 * fitted to the pane, drag to pan and ctrl/⌘-wheel or pinch to zoom when zoomed in, an info line
 * for the node under the pointer (or tapped), and a text list of the nodes for screen readers.
 * `summary` is the settings summary ({graph, inputs, outputs}).
 */
export function createGraphView(doc, summary) {
  const root = doc.createElement("div");
  root.className = "graph-view";
  const bar = doc.createElement("div");
  bar.className = "graph-bar";
  const mk = (cls, text, label) => {
    const b = doc.createElement("button");
    b.type = "button";
    b.className = `gbtn ${cls}`;
    b.textContent = text;
    if (label) b.setAttribute("aria-label", label);
    return b;
  };
  const zoomOut = mk("zoom-out", "−", "Zoom out");
  const zoomIn = mk("zoom-in", "+", "Zoom in");
  const fit = mk("fit", "Fit", "Fit the graph to the pane");
  const toggle = mk("primitives", "Primitives", null);
  toggle.setAttribute("aria-pressed", "false");
  const count = doc.createElement("span");
  count.className = "graph-count";
  bar.append(zoomOut, zoomIn, fit, toggle, count);
  const pane = doc.createElement("div");
  pane.className = "graph-pane";
  const info = doc.createElement("p");
  info.className = "graph-info";
  info.setAttribute("aria-live", "polite");
  info.textContent = "Hover or tap a box for its shapes and primitives.";
  const list = doc.createElement("ol");
  list.className = "sr-only graph-list";
  root.append(bar, pane, info, list);

  const primitive = summary.graph;
  const grouped = groupGraph(primitive);
  const extra = { outputs: summary.outputs ?? [], inputs: summary.inputs ?? [] };
  let showPrimitives = grouped.groups === 0;
  let svg = null;
  let box = null; // current viewBox {x, y, w, h}
  let full = null;

  const setBox = (b) => {
    box = b;
    svg.setAttribute("viewBox", `${b.x.toFixed(1)} ${b.y.toFixed(1)} ${b.w.toFixed(1)} ${b.h.toFixed(1)}`);
    const zoomed = b.w < full.w - 0.5;
    root.classList.toggle("zoomed", zoomed);
    zoomOut.disabled = !zoomed;
  };
  const zoom = (factor, cxFrac = 0.5, cyFrac = 0.5) => {
    const w = Math.min(full.w, Math.max(full.w / 12, box.w / factor));
    const h = w * (full.h / full.w);
    const px = box.x + box.w * cxFrac;
    const py = box.y + box.h * cyFrac;
    let x = px - w * cxFrac;
    let y = py - h * cyFrac;
    x = Math.min(Math.max(x, full.x), full.x + full.w - w);
    y = Math.min(Math.max(y, full.y), full.y + full.h - h);
    setBox({ x, y, w, h });
  };
  const draw = () => {
    const g = showPrimitives ? primitive : grouped;
    svg = renderGraph(doc, g, extra);
    full = { x: 0, y: 0, w: Number(svg.dataset.width), h: Number(svg.dataset.height) };
    pane.replaceChildren(svg);
    setBox(full);
    toggle.setAttribute("aria-pressed", String(showPrimitives));
    toggle.hidden = grouped.groups === 0;
    const n = g.nodes.length;
    count.textContent = showPrimitives ? `${n} primitive${n === 1 ? "" : "s"}` : `${n} op${n === 1 ? "" : "s"} (${primitive.nodes.length} primitives)`;
    list.replaceChildren(...layoutGraph(g).nodes.map((node) => {
      const li = doc.createElement("li");
      li.textContent = describeNode(node, extra);
      return li;
    }));
    svg.addEventListener("pointerover", (e) => {
      const node = e.target.closest?.("g.node");
      if (node) info.textContent = node.querySelector("title").textContent;
    });
  };
  zoomIn.addEventListener("click", () => zoom(ZOOM_STEP));
  zoomOut.addEventListener("click", () => zoom(1 / ZOOM_STEP));
  fit.addEventListener("click", () => setBox(full));
  toggle.addEventListener("click", () => {
    showPrimitives = !showPrimitives;
    draw();
  });
  // Pan by dragging (when zoomed in), zoom with ctrl/⌘ + wheel or a trackpad pinch.
  let drag = null;
  pane.addEventListener("pointerdown", (e) => {
    if (!root.classList.contains("zoomed") || e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, box, id: e.pointerId };
    pane.setPointerCapture?.(e.pointerId);
  });
  pane.addEventListener("pointermove", (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const rect = svg.getBoundingClientRect();
    const scale = Math.max(drag.box.w / rect.width, drag.box.h / rect.height);
    let x = drag.box.x - (e.clientX - drag.x) * scale;
    let y = drag.box.y - (e.clientY - drag.y) * scale;
    x = Math.min(Math.max(x, full.x), full.x + full.w - drag.box.w);
    y = Math.min(Math.max(y, full.y), full.y + full.h - drag.box.h);
    setBox({ ...drag.box, x, y });
  });
  const endDrag = () => {
    drag = null;
  };
  pane.addEventListener("pointerup", endDrag);
  pane.addEventListener("pointercancel", endDrag);
  pane.addEventListener("wheel", (e) => {
    if (!e.ctrlKey && !e.metaKey) return; // plain wheel scrolls the dialog
    e.preventDefault();
    const rect = svg.getBoundingClientRect();
    zoom(e.deltaY < 0 ? 1.15 : 1 / 1.15, (e.clientX - rect.left) / rect.width, (e.clientY - rect.top) / rect.height);
  }, { passive: false });
  pane.addEventListener("click", (e) => {
    const node = e.target.closest?.("g.node");
    if (node) info.textContent = node.querySelector("title").textContent;
  });
  draw();
  return root;
}
