// The download zip (checked by Python's zipfile) and the graph layout.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import { layoutGraph } from "../src/graph.js";
import { crc32, makeZip } from "../src/zip.js";
import { python, sampleFiles } from "./helpers.mjs";

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
