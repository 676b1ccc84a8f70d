// Shared paths and a CPython oracle for the Node tests.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const WEB = dirname(dirname(fileURLToPath(import.meta.url)));
export const REPO = dirname(WEB);
export const PUBLIC = join(REPO, "public");

export function python() {
  if (process.env.PYTHON) return process.env.PYTHON;
  const venv = join(REPO, ".venv", "bin", "python");
  return existsSync(venv) ? venv : "python3";
}

export function sampleFiles() {
  return {
    proof: new Uint8Array(readFileSync(join(PUBLIC, "proof.bin"))),
    settings: new Uint8Array(readFileSync(join(PUBLIC, "settings.bin"))),
  };
}

/** Flip one bit in the middle of a copy of `bytes`. */
export function tamper(bytes, at = Math.floor(bytes.length / 2)) {
  const out = new Uint8Array(bytes);
  out[at] ^= 0x01;
  return out;
}

/** A copy with the u16 format version after the 8-byte magic replaced. */
export function withVersion(bytes, version) {
  const out = new Uint8Array(bytes);
  out[8] = version & 0xff;
  out[9] = version >> 8;
  return out;
}

/**
 * Run CPython's luminair.verifier.verify on each [proof, settings] pair (as bytes) and return the
 * to_dict() results, so the tests can compare Pyodide's verdicts and messages with CPython's.
 */
export function cpythonVerify(pairs) {
  const payload = JSON.stringify(pairs.map(([p, s]) => [Buffer.from(p).toString("base64"), Buffer.from(s).toString("base64")]));
  const code = [
    "import base64, json, sys",
    "from luminair.verifier import verify",
    "pairs = json.loads(sys.stdin.read())",
    "out = []",
    "for p, s in pairs:",
    "    d = verify(base64.b64decode(p), base64.b64decode(s)).to_dict()",
    "    d.pop('extra', None)",
    "    out.append(d)",
    "print(json.dumps(out))",
  ].join("\n");
  return JSON.parse(execFileSync(python(), ["-c", code], { cwd: REPO, input: payload, encoding: "utf8", maxBuffer: 64 << 20 }));
}

/** The fields of a verdict that must agree across CPython and Pyodide (time excluded). */
export function verdictOf(d) {
  const { success, error_message, check, outputs, inputs, security_bits, security_label, model_digest, statement, model_title, model_description } = d;
  return { success, error_message, check, outputs, inputs, security_bits, security_label, model_digest, statement, model_title, model_description };
}
