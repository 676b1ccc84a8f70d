// The download zip (checked by Python's zipfile) and the graph layout.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import { describeNode, groupGraph, layoutGraph } from "../src/graph.js";
import { crc32, makeZip } from "../src/zip.js";
import { join } from "node:path";
import { REPO, WEB, python, sampleFiles } from "./helpers.mjs";

// Settings summaries of small graphs built with the prover's high-level ops, and of the demo.
const FIXTURES = JSON.parse(execFileSync(python(), [join(WEB, "test", "fixtures", "graphs.py")], { cwd: REPO, encoding: "utf8", maxBuffer: 64 << 20 }));
FIXTURES.demo = JSON.parse(execFileSync(python(), ["-c", "import sys, json\nfrom luminair.verifier.summary import settings_summary\nprint(json.dumps(settings_summary(sys.stdin.buffer.read())))"], { cwd: REPO, input: Buffer.from(sampleFiles().settings), encoding: "utf8" }));

/** Every point of every edge lies outside every box but its own two ends. */
function assertRouted(layout, name) {
  const boxes = layout.nodes;
  for (const e of layout.edges) {
    const pts = [];
    for (let k = 0; k + 1 < e.points.length; k++) {
      const [x0, y0] = e.points[k];
      const [x1, y1] = e.points[k + 1];
      for (let t = 0; t <= 1; t += 0.05) {
        // the drawn curve between two points stays in the band between them and, for a vertical
        // pass, on the line: sample both the straight segment and its vertical extremes
        pts.push([x0 + (x1 - x0) * t, y0 + (y1 - y0) * t], [x0, y0 + (y1 - y0) * t], [x1, y0 + (y1 - y0) * t]);
      }
    }
    for (const b of boxes) {
      if (b.id === e.from || b.id === e.to) continue;
      for (const [x, y] of pts) {
        assert.ok(!(x > b.x + 0.5 && x < b.x + b.w - 0.5 && y > b.y + 0.5 && y < b.y + b.h - 0.5), `${name}: edge ${e.from}->${e.to} crosses box ${b.id} at ${x},${y}`);
      }
    }
  }
}

describe("makeZip", () => {
  it("CRC-32 of a known string", () => {
    assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
  });

  it("gives an archive Python's zipfile reads back byte for byte", () => {
    const { proof, settings } = sampleFiles();
    const zip = makeZip([{ name: "proof.bin", data: proof }, { name: "settings.bin", data: settings }]);
    const code = [
      "import sys, zipfile, io, hashlib, json",
      "z = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))",
      "assert z.testzip() is None",
      "print(json.dumps({n: hashlib.sha256(z.read(n)).hexdigest() for n in z.namelist()}))",
    ].join("\n");
    const got = JSON.parse(execFileSync(python(), ["-c", code], { input: Buffer.from(zip) }).toString());
    const sha = (b) => execFileSync(python(), ["-c", "import sys,hashlib;print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())"], { input: Buffer.from(b) }).toString().trim();
    assert.deepEqual(got, { "proof.bin": sha(proof), "settings.bin": sha(settings) });
    assert.deepEqual(makeZip([{ name: "a", data: proof }]), makeZip([{ name: "a", data: proof }]), "deterministic");
  });
});

describe("layoutGraph", () => {
  it("places nodes on levels by longest path from a source", () => {
    const g = layoutGraph({
      nodes: [
        { id: 0, op: "Input", label: "x", shape: [1, 4] },
        { id: 1, op: "Constant", label: "w", shape: [4, 2] },
        { id: 2, op: "MatMul", label: "matmul", shape: [1, 2] },
        { id: 3, op: "ReLU", label: "relu", shape: [1, 2] },
        { id: 4, op: "Add", label: "skip", shape: [1, 2] },
      ],
      edges: [[0, 2], [1, 2], [2, 3], [3, 4], [0, 4], [9, 4]],
    });
    assert.deepEqual(g.nodes.map((n) => n.level), [0, 0, 1, 2, 3]);
    assert.equal(g.edges.length, 5, "edges to unknown nodes are dropped");
    const skip = g.edges.find((e) => e.from === 0 && e.to === 4);
    assert.ok(skip.points.length > 2, "a long edge is routed through reserved slots");
    assertRouted(g, "small");
    assert.equal(g.cyclic, false);
    assert.ok(g.nodes[0].y < g.nodes[2].y && g.nodes[2].y < g.nodes[3].y);
    assert.notEqual(g.nodes[0].x, g.nodes[1].x);
    for (const n of g.nodes) assert.ok(n.x >= 0 && n.x + n.w <= g.width && n.y + n.h <= g.height);
  });

  it("handles a single node, an empty graph and a cycle", () => {
    assert.equal(layoutGraph({ nodes: [{ id: 0, op: "fibonacci", label: "fibonacci", shape: [] }], edges: [] }).nodes.length, 1);
    assert.equal(layoutGraph({}).nodes.length, 0);
    const c = layoutGraph({ nodes: [{ id: "a", op: "x" }, { id: "b", op: "y" }], edges: [["a", "b"], ["b", "a"]] });
    assert.equal(c.cyclic, true);
    assert.equal(c.nodes.length, 2);
  });
});

describe("groupGraph: high-level ops from the verified primitives", () => {
  const labels = (summary) => groupGraph(summary.graph).nodes.map((n) => n.op);
  const ops = (name) => FIXTURES[name].graph.nodes.map((n) => n.op);
  /** The fixture's graph with `edit(nodes, edges)` applied to a deep copy. */
  const edited = (name, edit) => {
    const g = structuredClone(FIXTURES[name].graph);
    edit(g.nodes, g.edges);
    return g;
  };
  /** Every primitive of `prim` is drawn once: as a node, a group member or a folded constant. */
  const assertCovered = (prim, g, name) => {
    const covered = [];
    for (const n of g.nodes) for (const m of [...n.members, ...(n.constants ?? [])]) covered.push(m.id);
    const uniq = [...new Set(covered)].sort((a, b) => a - b);
    assert.deepEqual(uniq, prim.nodes.map((n) => n.id), `${name}: no primitive is lost`);
    const members = g.nodes.flatMap((n) => n.members.map((m) => m.id));
    assert.equal(new Set(members).size, members.length, `${name}: no primitive is drawn twice`);
  };

  // The same ops, compiled by StwoCompiler() (fused Dot / Relu) and StwoCompiler(fuse=False).
  const expected = {
    relu: ["Input", "ReLU"],
    matmul: ["Input", "MatMul"],
    linear: ["Input", "Linear"],
    matmul_plus_bias: ["Input", "Linear"],
    gram: ["Input", "MatMul"],
    softmax: ["Input", "Softmax"],
    layernorm: ["Input", "LayerNorm"],
    sigmoid: ["Input", "Sigmoid"],
    tanh: ["Input", "Tanh"],
    gelu: ["Input", "GELU"],
    silu: ["Input", "SiLU"],
    conv: ["Input", "Conv"],
    two_relus: ["Input", "ReLU", "Add", "ReLU"],
    mlp_relu_softmax: ["Input", "Linear", "ReLU", "MatMul", "Softmax"],
  };

  it("the fixtures really are fused (Dot / Relu) and unfused (primitives only)", () => {
    const fusedOps = (name) => ops(name).filter((o) => o === "Dot" || o === "Relu");
    assert.deepEqual(fusedOps("mlp_relu_softmax"), ["Dot", "Relu", "Dot"]);
    assert.deepEqual(fusedOps("conv"), ["Dot"]);
    assert.deepEqual(fusedOps("layernorm"), ["Dot"]);
    assert.deepEqual(fusedOps("matmul_plus_bias"), ["Dot"]);
    assert.ok(!ops("matmul_plus_bias").includes("Add"), "the bias Add is folded into the Dot");
    assert.equal(FIXTURES.linear.graph.edges.filter((e) => e[1] === 3).length, 3, "Linear is one Dot with 3 inputs");
    for (const name of Object.keys(expected)) {
      assert.deepEqual(fusedOps(`${name}_unfused`), [], `${name}_unfused has no fused op`);
    }
  });

  it("recognises each op the prover builds, fused or from primitives", () => {
    for (const [name, want] of Object.entries(expected)) {
      assert.deepEqual(labels(FIXTURES[name]), want, name);
      assert.deepEqual(labels(FIXTURES[`${name}_unfused`]), want, `${name}_unfused`);
      for (const n of [name, `${name}_unfused`]) assertCovered(FIXTURES[n].graph, groupGraph(FIXTURES[n].graph), n);
    }
  });

  it("a fused MLP: Dot with bias -> Linear, Relu -> ReLU, Dot -> MatMul, each with the weights only it reads", () => {
    const g = groupGraph(FIXTURES.mlp_relu_softmax.graph);
    const [, linear, relu, matmul] = g.nodes;
    assert.deepEqual(linear.members.map((m) => m.op), ["Dot"]);
    assert.deepEqual(linear.constants.map((c) => c.label), ["Constant l1.w", "Constant l1.b"]);
    assert.deepEqual(relu.members.map((m) => m.op), ["Relu"]);
    assert.deepEqual(relu.constants, []);
    assert.deepEqual(matmul.members.map((m) => m.op), ["Dot"]);
    assert.deepEqual(matmul.constants.map((c) => c.label), ["Constant l2.w"]);
    assert.deepEqual(g.edges, [[0, linear.id], [linear.id, relu.id], [relu.id, matmul.id], [matmul.id, g.nodes[4].id]]);
    const text = describeNode(linear, FIXTURES.mlp_relu_softmax);
    assert.match(text, /Dot with a bias/);
    assert.match(text, /primitives: #3 Dot\(axis=2\) \[1×6\]/);
    assert.match(text, /weights: l1\.w \[6×8\], l1\.b \[6\]/);
    assert.match(describeNode(relu, FIXTURES.mlp_relu_softmax), /Relu: max\(x, 0\).*primitives: #4 Relu \[1×6\]/);
    // unfused: the same groups, made of Mul + SumReduce (+ Add) and LessThan + Mul
    const u = groupGraph(FIXTURES.mlp_relu_softmax_unfused.graph);
    assert.deepEqual(u.nodes[1].members.map((m) => m.op), ["Mul", "SumReduce", "Add"]);
    assert.deepEqual(u.nodes[2].members.map((m) => m.op), ["LessThan", "Mul"]);
    assert.deepEqual(u.nodes[3].members.map((m) => m.op), ["Mul", "SumReduce"]);
  });

  it("a fused conv: the Dot over windows takes its Contiguous windows, weights and the bias", () => {
    for (const name of ["conv", "conv_unfused"]) {
      const [, conv] = groupGraph(FIXTURES[name].graph).nodes;
      // fused: the windows (one copy: a window view step, no padding here) and one Dot whose third
      // input is the bias (its 9 products a window are not padded to 16: the Freivalds check takes
      // it); unfused: Mul + SumReduce and the bias Add
      const want = name === "conv" ? ["Contiguous", "Dot"] : ["Contiguous", "Mul", "SumReduce", "Add"];
      assert.deepEqual(conv.members.map((m) => m.op), want, name);
      assert.deepEqual(conv.constants.map((c) => c.label).sort(), ["Constant conv.b", "Constant conv.w"], name);
    }
    // a window another node also reads stays outside the group (it does not only feed the Dot)
    const shared = edited("conv", (nodes, edges) => {
      nodes.push({ id: 8, op: "Exp2", label: "Exp2", shape: [1, 1, 1, 3, 3, 3, 3], private: null });
      edges.push([3, 8]);
    });
    const conv = groupGraph(shared).nodes.find((n) => n.op === "Conv" || n.members?.some((m) => m.id === 4));
    assert.deepEqual(conv.members.map((m) => m.id), [4]); // the Dot alone: the shared window 3 stays out
  });

  it("a sum as per-tensor calibration writes it, Dot(e, 1.0), is still softmax's sum", () => {
    const dotSum = edited("softmax", (nodes, edges) => {
      nodes[6] = { ...nodes[6], op: "Dot", label: "Dot(axis=1)" };
      nodes.push({ id: 9, op: "Constant", label: "Constant", shape: [1, 1], private: null });
      edges.push([9, 6]);
    });
    assert.deepEqual(labels({ graph: dotSum }), ["Input", "Softmax"]);
    // a Dot of two computed operands is a product, not a sum
    const product = edited("softmax", (nodes, edges) => {
      nodes[6] = { ...nodes[6], op: "Dot", label: "Dot(axis=1)" };
      edges.push([4, 6]);
    });
    assert.ok(!labels({ graph: product }).includes("Softmax"));
  });

  it("a layer norm's mean is of the x its output subtracts it from", () => {
    // the same layer norm behind a softmax: one LayerNorm box over its own 9 primitives, not a box
    // from the softmax's sum onwards (both sums reduce a computed operand)
    const g = groupGraph(FIXTURES.transformer.graph);
    for (const ln of g.nodes.filter((n) => n.op === "LayerNorm")) assert.ok(ln.members.length <= 12, ln.members.length);
  });

  it("a fused layer norm: Dot(d, d) is its sum of squares; any other Dot is not", () => {
    const g = groupGraph(FIXTURES.layernorm.graph);
    const ln = g.nodes[1];
    assert.ok(ln.members.some((m) => m.op === "Dot" && m.label === "Dot(axis=1)"), "the square sum is inside");
    assert.deepEqual(ln.constants.filter((c) => c.shape.length).map((c) => c.label), ["Constant ln.g", "Constant ln.b"]);
    const dot = FIXTURES.layernorm.graph.nodes.find((n) => n.op === "Dot").id;
    // Dot(d, x): two different operands, no square
    const notSquare = edited("layernorm", (_, edges) => {
      edges.find((e) => e[1] === dot && e[0] !== 0)[0] = 0;
    });
    assert.ok(!labels({ graph: notSquare }).includes("LayerNorm"));
    // Dot(d, d) over an axis d's shape does not have: d is broadcast (a Gram matrix), no square
    const broadcast = edited("layernorm", (nodes) => {
      nodes[dot].label = "Dot(axis=0)";
    });
    assert.ok(!labels({ graph: broadcast }).includes("LayerNorm"));
  });

  it("a plain sum of squares (no broadcast view) is no matmul, fused or not", () => {
    assert.deepEqual(labels(FIXTURES.sum_squares), ["Input", "Dot"]);
    assert.deepEqual(labels(FIXTURES.sum_squares_unfused), ["Input", "Mul", "SumReduce"]);
    assert.equal(groupGraph(FIXTURES.sum_squares.graph).groups, 0);
  });

  it("the publisher's names do not change the grouping; the verified op and axis do", () => {
    for (const name of ["mlp_relu_softmax", "conv", "layernorm", "gram"]) {
      const renamed = edited(name, (nodes) => {
        for (const n of nodes) n.label = `${n.label} (axis=0) Relu Dot(axis=1)`;
      });
      assert.deepEqual(labels({ graph: renamed }), expected[name], name);
    }
    // a label that does not start with the op carries no axis: the Dot is not grouped (its
    // weight is folded into it, as every constant is, and named in its tooltip)
    const forged = edited("matmul", (nodes) => {
      nodes[2].label = "w (axis=2)";
    });
    assert.deepEqual(labels({ graph: forged }), ["Input", "Dot"]);
    // a Dot that does not reduce the product's last axis is not a matmul
    const otherAxis = edited("matmul", (nodes) => {
      nodes[2].label = "Dot(axis=1)";
    });
    assert.deepEqual(labels({ graph: otherAxis }), ["Input", "Dot"]);
    // a label naming a fused op does not make one: the op field (verified) decides
    const named = edited("sum_squares_unfused", (nodes) => {
      for (const n of nodes) if (n.op !== "Input") n.label = "Relu";
    });
    assert.deepEqual(labels({ graph: named }), ["Input", "Mul", "SumReduce"]);
  });

  it("the demo MLP reads Input -> Linear -> ReLU -> Linear (fused Dot + bias, Relu), every primitive accounted for", () => {
    const prim = FIXTURES.demo.graph;
    const g = groupGraph(prim);
    assert.deepEqual(g.nodes.map((n) => n.op), ["Input", "Linear", "ReLU", "Linear"]);
    assert.deepEqual(g.edges.length, 3);
    assertCovered(prim, g, "demo");
    const linear = g.nodes[1];
    assert.deepEqual(linear.members.map((m) => m.op), ["Dot"]);
    const text = describeNode(linear, FIXTURES.demo);
    assert.match(text, /Linear hidden — Linear, output \[1×64\]/);
    assert.match(text, /Dot\(axis=2\) hidden \[1×64\]/);
    assert.match(text, /weights: fc1\.weight \[64×64\], fc1\.bias \[64\]/);
    assert.match(describeNode(g.nodes[2], FIXTURES.demo), /ReLU hidden_relu — ReLU, output \[1×64\].*Relu hidden_relu \[1×64\]/);
    assert.match(describeNode(g.nodes[3], FIXTURES.demo), /public output output/);
  });

  it("leaves unrecognised structure as primitives (no false grouping)", () => {
    // a Mul + SumReduce without a broadcast view is a plain reduction, not a matmul
    const g = groupGraph({
      nodes: [
        { id: 0, op: "Input", label: "Input a", shape: [2, 3, 4] },
        { id: 1, op: "Input", label: "Input b", shape: [2, 3, 4] },
        { id: 2, op: "Mul", label: "Mul", shape: [2, 3, 4] },
        { id: 3, op: "SumReduce", label: "SumReduce(axis=2)", shape: [2, 3] },
        { id: 4, op: "LessThan", label: "LessThan", shape: [2, 3] },
        { id: 5, op: "Mul", label: "Mul", shape: [2, 3] },
      ],
      edges: [[0, 2], [1, 2], [2, 3], [3, 4], [0, 4], [4, 5], [3, 5]],
    });
    assert.equal(g.groups, 0);
    assert.deepEqual(g.nodes.map((n) => n.op), ["Input", "Input", "Mul", "SumReduce", "LessThan", "Mul"]);
  });

  it("no edge crosses a box, grouped or not, in every fixture", () => {
    for (const [name, summary] of Object.entries(FIXTURES)) {
      assertRouted(layoutGraph(summary.graph), `${name} (primitives)`);
      assertRouted(layoutGraph(groupGraph(summary.graph)), `${name} (grouped)`);
    }
  });
});

describe("the repository's transformer and CNN read as their layers (issue 31)", () => {
  const ops = (g) => g.nodes.map((n) => n.op);
  const tally = (g) => ops(g).reduce((m, op) => ((m[op] = (m[op] ?? 0) + 1), m), {});
  it("the transformer: LayerNorm, Attention, GELU and Linear layers, no constant boxes", () => {
    const prim = FIXTURES.transformer.graph;
    const g = groupGraph(prim);
    const t = tally(g);
    assert.equal(prim.nodes.length > 200, true);
    assert.ok(g.nodes.length <= 45, `${g.nodes.length} boxes`);
    assert.equal(t.Attention, 4);
    assert.equal(t.LayerNorm, 9); // two per block and the final one
    assert.equal(t.GELU, 4);
    assert.ok(t.Linear >= 12, t);
    assert.equal(t.Constant, undefined); // every constant is folded into the box that reads it
    for (const op of ["Erf", "Sqrt", "Recip", "Exp", "MaxReduce", "SumReduce"]) assert.equal(t[op], undefined, op);
    // an attention box names its two products and its softmax among its primitives
    const att = g.nodes.find((n) => n.op === "Attention");
    // (its softmax's sum may be a third Dot, of e with 1.0, as calibration writes it)
    assert.ok(att.members.filter((m) => m.op === "Dot" && m.label.includes("MatMul")).length === 2 && att.members.some((m) => m.op === "Exp"), att.members);
    assertRouted(layoutGraph(g), "transformer (grouped)");
  });
  it("the CNN: Conv, MaxPool, ReLU, then Linear layers", () => {
    const g = groupGraph(FIXTURES.cnn.graph);
    assert.deepEqual(ops(g), ["Input", "Conv", "MaxPool", "ReLU", "Conv", "MaxPool", "ReLU", "Conv", "MaxPool", "ReLU", "Linear", "ReLU", "Linear"]);
    assert.equal(g.edges.length, 12); // a chain: no constant edges
  });
  it("a primitive keeps the constants it reads in its tooltip", () => {
    const g = groupGraph({ nodes: [{ id: 0, op: "Input", label: "Input x", shape: [4] }, { id: 1, op: "Constant", label: "Constant w", shape: [4] }, { id: 2, op: "Add", label: "Add y", shape: [4] }], edges: [[0, 2], [1, 2]] });
    assert.deepEqual(g.nodes.map((n) => n.op), ["Input", "Add"]);
    assert.match(describeNode(g.nodes[1]), /reads constants: w \[4\]/);
  });
});
