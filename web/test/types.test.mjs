// The hand-written .d.ts files type-check a consumer (API, element globals, React wrapper, JSX).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { it } from "node:test";
import { WEB } from "./helpers.mjs";

it("tsc --noEmit accepts test/types/consumer.tsx against the package's types", () => {
  const r = spawnSync(join(WEB, "node_modules", ".bin", "tsc"), ["-p", join(WEB, "test", "types")], { cwd: WEB, encoding: "utf8" });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
});
