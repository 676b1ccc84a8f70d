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
  const labels = (name) => groupGraph(FIXTURES[name].graph).nodes.map((n) => (n.kind === "group" ? n.op : `${n.op}`));

  it("recognises each op the prover builds from primitives", () => {
    const expected = {
      relu: ["Input", "ReLU"],
      matmul: ["Input", "MatMul"],
      linear: ["Input", "Linear"],
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
    for (const [name, want] of Object.entries(expected)) assert.deepEqual(labels(name), want, name);
  });

  it("the demo MLP reads Input -> Linear -> ReLU -> Linear, and every primitive is accounted for", () => {
    const prim = FIXTURES.demo.graph;
    const g = groupGraph(prim);
    assert.deepEqual(g.nodes.map((n) => n.op), ["Input", "Linear", "ReLU", "Linear"]);
    assert.deepEqual(g.edges.length, 3);
    const covered = new Set();
    for (const n of g.nodes) for (const m of [...n.members, ...(n.constants ?? [])]) covered.add(m.id);
    assert.deepEqual([...covered].sort((a, b) => a - b), prim.nodes.map((n) => n.id), "no primitive is lost");
    const linear = g.nodes[1];
    assert.deepEqual(linear.members.map((m) => m.op), ["Mul", "SumReduce", "Add"]);
    const text = describeNode(linear, FIXTURES.demo);
    assert.match(text, /Linear hidden — Linear, output \[1×64\]/);
    assert.match(text, /Mul \[1×64×64\]/);
    assert.match(text, /weights: fc1\.weight \[64×64\], fc1\.bias \[64\]/);
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
