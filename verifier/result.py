"""What a verification returns (VerifyResult), and the checks of one proof bound to its settings
(check_proof), shared by a whole proof (api.py) and each segment of a segmented one (segments.py)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .budget import WorkMeter, statement_work
from .errors import ConfigError
from .formats import ProofFile
from .security import security_bits, soundness_terms, weakest
from .statement import Settings, bind_symbols, build_statement
from .verify import Progress, verify_stark


@dataclass
class VerifyResult:
    success: bool
    error_message: str | None = None
    check: str | None = None  # the failed check's name, e.g. "Merkle path", "OODS mismatch"
    outputs: dict[str, Any] | None = None  # public outputs the proof attests (when success)
    inputs: dict[str, Any] | None = None  # public inputs the proof is about (when success)
    symbols: dict[str, int] | None = None  # the symbolic dimensions' values the proof fixes (batch size...)
    security_bits: int | None = None
    security_label: str | None = None
    model_digest: str | None = None  # the model's identity (graph, views, weights, format, output maps)
    model_title: str | None = None  # the publisher's labels (bound by the proof, not the identity)
    model_description: str | None = None
    statement: str | None = None
    verification_time_ms: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    # "verified", "rejected" (a check failed) or "not checked" (over the work budget or the size
    # caps, or a usage error: nothing was checked); work_needed: the max_work that admits the files, when known
    kind: str = ""
    work_needed: int | None = None
    # who sees each kind of tensor: {"weights": "public"|"committed", "inputs": {name: "public"|
    # "private"}, "outputs": "public"}; model_root: the model tree's root (hex) of committed weights,
    # which `luminair audit` recomputes from the weights (docs/committed-models.md)
    visibility: dict[str, Any] | None = None
    model_root: str | None = None

    def __post_init__(self) -> None:
        if not self.kind:
            self.kind = "verified" if self.success else "rejected"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_proof(settings: Settings, proof: ProofFile, meter: WorkMeter, min_security_bits: int,
                progress: Progress | None = None, seed: bytes | None = None) -> tuple[Settings, Any, dict[str, float], int]:
    """Check one proof, already bound to `settings` (raises what the checks raise): the config floor,
    the work the pair declares, the union bound, then the STARK itself (`seed`: a segment's).
    Returns the settings the proof is checked against (symbols bound), its statement, soundness
    terms and bits."""
    settings.config.check_floor(min_security_bits)
    settings = bind_symbols(settings, proof.public_values, meter)
    meter.charge_all(statement_work(settings, proof.stark_bytes), complete=True)
    st = build_statement(settings, proof.public_values, proof.stark.vectors)
    terms = soundness_terms(settings.config, st.air, st.public_terms)
    bits = security_bits(terms)
    if bits < min_security_bits:
        worst = weakest(terms)
        raise ConfigError(
            f"{bits} bits by the union of this proof's soundness terms (the weakest: {worst}, "
            f"{terms[worst]} bits) is below the verifier's floor of {min_security_bits} bits"
        )
    verify_stark(st.air, settings.config, st.statement_bytes, proof.stark, st.public_sum, progress, seed)
    return settings, st, terms, bits


def visibility(spec: Any) -> dict[str, Any]:
    """Who sees each kind of tensor of a graph statement (VerifyResult.visibility)."""
    def seen(node: Any) -> str:
        return "committed" if node.committed else "private" if node.private else "public"

    return {
        "weights": "committed" if spec.committed else "public",
        "inputs": {inp.name: seen(spec.nodes[inp.node]) for inp in spec.inputs},
        "outputs": "committed" if any(out.committed for out in spec.outputs) else "public",  # (all or none)
    }
