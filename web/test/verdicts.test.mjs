// Issue 31: "not checked" (over the verifier's work budget) is its own verdict in the JS result,
// the element's words for it and for a proof below the security floor, outputs summarised next to
// the verdict, progress weighted by the verifier's own work estimate, and where a bundled copy
// looks for the hosted folder.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bundledCandidates, isHostedModule, stepWeights, toJsResult } from "../src/client.js";
import { budgetAdvice, describeVisibility, floorAdvice, summarizeOutput } from "../src/element.js";

describe("the JS result's kind", () => {
  it("over the budget is unavailable, with the budget needed; never rejected", () => {
    const r = toJsResult({ success: false, kind: "not checked", work_needed: 2436379, check: "work budget", error_message: "work budget: ..." });
    assert.equal(r.verdict, "unavailable");
    assert.equal(r.kind, "not checked");
    assert.equal(r.workNeeded, 2436379);
    assert.equal(r.success, false);
  });
  it("verified and rejected keep their verdicts; an older verifier without kind is read from success", () => {
    assert.deepEqual([toJsResult({ success: true, kind: "verified", security_bits: 96 }).verdict, toJsResult({ success: true, security_bits: 96 }).kind], ["verified", "verified"]);
    const bad = toJsResult({ success: false, kind: "rejected", check: "Merkle path" });
    assert.deepEqual([bad.verdict, bad.kind, bad.workNeeded], ["rejected", "rejected", null]);
    assert.equal(toJsResult({ success: false }).kind, "rejected");
  });
});

describe("committed weights in the JS result (format 13)", () => {
  const visibility = { weights: "committed", inputs: { x: "public", key: "private" }, outputs: "public" };
  it("visibility and modelRoot come from the verifier's visibility and model_root", () => {
    const r = toJsResult({ success: true, kind: "verified", security_bits: 96, model_digest: "ab", visibility, model_root: "39d4cd00" });
    assert.deepEqual(r.visibility, visibility);
    assert.equal(r.modelRoot, "39d4cd00");
    assert.equal(r.modelDigest, "ab", "the other fields are kept");
    assert.equal(r.verdict, "verified");
  });
  it("public weights have no root; an older verifier or a rejection reports neither", () => {
    const pub = toJsResult({ success: true, security_bits: 96, visibility: { weights: "public", inputs: { x: "public" }, outputs: "public" }, model_root: null });
    assert.equal(pub.visibility.weights, "public");
    assert.equal(pub.modelRoot, null);
    const old = toJsResult({ success: true, security_bits: 96 });
    assert.deepEqual([old.visibility, old.modelRoot], [null, null]);
    const bad = toJsResult({ success: false, check: "Merkle path", visibility: null, model_root: null });
    assert.deepEqual([bad.visibility, bad.modelRoot], [null, null]);
  });
  it("the modal's facts: weights, each input, outputs, each with its plain-language note", () => {
    const facts = describeVisibility(visibility);
    assert.deepEqual(facts.map((f) => f.term), ["Weights", "Inputs", "Outputs"]);
    assert.deepEqual(facts[0].items, [{ name: null, level: "committed", note: "bound by the model root; the verifier never saw them (not hidden in the zero-knowledge sense)" }]);
    assert.deepEqual(facts[1].items.map((i) => [i.name, i.level]), [["x", "public"], ["key", "private"]]);
    assert.match(facts[1].items[1].note, /not written in proof\.bin/);
    // no privacy is claimed: proofs are not zero-knowledge
    for (const f of facts) for (const i of f.items) assert.doesNotMatch(i.note, /secret|never revealed|hidden from|zero-knowledge proof/i);
    assert.equal(describeVisibility({ weights: "public", inputs: {}, outputs: "public" })[0].items[0].note, "in settings.bin, under the model digest: anyone can read them");
    assert.deepEqual(describeVisibility({ weights: "public", inputs: {}, outputs: "public" }).map((f) => f.term), ["Weights", "Outputs"]);
    assert.deepEqual(describeVisibility(null), []);
    assert.equal(describeVisibility({ weights: "someday" })[0].items[0].note, "", "an unknown level is shown without a note");
  });
});

describe("the element's words", () => {
  it("names the budget and every way to grant it", () => {
    const text = budgetAdvice(2436379);
    for (const part of ['max-work="2436379"', "maxWork: 2436379", "--max-work 2436379", "Nothing was checked", "2.4 s"]) assert.ok(text.includes(part), part);
    assert.match(budgetAdvice(null), /larger than any budget admits/);
  });
  it("a proof below the floor: plain words and the min-security-bits that checks it", () => {
    const text = floorAdvice({ powBits: 8, logBlowup: 1, nQueries: 12, securityBits: 20 }, 96);
    assert.match(text, /development configuration: about 20 bits/);
    assert.match(text, /min-security-bits="20"/);
    assert.match(text, /minSecurityBits: 20/);
    assert.match(text, /accepts 96 bits or more/);
    assert.equal(floorAdvice(null), null);
  });
});

describe("outputs next to the verdict", () => {
  it("few values in full", () => {
    assert.deepEqual(summarizeOutput({ shape: [1, 3], values: [1, -2, 0.5] }), { text: "[1, -2, 0.5]", full: null });
  });
  it("a committed output: its digest, no values", () => {
    assert.deepEqual(summarizeOutput({ shape: [1, 2], committed: true, digest: "ab12" }), { text: "committed · digest ab12", full: null });
  });
  it("a classifier's vector: the class its largest value picks and the top 3", () => {
    const values = [0.1, 2.5, -1, 3.25, 0, 0, 0, 0, 0, 3.25];
    const s = summarizeOutput({ shape: [1, 10], values });
    assert.equal(s.text, "class 3 (the largest of 10 values) · top 3: #3 3.25, #9 3.25, #1 2.5");
    assert.equal(s.full, `[${values.join(", ")}]`);
  });
  it("a larger tensor: its largest values, no class", () => {
    const values = Array.from({ length: 24 }, (_, i) => (i * 7) % 24);
    const s = summarizeOutput({ shape: [1, 4, 6], values });
    assert.ok(s.text.startsWith("24 values · largest: #"), s.text);
    assert.ok(!s.text.includes("class"));
  });
});

describe("progress weighted by the verifier's work estimate", () => {
  it("each part counts for the step that does it; every step keeps 2 %", () => {
    const { weights, units } = stepWeights({ openings: 800, topology: 100, "public values": 50, "LogUp public terms": 50, nodes: 0 });
    assert.equal(units, 1000);
    assert.equal(weights.length, 6);
    assert.ok(Math.abs(weights.reduce((a, b) => a + b, 0) - 1) < 1e-9);
    assert.ok(weights[5] > 0.7 && weights[1] === 0.02 && weights[4] === 0.02, weights);
    assert.ok(weights[3] > weights[0] && weights[0] === weights[2], weights);
  });
  it("no estimate: equal steps", () => {
    assert.deepEqual(stepWeights({}).weights, new Array(6).fill(1 / 6));
  });
});

describe("a bundled copy finds the hosted folder", () => {
  it("knows whether it runs from the hosted folder", () => {
    assert.equal(isHostedModule("https://example.org/luminair/client.js"), true);
    assert.equal(isHostedModule("https://example.org/assets/index-3f2a.js"), false);
    assert.equal(isHostedModule("data:text/javascript;base64,AAAA"), false);
    assert.equal(isHostedModule("blob:https://example.org/1234"), false);
  });
  it("looks next to the page, then at the root", () => {
    assert.deepEqual(bundledCandidates("https://example.org/app/index.html"), ["https://example.org/app/luminair/", "https://example.org/luminair/"]);
    assert.deepEqual(bundledCandidates("https://example.org/"), ["https://example.org/luminair/"]);
  });
});

describe("a base URL a bundler rewrote", () => {
  it("a data: or blob: folder is refused at once, naming configure({ baseUrl })", async () => {
    const { configure, init, terminate } = await import("../src/client.js");
    for (const baseUrl of ["data:text/javascript;base64,AAAA/", "blob:http://127.0.0.1:1/1234/"]) {
      let started = 0;
      configure({ baseUrl, workerFactory: () => { started += 1; return { postMessage() {}, terminate() {} }; }, hostingCheck: false });
      await assert.rejects(init(), (e) => e.kind === "load" && e.message.includes("configure({ baseUrl") && e.message.includes(baseUrl.slice(0, 5)));
      assert.equal(started, 0);
      terminate();
    }
    configure({ baseUrl: null, workerFactory: null });
  });
});
