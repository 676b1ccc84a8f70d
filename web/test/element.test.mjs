// Pure helpers of the element (run under Node: importing the element is SSR-safe) and the CSS it
// ships: the browser-support promise of the README (no light-dark(), :state(), container queries,
// :has(), word-break: break-all, and no infinite animation).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { batchAxis, batchRows, describeIndexMap, describeOutputSource, describeSymbols, isDevelopmentSecurity, LuminairVerifyElement, MAX_BATCH_ROWS } from "../src/element.js";
import { CSS } from "../src/styles.js";

describe("output source and index map (shown when the verifier reports them)", () => {
  it("identity, short and long maps, constant zeros", () => {
    assert.equal(describeIndexMap("identity"), "identity (element i reads element i)");
    assert.equal(describeIndexMap([2, 0, 1]), "index map [2, 0, 1]");
    assert.equal(describeIndexMap([0, -1, 2, -1]), "index map [0, 0, 2, 0]; 2 constant 0s");
    assert.equal(describeIndexMap([-1]), "index map [0]; all constant 0");
    const long = Array.from({ length: 100 }, (_, i) => (i % 10 === 9 ? -1 : i));
    assert.equal(describeIndexMap(long), "index map [0, 1, 2, 3, 4, 5, 6, 7, … (100 entries)]; 10 constant 0s");
    assert.equal(describeIndexMap(undefined), null);
  });
  it("a source node with its op and name; nothing when absent (older verifiers)", () => {
    assert.equal(
      describeOutputSource({ shape: [1, 10], values: [], source: { node: 13, op: "Add", name: "output" }, index_map: "identity" }),
      "node 13 (Add output) · identity (element i reads element i)",
    );
    assert.equal(describeOutputSource({ shape: [2], values: [1, 2], source: { node: 4, op: "Mul", name: "" } }), "node 4 (Mul)");
    assert.equal(describeOutputSource({ shape: [2], values: [1, 2] }), null);
    assert.equal(describeOutputSource([1, 2]), null);
  });
  it("development security: below the floor or labelled so", () => {
    assert.equal(isDevelopmentSecurity(96, "default preset"), false);
    assert.equal(isDevelopmentSecurity(20, "fast preset"), true);
    assert.equal(isDevelopmentSecurity(100, "custom, DEVELOPMENT ONLY"), true);
    assert.equal(isDevelopmentSecurity(100, null, 128), true);
  });
  it("the element class imports without a DOM (server rendering)", () => {
    assert.equal(typeof LuminairVerifyElement.define, "function");
    assert.ok(LuminairVerifyElement.observedAttributes.includes("preload") && LuminairVerifyElement.observedAttributes.includes("cache"));
  });
});

describe("batched tensors (a symbolic model's first axis)", () => {
  const y = (b, k = 4) => ({ shape: [b, k], values: Array.from({ length: b * k }, (_, i) => i / 4) });
  it("the settings summary says which axis is the batch", () => {
    assert.deepEqual(batchAxis(y(7), { batch: 7 }, ["batch", 4]), { symbol: "batch", size: 7, rowShape: [4], rowLength: 4 });
    assert.deepEqual(batchAxis({ shape: [3], values: [1, 2, 3] }, { seq: 3 }, ["seq"]), { symbol: "seq", size: 3, rowShape: [], rowLength: 1 });
    // a concrete first axis that happens to equal the value is not the batch
    assert.equal(batchAxis(y(4), { batch: 4 }, [4, 4]), null);
    // an expression in the symbol ("2*batch") is not a row per element
    assert.equal(batchAxis(y(8), { batch: 4 }, ["2*batch", 4]), null);
    // the shape must hold the value the proof fixes, and the values fill it
    assert.equal(batchAxis(y(7), { batch: 6 }, ["batch", 4]), null);
    assert.equal(batchAxis({ shape: [7, 4], values: [1, 2] }, { batch: 7 }, ["batch", 4]), null);
  });
  it("without a summary: the first axis when exactly one symbol has its value; never without symbols", () => {
    assert.equal(batchAxis(y(7), { batch: 7 })?.symbol, "batch");
    assert.equal(batchAxis(y(7), { batch: 7, seq: 7 }), null);
    assert.equal(batchAxis(y(7), null), null);
    assert.equal(batchAxis(y(7), {}), null);
    assert.equal(batchAxis([1, 2], { batch: 2 }), null);
  });
  it("one row per element, at most MAX_BATCH_ROWS, the rest counted", () => {
    const t = y(3, 2);
    assert.deepEqual(batchRows(t.values, 3, 2), { rows: [{ index: 0, values: [0, 0.25] }, { index: 1, values: [0.5, 0.75] }, { index: 2, values: [1, 1.25] }], more: 0 });
    const big = y(100, 1);
    const { rows, more } = batchRows(big.values, 100, 1);
    assert.equal(MAX_BATCH_ROWS, 64);
    assert.equal(rows.length, 64);
    assert.equal(more, 36);
    assert.deepEqual(rows.at(-1), { index: 63, values: [63 / 4] });
  });
  it("the symbols fact names each value and the range one settings.bin serves", () => {
    assert.equal(describeSymbols({ batch: 7 }, [{ name: "batch", min: 1, max: 256 }]), "batch = 7 (fixed by this proof; one settings.bin serves every value from 1 to 256)");
    assert.equal(describeSymbols({ batch: 7 }), "batch = 7 (fixed by this proof; one settings.bin serves every value)");
    assert.equal(
      describeSymbols({ batch: 2, seq: 9 }, [{ name: "batch", min: 1, max: 8 }, { name: "seq", min: 1, max: 64 }]),
      "batch = 2, seq = 9 (fixed by this proof; one settings.bin serves every value: batch 1 to 8, seq 1 to 64)",
    );
    assert.equal(describeSymbols(null), null);
    assert.equal(describeSymbols({}), null);
  });
});

describe("the element's CSS keeps to the documented browser support", () => {
  it("uses none of the newer features the README rules out", () => {
    for (const banned of ["light-dark(", ":state(", "@container", ":has(", "break-all", "dvh", "infinite"]) {
      assert.ok(!CSS.includes(banned), `${banned} in the element's CSS`);
    }
  });
  it("has a style for each of the four verdicts on the button, the pill and the result", () => {
    for (const state of ["verified", "development", "rejected", "unavailable"]) {
      for (const sel of [`.trigger[data-state="${state}"]`, `.pill[data-state="${state}"]`, `.result[data-state="${state}"]`]) {
        assert.ok(CSS.includes(sel), sel);
      }
    }
  });
});
