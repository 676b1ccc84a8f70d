"""`verify(proof_bytes, settings_bytes)`: the public entry point. It never raises on any input.

Work is bounded before anything heavy runs (verifier/budget.py, docs/formats.md "Verifier work budget"):
1. the file sizes (at most 8 MiB of proof.bin, 4 MiB of settings.bin), before decoding;
2. the codecs' bounds while decoding (counts against the bytes left, nodes, view steps, output
   maps), the settings digest and the configuration's floor;
3. the work the files declare (public values, LogUp public terms, topology boundary rows, nodes
   and view steps, output maps, recomputed tables, and the openings: a cost per byte of the STARK
   proof), estimated from the parsed files and checked against
   min(1,000,000, 500,000 + 8 * (proof bytes + settings bytes)) units of about 1 us of CPython,
   or `max_work` when the caller names it;
4. the proof's shape against the statement, before the LogUp terms, the out-of-domain
   evaluation, the Merkle openings and FRI.
A refusal at 1 or 3 is check "work budget"; an argument of the wrong type or value is check "usage"
(verifier/usage.py). MemoryError and RecursionError (a verifier given less memory or stack than the
budget assumes) are typed rejections too, never internal errors: the decoded data is released
before the result is built, so that building it cannot fail for want of memory."""

from __future__ import annotations

import gc
import time
import traceback
from typing import Any

from .budget import BudgetError, WorkMeter, budget_for, check_file_sizes, statement_work
from .config import DEFAULT_MIN_SECURITY_BITS, preset_label
from .errors import StatementError, VerificationError
from .formats import is_bundle, read_proof_file
from .result import VerifyResult, check_proof, visibility
from .segments import verify_segmented
from .statement import KIND_NAMES, bind_symbols, read_settings
from .usage import UsageError, check_bytes, check_verify_arguments
from .verify import Progress, report, statement_roots

__all__ = ["VerifyResult", "verify", "declared_work", "committed_inputs", "committed_outputs"]

OUT_OF_MEMORY = "malformed file: the files need more memory than this verifier has"


def verify(
    proof_bytes: bytes,
    settings_bytes: bytes,
    *,
    progress: Progress | None = None,
    min_security_bits: int = DEFAULT_MIN_SECURITY_BITS,
    max_work: int | None = None,
) -> VerifyResult:
    """Check that proof_bytes proves the statement in settings_bytes.

    `progress(step, of, label)` is called as the verifier moves through its steps (used by the web
    widget). `min_security_bits` is the floor a proof's configuration must reach; lower it only to
    check development proofs. `max_work` sets the work units (about 1 us of CPython each) this call
    may spend on the pair (see the module docstring); without it the budget is what the files'
    bytes back, at most MAX_WORK, which keeps any pair within about 2 s and 256 MiB in CPython;
    name it only to check models larger than that."""
    try:
        return _verify(proof_bytes, settings_bytes, progress, min_security_bits, max_work)
    except (MemoryError, SystemError):  # raised again while a handler of _verify built its result
        # (CPython reports some allocations that fail inside C code as SystemError): answered once
        pass  # the traceback is released, and with it the decoded data its frames hold
    gc.collect()  # a handler that failed keeps its exception in its frame: a cycle only gc frees
    return VerifyResult(False, OUT_OF_MEMORY, "malformed file")


def _verify(
    proof_bytes: bytes, settings_bytes: bytes, progress: Progress | None, min_security_bits: int, max_work: int | None
) -> VerifyResult:
    t0 = time.perf_counter()
    digest = None

    def refused(message: str, check: str, **more: Any) -> VerifyResult:
        return VerifyResult(False, message, check, verification_time_ms=(time.perf_counter() - t0) * 1000, **more)

    try:
        check_bytes("verify", "proof_bytes", proof_bytes)
        check_bytes("verify", "settings_bytes", settings_bytes)
        check_verify_arguments("verify", min_security_bits, max_work, progress)
        report(progress, 1)
        check_file_sizes(len(proof_bytes) if not is_bundle(proof_bytes) else 0, len(settings_bytes), max_work)
        meter = WorkMeter(budget_for(len(proof_bytes), len(settings_bytes), max_work))
        settings = read_settings(settings_bytes, meter)
        digest = settings.model_digest.hex()
        if is_bundle(proof_bytes):  # a segmented proof: its segments in turn (verifier/segments.py)
            return verify_segmented(proof_bytes, settings_bytes, settings, t0, progress, min_security_bits, max_work)
        proof = read_proof_file(proof_bytes, meter)
        if proof.settings_digest != settings.digest:
            raise StatementError(
                f"the proof was made for settings {proof.settings_digest.hex()[:16]}..., "
                f"not for these settings ({settings.digest.hex()[:16]}...): wrong model or tampered settings"
            )
        settings, st, terms, bits = check_proof(settings, proof, meter, min_security_bits, progress)
        inputs = dict(st.inputs or {}) | committed_inputs(settings.body, st.air, proof.stark)
        outputs = dict(st.outputs) | committed_outputs(settings.body, st.air, proof.stark)
        return VerifyResult(
            success=True,
            outputs=outputs,
            inputs=inputs or None,
            symbols=dict(settings.body.bound) if getattr(settings.body, "bound", None) else None,
            security_bits=bits,
            security_label=preset_label(settings.config).strip(" []") or None,
            model_digest=digest,
            model_title=getattr(settings.body, "title", None) or None,
            model_description=getattr(settings.body, "description", None) or None,
            statement=f"{KIND_NAMES[settings.kind]}: {st.description}",
            verification_time_ms=(time.perf_counter() - t0) * 1000,
            extra={"soundness_bits": terms, **({"training": st.training} if st.training is not None else {})},
            visibility=visibility(settings.body),
            model_root=settings.body.model_root.hex() if getattr(settings.body, "committed", False) else None,
        )
    except BudgetError as e:
        return refused(e.message, e.check, model_digest=digest, kind="not checked", work_needed=e.needed)
    except UsageError as e:  # nothing was checked: the call itself is wrong
        return refused(e.message, e.check, kind="not checked")
    except VerificationError as e:
        return refused(e.message, e.check, model_digest=digest)
    except RecursionError:
        return refused("malformed file: nesting too deep", "malformed file", model_digest=digest)
    except MemoryError as e:
        failed: BaseException | None = e
        while failed is not None:  # the decoded data of the frames that failed (and of those they handled)
            traceback.clear_frames(failed.__traceback__)
            failed = failed.__context__
        settings = proof = st = None  # type: ignore[assignment]  # and of this one
        return refused(OUT_OF_MEMORY, "malformed file", model_digest=digest)
    except Exception as e:  # noqa: BLE001 - verify() must never raise; this is a bug if reached
        return refused(f"internal error: {type(e).__name__}: {e}", "internal error", model_digest=digest)


def _digest(air: Any, stark: Any, tree: str) -> str:
    """A proof's own statement tree's root (the input or output tree), hex."""
    trees = [t for t in air.preprocessed if t.statement]
    (digest,) = [root.hex() for t, root in zip(trees, statement_roots(air, stark)) if t.name == tree]
    return digest


def committed_inputs(spec: Any, air: Any, stark: Any) -> dict[str, Any]:
    """The committed inputs of a verified proof: each one's shape and the input digest (the input
    tree's root, which `luminair verify --input` recomputes from the values)."""
    nodes = spec.committed_inputs
    if not nodes:
        return {}
    digest = _digest(air, stark, "input")
    return {inp.name: {"shape": list(spec.nodes[inp.node].shape), "committed": True, "digest": digest}
            for inp in spec.inputs if inp.node in nodes}


def committed_outputs(spec: Any, air: Any, stark: Any) -> dict[str, Any]:
    """The committed outputs of a verified proof: each one's shape and the output digest."""
    outs = [out for out in spec.outputs if out.committed]
    if not outs:
        return {}
    digest = _digest(air, stark, "output")
    return {out.name: {"shape": list(out.shape), "committed": True, "digest": digest} for out in outs}


def declared_work(proof_bytes: bytes, settings_bytes: bytes) -> WorkMeter:
    """Every part of the work a pair of files declares, charged as verify charges it but against no
    budget (what the prover reports a proof needs; bench/hostile_bench.py's estimate). Raises what
    the decoders raise."""
    meter = WorkMeter()
    settings = read_settings(settings_bytes, meter)
    proof = read_proof_file(proof_bytes, meter)
    meter.charge_all(statement_work(bind_symbols(settings, proof.public_values, meter), proof.stark_bytes))
    return meter
