"""Training-step statements: the roles a graph's public values play in one optimizer step, the
stochastic-rounding noise the verifier recomputes, and the digests of the weights before and after.

A graph is a training step when any of its inputs or outputs has a name in the reserved ``train/``
namespace. The names are part of settings.bin and of the model digest, so the roles are bound like
the graph itself. Then all of these must hold, or the proof is rejected:

inputs (all public)
  ``train/seed``                 shape (4,): the base seed, four 15-bit limbs, little end first
  ``train/step``                 shape (2,): the step number, two 15-bit limbs
  ``train/param/<p>/<name>``     parameter p (p = 0, 1, ... without gaps) before the step
  ``train/noise/<p>/<bits>``     its rounding noise: raw integers in [0, 2^bits), one per element
  ``train/state/<p>/<slot>``     optimizer state of parameter p (momentum "m", ...) before the step
outputs
  ``train/new_param/<p>/<name>`` parameter p after the step (same name and shape)
  ``train/new_state/<p>/<slot>`` its state after the step (one per state input)
  ``train/loss``                 one element: the loss on the batch before the step

The verifier recomputes every noise element from (seed, step, p) with ``sr_noise`` (BLAKE2s, integer
arithmetic only: identical in CPython, numpy and Pyodide) and rejects a proof whose noise differs
(check "stochastic rounding noise"). The weights digests are computed here from the public values
themselves, never read from a file. What the step computes (model, loss, optimizer, learning rate)
is the graph, identified by the model digest: a chain of steps must keep one model digest
(verifier/training_chain.py).
"""

from __future__ import annotations

import hashlib
import re
import struct
from typing import Any, Sequence

from ..errors import StatementError
from ..numeric import from_field

PREFIX = "train/"
LIMB_BITS = 15
SEED_LIMBS = 4
STEP_LIMBS = 2
MAX_SEED = (1 << (LIMB_BITS * SEED_LIMBS)) - 1
MAX_STEP = (1 << (LIMB_BITS * STEP_LIMBS)) - 1
MAX_NOISE_BITS = 15
_NOISE_DOMAIN = b"luminair stochastic rounding v1"
_DIGEST_DOMAIN = b"luminair training weights v1"

# An index or a bit count is ASCII decimal without leading zeros (r"\d" would take any Unicode digit,
# "train/param/\u0660/w" as parameter 0; "01" would be a second name for parameter 1).
_INDEX = r"(0|[1-9][0-9]*)"
_PARAM = re.compile(rf"train/param/{_INDEX}/(.+)")
_NOISE = re.compile(rf"train/noise/{_INDEX}/{_INDEX}")
_STATE = re.compile(rf"train/state/{_INDEX}/([A-Za-z0-9_]+)")
_NEW_PARAM = re.compile(rf"train/new_param/{_INDEX}/(.+)")
_NEW_STATE = re.compile(rf"train/new_state/{_INDEX}/([A-Za-z0-9_]+)")


class TrainingStatementError(StatementError):
    """The graph uses the train/ names but not as a well-formed training step."""

    check = "training statement"


class NoiseError(StatementError):
    """A public noise element differs from the one derived from (seed, step, parameter index)."""

    check = "stochastic rounding noise"


def sr_noise(seed: int, step: int, index: int, count: int, bits: int) -> list[int]:
    """The stochastic-rounding noise of parameter ``index`` at ``step``: ``count`` integers in
    [0, 2^bits). Block c of 16 values is BLAKE2s(domain | seed u64 | step u64 | index u32 | c u32)
    read as 16 little-endian u16, each masked to ``bits`` bits."""
    if not 1 <= bits <= MAX_NOISE_BITS:
        raise ValueError(f"noise bits must be in [1, {MAX_NOISE_BITS}], got {bits}")
    if not (0 <= seed <= MAX_SEED and 0 <= step <= MAX_STEP and 0 <= index < 1 << 32):
        raise ValueError(f"seed {seed}, step {step} or index {index} out of range")
    mask = (1 << bits) - 1
    out: list[int] = []
    block = 0
    while len(out) < count:
        h = hashlib.blake2s(_NOISE_DOMAIN + struct.pack("<QQII", seed, step, index, block)).digest()
        out.extend(v & mask for v in struct.unpack("<16H", h))
        block += 1
    return out[:count]


def to_limbs(value: int, n: int) -> list[int]:
    """``value`` as n limbs of 15 bits, least significant first (each a raw fixed-point value)."""
    if not 0 <= value < 1 << (LIMB_BITS * n):
        raise ValueError(f"{value} does not fit in {n} limbs of {LIMB_BITS} bits")
    return [(value >> (LIMB_BITS * i)) & ((1 << LIMB_BITS) - 1) for i in range(n)]


def from_limbs(raws: list[int], what: str) -> int:
    value = 0
    for i, raw in enumerate(raws):
        if not 0 <= raw < 1 << LIMB_BITS:
            raise TrainingStatementError(f"{what} limb {i} is {raw}, not in [0, 2^{LIMB_BITS})")
        value |= raw << (LIMB_BITS * i)
    return value


def weights_digest(entries: Sequence[tuple[str, tuple[int, ...], list[int]]]) -> str:
    """BLAKE2s (hex) of named tensors of raw values, in the order given: name, shape, values."""
    h = hashlib.blake2s(_DIGEST_DOMAIN)
    h.update(struct.pack("<I", len(entries)))
    for name, shape, raws in entries:
        b = name.encode()
        h.update(struct.pack("<I", len(b)) + b + struct.pack("<I", len(shape)))
        h.update(struct.pack(f"<{len(shape)}I", *shape))
        h.update(struct.pack(f"<I{len(raws)}h", len(raws), *raws))
    return h.hexdigest()


def is_training(spec: Any) -> bool:
    return any(x.name.startswith(PREFIX) for x in (*spec.inputs, *spec.outputs))


def _indexed(found: dict[int, Any], what: str) -> list[Any]:
    if sorted(found) != list(range(len(found))):
        raise TrainingStatementError(f"{what} indices {sorted(found)} are not 0, 1, 2, ... without gaps")
    return [found[i] for i in range(len(found))]


def training_statement(
    spec: Any, inputs_raw: dict[str, list[int]], outputs_raw: dict[str, list[int]]
) -> dict | None:
    """Check the roles and the noise of a training-step graph; None when the graph is not one.

    ``inputs_raw`` / ``outputs_raw``: public name -> signed raw values (row-major)."""
    if not is_training(spec):
        return None
    in_shape = {i.name: tuple(spec.nodes[i.node].shape) for i in spec.inputs}
    out_shape = {o.name: tuple(o.shape) for o in spec.outputs}
    params: dict[int, tuple[str, str]] = {}
    noise: dict[int, tuple[str, int]] = {}
    state: dict[int, dict[str, str]] = {}
    for inp in spec.inputs:
        name = inp.name
        if not name.startswith(PREFIX):
            continue
        if spec.nodes[inp.node].private:
            raise TrainingStatementError(f"input {name!r} must be public")
        if name in ("train/seed", "train/step"):
            continue
        if m := _PARAM.fullmatch(name):
            if int(m[1]) in params:
                raise TrainingStatementError(
                    f"parameter {m[1]} has two inputs ({params[int(m[1])][1]!r}, {name!r})"
                )
            params[int(m[1])] = (m[2], name)
        elif m := _NOISE.fullmatch(name):
            if int(m[1]) in noise:
                raise TrainingStatementError(f"parameter {m[1]} has two noise inputs")
            noise[int(m[1])] = (name, int(m[2]))
        elif m := _STATE.fullmatch(name):
            state.setdefault(int(m[1]), {})[m[2]] = name
        else:
            raise TrainingStatementError(f"input {name!r} is not a known training role")
    new_params: dict[int, str] = {}
    new_state: dict[int, dict[str, str]] = {}
    for out in spec.outputs:
        name = out.name
        if not name.startswith(PREFIX) or name == "train/loss":
            continue
        if m := _NEW_PARAM.fullmatch(name):
            if int(m[1]) in new_params:
                raise TrainingStatementError(f"parameter {m[1]} has two new-value outputs")
            new_params[int(m[1])] = name
        elif m := _NEW_STATE.fullmatch(name):
            new_state.setdefault(int(m[1]), {})[m[2]] = name
        else:
            raise TrainingStatementError(f"output {name!r} is not a known training role")
    for fixed, shape in (("train/seed", (SEED_LIMBS,)), ("train/step", (STEP_LIMBS,))):
        if in_shape.get(fixed) != shape:
            raise TrainingStatementError(f"needs a public input {fixed!r} of shape {shape}")
    if out_shape.get("train/loss") is None or len(outputs_raw["train/loss"]) != 1:
        raise TrainingStatementError("needs an output 'train/loss' of one element")
    plist = _indexed(params, "parameter")
    if not plist:
        raise TrainingStatementError("a training step needs at least one train/param input")
    if sorted(noise) != list(range(len(plist))):
        raise TrainingStatementError(
            f"noise inputs for parameters {sorted(noise)}, expected one for each of 0..{len(plist) - 1}"
        )
    seed = from_limbs(inputs_raw["train/seed"], "train/seed")
    step = from_limbs(inputs_raw["train/step"], "train/step")
    Entry = tuple[str, tuple[int, ...], list[int]]
    old: list[Entry] = []
    new: list[Entry] = []
    old_state: list[Entry] = []
    new_state_entries: list[Entry] = []
    described: list[dict[str, Any]] = []
    for p, (pname, in_name) in enumerate(plist):
        shape = in_shape[in_name]
        out_name = f"train/new_param/{p}/{pname}"
        if new_params.get(p) != out_name or out_shape[out_name] != shape:
            raise TrainingStatementError(
                f"parameter {p} {pname!r} needs an output {out_name!r} of shape {shape}"
            )
        nname, bits = noise[p]
        if in_shape[nname] != shape or not 1 <= bits <= MAX_NOISE_BITS:
            raise TrainingStatementError(
                f"noise input {nname!r} must have the parameter's shape {shape} and 1..15 bits"
            )
        expect = sr_noise(seed, step, p, len(inputs_raw[nname]), bits)
        for i, (got, want) in enumerate(zip(inputs_raw[nname], expect)):
            if got != want:
                raise NoiseError(
                    f"parameter {p} {pname!r} element {i}: the proof's noise is {got}, seed {seed} at step "
                    f"{step} gives {want}"
                )
        slots = state.get(p, {})
        outs = new_state.get(p, {})
        if set(outs) != set(slots):
            raise TrainingStatementError(
                f"parameter {p} {pname!r}: state inputs {sorted(slots)} and outputs {sorted(outs)} differ"
            )
        for slot in sorted(slots):
            sname, oname = slots[slot], new_state[p][slot]
            if in_shape[sname] != shape or out_shape[oname] != shape:
                raise TrainingStatementError(
                    f"state {sname!r} and {oname!r} must have the parameter's shape {shape}"
                )
            old_state.append((f"{pname}/{slot}", shape, inputs_raw[sname]))
            new_state_entries.append((f"{pname}/{slot}", shape, outputs_raw[oname]))
        old.append((pname, shape, inputs_raw[in_name]))
        new.append((pname, shape, outputs_raw[out_name]))
        described.append(
            {"index": p, "name": pname, "shape": list(shape), "noise_bits": bits, "state": sorted(slots)}
        )
    extra_new = set(new_params) - set(range(len(plist)))
    extra_state = set(new_state) - set(range(len(plist))) or set(state) - set(range(len(plist)))
    if extra_new or extra_state:
        raise TrainingStatementError(
            f"outputs or states for parameters {sorted(extra_new | extra_state)} that have no input"
        )
    scale = next(spec.scale_of(o.node) for o in spec.outputs if o.name == "train/loss")
    return {
        "step": step,
        "seed": seed,
        "loss": outputs_raw["train/loss"][0] / (1 << scale),
        "params": described,
        "old_weights_digest": weights_digest(old),
        "new_weights_digest": weights_digest(new),
        "old_state_digest": weights_digest(old + old_state),
        "new_state_digest": weights_digest(new + new_state_entries),
        "batch_inputs": [i.name for i in spec.inputs if not i.name.startswith(PREFIX)],
        "private_batch_inputs": [
            i.name for i in spec.inputs if not i.name.startswith(PREFIX) and spec.nodes[i.node].private
        ],
    }


def raw_values(vals: Sequence[int]) -> list[int]:
    """Field elements -> signed raw integers."""
    return [from_field(v) for v in vals]
