// Shared paths and a CPython oracle for the Node tests.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateSync } from "node:zlib";

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
export function cpythonVerify(pairs, { minSecurityBits } = {}) {
  const payload = JSON.stringify(pairs.map(([p, s]) => [Buffer.from(p).toString("base64"), Buffer.from(s).toString("base64")]));
  const floor = minSecurityBits === undefined ? "" : `, min_security_bits=${Number(minSecurityBits)}`;
  const code = [
    "import base64, json, sys",
    "from luminair.verifier import verify",
    "pairs = json.loads(sys.stdin.read())",
    "out = []",
    "for p, s in pairs:",
    `    d = verify(base64.b64decode(p), base64.b64decode(s)${floor}).to_dict()`,
    "    d.pop('extra', None)",
    "    out.append(d)",
    "print(json.dumps(out))",
  ].join("\n");
  return JSON.parse(execFileSync(python(), ["-c", code], { cwd: REPO, input: payload, encoding: "utf8", maxBuffer: 64 << 20 }));
}

/** The fields of a verdict that must agree across CPython and Pyodide (time excluded). */
export function verdictOf(d) {
  const { success, error_message, check, outputs, inputs, symbols, security_bits, security_label, model_digest, statement, model_title, model_description, visibility, model_root } = d;
  return { success, error_message, check, outputs, inputs, symbols, security_bits, security_label, model_digest, statement, model_title, model_description, visibility, model_root };
}

/**
 * A small MLP proven with committed weights (fast preset; public input x, private input key), from
 * test/fixtures/committed.py: {proof, settings, modelRoot, visibility} (the last two as CPython reports them).
 */
export function committedFixture() {
  const out = JSON.parse(execFileSync(python(), [join(WEB, "test", "fixtures", "committed.py")], { cwd: REPO, encoding: "utf8", maxBuffer: 64 << 20 }));
  const bytes = (b64) => new Uint8Array(Buffer.from(b64, "base64"));
  return { proof: bytes(out.proof), settings: bytes(out.settings), modelRoot: out.model_root, visibility: out.visibility };
}

/**
 * A small residual MLP proven in three segments (fast preset), from test/fixtures/segmented.py:
 * {proof, settings, reordered} (the bundle, and the bundle with two segments swapped).
 */
export function segmentedFixture() {
  const out = JSON.parse(execFileSync(python(), [join(WEB, "test", "fixtures", "segmented.py")], { cwd: REPO, encoding: "utf8", maxBuffer: 64 << 20 }));
  const bytes = (b64) => new Uint8Array(Buffer.from(b64, "base64"));
  return { proof: bytes(out.proof), settings: bytes(out.settings), reordered: bytes(out.reordered) };
}

/**
 * A small symbolic MLP (batch 1 to 256): one settings.bin and a proof for each batch size, with the
 * batch proven (x) and the prover's outputs (y), from test/fixtures/batches.py.
 */
export function batchFixtures(batches = [1, 7, 64]) {
  const out = JSON.parse(execFileSync(python(), [join(WEB, "test", "fixtures", "batches.py"), ...batches.map(String)], { cwd: REPO, encoding: "utf8", maxBuffer: 64 << 20 }));
  const bytes = (b64) => new Uint8Array(Buffer.from(b64, "base64"));
  return {
    settings: bytes(out.settings),
    symbols: out.symbols,
    proofs: Object.fromEntries(Object.entries(out.proofs).map(([b, p]) => [b, { ...p, proof: bytes(p.proof) }])),
  };
}

// proof.bin: magic (8), u16 version, 32-byte settings digest, u32 number of public tensors, then
// each as u8 codec | u32 count | values (verifier/formats.py PUBLIC_*: 0 M31 words, 1 i16 words,
// 2 u32 length + an i16 zlib stream); a symbolic model's first public tensor holds the symbols' values.
const FIRST_PUBLIC_TENSOR = 8 + 2 + 32 + 4;
const P = 2 ** 31 - 1;

/** A proof's public tensors (lists of M31 values) and the offset where the STARK proof starts. */
export function publicTensors(proof) {
  const dv = new DataView(proof.buffer, proof.byteOffset, proof.byteLength);
  let at = FIRST_PUBLIC_TENSOR - 4;
  const count = dv.getUint32(at, true);
  at += 4;
  const tensors = [];
  for (let t = 0; t < count; t++) {
    const codec = dv.getUint8(at);
    const n = dv.getUint32(at + 1, true);
    at += 5;
    if (codec === 0) {
      tensors.push(Array.from({ length: n }, (_, i) => dv.getUint32(at + 4 * i, true)));
      at += 4 * n;
      continue;
    }
    let raw;
    if (codec === 1) {
      raw = proof.subarray(at, at + 2 * n);
      at += 2 * n;
    } else {
      const len = dv.getUint32(at, true);
      raw = inflateSync(proof.subarray(at + 4, at + 4 + len));
      at += 4 + len;
    }
    const words = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    tensors.push(Array.from({ length: n }, (_, i) => (words.getInt16(2 * i, true) + P) % P));
  }
  return { tensors, end: at };
}

/** The symbol values a proof fixes (its first public tensor), read from the bytes. */
export function proofSymbols(proof) {
  return publicTensors(proof).tensors[0];
}

/** A copy of a proof with other public tensors (the header and the STARK proof kept). */
export function withPublic(proof, tensors) {
  const { end } = publicTensors(proof);
  const size = 4 + tensors.reduce((a, t) => a + 5 + 4 * t.length, 0);
  const out = new Uint8Array(FIRST_PUBLIC_TENSOR - 4 + size + proof.length - end);
  out.set(proof.subarray(0, FIRST_PUBLIC_TENSOR - 4));
  const dv = new DataView(out.buffer);
  let at = FIRST_PUBLIC_TENSOR - 4;
  dv.setUint32(at, tensors.length, true);
  at += 4;
  for (const t of tensors) { // as M31 words (codec 0), which the verifier reads like any other
    dv.setUint8(at, 0);
    dv.setUint32(at + 1, t.length, true);
    t.forEach((v, i) => dv.setUint32(at + 5 + 4 * i, v, true));
    at += 5 + 4 * t.length;
  }
  out.set(proof.subarray(end), at);
  return out;
}

/** A copy of a proof whose first public tensor (the symbol values) says `values` instead. */
export function withSymbols(proof, values) {
  const { tensors } = publicTensors(proof);
  return withPublic(proof, [values, ...tensors.slice(1)]);
}
