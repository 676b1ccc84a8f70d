"""settings.bin: the statement a proof is checked against, and the AIR it implies.

Layout: "LMNRSETT" | u16 version | u8 kind | config | body
* kind 1 (example AIR): string name | u32 n | n x (string key, u32 value)
* kind 2 (graph): see verifier/graph/settings.py
The settings digest is BLAKE2s of the whole file; it is mixed into the channel first, so a proof
cannot be replayed against any other settings file (another title included). The model digest
(Settings.model_digest) identifies the model itself: graph, views, weights, numeric format and
output maps, without the publisher's labels.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

from .air.examples import fibonacci_air, square_lookup_air
from .air.framework import Air, AirDefinitionError, RelationElements, check_entry_bound
from .config import PcsConfig
from .errors import FormatError, StatementError
from .fields import QM31
from .formats import SETTINGS_MAGIC, FORMAT_VERSION, Reader, Writer, read_config, read_header, write_config
from .packed import to_le

if TYPE_CHECKING:
    from .budget import WorkMeter

KIND_AIR = 1
KIND_GRAPH = 2
KIND_NAMES = {KIND_AIR: "example AIR", KIND_GRAPH: "graph"}


@dataclass
class ExampleAirSpec:
    name: str
    params: dict[str, int]


@dataclass
class Settings:
    kind: int
    config: PcsConfig
    body: Any
    raw: bytes = b""
    template: Any = None  # a symbolic graph this settings' body was instantiated from (bind_symbols)

    @property
    def digest(self) -> bytes:
        """BLAKE2s of the whole file (labels included): what a proof is bound to."""
        return hashlib.blake2s(self.raw).digest()

    @property
    def model_digest(self) -> bytes:
        """The model's identity, independent of the publisher's labels and of the proof config."""
        if self.kind == KIND_GRAPH:
            from .graph.summary import model_digest

            return model_digest(self.template if self.template is not None else self.body)
        return self.digest


@dataclass
class Statement:
    """What the verifier checks a STARK proof against, built from settings + public values."""

    air: Air
    statement_bytes: bytes
    public_sum: Callable[[dict[str, RelationElements]], QM31] | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    public_terms: int = 0  # LogUp fractions the verifier adds itself (security accounting)
    training: dict[str, Any] | None = None  # a training step's statement (verifier/graph/training.py)


def encode_settings(kind: int, config: PcsConfig, body: Any) -> bytes:
    w = Writer()
    w.raw(SETTINGS_MAGIC)
    w.u16(FORMAT_VERSION)
    w.u8(kind)
    write_config(w, config)
    if kind == KIND_AIR:
        w.string(body.name)
        w.u32(len(body.params))
        for k, v in body.params.items():
            w.string(k)
            w.u32(v)
    elif kind == KIND_GRAPH:
        from .graph.settings import write_graph

        write_graph(w, body)
    else:
        raise ValueError(f"unknown settings kind {kind}")
    return w.bytes()


def read_settings(data: bytes, meter: WorkMeter | None = None) -> Settings:
    """settings.bin decoded; `meter` (verify's work budget) is charged for a graph's view checks
    before they run."""
    r = Reader(data, "settings.bin")
    read_header(r, SETTINGS_MAGIC, "settings")
    kind = r.u8("statement kind")
    config = read_config(r)
    if kind == KIND_AIR:
        name = r.string("air name", 64)
        params = {}
        for i in range(r.count("air params", 64, 8)):
            key = r.string(f"air param {i} name", 64)
            params[key] = r.u32(f"air param {key}")
        body: Any = ExampleAirSpec(name, params)
    elif kind == KIND_GRAPH:
        from .graph.settings import read_graph

        body = read_graph(r, meter)
    else:
        raise r.fail("statement kind", f"unknown kind {kind}")
    r.finish()
    return Settings(kind, config, body, bytes(data))


def bind_symbols(settings: Settings, public: Sequence[Sequence[int]], meter: WorkMeter | None = None) -> Settings:
    """The settings a proof is checked against: a graph with symbolic dimensions is instantiated for
    the symbol values the proof fixes (its first public tensor, within each symbol's bounds);
    anything else is returned as it is. `meter` (verify's work budget) is charged for the
    instantiation before it runs. The digest stays the file's: a proof is bound to the one
    settings.bin, and to its symbol values through the public values."""
    body = settings.body
    if settings.kind != KIND_GRAPH or not body.is_template:
        return settings
    from .budget import substitution_work, view_work
    from .graph.settings import instantiate, template_parts
    from .graph.symbols import symbol_values

    values = symbol_values(body.symbols, public)
    if meter is not None:  # before instantiating: the substitution, then the concrete graph's view checks
        n_terms, n_references, steps = template_parts(body)
        meter.charge_all({"symbol substitution": substitution_work(n_terms, n_references), "view checks": view_work(steps)})
    concrete = instantiate(body, values)
    return Settings(settings.kind, settings.config, concrete, settings.raw, template=body)


def statement_bytes(digest: bytes, public_values: Sequence[Sequence[int]]) -> bytes:
    parts = [digest, struct.pack("<I", len(public_values))]
    for vals in public_values:
        parts += [struct.pack("<I", len(vals)), to_le(vals)]
    return b"".join(parts)


_EXAMPLE_PARAMS = {
    "fibonacci": {"log_size": (4, 20), "n_columns": (3, 256)},
    "square_lookup": {"log_size": (4, 20), "table_log_size": (4, 10)},
}


def _example_statement(settings: Settings, public: Sequence[Sequence[int]]) -> Statement:
    spec: ExampleAirSpec = settings.body
    bounds = _EXAMPLE_PARAMS.get(spec.name)
    if bounds is None:
        raise FormatError(f"settings.bin: unknown example AIR {spec.name!r}")
    if set(spec.params) != set(bounds):
        raise FormatError(f"settings.bin: example AIR {spec.name!r} needs parameters {sorted(bounds)}")
    for key, (lo, hi) in bounds.items():
        if not lo <= spec.params[key] <= hi:
            raise FormatError(f"settings.bin: {spec.name}.{key} = {spec.params[key]} outside [{lo}, {hi}]")
    p = spec.params
    stmt = statement_bytes(settings.digest, public)
    try:
        if spec.name == "fibonacci":
            if len(public) != 1 or len(public[0]) != 3:
                raise StatementError("a Fibonacci proof carries exactly the public values (a, b, result)")
            a, b, result = public[0]
            air = fibonacci_air(p["log_size"], p["n_columns"], a, b, result)
            return Statement(air, stmt, outputs={"result": {"shape": [1], "values": [result]}},
                             description=f"Fibonacci AIR, 2^{p['log_size']} rows x {p['n_columns']} columns")
        if len(public) != 1 or len(public[0]) != 1:
            raise StatementError("a square-lookup proof carries exactly one public value (the total)")
        (total,) = public[0]
        air = square_lookup_air(p["log_size"], p["table_log_size"], total, settings.config.log_blowup)
        return Statement(air, stmt, outputs={"total": {"shape": [1], "values": [total]}},
                         description=f"square lookup AIR, 2^{p['log_size']} rows, table 2^{p['table_log_size']}")
    except (AirDefinitionError, ValueError) as e:
        raise FormatError(f"settings.bin: {e}") from None


def build_statement(settings: Settings, public: Sequence[Sequence[int]]) -> Statement:
    if settings.kind == KIND_AIR:
        st = _example_statement(settings, public)
    else:
        from .graph.statement import graph_statement

        st = graph_statement(settings, public)
    check_entry_bound(st.air, st.public_terms)
    return st
