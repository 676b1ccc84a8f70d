// Type-checked by test/types.test.mjs against the hand-written .d.ts files (never run).
import init, { verify, LuminairUtils, isValidProofBinary, readSettingsSummary, LuminairVerificationError, configure, type VerifyResult } from "luminair-web";
import { LuminairVerifyElement } from "luminair-web/define";
import { VerifyBadge, VerifyButton } from "luminair-web/react";

export async function check(proof: Uint8Array, settings: Uint8Array): Promise<string> {
  configure({ baseUrl: "/luminair/" });
  const info = await init();
  const steps: string[] = info.steps;
  const r: VerifyResult = await verify(proof, settings, {
    timeoutMs: 30_000,
    onProgress: ({ step, of, label }) => console.log(step, of, label),
  });
  const ok: boolean = LuminairUtils.isValidProofBinary(proof) && isValidProofBinary(proof);
  const bits: number | null = r.securityBits;
  const summary = await readSettingsSummary(settings);
  const digest: string = summary.model_digest;
  try {
    await verify(proof, settings);
  } catch (e) {
    if (e instanceof LuminairVerificationError && e.kind === "timeout") return "timeout";
  }
  return `${steps.length} ${ok} ${bits} ${digest} ${r.error_message ?? ""} ${r.modelDigest ?? ""}`;
}

export function element(): void {
  const el = document.querySelector("luminair-verify");
  if (el) {
    const s: "idle" | "loading" | "verifying" | "verified" | "failed" | "error" = el.status;
    el.proofBytes = new Uint8Array(4);
    el.addEventListener("luminair-verify-success", (e) => console.log(e.detail.modelDigest, e.detail.outputs, s));
    el.addEventListener("luminair-verify-error", (e) => console.log(e.detail.kind, e.detail.check));
  }
  LuminairVerifyElement.define("my-verify");
}

export function App() {
  return (
    <div>
      <VerifyButton proofPath="/proof.bin" settingsPath="/settings.bin" title="Can't be evil." buttonText="VERIFY"
        author="me" authorUrl="https://example.org" modelDescription="demo" className="x"
        onVerified={(d) => console.log(d.securityBits)} onError={(d) => console.log(d.kind)} />
      <VerifyBadge proofPath="/proof.bin" settingsPath="/settings.bin" labelText="VERIFIED COMPUTE" variant="outline" />
      <luminair-verify proof="/proof.bin" settings="/settings.bin" button-text="Go" />
    </div>
  );
}
