"""`verify(proof_bytes, settings_bytes)`: the public entry point. It never raises on any input."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from .config import DEFAULT_MIN_SECURITY_BITS, preset_label
from .errors import ConfigError, StatementError, VerificationError
from .security import security_bits, soundness_terms, weakest
from .formats import read_proof_file
from .statement import KIND_NAMES, build_statement, read_settings
from .verify import Progress, report, verify_stark


@dataclass
class VerifyResult:
    success: bool
    error_message: str | None = None
    check: str | None = None  # the failed check's name, e.g. "Merkle path", "OODS mismatch"
    outputs: dict[str, Any] | None = None  # public outputs the proof attests (when success)
    inputs: dict[str, Any] | None = None  # public inputs the proof is about (when success)
    security_bits: int | None = None
    security_label: str | None = None
    model_digest: str | None = None  # the model's identity (graph, views, weights, format, output maps)
    model_title: str | None = None  # the publisher's labels (bound by the proof, not the identity)
    model_description: str | None = None
    statement: str | None = None
    verification_time_ms: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def verify(
    proof_bytes: bytes,
    settings_bytes: bytes,
    *,
    progress: Progress | None = None,
    min_security_bits: int = DEFAULT_MIN_SECURITY_BITS,
) -> VerifyResult:
    """Check that proof_bytes proves the statement in settings_bytes.

    `progress(step, of, label)` is called as the verifier moves through its steps (used by the web
    widget). `min_security_bits` is the floor a proof's configuration must reach; lower it only to
    check development proofs."""
    t0 = time.perf_counter()
    digest = None
    for what, data in (("proof", proof_bytes), ("settings", settings_bytes)):
        if not isinstance(data, (bytes, bytearray, memoryview)):
            return VerifyResult(
                False, f"malformed file: the {what} must be bytes, got {type(data).__name__}", "malformed file"
            )
    try:
        report(progress, 1)
        settings = read_settings(settings_bytes)
        digest = settings.model_digest.hex()
        proof = read_proof_file(proof_bytes)
        if proof.settings_digest != settings.digest:
            raise StatementError(
                f"the proof was made for settings {proof.settings_digest.hex()[:16]}..., "
                f"not for these settings ({settings.digest.hex()[:16]}...): wrong model or tampered settings"
            )
        settings.config.check_floor(min_security_bits)
        st = build_statement(settings, proof.public_values)
        terms = soundness_terms(settings.config, st.air, st.public_terms)
        bits = security_bits(terms)
        if bits < min_security_bits:
            raise ConfigError(
                f"{bits} bits: the {weakest(terms)} term of this proof is below the verifier's floor of "
                f"{min_security_bits} bits"
            )
        verify_stark(st.air, settings.config, st.statement_bytes, proof.stark, st.public_sum, progress)
        return VerifyResult(
            success=True,
            outputs=st.outputs,
            inputs=st.inputs or None,
            security_bits=bits,
            security_label=preset_label(settings.config).strip(" []") or None,
            model_digest=digest,
            model_title=getattr(settings.body, "title", None) or None,
            model_description=getattr(settings.body, "description", None) or None,
            statement=f"{KIND_NAMES[settings.kind]}: {st.description}",
            verification_time_ms=(time.perf_counter() - t0) * 1000,
            extra={"soundness_bits": terms},
        )
    except VerificationError as e:
        return VerifyResult(
            success=False,
            error_message=e.message,
            check=e.check,
            model_digest=digest,
            verification_time_ms=(time.perf_counter() - t0) * 1000,
        )
    except RecursionError:
        return VerifyResult(False, "malformed file: nesting too deep", "malformed file")
    except MemoryError:
        return VerifyResult(
            False, "malformed file: the files need more memory than this verifier has", "malformed file",
            model_digest=digest, verification_time_ms=(time.perf_counter() - t0) * 1000,
        )
    except Exception as e:  # noqa: BLE001 - verify() must never raise; this is a bug if reached
        return VerifyResult(
            success=False,
            error_message=f"internal error: {type(e).__name__}: {e}",
            check="internal error",
            model_digest=digest,
            verification_time_ms=(time.perf_counter() - t0) * 1000,
        )
