// Pure helpers of the element (run under Node: importing the element is SSR-safe) and the CSS it
// ships: the browser-support promise of the README (no light-dark(), :state(), container queries,
// :has(), word-break: break-all, and no infinite animation).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeIndexMap, describeOutputSource, isDevelopmentSecurity, LuminairVerifyElement } from "../src/element.js";
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
