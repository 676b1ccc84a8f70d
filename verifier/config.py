"""Proof-system configuration, presets and the security floor (docs/protocol.md, section 16).

Conjectured security = pow_bits + log_blowup * n_queries (ethSTARK-style, as Stwo counts it). The
algebraic soundness errors (LogUp, composition, OODS, DEEP and FRI challenges, each about
degree / 2^124) stay below 2^-100 at every supported size, so figures above ~100 bits are capped by
the field, not by FRI; the `secure` preset is labelled accordingly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import ConfigError

DEFAULT_MIN_SECURITY_BITS = 96

# Bounds a decoder accepts (anything else is malformed, not merely weak).
MAX_POW_BITS = 32
MIN_LOG_BLOWUP, MAX_LOG_BLOWUP = 1, 6
MAX_QUERIES = 256
MAX_LOG_LAST_LAYER = 10
MAX_INTERACTION_POW_BITS = 24


@dataclass(frozen=True)
class PcsConfig:
    pow_bits: int
    log_blowup: int
    n_queries: int
    log_last_layer: int = 0
    interaction_pow_bits: int = 0  # grinding before the LogUp challenges (verifier/security.py)

    @property
    def security_bits(self) -> int:
        """The FRI term (conjectured): pow_bits + log_blowup * n_queries. The verifier reports the
        minimum of this and the algebraic terms of the proof's AIR (verifier/security.py)."""
        return self.pow_bits + self.log_blowup * self.n_queries

    def words(self) -> list[int]:
        """The u32 words mixed into the channel before anything else is drawn."""
        return [self.pow_bits, self.log_blowup, self.n_queries, self.log_last_layer, self.interaction_pow_bits]

    def validate(self) -> None:
        """Structural bounds (independent of the security floor)."""
        if not 0 <= self.pow_bits <= MAX_POW_BITS:
            raise ConfigError(f"pow_bits {self.pow_bits} outside [0, {MAX_POW_BITS}]")
        if not MIN_LOG_BLOWUP <= self.log_blowup <= MAX_LOG_BLOWUP:
            raise ConfigError(
                f"log_blowup {self.log_blowup} outside [{MIN_LOG_BLOWUP}, {MAX_LOG_BLOWUP}]"
            )
        if not 1 <= self.n_queries <= MAX_QUERIES:
            raise ConfigError(f"n_queries {self.n_queries} outside [1, {MAX_QUERIES}]")
        if not 0 <= self.interaction_pow_bits <= MAX_INTERACTION_POW_BITS:
            raise ConfigError(f"interaction_pow_bits {self.interaction_pow_bits} outside [0, {MAX_INTERACTION_POW_BITS}]")
        if not 0 <= self.log_last_layer <= MAX_LOG_LAST_LAYER:
            raise ConfigError(f"log_last_layer {self.log_last_layer} outside [0, {MAX_LOG_LAST_LAYER}]")

    def check_floor(self, min_bits: int) -> None:
        self.validate()
        if self.security_bits < min_bits:
            raise ConfigError(
                f"{self.security_bits} conjectured bits (pow {self.pow_bits} + blowup 2^{self.log_blowup} "
                f"x {self.n_queries} queries) is below the verifier's floor of {min_bits} bits"
            )

    def describe(self) -> str:
        label = preset_label(self)
        return (
            f"{self.security_bits} bits{label} (pow {self.pow_bits}, log blowup {self.log_blowup}, "
            f"{self.n_queries} queries, log last layer {self.log_last_layer}, "
            f"interaction pow {self.interaction_pow_bits})"
        )


PRESETS: dict[str, PcsConfig] = {
    # Development only: fast proofs with almost no security. Labelled wherever shown.
    "fast": PcsConfig(pow_bits=8, log_blowup=1, n_queries=12),
    # 97 conjectured FRI bits, so that the union with the algebraic terms (verifier/security.py)
    # stays at 96 or more; 21 bits of grinding cost a query less than 20 would; the last FRI layer
    # may hold up to 256 coefficients (fri_schedule picks the size and the folds of fewest bytes)
    "default": PcsConfig(pow_bits=21, log_blowup=2, n_queries=38, log_last_layer=8, interaction_pow_bits=10),
    "secure": PcsConfig(pow_bits=20, log_blowup=2, n_queries=46, log_last_layer=8, interaction_pow_bits=16),
}

PRESET_NOTES = {
    "fast": " - DEVELOPMENT ONLY, not secure",
    "default": "",
    "secure": " (capped near 100 bits by the QM31 field's algebraic error)",
}


PRESET_BLOWUPS = (4, 3)  # the blowups a sized preset takes (prover/presets.py chooses)
SIZED_PRESETS = ("default", "secure", "small")  # "fast" stays as it is: a development preset

TIME_BLOWUPS = (2, 3, 4)
PRESETS["small"] = PRESETS["default"]
PRESET_NOTES["small"] = " (sized for the smallest proof)"


MAX_EXTRA_POW_BITS = 1  # grinding a sized preset may add to save a query (2^21 hashes: about 0.4 s on two cores)
LIGHT_POW_BITS = 12  # what a time-sized preset grinds on a light trace (prover/presets.py)


def with_pow_bits(config: PcsConfig, pow_bits: int) -> PcsConfig:
    """`config` grinding `pow_bits`, with the fewest queries keeping at least its conjectured bits."""
    need = max(0, config.security_bits - pow_bits)
    return replace(config, pow_bits=pow_bits, n_queries=max(1, -(-need // config.log_blowup)))


def at_blowup(config: PcsConfig, log_blowup: int) -> PcsConfig:
    """`config` at another blowup, with the fewest queries keeping at least its conjectured bits.
    Where the queries' bits overshoot by more than they must, up to MAX_EXTRA_POW_BITS of grinding
    make up one query less (at blowup 8, default: 25 queries and 21 bits of grinding, not 26 and 20:
    a query opens every column, about 5 KB of the transformer's proof)."""
    need = max(0, config.security_bits - config.pow_bits)
    n_queries, short = divmod(need, log_blowup)
    if short > MAX_EXTRA_POW_BITS or n_queries == 0 or config.pow_bits + short > MAX_POW_BITS:
        return replace(config, log_blowup=log_blowup, n_queries=max(1, -(-need // log_blowup)))
    return replace(config, log_blowup=log_blowup, n_queries=n_queries, pow_bits=config.pow_bits + short)


def preset_label(config: PcsConfig) -> str:
    for name, preset in PRESETS.items():
        sized = name in SIZED_PRESETS
        blowups = sorted({*PRESET_BLOWUPS, *TIME_BLOWUPS}) if sized else []
        bases = (preset, with_pow_bits(preset, LIGHT_POW_BITS)) if sized else (preset,)
        if any(_comes_from(config, c, sized) for c in (preset, *(at_blowup(b, x) for b in bases for x in blowups))):
            return f" [{name} preset{PRESET_NOTES[name]}]"
    if config.security_bits < DEFAULT_MIN_SECURITY_BITS:
        return " [custom, below the 96-bit floor: DEVELOPMENT ONLY]"
    return " [custom]"


def _comes_from(config: PcsConfig, preset: PcsConfig, topped: bool) -> bool:
    """`config` is `preset`, or (`topped`) `preset` with queries added to reach the floor by the
    union bound (proving.reach_union_bound)."""
    if config == preset:
        return True
    return topped and config.n_queries > preset.n_queries and config == replace(preset, n_queries=config.n_queries)
