"""Settings -> trace -> proof for a compiled Graph (docs/architecture.md "From an ONNX file to a verdict"):

    settings = gen_settings(cx)                  # the model's statement / verifying key
    trace = gen_trace(cx, {"x": x})              # exact fixed-point run + every AIR column
    proof = prove(cx, trace, settings)
    settings.write("settings.bin"); proof.write("proof.bin")   # each atomic
    write_files("out/", settings, proof)         # the pair: settings first, old pair kept on failure

`Graph.gen_settings / gen_trace / prove` call these."""

from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Callable, Collection, Mapping

import numpy as np

from .stark.backend import steady_heap, trim_heap

from ..verifier.air.framework import check_entry_bound
from ..verifier.config import DEFAULT_MIN_SECURITY_BITS, MAX_QUERIES, PRESETS, SIZED_PRESETS, PcsConfig
from ..verifier.errors import EntryBoundError
from ..verifier.fields import P
from ..verifier.formats import ProofFile, Writer
from ..verifier.merkle import DIGEST_BYTES
from ..verifier.graph.components import BUNDLE_RHO, FingerprintMixin, MatWComponent
from ..verifier.graph.plan import ComponentPlan, air_cells
from ..verifier.graph.matmul import weight_rows, weight_vector
from ..verifier.graph.planner import GraphPlan, plan_graph
from ..verifier.graph.settings import write_graph
from ..verifier.graph.spec import GraphSpec
from ..verifier.graph.statement import build_graph_air
from ..verifier.security import security_bits as union_security_bits
from ..verifier.security import soundness_terms, union_bits, weakest
from ..verifier.statement import KIND_GRAPH, Settings as SettingsFile, build_statement, encode_settings, read_settings
from .air.graph_trace import build_spec, input_columns, main_columns, model_columns, output_columns, table_columns, topology_columns
from .compile.stwo import StwoCompiler
from .cuts import provisional_segments
from .presets import config_for_bits, preset_config
from .graph.graph import Graph as GraphFrontend
from .stark.pcs_prover import CommittedTree
from .stark.prove import ProveStats, ProverError, commit_preprocessed, prepare_sparse_columns, prove_stark


@dataclass
class Settings:
    """settings.bin of one model, with the prover's view of its AIR."""

    data: bytes
    parsed: SettingsFile
    plans: list[ComponentPlan]
    air: Any
    topology: dict[str, np.ndarray]  # row-order topology columns (input-independent)
    topology_tree: CommittedTree | None  # their extension, made once; every proof commits it (None: segments only)
    model: dict[str, np.ndarray] = field(default_factory=dict)  # committed weights: the model tree's columns
    model_tree: CommittedTree | None = None  # their extension and Merkle tree, whose root settings.bin holds
    weights: dict[int, Any] = field(default_factory=dict)  # committed constant -> its values (the prover's own)
    target_bits: int | None = None  # segments only (no whole AIR): the bits its segments must reach together

    @property
    def spec(self) -> GraphSpec:
        return self.parsed.body

    @property
    def plan(self) -> GraphPlan:
        """The planner's decisions for this model (verifier/graph/planner.py)."""
        return plan_graph(self.spec)

    @property
    def config(self) -> PcsConfig:
        return self.parsed.config

    @property
    def security_bits(self) -> int:
        """What the verifier reports for this model's proofs: the union bound of every soundness
        term of its AIR and config (verifier/security.py); settings for segments only: the bits
        their segments must reach together (0: no target, the config's queries as they are)."""
        if self.air is None:
            return self.target_bits or 0
        return union_security_bits(soundness_terms(self.config, self.air, plan_graph(self.spec).public_terms()))

    def describe_security(self) -> str:
        return f"{self.security_bits} bits by the union bound (FRI term {self.config.describe()})"

    @property
    def model_digest(self) -> str:
        """The model's identity (graph, views, weights, numeric format, output maps; no labels)."""
        return self.parsed.model_digest.hex()

    @property
    def settings_digest(self) -> str:
        """BLAKE2s of settings.bin (labels included): what proofs are bound to."""
        return self.parsed.digest.hex()

    def to_bytes(self) -> bytes:
        return self.data

    def write(self, path: str | Path) -> Path:
        return _write(path, self.data)


def _write(path: str | Path, data: bytes) -> Path:
    """Write `data` to `path` atomically: a temporary file in the same folder, fsync, rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _write_temp(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    _fsync_dir(path.parent)
    return path


def _write_temp(path: Path, data: bytes) -> Path:
    """`data` in a new file beside `path` (hidden name, mode per umask), flushed to disk."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        _unlink_quietly(tmp)
        raise
    return tmp


def _unlink_quietly(path: Path | None) -> None:
    if path is not None:
        try:
            os.unlink(path)
        except OSError:
            pass


def _fsync_dir(folder: Path) -> None:
    """Make renames in `folder` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_files(out_dir: str | Path, settings: Settings, proof: Proof) -> tuple[Path, Path]:
    """Write `out_dir/settings.bin` and `out_dir/proof.bin` as a pair; returns (settings, proof) paths.

    Both files are first written in full to temporary names in `out_dir` and fsynced; then
    settings.bin is renamed over the old one, then proof.bin. If anything fails, the temporary files
    are removed and the previous pair is left as it was (an old settings.bin is restored from a hard
    link, or a new one removed, when the second rename fails)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    settings_path, proof_path = out / "settings.bin", out / "proof.bin"
    tmp_settings: Path | None = _write_temp(settings_path, settings.data)
    tmp_proof: Path | None = None
    backup: Path | None = None
    try:
        tmp_proof = _write_temp(proof_path, proof.data)
        had_settings = os.path.lexists(settings_path)
        if had_settings:
            backup = settings_path.with_name(f".{settings_path.name}.{secrets.token_hex(6)}.old")
            try:
                os.link(settings_path, backup, follow_symlinks=False)
            except OSError:  # no hard links here: a failed second rename cannot be undone
                backup = None
        os.replace(tmp_settings, settings_path)
        tmp_settings = None
        try:
            os.replace(tmp_proof, proof_path)
            tmp_proof = None
        except BaseException:
            if backup is not None:
                os.replace(backup, settings_path)
                backup = None
            elif not had_settings:
                _unlink_quietly(settings_path)
            raise
    finally:
        _unlink_quietly(tmp_settings)
        _unlink_quietly(tmp_proof)
        _unlink_quietly(backup)
    _fsync_dir(out)
    return settings_path, proof_path


@dataclass
class Trace:
    """One exact run: every node's raw values and the public values the proof will carry."""

    inputs: dict[str, np.ndarray]
    values: dict[int, np.ndarray]
    public: list[list[int]]
    outputs: dict[str, np.ndarray]  # dequantized public outputs (what the proof attests)
    generation_s: float = 0.0


class ProofBytes:
    """A proof.bin held as `data` (a whole proof, or a segmented one's bundle)."""

    data: bytes

    def to_bytes(self) -> bytes:
        return self.data

    def write(self, path: str | Path) -> Path:
        return _write(path, self.data)

    def __len__(self) -> int:
        return len(self.data)


@dataclass
class Proof(ProofBytes):
    data: bytes
    outputs: dict[str, np.ndarray]
    stats: ProveStats = field(default_factory=ProveStats)


def resolve_config(preset: str | None = None, config: PcsConfig | None = None, security_bits: int | None = None) -> PcsConfig:
    if config is not None:
        return config
    if security_bits is not None:
        return config_for_bits(security_bits)
    name = preset or "default"
    if name not in PRESETS:
        raise ProverError(f"unknown preset {name!r}; choose one of {sorted(PRESETS)}")
    return PRESETS[name]


def choose_config(
    spec: GraphSpec, preset: str | None = None, config: PcsConfig | None = None, security_bits: int | None = None,
    parts: list[GraphSpec] | None = None,
) -> PcsConfig:
    """The proof config of `spec`: `config` as given; else a preset (its blowup sized by the trace)
    or `security_bits`, with queries added until the union bound of the soundness terms reaches
    the target (security_target). `parts`: the traces proven under it (default: spec's alone; a
    segmented proof's segments), sized and bounded together."""
    parts = parts or [spec]
    cfg = resolve_config(preset, config, security_bits)
    cfg.validate()
    airs: dict[int, list[Any]] = {}  # log blowup -> the parts' AIRs (a large model's takes about 0.3 s to build)
    if config is None and security_bits is None:  # sized by the trace; for time within a proof-size budget
        from .stark.proof_size import estimate_proof_bytes

        sizing = airs[cfg.log_blowup] = [build_graph_air(p, cfg.log_blowup)[0] for p in parts]
        cfg = preset_config(preset or "default", sum(air_cells(a) for a in sizing),
                            lambda c: sum(estimate_proof_bytes(a, c) for a in sizing))
    target = security_target(preset, config, security_bits)
    return cfg if target is None else reach_union_bound(cfg, parts, target, airs.get(cfg.log_blowup))


def security_target(preset: str | None, config: PcsConfig | None, security_bits: int | None) -> int | None:
    """The bits a config must reach by the union of the soundness terms: an explicit security level,
    or the verifier's default floor for a sized preset; None for a given config or the fast preset."""
    if config is not None:
        return None
    if security_bits is not None:
        return security_bits
    return DEFAULT_MIN_SECURITY_BITS if (preset or "default") in SIZED_PRESETS else None


def union_terms(cfg: PcsConfig, parts: list[tuple[Any, Any]]) -> dict[str, float]:
    """Every soundness term of the (AIR, public terms) parts at `cfg`, named "<part>.<term>" where
    there are several (a segmented proof's union bound)."""
    if len(parts) == 1:
        return soundness_terms(cfg, *parts[0])
    return {f"{k}.{name}": b for k, part in enumerate(parts) for name, b in soundness_terms(cfg, *part).items()}


def reach_union_bound(cfg: PcsConfig, spec: GraphSpec | list[GraphSpec], target: int, air: Any = None) -> PcsConfig:
    """`cfg` with queries added until the union bound of the soundness terms of `spec`'s AIR
    (verifier/security.py; a list: every part's together) reaches `target` bits. The algebraic
    terms grow with the trace, not with the queries: a trace whose algebraic terms alone fall
    short is refused. `air`: spec's AIR (a list: the parts') at cfg's blowup, if already built."""
    specs = spec if isinstance(spec, list) else [spec]
    airs = air if isinstance(air, list) else [air] if air is not None else [build_graph_air(s, cfg.log_blowup)[0] for s in specs]
    parts = [(a, plan_graph(s).public_terms()) for a, s in zip(airs, specs)]
    while True:
        terms = union_terms(cfg, parts)
        if union_security_bits(terms) >= target:
            return cfg
        if cfg.n_queries >= MAX_QUERIES or cfg.security_bits >= target + 16:
            algebraic = {k: v for k, v in terms.items() if "FRI queries" not in k}
            whose, name = "this model's trace caps", weakest(algebraic)
            if len(parts) > 1:  # (terms named "<segment>.<term>")
                whose = f"this model's {len(parts)} segments cap (their terms grow with the whole trace, however it is cut)"
                name = "segment {}'s {}".format(*name.split(".", 1))
            raise ProverError(
                f"{whose} its security at {union_bits(algebraic):.1f} bits by the union of the algebraic "
                f"soundness terms (weakest: {name}, {min(algebraic.values())} bits), below the {target}-bit "
                f"target: a smaller model or a lower --security"
            )
        cfg = replace(cfg, n_queries=cfg.n_queries + 1)


# Who sees each kind of tensor (docs/committed-models.md; the README compares them with EZKL's)
VISIBILITIES = {"weights": ("public", "committed"), "inputs": ("public", "private", "committed"),
                "outputs": ("public", "committed")}


def _ensure_compiled(graph: Any) -> None:
    if getattr(graph, "stwo_plan", None) is None:
        StwoCompiler().compile(graph)


def gen_settings(
    graph: Any,
    *,
    preset: str | None = None,
    config: PcsConfig | None = None,
    security_bits: int | None = None,
    title: str = "",
    description: str = "",
    weights: str = "public",
    inputs: str = "public",
    outputs: str = "public",
    whole: bool = True,
) -> Settings:
    """The model's statement: graph, numeric format, weights, table specs and proof config, plus the
    publisher's labels (`title`, `description`: bound by every proof, not part of the model digest).
    `weights`: "public" (settings.bin holds every weight) or "committed" (it holds the root of the
    model tree instead: docs/committed-models.md); `inputs`: "public" (proof.bin holds the values),
    "private" (nothing of them) or "committed" (their digest). `whole=False`: the same kind of
    settings.bin, its config sized for segments (the fewest whose traces fit the verifier's
    per-trace bounds: a model too large for one trace) and the whole AIR never built: for
    segmented proofs only (prover/segments.py)."""
    for kind, chosen in (("weights", weights), ("inputs", inputs), ("outputs", outputs)):
        if chosen not in VISIBILITIES[kind]:
            raise ValueError(f"{kind}={chosen!r}: expected one of {', '.join(VISIBILITIES[kind])}")
    _ensure_compiled(graph)
    spec = build_spec(graph, title, description, weights, inputs)
    for out in spec.outputs:
        out.committed = outputs == "committed"
    # The config is chosen on the verifier's own reading of the graph body, and that reading's AIR
    # (built once, cached on the body) is the one proven: settings.bin ends with the same body bytes
    # whatever its config.
    draft_config = resolve_config(preset, config, security_bits)
    spec.model_log_blowup = draft_config.log_blowup  # (a draft: its model section is not read)
    draft = encode_settings(KIND_GRAPH, draft_config, spec)
    body = read_settings(draft).body
    parts = None
    if not whole:
        parts = [seg.spec for seg in provisional_segments(body)]
    cfg = choose_config(body, preset, config, security_bits, parts)
    model, model_tree = {}, None
    if spec.committed:  # the model tree, extended with the config's blowup: its root joins settings.bin
        air, plans = build_graph_air(body, cfg.log_blowup)
        model = model_columns(plans, spec, plan_graph(body))
        (tree_spec,) = [t for t in air.preprocessed if t.statement and not t.proof_root]
        model_tree = commit_preprocessed(tree_spec, model, cfg.log_blowup)
        for s in (spec, body):
            s.model_root, s.model_log_blowup = model_tree.root, cfg.log_blowup
        tree_spec.root = model_tree.root
    data = encode_settings(KIND_GRAPH, cfg, spec)
    parsed = read_settings(data)
    n, tail = len(_graph_bytes(spec)), (1 + DIGEST_BYTES) * spec.committed  # (the model section follows the body)
    assert data[len(data) - n - tail : len(data) - tail] == draft[len(draft) - n - tail : len(draft) - tail], \
        "settings.bin: the graph body's bytes depend on the config"
    parsed.body = body
    values = {i: node.values for i, node in enumerate(spec.nodes) if node.committed and node.op == "Constant"}
    if not whole:
        target = security_target(preset, config, security_bits)
        return Settings(data, parsed, [], None, {}, None, model, model_tree, values, target)
    return prover_settings(graph, data, parsed, model, model_tree, values)


def prover_settings(graph: Any, data: bytes, parsed: SettingsFile, model: dict[str, np.ndarray] | None = None,
                    model_tree: CommittedTree | None = None, weights: dict[int, Any] | None = None) -> Settings:
    """The prover's view of a statement whose body `graph` compiles to: its AIR (checked against
    the entry bound), topology columns and their committed extension."""
    cfg = parsed.config
    air, plans = build_graph_air(parsed.body, cfg.log_blowup)
    try:
        check_entry_bound(air, plan_graph(parsed.body).public_terms())
    except EntryBoundError as e:
        raise ProverError(f"the model cannot be proven soundly: {e.detail}") from None
    topology = topology_columns(graph, plans, parsed.body)
    tree = commit_preprocessed(air.preprocessed[0], topology, cfg.log_blowup)
    prepare_sparse_columns(air, cfg.log_blowup)
    return Settings(data, parsed, plans, air, topology, tree, model or {}, model_tree, weights or {})


def _graph_bytes(spec: GraphSpec) -> bytes:
    w = Writer()
    write_graph(w, spec)
    return w.bytes()


def _field(raw: np.ndarray) -> list[int]:
    return [int(v) for v in (np.asarray(raw, dtype=np.int64).reshape(-1) % P)]


def gen_trace(graph: Any, inputs: Mapping[str, Any]) -> Trace:
    """Run the graph exactly (with the bounds pass) and collect the public values."""
    _ensure_compiled(graph)
    t = time.perf_counter()
    values = {k: np.asarray(v, dtype=np.int64).reshape(-1) for k, v in graph.execute_exact(inputs).items()}
    return trace_of(graph, inputs, values, t)


def trace_of(graph: Any, inputs: Mapping[str, Any], values: dict[int, np.ndarray], t: float,
             committed: Collection[str] = ()) -> Trace:
    """A trace of `graph` from every node's exact values (raw, flat), its run started at `t`; the
    outputs named in `committed` (a segment's boundary tensors) get no public or real values (the
    statement drops them: statement_public)."""
    from .graph.execute import node_scale
    fmt = graph.numeric_format
    public: list[list[int]] = []
    for _name, node in graph.inputs().items():
        if not node.private:
            public.append(_field(values[node.id]))
    outputs = {}
    for name, (node, view) in graph.outputs().items():
        if name in committed:
            public.append([])
            continue
        idx = view.src_indices()
        raw = np.where(idx >= 0, values[node.id][np.maximum(idx, 0)], 0)
        public.append(_field(raw))
        outputs[name] = (raw / (1 << node_scale(node, fmt))).reshape(view.shape)
    return Trace(dict(inputs), values, public, outputs, time.perf_counter() - t)


_TABLE_TREES: dict[tuple[str, int, int], CommittedTree] = {}


def table_trees(air: Any, scale_bits: int, log_blowup: int) -> list[CommittedTree]:
    """Extended function tables (shared by every model with the same scale and blowup), committed
    inside each proof's main tree."""
    out = []
    tables = [tree for tree in air.preprocessed if tree.known_values is not None]
    for tree, cols in zip(tables, table_columns(air)):
        key = (tree.name, scale_bits, log_blowup)
        committed = _TABLE_TREES.get(key)
        if committed is None:
            committed = _TABLE_TREES[key] = commit_preprocessed(tree, cols, log_blowup)
        out.append(committed)
    return out


def preprocessed_values(settings: Settings, air: Any) -> dict[str, np.ndarray]:
    """Every preprocessed column in row order (topology, tables, the model tree's), keyed as
    components read them."""
    out = dict(settings.topology) | settings.model
    for cols in table_columns(air):
        out.update(cols)
    return out


def prove(
    graph: Any,
    trace: Trace,
    settings: Settings,
    on_stage: Callable[[str], None] | None = None,
    seed: bytes | None = None,
) -> Proof:
    """Prove `trace` against `settings` (`seed`: a segment's bundle seed, prover/segments.py). The
    prover never checks its own trace: a wrong trace still gives a complete proof that the
    verifier rejects."""
    stats = ProveStats()
    if settings.topology_tree is None:
        raise ProverError("these settings were made for segmented proofs only (gen_settings(whole=False)): "
                          "prove_segmented, or gen_settings again for a whole proof")
    if hasattr(graph, "forget_runs"):
        graph.forget_runs()  # (the executors' kept runs: trace.values holds what the proof reads)
    steady_heap()
    t = time.perf_counter()
    # a graph instantiated from symbolic dimensions: the symbols' values lead the public values
    bound = settings.spec.bound
    public = ([list(bound.values())] if bound else []) + statement_public(graph, settings.spec, trace.public)
    st = build_statement(settings.parsed, public)
    inputs = input_columns(settings.plans, trace.values)  # committed inputs: this proof's input tree
    outputs = output_columns(settings.plans, settings.spec, trace.values)  # and its output tree
    main = main_columns(graph, settings.plans, trace.values, st.air,
                        preprocessed_values(settings, st.air) | inputs | outputs, settings.spec)
    release_view_indices(graph)  # the columns are built: the views' index maps (100+ MB) are not read again
    stats.stages["trace columns"] = time.perf_counter() - t
    if on_stage:
        on_stage("trace columns")
    cfg = settings.config
    pre = [settings.topology_tree, *table_trees(st.air, settings.spec.scale_bits, cfg.log_blowup)]
    if settings.model_tree is not None:  # (the AIR's trees: topology, tables, the model tree, the input tree)
        pre.append(settings.model_tree)
    pre += statement_trees(st.air, inputs, outputs, cfg.log_blowup)
    stark = prove_stark(st.air, cfg, st.statement_bytes, main, pre, stats=stats, on_stage=on_stage, consume_main=True,
                        vectors=partial(proof_vectors, settings, st.air, trace.values), seed=seed)
    data = ProofFile(settings.parsed.digest, public, stark).to_bytes()
    return Proof(data, trace.outputs, stats)


def statement_public(graph: Any, spec: GraphSpec, public: list[list[int]]) -> list[list[int]]:
    """A trace's public values as the settings see them: without the inputs that the settings make
    private or committed and the outputs they commit (gen_settings(inputs=..., outputs=...)), which
    the graph itself does not mark."""
    shown = [node for node in graph.inputs().values() if not node.private]
    keep = [not spec.nodes[node.id].private for node in shown] + [not out.committed for out in spec.outputs]
    return [v for v, k in zip(public, keep) if k]


def statement_trees(air: Any, inputs: dict[str, np.ndarray], outputs: dict[str, np.ndarray], log_blowup: int
                    ) -> list[CommittedTree]:
    """The proof's own statement trees, committed: the input tree, then the output tree (where the
    AIR has them); their roots lead proof.bin's commitments."""
    out = []
    for name, cols in (("input", inputs), ("output", outputs)):
        if cols:
            (tree,) = [t for t in air.preprocessed if t.name == name]
            out.append(commit_preprocessed(tree, cols, log_blowup))
    return out


def proof_vectors(settings: Settings, air: Any, values: Mapping[int, Any], challenges: dict[str, Any]) -> list[list[Any]]:
    """The proof's vectors in AIR order: v = W rho of each MatW (product_vectors), a segment's
    boundary fingerprints (segment_fingerprints)."""
    products = iter(product_vectors(settings, air, challenges))
    return [segment_fingerprints(settings, air.components[ci], values, challenges)
            if isinstance(air.components[ci], FingerprintMixin) else next(products) for ci in air.vector_components]


def segment_fingerprints(settings: Settings, comp: Any, values: Mapping[int, Any], challenges: dict[str, Any]) -> list[Any]:
    """sum_j rho^j t_j of each boundary tensor t of `comp` (components.FingerprintMixin)."""
    (plan,) = [p for p in settings.plans if p.component is comp]
    return [weight_vector([np.asarray(values[s.node], dtype=np.int64).reshape(-1).tolist()], s.rows,
                          challenges[BUNDLE_RHO])[0] for s in plan.segments]


def product_vectors(settings: Settings, air: Any, challenges: dict[str, Any], weights: Mapping[int, Any] | None = None
                    ) -> list[list[Any]]:
    """v = W rho of every product of committed weights (the proof's vectors, in AIR order), bound
    into the plan, whose MatIn components read them as the verifier does. `weights` (committed
    constant -> values) replaces the settings' own (forgery tests)."""
    plan, out = plan_graph(settings.spec), []
    weights = settings.weights if weights is None else weights
    for ci in air.vector_components:
        comp, vec = air.components[ci], []
        if not isinstance(comp, MatWComponent):
            continue
        for node in comp.nodes:  # (a MatW: its products' v in turn)
            mp = plan.matmuls[node]
            w_node = settings.spec.nodes[node].srcs[1 - mp.a_input][0]
            v = weight_vector(weight_rows(settings.spec, mp, list(weights[w_node])), mp.n, challenges[comp.rho])
            plan.product_vectors[node] = v
            vec += v
        out.append(vec)
    return out


def release_view_indices(graph: Any) -> None:
    """Drop every view's cached index map (ShapeTracker.src_indices); the next reader rebuilds it.
    On the transformer they hold 125 MB through the whole proof otherwise."""
    views = [view for node in graph.nodes() for _, view in node.srcs] + [view for _, view in graph.outputs().values()]
    for view in views:
        view._indices = None
    trim_heap()


class Graph(GraphFrontend):
    """The graph users build and prove (luminair.prover.Graph): the frontend (prover/graph/graph.py:
    inputs, constants, ops, run, compile, grad) with the proving flow above as methods."""

    def gen_settings(self, **kwargs: Any) -> Settings:
        """The model's statement / verifying key (settings.bin): gen_settings above."""
        return gen_settings(self, **kwargs)

    def gen_trace(self, inputs: Mapping[str, Any]) -> Trace:
        """An exact run of the graph on `inputs`, ready to prove."""
        return gen_trace(self, inputs)

    def prove(self, trace: Trace, settings: Settings, **kwargs: Any) -> Proof:
        """A proof (proof.bin) that `trace` is a run of this model as stated by `settings`."""
        return prove(self, trace, settings, **kwargs)
