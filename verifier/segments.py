"""A segmented proof (docs/segments.md): one statement proven in segments, checked as one.

The bundle file (proof.bin of a segmented proof):
  "LMNRSEGS" | u16 version | settings digest (32 bytes, the whole model's settings.bin) |
  seed (32 bytes) | u16 queries | u16 n | u32 cut points x (n - 1) | n x (u32 length | a segment's proof.bin)
Segment k's statement is derived here from the whole settings.bin and the cut points
(graph/segments.py cut_graph), never read: its "settings digest" is BLAKE2s of SEGMENT_TAG, the
whole settings digest, the cut points, the segments' query count and k, so a proof of one segment
checks only as that segment of that model cut there. Segments prove with the whole config but
`queries` FRI queries (at least the config's): n segments need about log2(n) more bits each for
their union bound to reach the whole proof's. Each segment proof's own roots (its boundary inputs' and outputs' trees)
lead its commitments; the bundle seed binds them all, and every segment mixes the seed before its
main root and draws the fingerprint challenge rho from it alone (verify.shared_challenge). The
verifier then checks, in order:
* "segment statement": each proof is bound to its segment's derived statement (a proof of another
  model, segmentation or position, or a missing, duplicated or reordered segment, fails here);
* "work budget": every segment's declared work together, against one budget (by default what the
  segments' bytes back, at most MAX_BUNDLE_WORK; or `max_work`);
* "segment link": the seed the bundle names is the one its segments' roots give (segments of
  different runs mixed fail here);
* every check of a proof (verify_stark and the rest), for each segment, with the bundle's seed;
* "segment link": each boundary tensor's fingerprint in a reader equals its writer's (segments of
  different runs, or a tensor changed between its writer and its reader, fail here);
* "config below floor": the union bound over every segment's soundness terms reaches the floor.
Never raises: verify() (api.py) routes a bundle here and turns errors into its result."""

from __future__ import annotations

import hashlib
import time
from dataclasses import replace
from typing import Any

from .budget import MAX_WORK, WorkMeter, budget_for, check_work, file_caps, statement_work
from .config import MAX_QUERIES, PcsConfig, preset_label
from .errors import ConfigError, FormatError, StatementError, VerificationError
from .formats import BUNDLE_MAGIC, FORMAT_VERSION, ProofFile, Reader, Writer, read_header, read_proof_file
from .graph.segments import MAX_SEGMENTS, Segment, cut_graph
from .graph.statement import build_graph_air
from .result import VerifyResult, check_proof, visibility
from .security import union_bits
from .statement import KIND_GRAPH, KIND_NAMES, Settings, read_settings
from .verify import Progress, report

SEGMENT_TAG = b"luminair segment v1"
SEED_TAG = b"luminair bundle v1"
MAX_BUNDLE_SCALE = MAX_SEGMENTS // 8  # a bundle may be this many proof.bin caps long
MAX_BUNDLE_WORK = 8 * MAX_WORK  # a bundle's default budget: its segments' (by their bytes), at most this


class LinkError(VerificationError):
    check = "segment link"


class SegmentStatementError(StatementError):
    check = "segment statement"


def encode_bundle(settings_digest: bytes, seed: bytes, queries: int, cuts: list[int], proofs: list[bytes]) -> bytes:
    w = Writer()
    w.raw(BUNDLE_MAGIC)
    w.u16(FORMAT_VERSION)
    w.raw(settings_digest)
    w.raw(seed)
    w.u16(queries)
    w.u16(len(proofs))
    for c in cuts:
        w.u32(c)
    for p in proofs:
        w.u32(len(p))
        w.raw(p)
    return w.bytes()


def read_bundle(data: bytes) -> tuple[bytes, bytes, int, list[int], list[bytes]]:
    """(whole settings digest, seed, the segments' query count, cut points, each segment's proof bytes)."""
    r = Reader(data, "proof.bin (segmented)")
    read_header(r, BUNDLE_MAGIC, "segmented proof")
    digest = bytes(r.take(32, "settings digest"))
    seed = bytes(r.take(32, "seed"))
    queries = r.u16("queries")
    n = r.u16("segment count")
    if not 1 <= n <= MAX_SEGMENTS:
        raise r.fail("segment count", f"{n} segments: expected 1 to {MAX_SEGMENTS}")
    cuts = [r.u32(f"cut point {k}") for k in range(n - 1)]
    proofs = []
    for k in range(n):
        size = r.u32(f"segment {k} length")
        proofs.append(bytes(r.take(size, f"segment {k} proof")))
    r.finish()
    return digest, seed, queries, cuts, proofs


def segment_config(whole: Settings, queries: int) -> PcsConfig:
    """The segments' config: the whole one with `queries` FRI queries (FormatError below its own)."""
    if not whole.config.n_queries <= queries <= MAX_QUERIES:
        raise FormatError(f"proof.bin (segmented): queries: {queries}, expected {whole.config.n_queries} (the "
                          f"model's config) to {MAX_QUERIES}")
    return replace(whole.config, n_queries=queries)


def segment_settings(whole: Settings, cuts: list[int], seg: Segment, queries: int) -> Settings:
    """Segment `seg`'s statement: its derived graph under the segments' config, its digest bound to
    the whole settings, the cut points, the query count and its position."""
    w = Writer()
    w.raw(SEGMENT_TAG)
    w.raw(whole.digest)
    w.u16(len(cuts) + 1)
    for c in cuts:
        w.u32(c)
    w.u16(queries)
    w.u16(seg.index)
    return Settings(KIND_GRAPH, segment_config(whole, queries), seg.spec, w.bytes())


def own_roots(seg: Segment, stark: Any) -> list[bytes]:
    """The roots a segment's proof commits before the seed: its boundary inputs' tree and its
    boundary outputs' tree (the first of its commitments, in that order)."""
    count = bool(seg.reads) + bool(seg.writes)
    if len(stark.commitments) < count:
        raise FormatError(f"segment {seg.index}: {len(stark.commitments)} commitments, its boundary trees need {count}")
    return list(stark.commitments[:count])


def bundle_seed(settings_digest: bytes, cuts: list[int], roots: list[list[bytes]]) -> bytes:
    """BLAKE2s of the whole statement, the cut points and every segment's boundary roots."""
    h = hashlib.blake2s(SEED_TAG + settings_digest)
    h.update(len(roots).to_bytes(2, "little") + b"".join(c.to_bytes(4, "little") for c in cuts))
    for rs in roots:
        h.update(bytes([len(rs)]) + b"".join(rs))
    return h.digest()


def fingerprints(seg: Segment, spec: Any, config: Any, stark: Any) -> tuple[dict[int, Any], dict[int, Any]]:
    """(boundary inputs, boundary outputs) of a checked segment proof: whole node -> fingerprint."""
    air, plans = build_graph_air(spec, config.log_blowup)
    vectors = dict(zip(air.vector_components, stark.vectors))
    index = {id(c): ci for ci, c in enumerate(air.components)}
    reads: dict[int, Any] = {}
    writes: dict[int, Any] = {}
    for plan in plans:
        if plan.kind in ("BoundaryInput", "BoundaryOutput"):
            vec = vectors[index[id(plan.component)]]
            into = reads if plan.kind == "BoundaryInput" else writes
            for g, s in enumerate(plan.segments):
                into[seg.nodes[s.node]] = vec[g]
    return reads, writes


def verify_segmented(data: bytes, settings_bytes: bytes, whole: Settings, t0: float, progress: Progress | None,
                     min_security_bits: int, max_work: int | None) -> VerifyResult:
    """Check a bundle against the whole model's settings (raises a VerificationError on rejection)."""
    cap = file_caps(max_work)[0] * MAX_BUNDLE_SCALE
    if len(data) > cap:
        raise FormatError(f"proof.bin (segmented) is {len(data)} bytes, more than this verifier reads ({cap} bytes)")
    digest, named_seed, queries, cuts, proofs = read_bundle(data)
    if digest != whole.digest:
        raise StatementError(f"the segmented proof was made for settings {digest.hex()[:16]}..., not for these "
                             f"settings ({whole.digest.hex()[:16]}...): wrong model or tampered settings")
    if whole.kind != KIND_GRAPH:
        raise FormatError("a segmented proof is of a graph statement")
    segments = cut_graph(whole.body, cuts)  # (as many as proofs: the bundle holds n - 1 cut points)
    report(progress, 2)
    # one budget for the whole bundle: every segment's declared work is charged before any is checked
    budget = bundle_budget(proofs, len(settings_bytes), max_work)
    meter = WorkMeter(budget)
    files = read_segments(whole, cuts, segments, queries, proofs, meter)
    roots = [own_roots(seg, pf.stark) for seg, pf, _ in files]
    check_work(meter.parts, budget)  # (a refusal names the max_work the whole bundle needs)
    seed = bundle_seed(whole.digest, cuts, roots)
    if seed != named_seed:
        raise LinkError("the segments' boundary roots do not give the seed the bundle was proven with: segments "
                        "of different runs (or inputs) mixed, or a boundary tree replaced")
    written: dict[int, tuple[int, Any]] = {}
    outputs: dict[str, Any] = {}
    inputs: dict[str, Any] = {}
    terms: dict[str, float] = {}
    for seg, pf, st_settings in files:
        report(progress, 3 + 3 * seg.index // len(segments))
        try:  # (its work is charged above: an unbounded meter here)
            _, st, seg_terms, _ = check_proof(st_settings, pf, WorkMeter(), min_security_bits, None, seed)
        except VerificationError as e:
            raise type(e)(f"segment {seg.index}: {e.detail}") from None
        reads, writes = fingerprints(seg, seg.spec, st_settings.config, pf.stark)
        for node, f in reads.items():
            writer, expected = written[node]
            if f != expected:
                raise LinkError(f"segment {seg.index} reads node {node} ({whole.body.nodes[node].op}) other than "
                                f"segment {writer} wrote it: their fingerprints differ (segments of different runs, "
                                "or a boundary tensor changed)")
        written.update((node, (seg.index, f)) for node, f in writes.items())
        for name, out in st.outputs.items():  # (the source node: the whole graph's)
            outputs[name] = out | {"source": out["source"] | {"node": seg.nodes[out["source"]["node"]]}} \
                if isinstance(out.get("source"), dict) else out
        inputs.update(st.inputs or {})
        terms.update({f"segment {seg.index}: {name}": bits for name, bits in seg_terms.items()})
    report(progress, 6)
    bits = int(union_bits(terms))
    if bits < min_security_bits:
        raise ConfigError(f"{bits} bits by the union of the {len(segments)} segments' soundness terms is below the "
                          f"verifier's floor of {min_security_bits} bits")
    body = whole.body
    return VerifyResult(
        success=True, outputs=outputs, inputs=inputs or None, security_bits=bits,
        security_label=preset_label(whole.config).strip(" []") or None,  # (the model's preset; maybe more queries)
        model_digest=whole.model_digest.hex(),
        model_title=body.title or None, model_description=body.description or None,
        statement=f"{KIND_NAMES[whole.kind]}: proven in {len(segments)} segments",
        verification_time_ms=(time.perf_counter() - t0) * 1000,
        extra={"soundness_bits": terms, "queries": queries,
               "segments": [{"nodes": len(s.nodes), "reads": len(s.reads), "writes": len(s.writes),
                             "proof_bytes": len(p)} for s, p in zip(segments, proofs)]},
        visibility=visibility(body),
    )


def bundle_budget(proofs: list[bytes], settings_size: int, max_work: int | None = None) -> int:
    """A bundle's work budget: `max_work`, else what its segments' bytes back, each as a proof file
    of its size beside the settings, at most MAX_BUNDLE_WORK."""
    if max_work is not None:
        return max_work
    return min(MAX_BUNDLE_WORK, sum(budget_for(len(raw), settings_size) for raw in proofs))


def read_segments(whole: Settings, cuts: list[int], segments: list[Segment], queries: int, proofs: list[bytes],
                  meter: WorkMeter) -> list[tuple[Segment, ProofFile, Settings]]:
    """Each segment's proof file, bound to its derived statement ("segment statement" otherwise),
    its decoding and declared work charged to `meter`."""
    out = []
    for seg, raw in zip(segments, proofs):
        try:
            pf = read_proof_file(raw, meter)
        except VerificationError as e:
            raise type(e)(f"segment {seg.index}: {e.detail}") from None
        st_settings = segment_settings(whole, cuts, seg, queries)
        if pf.settings_digest != st_settings.digest:
            raise SegmentStatementError(f"segment {seg.index}: the proof is not of this model's segment {seg.index} "
                                        f"cut at {cuts} (another model, segmentation or position)")
        meter.charge_all(statement_work(st_settings, pf.stark_bytes))
        out.append((seg, pf, st_settings))
    return out


def declared_bundle_work(data: bytes, settings_bytes: bytes) -> tuple[WorkMeter, int]:
    """A bundle's declared work (as verify charges it, against no budget) and its default budget.
    Raises what the decoders raise."""
    whole = read_settings(settings_bytes, WorkMeter())
    _, _, queries, cuts, proofs = read_bundle(data)
    meter = WorkMeter()
    read_segments(whole, cuts, cut_graph(whole.body, cuts), queries, proofs, meter)
    return meter, bundle_budget(proofs, len(settings_bytes))
