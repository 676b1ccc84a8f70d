"""Verify k chained training steps: every proof verifies as a training step (verifier/graph/
training.py) and the steps form one run. Never raises on bad bytes.

Checks, in order, for step i (each failure names its check):
* the proof itself (any check of ``verify``; "training statement" when it is not a training step);
* "training program": the model digest (graph, loss, optimizer, hyperparameters, rounding bits) is
  the expected one (``program_digest``, else the first step's);
* "chain seed": the base seed is the first step's (or ``seed``);
* "chain step": the step number is the first step's + i (or ``start_step`` + i);
* "chain link": the weights and optimizer state it starts from are those step i - 1 ended with
  (state digests computed by the verifier from the public values), and for step 0 the
  ``start_state_digest`` when given.
Arguments of the wrong type or value are a one-line "usage" error (verifier/usage.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from .api import verify
from .config import DEFAULT_MIN_SECURITY_BITS
from .errors import VerificationError
from .graph.training import MAX_SEED, MAX_STEP
from .usage import UsageError, check_bytes, check_hex_digest, check_int, check_verify_arguments, shown


@dataclass
class ChainResult:
    success: bool
    error_message: str | None = None
    check: str | None = None
    failed_step: int | None = None  # position in the chain of the first rejected step
    steps: list[dict[str, Any]] = field(default_factory=list)  # the training statements checked
    program_digest: str | None = None

    @property
    def losses(self) -> list[float]:
        return [s["loss"] for s in self.steps]


def verify_chain(
    pairs: Sequence[tuple[bytes, bytes]],
    *,
    program_digest: str | None = None,
    seed: int | None = None,
    start_step: int | None = None,
    start_state_digest: str | None = None,
    min_security_bits: int = DEFAULT_MIN_SECURITY_BITS,
    max_work: int | None = None,
) -> ChainResult:
    """``pairs``: (proof bytes, settings bytes) of each step, in order."""
    try:
        program_digest, start_state_digest = _check_arguments(
            pairs, program_digest, seed, start_step, start_state_digest, min_security_bits, max_work
        )
    except VerificationError as e:
        return ChainResult(False, e.message, e.check)
    steps: list[dict[str, Any]] = []
    program = program_digest
    if not pairs:
        return ChainResult(False, "training statement: the chain has no steps", "training statement")

    def fail(check: str, detail: str) -> ChainResult:  # step i refused: the steps and program so far
        return ChainResult(False, f"{check}: step {i}: {detail}", check, i, steps, program)

    for i, (proof, settings) in enumerate(pairs):
        r = verify(proof, settings, min_security_bits=min_security_bits, max_work=max_work)
        if not r.success:
            return ChainResult(False, f"step {i}: {r.error_message}", r.check, i, steps, program)
        t = (r.extra or {}).get("training")
        if t is None:
            return fail("training statement", "the proof is valid but its graph is not a training step")
        digest = r.model_digest or ""
        if program is None:
            program = digest
        elif digest != program:
            return fail("training program", f"model digest {digest[:16]}... is not the program "
                        f"{program[:16]}... (another model, optimizer or hyperparameters)")
        if seed is None:
            seed = t["seed"]
        elif t["seed"] != seed:
            return fail("chain seed", f"seed {t['seed']}, the chain's seed is {seed}")
        if start_step is None:
            start_step = t["step"]
        if t["step"] != start_step + i:
            return fail("chain step", f"step number {t['step']}, expected {start_step + i}")
        before = steps[-1]["new_state_digest"] if steps else start_state_digest
        if before is not None and t["old_state_digest"] != before:
            where = "the previous step ended with" if steps else "the chain starts from"
            return fail("chain link", f"starts from weights/state {t['old_state_digest'][:16]}..., "
                        f"{where} {before[:16]}...")
        steps.append({**t, "model_digest": digest, "security_bits": r.security_bits})
    return ChainResult(True, None, None, None, steps, program)


def _check_arguments(
    pairs: Any, program_digest: Any, seed: Any, start_step: Any, start_state_digest: Any, min_security_bits: Any,
    max_work: Any,
) -> tuple[str | None, str | None]:
    """The digests in lower case, once every argument has the right type and range (UsageError)."""
    fn = "verify_chain"
    if not isinstance(pairs, (list, tuple)):
        raise UsageError(f"{fn}(): pairs must be a list of (proof bytes, settings bytes), not {shown(pairs)}")
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise UsageError(f"{fn}(): pairs[{i}] must be a (proof bytes, settings bytes) pair, not {shown(pair)}")
        check_bytes(fn, f"pairs[{i}][0] (proof)", pair[0])
        check_bytes(fn, f"pairs[{i}][1] (settings)", pair[1])
    check_int(fn, "seed", seed, 0, MAX_SEED, optional=True)
    check_int(fn, "start_step", start_step, 0, MAX_STEP, optional=True)
    check_verify_arguments(fn, min_security_bits, max_work)
    return check_hex_digest(fn, "program_digest", program_digest), check_hex_digest(fn, "start_state_digest", start_state_digest)
