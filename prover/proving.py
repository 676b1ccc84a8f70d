"""Settings -> trace -> proof for a compiled Graph (DESIGN.md section 2):

    settings = gen_settings(cx)                  # the model's statement / verifying key
    trace = gen_trace(cx, {"x": x})              # exact fixed-point run + every AIR column
    proof = prove(cx, trace, settings)
    settings.write("settings.bin"); proof.write("proof.bin")

`Graph.gen_settings / gen_trace / prove` call these."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from ..verifier.config import PRESETS, PcsConfig, preset_label
from ..verifier.fields import P
from ..verifier.formats import ProofFile
from ..verifier.graph.spec import GraphSpec
from ..verifier.graph.statement import ComponentPlan, build_graph_air
from ..verifier.statement import KIND_GRAPH, Settings as SettingsFile, build_statement, encode_settings, read_settings
from .air.graph_trace import build_spec, main_columns, preprocessed_columns, table_columns
from .stark.pcs_prover import CommittedTree
from .stark.prove import ProveStats, ProverError, commit_preprocessed, prove_stark


@dataclass
class Settings:
    """settings.bin of one model, with the prover's cached preprocessed commitment."""

    data: bytes
    parsed: SettingsFile
    plans: list[ComponentPlan]
    air: Any
    preprocessed: dict[str, np.ndarray]
    model_tree: CommittedTree

    @property
    def spec(self) -> GraphSpec:
        return self.parsed.body

    @property
    def config(self) -> PcsConfig:
        return self.parsed.config

    @property
    def model_digest(self) -> str:
        return self.parsed.digest.hex()

    def to_bytes(self) -> bytes:
        return self.data

    def write(self, path: str | Path) -> Path:
        return _write(path, self.data)


def _write(path: str | Path, data: bytes) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@dataclass
class Trace:
    """One exact run: every node's raw values and the public values the proof will carry."""

    inputs: dict[str, np.ndarray]
    values: dict[int, np.ndarray]
    public: list[list[int]]
    outputs: dict[str, np.ndarray]  # dequantized public outputs (what the proof attests)
    generation_s: float = 0.0


@dataclass
class Proof:
    data: bytes
    outputs: dict[str, np.ndarray]
    stats: ProveStats = field(default_factory=ProveStats)

    def to_bytes(self) -> bytes:
        return self.data

    def write(self, path: str | Path) -> Path:
        return _write(path, self.data)

    def __len__(self) -> int:
        return len(self.data)


def resolve_config(preset: str | None = None, config: PcsConfig | None = None, security_bits: int | None = None) -> PcsConfig:
    if config is not None:
        return config
    if security_bits is not None:
        from ..verifier.config import config_for_bits

        return config_for_bits(security_bits)
    name = preset or "default"
    if name not in PRESETS:
        raise ProverError(f"unknown preset {name!r}; choose one of {sorted(PRESETS)}")
    return PRESETS[name]


def _ensure_compiled(graph: Any) -> None:
    if getattr(graph, "stwo_plan", None) is None:
        from .compile.stwo import StwoCompiler

        StwoCompiler().compile(graph)


def gen_settings(
    graph: Any,
    *,
    preset: str | None = None,
    config: PcsConfig | None = None,
    security_bits: int | None = None,
    title: str = "",
) -> Settings:
    """The model's statement: graph, numeric format, weights, table specs, proof config, and the
    commitment (root) of its preprocessed columns."""
    _ensure_compiled(graph)
    cfg = resolve_config(preset, config, security_bits)
    cfg.validate()
    spec = build_spec(graph, title)
    air, plans = build_graph_air(spec, cfg.log_blowup)
    pre = preprocessed_columns(graph, plans)
    model_tree = commit_preprocessed(air.preprocessed[0], pre, cfg.log_blowup)
    spec.model_root = model_tree.root
    data = encode_settings(KIND_GRAPH, cfg, spec)
    parsed = read_settings(data)
    air, plans = build_graph_air(parsed.body, cfg.log_blowup)
    return Settings(data, parsed, plans, air, pre, model_tree)


def _field(raw: np.ndarray) -> list[int]:
    return [int(v) for v in (np.asarray(raw, dtype=np.int64).reshape(-1) % P)]


def gen_trace(graph: Any, inputs: Mapping[str, Any]) -> Trace:
    """Run the graph exactly (with the bounds pass) and collect the public values."""
    _ensure_compiled(graph)
    t = time.perf_counter()
    values = {k: np.asarray(v, dtype=np.int64).reshape(-1) for k, v in graph.execute_exact(inputs).items()}
    fmt = graph.numeric_format
    public: list[list[int]] = []
    for _name, node in graph.inputs().items():
        if not node.private:
            public.append(_field(values[node.id]))
    outputs = {}
    for name, (node, view) in graph.outputs().items():
        idx = view.src_indices()
        raw = np.where(idx >= 0, values[node.id][np.maximum(idx, 0)], 0)
        public.append(_field(raw))
        outputs[name] = (raw / (1 << fmt.scale_bits)).reshape(view.shape)
    return Trace(dict(inputs), values, public, outputs, time.perf_counter() - t)


_TABLE_TREES: dict[tuple[str, int, int], CommittedTree] = {}


def table_trees(air: Any, scale_bits: int, log_blowup: int) -> list[CommittedTree]:
    """Committed table trees (shared by every model with the same scale and blowup)."""
    out = []
    for tree, cols in zip(air.preprocessed[1:], table_columns(air, scale_bits)):
        key = (tree.name, scale_bits, log_blowup)
        committed = _TABLE_TREES.get(key)
        if committed is None:
            committed = _TABLE_TREES[key] = commit_preprocessed(tree, cols, log_blowup)
        out.append(committed)
    return out


def prove(
    graph: Any,
    trace: Trace,
    settings: Settings,
    on_stage: Callable[[str], None] | None = None,
) -> Proof:
    """Prove `trace` against `settings`. The prover never checks its own trace: a wrong trace
    still gives a complete proof that the verifier rejects."""
    stats = ProveStats()
    t = time.perf_counter()
    st = build_statement(settings.parsed, trace.public)
    main = main_columns(graph, settings.plans, trace.values, st.air, settings.preprocessed)
    stats.stages["trace columns"] = time.perf_counter() - t
    if on_stage:
        on_stage("trace columns")
    cfg = settings.config
    pre = [settings.model_tree, *table_trees(st.air, settings.spec.scale_bits, cfg.log_blowup)]
    stark = prove_stark(st.air, cfg, st.statement_bytes, main, pre, stats=stats, on_stage=on_stage)
    data = ProofFile(settings.parsed.digest, trace.public, stark).to_bytes()
    return Proof(data, trace.outputs, stats)


def describe_config(cfg: PcsConfig) -> str:
    return f"{cfg.security_bits} bits{preset_label(cfg)}"
