"""Segmented proving (docs/segments.md): one statement proven as segments of the graph, each a
proof of its own trace, so no process holds the whole model's trace.

Two phases, both a list of independent tasks (prover/scheduler.py runs them in-process or on Ray):
1. for each segment, its boundary trees (the tensors it reads from earlier segments, the ones it
   writes for later segments) and their roots; then the bundle seed over every root
   (verifier/segments.bundle_seed);
2. for each segment, its proof against its derived statement (verifier/segments.segment_settings)
   with that seed. Proving is deterministic, so a retried task gives the same bytes.
The cut itself is the verifier's (verifier/graph/segments.cut_graph): the prover only builds the
matching graph of each segment (Graph.subgraph) for its views and exact values."""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

import numpy as np

from ..verifier.config import MAX_QUERIES
from ..verifier.graph.segments import MAX_SEGMENTS, Segment, cut_graph
from ..verifier.graph.spec import GraphSpec
from ..verifier.graph.planner import plan_graph
from ..verifier.graph.statement import build_graph_air
from ..verifier.security import soundness_terms, union_bits
from ..verifier.segments import bundle_seed, encode_bundle, segment_settings
from .air.graph_trace import build_spec, input_columns, output_columns
from .compile.stwo import COMPONENT_OF
from .cuts import choose_cuts
from .graph.shape import ShapeTracker
from .proving import (
    ProofBytes, Settings, _ensure_compiled, gen_trace, prove, prover_settings, statement_trees, trace_of, union_terms,
)
from .scheduler import Scheduler, in_process
from .stark.prove import ProverError, lde_cells


@dataclass
class SegmentedProof(ProofBytes):
    """A segmented proof's bundle (its proof.bin) and what the prover measured."""

    data: bytes
    outputs: dict[str, np.ndarray]
    cuts: list[int]
    segments: list[dict[str, Any]] = field(default_factory=list)  # per segment: nodes, seconds, proof bytes
    critical_path_s: float = 0.0  # the slowest boundary-roots task plus the slowest segment proof
    security_bits: int = 0  # the union bound over every segment's soundness terms
    config: Any = None  # the segments' config: the model's, with more FRI queries (verifier/segments.py)


# One proof's peak RSS against the committed cells of its extended trace (every tree): a line
# through this machine's whole proofs of the CNN example (29.1M cells, 600 MB) and the transformer
# (194.8M cells, 1.55 GB; bench/results/segments_issue30.json). An estimate to cut by, not a bound.
BASE_BYTES = 450 << 20
BYTES_PER_LDE_CELL = 6


def estimated_peak(spec: GraphSpec, log_blowup: int) -> int:
    """About the peak RSS of proving `spec` alone, in bytes."""
    air, _ = build_graph_air(spec, log_blowup)
    return BASE_BYTES + BYTES_PER_LDE_CELL * lde_cells(air, log_blowup)


def cuts_for_memory(settings: Settings, max_bytes: int) -> list[int]:
    """The cut points of the fewest segments (1, 2, 4, ... up to MAX_SEGMENTS) whose estimated
    peaks (estimated_peak) all fit in `max_bytes`; ProverError naming the smallest reached."""
    spec, blowup, n, best = settings.spec, settings.config.log_blowup, 1, None
    while n <= MAX_SEGMENTS:
        try:
            cuts = choose_cuts(spec, n)
        except ProverError:
            if best is None:  # (no cut at all: a node past the per-trace bounds, say)
                raise
            break
        peak = max(estimated_peak(seg.spec, blowup) for seg in cut_graph(spec, cuts))
        if peak <= max_bytes:
            return cuts
        best = (n, peak) if best is None or peak < best[1] else best
        n *= 2
    n, peak = best or (1, 0)
    raise ProverError(f"no cut fits {max_bytes / 2**30:.2f} GiB a segment: the least is about {peak / 2**30:.2f} GiB "
                      f"in {n} segments (a segment holds whole nodes)")


@dataclass
class _Job:
    """What a segment's tasks need (picklable: sent to a Ray worker as it is)."""

    graph: Any  # the segment's graph (Graph.subgraph)
    settings: Any  # its derived statement (verifier Settings)
    values: dict[int, np.ndarray]  # its nodes' exact values, by its own node ids


def segment_graph(graph: Any, seg: Segment) -> Any:
    """The prover's graph of segment `seg`, the same graph as seg.spec (checked)."""
    spec, whole_outputs, nodes = seg.spec, graph.outputs(), graph.nodes()
    names = {seg.nodes[inp.node]: inp.name for inp in spec.inputs}
    # the graph's outputs through their own views; a boundary output reads its node whole
    outs = [(out.name, seg.nodes[out.node], whole_outputs[out.name][1] if not out.boundary else
             ShapeTracker(nodes[seg.nodes[out.node]].shape)) for out in spec.outputs]
    g = graph.subgraph(seg.nodes, seg.reads, outs, names)
    g.stwo_plan = {n.id: COMPONENT_OF[n.op] for n in g.nodes() if n.op in COMPONENT_OF}
    mine = build_spec(g)
    for a, b, i in zip(mine.nodes, spec.nodes, range(len(spec.nodes))):
        if (a.op, a.shape, a.srcs, a.axis, a.scale) != (b.op, b.shape, b.srcs, b.axis, b.scale):
            raise ProverError(f"segment {seg.index}: node {i} of its graph is not the cut's ({a.op} against {b.op})")
    return g


def _roots(job: _Job) -> tuple[list[bytes], float]:
    """Phase 1 of a segment: the roots of its boundary trees, and the seconds they took."""
    t = time.perf_counter()
    blowup = job.settings.config.log_blowup
    air, plans = build_graph_air(job.settings.body, blowup)
    trees = statement_trees(air, input_columns(plans, job.values), output_columns(plans, job.settings.body, job.values),
                            blowup)
    return [tree.root for tree in trees], time.perf_counter() - t


def _prove(job: _Job, seed: bytes) -> tuple[bytes, float, int, dict[str, float]]:
    """Phase 2 of a segment: its proof.bin, the seconds it took, its process's peak RSS (bytes) and
    its soundness terms."""
    t = time.perf_counter()
    settings = prover_settings(job.graph, job.settings.raw, job.settings)
    boundary = {out.name for out in job.settings.body.outputs if out.boundary}
    trace = trace_of(job.graph, {}, dict(job.values), t, boundary)
    proof = prove(job.graph, trace, settings, seed=seed)
    terms = soundness_terms(settings.config, settings.air, plan_graph(settings.spec).public_terms())
    return proof.data, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, terms


def prove_segmented(
    graph: Any,
    inputs: Mapping[str, Any],
    settings: Settings,
    *,
    segments: int | None = None,
    cuts: list[int] | None = None,
    max_memory: int | None = None,
    scheduler: Scheduler | None = None,
    on_segment: Callable[[int, int, str], None] | None = None,
    trace: Any = None,
) -> SegmentedProof:
    """A segmented proof of `graph` on `inputs` under the whole model's `settings`, cut at `cuts`
    (or into `segments` parts of about equal rows: choose_cuts; or into the fewest whose estimated
    peak fits `max_memory` bytes: cuts_for_memory). `scheduler` runs the segments' tasks (default: in this process); `on_segment(done, of, stage)` reports progress; `trace`: the
    whole graph's exact run on `inputs`, where the caller has it."""
    _ensure_compiled(graph)
    if settings.spec.bound:
        raise ProverError("a segmented proof is of a concrete graph, not of a symbolic model's instance")
    if cuts is None:
        cuts = cuts_for_memory(settings, max_memory) if max_memory else choose_cuts(settings.spec, segments or 2)
    if trace is None:  # the whole graph's exact run: every boundary tensor's values
        trace = gen_trace(graph, inputs)
    jobs = segment_jobs(graph, trace.values, settings, list(cuts))
    return prove_jobs(jobs, settings, list(cuts), trace.outputs, scheduler or in_process, on_segment)


def segment_queries(settings: Settings, segs: list[Segment]) -> int:
    """The fewest FRI queries (the config's or more) for which the union bound over every
    segment's terms reaches the whole proof's bits (or the most the queries can give)."""
    cfg, target = settings.config, settings.security_bits
    parts = [(build_graph_air(seg.spec, cfg.log_blowup)[0], plan_graph(seg.spec).public_terms()) for seg in segs]

    def bits(q: int) -> float:
        return union_bits(union_terms(replace(cfg, n_queries=q), parts))

    q = cfg.n_queries
    while bits(q) < target and q < MAX_QUERIES and bits(q + 1) > bits(q):
        q += 1
    return q


def segment_jobs(graph: Any, values: Mapping[int, np.ndarray], settings: Settings, cuts: list[int],
                 queries: int | None = None) -> list[_Job]:
    """Each segment's graph, derived statement and exact values (from the whole run's `values`),
    proven with `queries` FRI queries (default: segment_queries)."""
    segs = cut_graph(settings.spec, cuts)
    q = segment_queries(settings, segs) if queries is None else queries
    return [_Job(segment_graph(graph, seg), segment_settings(settings.parsed, cuts, seg, q),
                 {i: values[w] for i, w in enumerate(seg.nodes)}) for seg in segs]


def prove_jobs(jobs: list[_Job], settings: Settings, cuts: list[int], outputs: dict[str, np.ndarray],
               run: Scheduler, on_segment: Callable[[int, int, str], None] | None = None) -> SegmentedProof:
    """Both phases of the segments' tasks, then the bundle."""
    whole = settings.parsed
    first = run.map(_roots, [(job,) for job in jobs], "boundary roots", on_segment)
    seed = bundle_seed(whole.digest, cuts, [roots for roots, _ in first])
    done = run.map(_prove, [(job, seed) for job in jobs], "segment proofs", on_segment)
    data = encode_bundle(whole.digest, seed, jobs[0].settings.config.n_queries, cuts, [p for p, _, _, _ in done])
    info = [{"nodes": len(job.settings.body.nodes), "seconds": round(sec, 3), "proof_bytes": len(p),
             "process_peak_rss_mb": round(rss / 2**20, 1)} for job, (p, sec, rss, _) in zip(jobs, done)]
    # what N >= n machines would take: the slowest task of each phase (the seed joins them)
    critical = max(sec for _, sec in first) + max(sec for _, sec, _, _ in done)
    # the verifier's figure: the union bound over every segment's terms
    bits = int(union_bits({f"{k}.{name}": b for k, (_, _, _, terms) in enumerate(done) for name, b in terms.items()}))
    return SegmentedProof(data, outputs, cuts, info, round(critical, 3), bits, jobs[0].settings.config)


def _prove_one(graph: Any, settings: Settings, inputs: Mapping[str, Any]) -> Any:
    return prove(graph, gen_trace(graph, inputs), settings)


def prove_many(graph: Any, inputs: list[Mapping[str, Any]], settings: Settings, *, scheduler: Scheduler | None = None,
               on_proof: Callable[[int, int, str], None] | None = None) -> list[Any]:
    """A whole proof (prover.proving.Proof) of `graph` on each of `inputs` under `settings`, each a
    task of `scheduler` (default: in this process): a list of inputs, or a batch's shards."""
    _ensure_compiled(graph)
    return (scheduler or in_process).map(_prove_one, [(graph, settings, x) for x in inputs], "proofs", on_proof)


def _prove_shard(model: Any, settings: Any, inputs: Mapping[str, Any]) -> tuple[Any, dict[str, np.ndarray]]:
    return model.prove(settings, inputs)


def prove_shards(model: Any, settings: Any, inputs: Mapping[str, Any], shard: int, *,
                 scheduler: Scheduler | None = None, on_proof: Callable[[int, int, str], None] | None = None
                 ) -> list[tuple[Any, dict[str, np.ndarray]]]:
    """A symbolic model's batch (axis 0 of every input) proven in shards of `shard` rows, each a
    task of `scheduler` against the one symbolic settings.bin: (proof, outputs) of each shard."""
    sizes = {np.asarray(v).shape[0] if np.ndim(v) else 0 for v in inputs.values()}
    if len(sizes) != 1 or shard < 1:
        raise ProverError(f"shards of {shard} rows of inputs with batch sizes {sorted(sizes)}: give inputs of one "
                          "batch size and a shard of at least 1 row")
    (n,) = sizes
    parts = [{k: np.asarray(v)[i : i + shard] for k, v in inputs.items()} for i in range(0, n, shard)]
    return (scheduler or in_process).map(_prove_shard, [(model, settings, p) for p in parts], "batch shards", on_proof)
