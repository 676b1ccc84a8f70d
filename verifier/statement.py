"""settings.bin: the statement a proof is checked against, and the AIR it implies.

Layout: "LMNRSETT" | u16 version | u8 kind (2: a graph) | config | body (verifier/graph/settings.py)
The settings digest is BLAKE2s of the whole file; it is mixed into the channel first, so a proof
cannot be replayed against any other settings file (another title included). The model digest
(Settings.model_digest) identifies the model itself: graph, views, weights, numeric format and
output maps, without the publisher's labels.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .air.framework import check_entry_bound
from .budget import WorkMeter
from .claim import Statement
from .config import PcsConfig
from .formats import DIGEST_BYTES, SETTINGS_MAGIC, FORMAT_VERSION, Reader, Writer, read_config, read_header, write_config
from .graph.settings import charge_template, instantiate, model_digest, read_graph, write_graph
from .graph.statement import graph_statement
from .graph.symbols import symbol_values

KIND_GRAPH = 2  # (kind 1 held example AIRs up to format 9: they live in examples/example_airs.py)
KIND_NAMES = {KIND_GRAPH: "graph"}


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
            return model_digest(self.template if self.template is not None else self.body)
        return self.digest


def encode_settings(kind: int, config: PcsConfig, body: Any) -> bytes:
    w = Writer()
    w.raw(SETTINGS_MAGIC)
    w.u16(FORMAT_VERSION)
    w.u8(kind)
    write_config(w, config)
    if kind == KIND_GRAPH:
        write_graph(w, body)
        if body.committed:  # the model section: what the model tree's root depends on, and the root
            w.u8(body.model_log_blowup)
            w.raw(body.model_root.ljust(DIGEST_BYTES, b"\0"))
    else:
        raise ValueError(f"unknown settings kind {kind}")
    return w.bytes()


def read_settings(data: bytes, meter: WorkMeter | None = None) -> Settings:
    """settings.bin decoded; `meter` (verify's work budget) is charged for a graph's view checks
    before they run."""
    r = Reader(data, "settings.bin")
    read_header(r, SETTINGS_MAGIC, "settings")
    kind = r.u8("statement kind")
    if kind != KIND_GRAPH:
        raise r.fail("statement kind", f"unknown kind {kind}: this verifier checks graph statements (kind {KIND_GRAPH})")
    config = read_config(r)
    body = read_graph(r, meter)
    if body.committed:
        blowup = r.u8("model log blowup")
        if blowup != config.log_blowup:
            raise r.fail("model log blowup", f"the model tree is extended with log blowup {blowup}, the config "
                         f"proves with {config.log_blowup}")
        body.model_log_blowup, body.model_root = blowup, bytes(r.take(DIGEST_BYTES, "model root"))
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
    values = symbol_values(body.symbols, public)
    if meter is not None:  # before instantiating: the substitution, then the concrete graph's view checks
        charge_template(meter, body)
    concrete = instantiate(body, values, meter)
    return Settings(settings.kind, settings.config, concrete, settings.raw, template=body)


def build_statement(settings: Settings, public: Sequence[Sequence[int]], vectors: Sequence[Sequence[Any]] = ()) -> Statement:
    """The statement of a proof: its public values, and its vectors (StarkProof.vectors) where the
    model's weights are committed."""
    st = graph_statement(settings, public, vectors)
    check_entry_bound(st.air, st.public_terms)
    return st
