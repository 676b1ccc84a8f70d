"""How the prover sizes a preset for a statement (verifier/config.py defines the presets and
labels them; the verifier never needs to choose one). A preset's blowup and grinding are chosen
per statement, from the size of its trace."""

from __future__ import annotations

from typing import Callable

from ..verifier.config import (
    LIGHT_POW_BITS, PRESET_BLOWUPS, PRESETS, SIZED_PRESETS, TIME_BLOWUPS, PcsConfig, at_blowup, with_pow_bits,
)

# A preset's blowup is chosen per statement, from the size of its trace: a larger blowup buys the
# same bits with fewer queries, and every query opens every column, so the proof shrinks, but every
# column is extended further. The prover takes the largest blowup whose extended trace, committed
# cells x 2^log_blowup, stays within PRESET_LDE_CELLS, about what this project's 2-core machine
# extends in 20 s (format 8, measured: the transformer's 21 M cells prove at blowup 8 in about
# 19 s, 262 -> 195 KB; the CNN's 5.2 M at blowup 16 in 14 s, 125 -> 104 KB; an MLP 784-128-10 at
# 16 in 0.3 s; past 2^26 cells a trace stays at blowup 4).
PRESET_LDE_CELLS = 1 << 28

# Sized for the user's time: "default" and "secure" take the smallest blowup of TIME_BLOWUPS (the
# least extension work: the fastest proof) whose estimated proof, less its public values, stays
# within PRESET_MAX_PROOF_BYTES (prover/stark/proof_size.py), and the smallest-proof choice above
# where none does; "small" always takes the smallest-proof choice (the same security as "default").
PRESET_MAX_PROOF_BYTES = 150_000
SIZE_PRESETS = ("small",)
# A time-sized preset on a trace of at most LIGHT_TRACE_CELLS grinds LIGHT_POW_BITS (milliseconds with
# hashlib) and makes up the rest with queries, which cost such a trace little: its proof does not
# load the compiled kernels, and 2^21 hashes with hashlib took it 0.6-1.5 s (bench/results)
LIGHT_TRACE_CELLS = 1 << 22


def preset_config(name: str, trace_cells: int | None = None,
                  proof_bytes: Callable[[PcsConfig], int] | None = None) -> PcsConfig:
    """The preset `name` for a trace of `trace_cells` committed cells (None: size unknown, the
    preset as listed in PRESETS). `proof_bytes(config)` estimates the proof a config would give:
    with it, a time-sized preset takes the fastest config within PRESET_MAX_PROOF_BYTES."""
    base = PRESETS[name]
    if trace_cells is None or name not in SIZED_PRESETS:
        return base
    smallest = next((at_blowup(base, b) for b in PRESET_BLOWUPS if trace_cells << b <= PRESET_LDE_CELLS), base)
    if name in SIZE_PRESETS or proof_bytes is None:
        return smallest
    light = trace_cells <= LIGHT_TRACE_CELLS
    for log_blowup in TIME_BLOWUPS:
        cfg = at_blowup(with_pow_bits(base, LIGHT_POW_BITS) if light else base, log_blowup)
        if trace_cells << log_blowup <= PRESET_LDE_CELLS and proof_bytes(cfg) <= PRESET_MAX_PROOF_BYTES:
            return cfg
    return smallest


def config_for_bits(bits: int, log_blowup: int = 2, pow_bits: int = 20) -> PcsConfig:
    """The default-shaped config with the fewest queries reaching `bits` conjectured bits."""
    pow_bits = min(pow_bits, bits)
    need = max(0, bits - pow_bits)
    n_queries = max(1, -(-need // log_blowup))
    return PcsConfig(pow_bits=pow_bits, log_blowup=log_blowup, n_queries=n_queries, log_last_layer=8,
                     interaction_pow_bits=10 if bits > 60 else 0)
