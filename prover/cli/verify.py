"""`luminair verify PROOF SETTINGS`: exit 0 valid, 1 rejected, 2 usage/IO error, 3 not checked."""

from __future__ import annotations

import argparse
import json
import shlex
from typing import Any

from .common import read_input_file, EXIT_NOT_CHECKED, EXIT_OK, EXIT_REJECTED, IDENTITY_NOTE, LABEL_NOTE, UsageError, index_map_text, label_text, printable, read_file, say, source_text


def _floor_hint(args: argparse.Namespace, settings: bytes) -> str | None:
    """For a proof refused only for its security floor: the command that checks it anyway."""
    from luminair.verifier.statement import read_settings

    try:
        bits = read_settings(settings).config.security_bits
    except Exception:  # noqa: BLE001 - no hint for a settings file that does not parse
        return None
    if bits >= args.min_security_bits:
        return None
    cmd = shlex.join(["luminair", "verify", args.proof, args.settings, "--min-security-bits", str(bits)])
    return (
        f"this is a development proof ({bits} bits, e.g. from --preset fast); "
        f"to check it anyway, lower the floor: {cmd}"
    )


BATCH_ROWS_SHOWN = 8


def print_verify_result(r: Any, hint: str | None = None) -> None:
    """The human-readable verdict of a VerifyResult (every line escaped)."""
    if r.success:
        say(
            f"valid: {r.statement}; {r.security_bits} bits ({r.security_label or 'custom config'}); "
            f"{r.verification_time_ms:.1f} ms"
        )
        say(f"  model digest ({IDENTITY_NOTE}): {r.model_digest}")
        if r.visibility and (r.visibility["weights"] != "public" or r.visibility["outputs"] != "public"
                             or set(r.visibility["inputs"].values()) - {"public"}):
            inputs = ", ".join(f"{printable(k)} {v}" for k, v in r.visibility["inputs"].items())
            say(f"  visibility: weights {r.visibility['weights']}, inputs: {inputs or 'none'}, outputs {r.visibility['outputs']}")
        digests = {v["digest"] for v in (r.inputs or {}).values() if isinstance(v, dict) and v.get("committed")}
        if digests:
            say(f"  input digest (committed inputs; `luminair verify --input` checks it against values): {digests.pop()}")
        if r.model_root:
            say(f"  model root (committed weights; `luminair audit` checks it against a model file): {r.model_root}")
        say(f"  title ({LABEL_NOTE}): {label_text(r.model_title)}")
        say(f"  description ({LABEL_NOTE}): {label_text(r.model_description)}")
        if r.symbols:
            say("  symbols (fixed by this proof): " + ", ".join(f"{printable(k)}={v}" for k, v in r.symbols.items()))
        training = (r.extra or {}).get("training")
        if training:
            say(f"  training step {training['step']} (seed {training['seed']}): loss {training['loss']:g}")
            say(f"    weights before {training['old_weights_digest']}")
            say(f"    weights after  {training['new_weights_digest']}")
        batch_sizes = set((r.symbols or {}).values())
        for name, o in (r.outputs or {}).items():
            if o.get("committed"):
                say(f"  output {printable(name)} {o['shape']}: committed, digest {o['digest']} "
                    "(`luminair verify --output` checks it against values)")
                continue
            vals = o["values"]
            shown = ", ".join(f"{v:g}" for v in vals[:8]) + (", ..." if len(vals) > 8 else "")
            say(f"  output {printable(name)} {o['shape']}: [{shown}]")
            shape = o["shape"]
            if len(shape) > 1 and shape[0] in batch_sizes and shape[0] > 1:  # one line per batch element
                width = len(vals) // shape[0]
                for b in range(min(shape[0], BATCH_ROWS_SHOWN)):
                    row = vals[b * width : (b + 1) * width]
                    say(f"    [{b}] " + ", ".join(f"{v:g}" for v in row[:8]) + (", ..." if len(row) > 8 else ""))
                if shape[0] > BATCH_ROWS_SHOWN:
                    say(f"    ... {shape[0] - BATCH_ROWS_SHOWN} more rows (--json has them all)")
            src = o.get("source")
            if isinstance(src, dict):
                source = source_text(src.get("node"), src.get("op"), src.get("name"))
                say(f"    source {source}; index map: {index_map_text(o.get('index_map'))}")
    else:
        say(f"{'not checked' if r.kind == 'not checked' else 'rejected'}: {r.error_message}")
        if hint:
            say(f"hint: {hint}")


def check_not_swapped(args: argparse.Namespace, proof: bytes, settings: bytes) -> None:
    """Refuse (UsageError) a settings file given as PROOF and a proof file as SETTINGS."""
    from luminair.verifier.formats import PROOF_MAGIC, SETTINGS_MAGIC

    if proof.startswith(SETTINGS_MAGIC) and settings.startswith(PROOF_MAGIC):
        cmd = shlex.join(["luminair", "verify", args.settings, args.proof])
        raise UsageError(
            f"the arguments are swapped: {args.proof!r} is a settings file and {args.settings!r} a proof file "
            f"(the proof comes first: {cmd})"
        )


def _mismatch_hint(r: Any, proof: bytes, settings: bytes) -> str | None:
    """For a proof made for other settings whose public inputs and outputs fit this model: the
    configuration it was made with, when `luminair prove` could have chosen it (then r's message names
    the difference instead of "wrong model or tampered settings"), else a hint that it is most likely
    the same model under another settings.bin. None for a proof of another model."""
    from luminair.verifier.formats import read_proof_file
    from luminair.verifier.statement import bind_symbols, build_statement, read_settings

    from .mismatch import proof_config

    try:
        pf = read_proof_file(proof)
        parsed = read_settings(settings)
        build_statement(bind_symbols(parsed, pf.public_values), pf.public_values)
    except Exception:  # noqa: BLE001 - another model: the message already says so
        return None
    found = proof_config(settings, pf.settings_digest)
    if found is not None:
        head = r.error_message.split(": wrong model or tampered settings")[0]
        r.error_message = (f"{head}: the same model with another configuration: the proof's is {found.describe()}, "
                           f"these settings' {parsed.config.describe()}")
        r.extra["proof_config"] = {"pow_bits": found.pow_bits, "log_blowup": found.log_blowup, "n_queries": found.n_queries,
                                   "log_last_layer": found.log_last_layer, "interaction_pow_bits": found.interaction_pow_bits}
        return "verify it with the settings.bin written next to it (the pair `luminair prove` wrote together)"
    return (
        "the proof's public inputs and outputs fit this model: it is most likely a proof of the same model made "
        "with another settings.bin (other --title/--description labels, or a configuration of its own). "
        "Verify it with the settings.bin written next to it"
    )


def cmd_verify(args: argparse.Namespace) -> int:
    from luminair import verifier

    proof = read_file(args.proof, "proof")
    settings = read_file(args.settings, "settings")
    check_not_swapped(args, proof, settings)
    r = verifier.verify(proof, settings, min_security_bits=args.min_security_bits, max_work=args.max_work)
    for kind in ("input", "output"):
        if getattr(args, kind, None) and r.success:
            r = check_digest(r, settings, getattr(args, kind), kind)
    hint = None
    if r.check == "config below floor":
        hint = _floor_hint(args, settings)
    elif r.kind == "not checked":
        hint = _budget_hint(args, r.work_needed)
    elif r.check == "statement mismatch" and "wrong model or tampered settings" in (r.error_message or ""):
        hint = _mismatch_hint(r, proof, settings)
    if args.json:
        if hint:
            r.extra["hint"] = hint
        print(json.dumps(r.to_dict(), indent=2))
    else:
        print_verify_result(r, hint)
    if r.kind == "not checked":
        return EXIT_NOT_CHECKED
    return EXIT_OK if r.success else EXIT_REJECTED


def check_digest(r: Any, settings: bytes, path: str, kind: str) -> Any:
    """A verified verdict, or a rejection (check "input digest" / "output digest") when the proof's
    committed inputs or outputs (`kind`) are not the values of the file: EZKL style, {"input_data":
    [[...], ...]} with one list per graph input in the graph's order, or {"output_data": ...} with one
    per output."""
    from luminair.prover.audit import input_digest, output_digest
    from luminair.verifier.api import VerifyResult

    tensors = (r.inputs if kind == "input" else r.outputs) or {}
    committed = {name: v["digest"] for name, v in tensors.items() if isinstance(v, dict) and v.get("committed")}
    if not committed:
        raise UsageError(f"--{kind} checks committed {kind}s, and this proof has none (its {kind}s are in the verdict)")
    data = read_input_file(path)
    rows = data.get(f"{kind}_data") if isinstance(data, dict) else None
    names = list(r.visibility["inputs"]) if kind == "input" else list(tensors)
    if not isinstance(rows, list) or len(rows) != len(names):
        raise UsageError(f"{path}: {kind}_data must hold one list per {kind} ({', '.join(names)})")
    try:
        given = {n: v for n, v in zip(names, rows) if n in committed}
        expected = (input_digest if kind == "input" else output_digest)(settings, given)
    except ValueError as e:
        raise UsageError(f"{path}: {e}") from None
    got = next(iter(committed.values()))
    if got == expected:
        r.extra[f"{kind}_digest_checked"] = path
        return r
    return VerifyResult(False, f"{kind} digest: the proof's committed {kind}s ({', '.join(committed)}) have digest "
                        f"{got[:16]}..., the values of {path} {expected[:16]}...: the proof is about other {kind}s",
                        f"{kind} digest", model_digest=r.model_digest)


def _budget_hint(args: argparse.Namespace, needed: int | None) -> str:
    if needed is None:
        return "no work budget admits files this large"
    cmd = shlex.join(["luminair", "verify", args.proof, args.settings, "--max-work", str(needed)])
    return f"the files were not checked; to check them, grant the budget they need: {cmd}"
