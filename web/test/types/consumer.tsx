// Type-checked by test/types.test.mjs against the hand-written .d.ts files (never run).
import init, { verify, LuminairUtils, isValidProofBinary, readSettingsSummary, LuminairVerificationError, configure, getInfo, groupGraph, type VerifyResult } from "luminair-web";
import { LuminairVerifyElement } from "luminair-web/define";
import { VerifyBadge, VerifyButton } from "luminair-web/react";

export async function check(proof: Uint8Array, settings: Uint8Array): Promise<string> {
  configure({ baseUrl: "/luminair/", cache: true });
  const info = await init({ onProgress: ({ phase, loaded, total }) => console.log(phase, loaded, total) });
  const steps: string[] = info.steps;
  const r: VerifyResult = await verify(proof, settings, {
    timeoutMs: 30_000,
    onProgress: ({ step, of, label }) => console.log(step, of, label),
  });
  const ok: boolean = LuminairUtils.isValidProofBinary(proof) && isValidProofBinary(proof);
  const summary = await readSettingsSummary(settings);
  const bits: number | null = r.securityBits;
  const verdict: "verified" | "development" | "rejected" | "unavailable" = r.verdict;
  const kind: "verified" | "rejected" | "not checked" = r.kind;
  const needed: number | null = r.workNeeded;
  console.log(kind, needed);
  const src = r.outputs?.y?.source?.node;
  const map = r.outputs?.y?.index_map;
  const batch: number | undefined = r.symbols?.batch;
  const ranges = summary.symbols?.map((s) => `${s.name} ${s.min}..${s.max}`);
  const groups = groupGraph(summary.graph ?? { nodes: [], edges: [] }).nodes.map((n) => n.members.length);
  console.log(verdict, src, map, groups, r.modelTitle, getInfo()?.warnings, batch, ranges);
  const weights: "public" | "committed" | undefined = r.visibility?.weights;
  const secret: boolean = r.visibility?.inputs.x === "private";
  const root: string | null = r.modelRoot;
  console.log(weights, secret, root);
  const digest: string = summary.model_digest;
  try {
    await verify(proof, settings);
  } catch (e) {
    if (e instanceof LuminairVerificationError && e.kind === "timeout" && e.verdict === "unavailable") return "timeout";
    if (e instanceof LuminairVerificationError && e.kind === "hosting") return e.url ?? "";
  }
  return `${steps.length} ${ok} ${bits} ${digest} ${r.error_message ?? ""} ${r.modelDigest ?? ""}`;
}

export function element(): void {
  const el = document.querySelector("luminair-verify");
  if (el) {
    const s: "idle" | "loading" | "verifying" | "verified" | "development" | "rejected" | "unavailable" = el.status;
    const v: "verified" | "development" | "rejected" | "unavailable" | null = el.verdict;
    el.preload = "idle";
    el.cache = true;
    el.proofBytes = new Uint8Array(4);
    el.addEventListener("luminair-verify-success", (e) => console.log(e.detail.modelDigest, e.detail.outputs, e.detail.verdict, e.detail.symbols?.batch, e.detail.visibility?.weights, e.detail.modelRoot, s, v));
    el.addEventListener("luminair-verify-error", (e) => console.log(e.detail.kind, e.detail.check, e.detail.verdict, e.detail.url));
  }
  LuminairVerifyElement.define("my-verify");
}

export function App() {
  return (
    <div>
      <VerifyButton proofPath="/proof.bin" settingsPath="/settings.bin" title="Can't be evil." buttonText="VERIFY"
        author="me" authorUrl="https://example.org" modelDescription="demo" className="x"
        onVerified={(d) => console.log(d.securityBits)} onError={(d) => console.log(d.kind)} />
      <VerifyBadge proofPath="/proof.bin" settingsPath="/settings.bin" labelText="VERIFIED COMPUTE" variant="outline" preload="idle" cache />
      <luminair-verify proof="/proof.bin" settings="/settings.bin" button-text="Go" />
    </div>
  );
}
