"""Hostile file pairs against the verifier's work budget (issue 10; docs/formats.md "Verifier work budget").

    python bench/hostile_bench.py [--cases NAME ...] [--fast] [--calibrate] [--keep DIR] [--pyodide] [--runs N]

Builds each pair (an attacker holds both files: the settings digest always matches), then runs
`verify()` on it in a fresh `python` whose address space is limited to 256 MiB (RLIMIT_AS; the
verifier imports no numpy), and prints one JSON document: per case, the file sizes, the time of the
verify() call, the child's peak RSS and the verdict (check and message). The target: every pair is
rejected or verified within 2 s and 256 MiB, with the default budget. `--fast` runs the subset
tests/verifier/test_hostile_files.py asserts; `--calibrate` adds the budget's estimate (work units)
beside each time; `--keep DIR` writes each pair to DIR/<case>/ (with case.json); `--pyodide` adds
the same table measured in Pyodide under Node (bench/web/hostile_pyodide.mjs, its own bounds: the
browser is where hostile files arrive); `--runs N` verifies each pair in N fresh processes (N fresh
Pyodides) and reports the median time and the largest peak.

Cases at the limits ("... at the budget") are the largest pairs the budget accepts: they are
found by bisection on the verifier's own estimate, and their proofs are forged with exactly the
statement's shape, claimed sums that cancel the public LogUp terms, and composition samples that
satisfy the out-of-domain check, so the verifier does every statement-sized step (public terms,
topology, constraints at the OODS point, quotients) before a Merkle path fails.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from luminair.verifier.merkle import DIGEST_BYTES
from luminair.verifier.api import declared_work
from luminair.verifier.budget import MAX_PROOF_BYTES, MAX_SETTINGS_BYTES, budget_for
from luminair.verifier.config import PcsConfig
from luminair.verifier.fields import QM31
from luminair.verifier.formats import (
    FORMAT_VERSION,
    MAX_COLUMNS,
    MAX_FRI_LAYERS,
    MAX_MASKS,
    MAX_OPENED,
    MAX_PUBLIC_TOTAL,
    MAX_TREES,
    MAX_WITNESS,
    PROOF_MAGIC,
    PUBLIC_I16,
    PUBLIC_I16_DEFLATE,
    PUBLIC_M31,
    Decommitment,
    FriLayerProof,
    FriProof,
    ProofFile,
    StarkProof,
    Writer,
)
from luminair.verifier.graph.settings import MAX_GRAPH_STEPS, MAX_NODES, MAX_OUTPUT_NUMEL, MAX_STEPS
from luminair.verifier.graph.spec import GraphSpec, InputSpec, NodeSpec, OutputSpec, Step, view_shape
from luminair.verifier.statement import KIND_GRAPH, bind_symbols, encode_settings, read_settings

ROOT = Path(__file__).resolve().parent.parent
LIMIT_BYTES = 256 << 20
TIME_LIMIT_S = 2.0
# pow 0 so that a forged proof passes both grinding checks; 2 x 48 = 96 bits (the default floor)
HOSTILE = PcsConfig(pow_bits=0, log_blowup=2, n_queries=49, interaction_pow_bits=0)  # 98 FRI bits: 96 by the union bound
ZERO: QM31 = (0, 0, 0, 0)

Pair = tuple[bytes, bytes]  # (proof, settings)


# --- building files -------------------------------------------------------------------------------


def graph_settings(
    nodes: list[NodeSpec],
    inputs: list[tuple[str, int]],
    outputs: list[tuple[str, int, tuple[Step, ...]]],
    scale: int = 10,
    config: PcsConfig = HOSTILE,
) -> bytes:
    outs = [OutputSpec(name, node, steps, view_shape(nodes[node].shape, steps)) for name, node, steps in outputs]
    return encode_settings(KIND_GRAPH, config, GraphSpec(scale, nodes, [InputSpec(n, i) for n, i in inputs], outs))


def empty_stark() -> StarkProof:
    d = Decommitment([], [])
    return StarkProof([], [], [], [], [], FriProof(FriLayerProof(b"\0" * DIGEST_BYTES, [], d), [], []), 0, 0)


def proof_file(settings: bytes, public: list[list[int]], stark: StarkProof | None = None) -> bytes:
    return ProofFile(hashlib.blake2s(settings).digest(), public, stark or empty_stark()).to_bytes()


def shaped_stark(settings: bytes, public: list[list[int]]) -> StarkProof:
    """A proof with exactly the shape the statement needs that passes the LogUp sum and the OODS
    check (an attacker may choose the claimed sums and the sampled values after seeing the
    challenges) and fails at the first Merkle path. Needs pow_bits = interaction_pow_bits = 0."""
    from luminair.verifier.air.point import composition_at_oods
    from luminair.verifier.channel import Channel
    from luminair.verifier.circle import qpoint_from_t
    from luminair.verifier.fields import q_neg
    from luminair.verifier.fri import last_layer_log_size, n_inner_layers
    from luminair.verifier.poly import dense_columns_at
    from luminair.verifier.statement import build_statement
    from luminair.verifier.verify import draw_elements, mix_statement

    parsed = bind_symbols(read_settings(settings), public)
    cfg = parsed.config
    assert cfg.pow_bits == 0 and cfg.interaction_pow_bits == 0
    st = build_statement(parsed, public)
    air, lay = st.air, st.air.layout
    n_commit = 2 + (lay.interaction_tree is not None)  # main (with the topology columns), [interaction], composition
    commitments = [bytes([i + 1]) * DIGEST_BYTES for i in range(n_commit)]
    sampled = [[[(1, 2, 3, 4)] * len(slot.masks) for slot in cols] for cols in lay.columns]

    ch = Channel()
    mix_statement(ch, cfg, st.statement_bytes, air)
    own = iter(commitments)
    ch.mix_root(next(own))  # main
    ch.mix_u64(0)  # interaction nonce
    elements = draw_elements(ch, air)
    total = st.public_sum(elements) if st.public_sum is not None else air.public_logup_sum(elements)
    with_sums = [ci for ci, info in enumerate(air.infos) if info.n_batches]
    sums = [ZERO] * len(with_sums)
    if sums:
        sums[-1] = q_neg(total)
    ch.mix_felts(sums)
    if lay.interaction_tree is not None:
        ch.mix_root(next(own))
    alpha = ch.draw_felt()
    ch.mix_root(commitments[-1])
    oods = qpoint_from_t(ch.draw_felt())
    for tree in air.preprocessed:  # the function tables: anyone can evaluate them, so a forger does
        if tree.known_values is not None:
            values = tree.known_values()
            for col in tree.columns:
                t, c = lay.pre_index[col.key]
                sampled[t][c] = dense_columns_at(oods, [values[col.key]], col.log_size)
    claimed = dict(zip(with_sums, sums))
    expected = composition_at_oods(air, sampled, oods, alpha, elements, claimed)
    comp = sampled[lay.composition_tree]
    comp[0] = [expected]  # left half = expected, right half = 0: C(z) = left + pi(x) * right
    for c in range(1, len(comp)):
        comp[c] = [ZERO]
    ch.mix_felts([v for tree in sampled for col in tree for v in col])
    ch.draw_felt()  # DEEP alpha
    sizes = sorted({slot.log_size + cfg.log_blowup for cols in lay.columns for slot in cols}, reverse=True)
    n_inner = max(0, n_inner_layers(sizes, cfg))
    last = [ZERO] * (1 << (last_layer_log_size(cfg, sizes) - cfg.log_blowup))
    for _ in range(n_inner + 1):
        ch.mix_root(b"\0" * DIGEST_BYTES)
        ch.draw_felt()
    ch.mix_felts(last)
    ch.mix_u64(0)  # proof-of-work nonce
    queries = ch.draw_queries(cfg.n_queries, sizes[0])
    opened = {s: len({q >> (sizes[0] - s) for q in queries}) for s in sizes}
    queried = [[[0] * opened[slot.log_size + cfg.log_blowup] for slot in cols] for cols in lay.columns]
    decs = [Decommitment([b"\0" * DIGEST_BYTES], []) for _ in lay.columns]
    d = Decommitment([], [])
    fri = FriProof(FriLayerProof(b"\0" * DIGEST_BYTES, [], d), [FriLayerProof(b"\0" * DIGEST_BYTES, [], d) for _ in range(n_inner)], last)
    return StarkProof(commitments, sums, sampled, queried, decs, fri, 0, 0)


def forged(settings: bytes, public: list[list[int]]) -> Pair:
    return proof_file(settings, public, shaped_stark(settings, public)), settings


def estimate(proof: bytes, settings: bytes) -> tuple[float, int]:
    """(estimated work units, budget) of a pair, charged as verify() charges them."""
    return declared_work(proof, settings).total, budget_for(len(proof), len(settings))


def largest(make: Callable[[int], tuple[bytes, list[list[int]]]], lo: int, hi: int) -> int:
    """The largest n in [lo, hi] whose pair (settings, public) fits the budget (bisection on the
    verifier's own estimate)."""
    def fits(n: int) -> bool:
        settings, public = make(n)
        proof = proof_file(settings, public)  # without the stark part: a forged proof only adds bytes
        work, budget = estimate(proof, settings)
        return work <= budget

    assert fits(lo), "the smallest case already exceeds the budget"
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


# --- graphs ---------------------------------------------------------------------------------------


def add_of(src: int, shape: tuple[int, ...], steps: tuple[Step, ...], out_shape: tuple[int, ...]) -> NodeSpec:
    return NodeSpec("Add", out_shape, [(src, shape, steps), (src, shape, steps)])


def first_element(shape: tuple[int, ...]) -> tuple[Step, ...]:
    return (("slice", tuple((0, 1, 1) for _ in shape)),)


def public_input_graph(n: int) -> tuple[bytes, list[list[int]]]:
    """A public input of n elements, one Add of its first element: n known values to decode."""
    nodes = [NodeSpec("Input", (n,), name="x"), add_of(0, (n,), first_element((n,)), (1,))]
    return graph_settings(nodes, [("x", 0)], [("y", 1, ())]), [[0] * n, [0]]


def output_graph(n: int) -> tuple[bytes, list[list[int]]]:
    """A private scalar broadcast to n elements, all of them a public output."""
    x = (0, (1,), (("expand", (n,)),))
    nodes = [NodeSpec("Input", (1,), name="x", private=True), NodeSpec("Add", (n,), [x, x])]
    return graph_settings(nodes, [("x", 0)], [("y", 1, ())]), [[0] * n]


def weights_graph(n: int) -> tuple[bytes, list[list[int]]]:
    """n weights (n / 8 known rows), one Add of the first."""
    nodes = [NodeSpec("Input", (1,), name="x", private=True), NodeSpec("Constant", (n,), values=[(7 * i) % 2000 for i in range(n)]),
             add_of(1, (n,), first_element((n,)), (1,))]
    return graph_settings(nodes, [("x", 0)], [("y", 2, ())]), [[0]]


def sparse_graph(n: int) -> tuple[bytes, list[list[int]]]:
    """A private (2, n/2) input read transposed: an address run every 2 rows, n boundary rows."""
    h = n // 2
    v = (0, (2, h), (("permute", (1, 0)),))
    nodes = [NodeSpec("Input", (2, h), name="x", private=True), NodeSpec("Add", (h, 2), [v, v]),
             add_of(1, (h, 2), first_element((h, 2)), (1, 1))]
    return graph_settings(nodes, [("x", 0)], [("y", 2, ())]), [[0]]


def sparse_padded_graph(n: int, pad: int = 24_000) -> tuple[bytes, list[list[int]]]:
    """sparse_graph plus a public input of `pad` elements: bytes that lift the budget to its cap, so
    the topology can reach topology.MAX_SPARSE_ENTRIES."""
    h = n // 2
    v = (0, (2, h), (("permute", (1, 0)),))
    nodes = [NodeSpec("Input", (2, h), name="x", private=True), NodeSpec("Add", (h, 2), [v, v]),
             NodeSpec("Input", (pad,), name="p"), add_of(2, (pad,), first_element((pad,)), (1,)),
             add_of(1, (h, 2), first_element((h, 2)), (1, 1))]
    return graph_settings(nodes, [("x", 0), ("p", 2)], [("y", 4, ())]), [[0] * pad, [0]]


def many_nodes_graph(n: int) -> tuple[bytes, list[list[int]]]:
    """n one-element Add nodes in one component (n segments to scan)."""
    nodes = [NodeSpec("Input", (1,), name="x", private=True)]
    nodes += [add_of(0, (1,), (), (1,)) for _ in range(n)]
    return graph_settings(nodes, [("x", 0)], [("y", 1, ())]), [[0]]


def deep_views_graph(n: int) -> tuple[bytes, list[list[int]]]:
    """n Add nodes whose two inputs each take MAX_STEPS view steps (permutes of 8 axes)."""
    shape = (2, 1, 2, 1, 2, 1, 2, 1)
    rot = tuple(range(1, 8)) + (0,)
    steps: list[Step] = []
    cur = shape
    for _ in range(MAX_STEPS):
        steps.append(("permute", rot))
        cur = tuple(cur[a] for a in rot)
    nodes = [NodeSpec("Input", shape, name="x", private=True)]
    nodes += [NodeSpec("Add", cur, [(0, shape, tuple(steps)), (0, shape, tuple(steps))]) for _ in range(n)]
    return graph_settings(nodes, [("x", 0)], [("y", 1, first_element(cur))]), [[0]]


def huge_node_graph() -> tuple[bytes, list[list[int]]]:
    """A private scalar broadcast to 2^24 elements (the largest node), reduced to 512 outputs."""
    n = 1 << 24
    x = (0, (1,), (("expand", (n,)),))
    nodes = [
        NodeSpec("Input", (1,), name="x", private=True),
        NodeSpec("Add", (n,), [x, x]),
        NodeSpec("SumReduce", (1 << 9,), [(1, (n,), (("reshape", (1 << 9, 1 << 15)),))], axis=1),
    ]
    return graph_settings(nodes, [("x", 0)], [("y", 2, ())]), [[0] * (1 << 9)]


def symbolic_huge_node_graph(batch: int) -> tuple[bytes, list[list[int]]]:
    """huge_node_graph with its size symbolic, 2^15 * batch elements reduced to batch outputs (batch
    declared up to 2^20): a few bytes of expression table name a 2^24-element node at batch 2^9, and
    a 2^35-element one at 2^20."""
    from luminair.verifier.graph.symbols import Symbol, ref

    n, rows = ref(0), ref(1)
    x = (0, (1,), (("expand", (n,)),))
    nodes = [
        NodeSpec("Input", (1,), name="x", private=True),
        NodeSpec("Add", (n,), [x, x]),
        NodeSpec("SumReduce", (rows,), [(1, (n,), (("reshape", (rows, 1 << 15)),))], axis=1),
    ]
    spec = GraphSpec(10, nodes, [InputSpec("x", 0)], [OutputSpec("y", 2, ())], symbols=[Symbol("batch", 1, 1 << 20)],
                     exprs=[((1 << 15, (1,)),), ((1, (1,)),)])
    return encode_settings(KIND_GRAPH, HOSTILE, spec), [[batch], [0] * batch]


def symbol_bomb_graph(valid: bool = False) -> tuple[bytes, list[list[int]]]:
    """The issue's symbol bomb: 255 Adds whose two inputs take 64 view steps of 24 references each
    to 16-term expressions of 4 symbols (783,360 references, 3.3 MB). Its reshapes refer to one
    expression whose terms cancel to 0 at 2^20, so every reference is valid and the first reshape
    fails once substituted; `valid`: 8-axis identity slices (start, stop, step) = (0, 1, 1) of a
    (1,) * 8 input, all three written as expressions (at symbols 1), so every view passes its checks."""
    from luminair.verifier.graph.symbols import Symbol, ref

    degree4 = [(a, b, c, 4 - a - b - c) for a in range(5) for b in range(5 - a) for c in range(5 - a - b)][:16]
    cancelling = [(1 if i % 2 == 0 else -1, e) for i, e in enumerate(degree4)]  # 0 when the 4 symbols are equal
    zero = tuple(sorted(cancelling, key=lambda t: t[1]))
    one = tuple(sorted(cancelling[:14] + [(2, (1, 0, 0, 0)), (-1, (0, 1, 0, 0))], key=lambda t: t[1]))  # 2a - b + 0
    if valid:
        shape: tuple[int, ...] = (ref(1),) * 8
        steps: tuple[Step, ...] = tuple(("slice", ((ref(0), ref(1), ref(1)),) * 8) for _ in range(MAX_STEPS))
        values = [1] * 4
    else:
        shape, steps, values = (1,), tuple(("reshape", (ref(0),) * 24) for _ in range(MAX_STEPS)), [1 << 20] * 4
    nodes = [NodeSpec("Input", shape, name="x", private=True)]
    nodes += [NodeSpec("Add", shape, [(0, shape, steps), (0, shape, steps)]) for _ in range(255)]
    spec = GraphSpec(10, nodes, [InputSpec("x", 0)], [OutputSpec("y", 1, ())],
                     symbols=[Symbol(name, 1, 1 << 20) for name in "abcd"], exprs=[zero, one])
    return encode_settings(KIND_GRAPH, HOSTILE, spec), [values]


def huge_output_source_graph() -> tuple[bytes, list[list[int]]]:
    """One element of a 2^24-element node as the output (its index map reads a huge node)."""
    n = 1 << 24
    x = (0, (1,), (("expand", (n,)),))
    nodes = [NodeSpec("Input", (1,), name="x", private=True), NodeSpec("Add", (n,), [x, x])]
    return graph_settings(nodes, [("x", 0)], [("y", 1, first_element((n,)))]), [[0]]


def non_affine_output_graph(side: int) -> tuple[bytes, list[list[int]]]:
    """An output that flattens a transposed (side, side) node: not affine, mapped in two passes."""
    n = side * side
    x = (0, (1, 1), (("expand", (side, side)),))
    nodes = [NodeSpec("Input", (1, 1), name="x", private=True), NodeSpec("Add", (side, side), [x, x])]
    steps: tuple[Step, ...] = (("permute", (1, 0)), ("reshape", (n,)))
    return graph_settings(nodes, [("x", 0)], [("y", 1, steps)]), [[0] * n]


def symbolic_non_affine_output_graph(side: int) -> tuple[bytes, list[list[int]]]:
    """non_affine_output_graph with its side a symbol (declared up to 2^10): a 204-byte template whose
    output index map has side^2 elements, mapped in two passes, known only once instantiated."""
    from luminair.verifier.graph.symbols import Symbol, ref

    x = (0, (1, 1), (("expand", (ref(0), ref(0))),))
    nodes = [NodeSpec("Input", (1, 1), name="x", private=True), NodeSpec("Add", (ref(0), ref(0)), [x, x])]
    steps: tuple[Step, ...] = (("permute", (1, 0)), ("reshape", (ref(1),)))
    spec = GraphSpec(10, nodes, [InputSpec("x", 0)], [OutputSpec("y", 1, steps)], symbols=[Symbol("side", 1, 1 << 10)],
                     exprs=[((1, (1,)),), ((1, (2,)),)])
    return encode_settings(KIND_GRAPH, HOSTILE, spec), [[side], [0] * (side * side)]


def two_files_graph(n_public: int, n_weights: int) -> tuple[bytes, list[list[int]]]:
    """The issue's pair: n_public public input values (proof.bin) and n_weights weights
    (settings.bin), one Add of the first of each."""
    nodes = [
        NodeSpec("Input", (n_public,), name="p"),
        NodeSpec("Constant", (n_weights,), values=[(7 * i) % 2000 for i in range(n_weights)]),
        NodeSpec("Add", (1,), [(0, (n_public,), first_element((n_public,))), (1, (n_weights,), first_element((n_weights,)))]),
    ]
    return graph_settings(nodes, [("p", 0)], [("y", 2, ())]), [[0] * n_public, [0]]


def table_graph(scale: int, log_blowup: int) -> tuple[bytes, list[list[int]]]:
    """One Sin of a private input: the sin table at this scale and blowup (the issue's 405-byte pair
    is scale 9, blowup 3)."""
    cfg = PcsConfig(pow_bits=0, log_blowup=log_blowup, n_queries=-(-98 // log_blowup), interaction_pow_bits=0)
    nodes = [NodeSpec("Input", (1,), name="x", private=True), NodeSpec("Sin", (1,), [(0, (1,), ())])]
    return graph_settings(nodes, [("x", 0)], [("y", 1, ())], scale=scale, config=cfg), [[0]]


def every_table_graph(scale: int) -> tuple[bytes, list[list[int]]]:
    """One op of each table kind on a private input: the verifier generates and evaluates every
    function table at this scale (erf: an integer series a row)."""
    ops = ("Exp2", "Exp", "Erf", "Log2", "Sin")
    nodes = [NodeSpec("Input", (1,), name="x", private=True)] + [NodeSpec(op, (1,), [(0, (1,), ())]) for op in ops]
    return graph_settings(nodes, [("x", 0)], [(f"y{i}", i + 1, ()) for i in range(len(ops))], scale=scale), [[0]] * len(ops)


def example_air_settings() -> bytes:
    """A settings.bin of statement kind 1 (the example AIRs of format 9 and earlier): the kind byte
    of a graph's settings changed (the verifier checks graph statements only)."""
    settings, _ = table_graph(9, 3)
    kind_at = len(b"LMNRSETT") + 2
    return settings[:kind_at] + bytes([1]) + settings[kind_at + 1 :]


def range8_blowup_graph(log_blowup: int) -> tuple[bytes, list[list[int]]]:
    """One Mul (range-checked) at a large blowup (range8 at 2^(8+b) points; format 7 recomputed its root)."""
    cfg = PcsConfig(pow_bits=0, log_blowup=log_blowup, n_queries=-(-98 // log_blowup), interaction_pow_bits=0)
    nodes = [NodeSpec("Input", (1,), name="x", private=True), NodeSpec("Mul", (1,), [(0, (1,), ()), (0, (1,), ())])]
    return graph_settings(nodes, [("x", 0)], [("y", 1, ())], config=cfg), [[0]]


# --- raw proof bodies -----------------------------------------------------------------------------


# format 11: index inputs and Gather, whose rows the verifier computes itself (known rows)


def _table(rows: int, width: int) -> NodeSpec:
    return NodeSpec("Constant", (rows, width), values=[(7 * i) % 2000 - 1000 for i in range(rows * width)], name="wte")


def gather_graph(n_ids: int, width: int = 64, rows: int = 16, reader: bool = False,
                 private: bool = False) -> tuple[bytes, list[list[int]]]:
    """n_ids token ids, one Gather of a (rows, width) table (n_ids * width values the verifier
    computes), an Add of its first element; `reader`: an Add reads the table too (so the table
    holds known rows as well); `private`: the ids are private (a gather component proves each read,
    the table is held in known rows)."""
    nodes = [_table(rows, width), NodeSpec("Input", (n_ids,), name="ids", index=True, private=private),
             NodeSpec("Gather", (n_ids, width), [(0, (rows, width), ()), (1, (n_ids,), ())]),
             add_of(2, (n_ids, width), first_element((n_ids, width)), (1, 1))]
    outputs = [("y", 3, ())]
    if reader:
        nodes.append(add_of(0, (rows, width), first_element((rows, width)), (1, 1)))
        outputs.append(("z", 4, ()))
    ids = [(7 * t) % rows for t in range(n_ids)]
    return graph_settings(nodes, [("ids", 1)], outputs), ([] if private else [ids]) + [[0]] * len(outputs)


def many_gathers_graph(n: int, width: int = 16) -> tuple[bytes, list[list[int]]]:
    """n Gathers of one (16, width) table at one index input of one id."""
    nodes = [_table(16, width), NodeSpec("Input", (1,), name="ids", index=True)]
    nodes += [NodeSpec("Gather", (1, width), [(0, (16, width), ()), (1, (1,), ())]) for _ in range(n)]
    nodes.append(add_of(n + 1, (1, width), first_element((1, width)), (1, 1)))
    return graph_settings(nodes, [("ids", 1)], [("y", n + 2, ())]), [[3], [0]]


def many_index_inputs_graph(n: int) -> tuple[bytes, list[list[int]]]:
    """n index inputs of one id, each read by a Gather of one (1, 1) table: before issue 32's
    format 11 round, each input's table size was found by a pass over all nodes (n^2 steps)."""
    nodes = [NodeSpec("Input", (1,), name=f"i{k}", index=True) for k in range(n)] + [_table(1, 1)]
    nodes += [NodeSpec("Gather", (1, 1), [(n, (1, 1), ()), (k, (1,), ())]) for k in range(n)]
    nodes.append(add_of(2 * n, (1, 1), (), (1, 1)))
    return graph_settings(nodes, [(f"i{k}", k) for k in range(n)], [("y", 2 * n + 1, ())]), [[0]] * (n + 1)


def symbolic_gather_graph(seq: int, width: int = 16) -> tuple[bytes, list[list[int]]]:
    """gather_graph with the number of ids a symbol (declared up to 2^20): 1.3 KB of settings.bin
    whose Gather has seq * width values at the proof's seq."""
    from luminair.verifier.graph.symbols import Symbol, ref

    n = ref(0)
    nodes = [_table(16, width), NodeSpec("Input", (n,), name="ids", index=True),
             NodeSpec("Gather", (n, width), [(0, (16, width), ()), (1, (n,), ())]),
             add_of(2, (n, width), first_element((n, width)), (1, 1))]
    spec = GraphSpec(10, nodes, [InputSpec("ids", 1)], [OutputSpec("y", 3, ())], symbols=[Symbol("seq", 1, 1 << 20)],
                     exprs=[((1, (1,)),)])
    return encode_settings(KIND_GRAPH, HOSTILE, spec), [[seq], [(7 * t) % 16 for t in range(seq)], [0]]


def bad_ids_graph(bad: int) -> tuple[bytes, list[list[int]]]:
    """An honest-looking embedding whose third token id is `bad` (16 and more: past the table; P - 1
    is -1)."""
    settings, public = gather_graph(8)
    public[0][2] = bad
    return settings, public


def raw_proof(settings: bytes, body: Callable[[Writer], None]) -> bytes:
    w = Writer()
    w.raw(PROOF_MAGIC)
    w.u16(FORMAT_VERSION)
    w.raw(hashlib.blake2s(settings).digest())
    body(w)
    return w.bytes()


P_1 = (1 << 31) - 2  # the largest canonical M31 (no small-int caching)
_WORD = struct.pack("<I", P_1)
_QM31 = _WORD * 4
_DIGEST = bytes(range(DIGEST_BYTES))
# What a proof.bin's STARK part can be filled with, at the codecs' bounds: (item bytes, slots, items a slot)
FILLS = {
    "sampled values": (16, MAX_TREES * MAX_COLUMNS, MAX_MASKS),  # 16 trees x 4096 columns x 8 QM31
    "queried values": (4, MAX_TREES * MAX_COLUMNS, MAX_OPENED),  # 16 x 4096 columns of M31 words
    "Merkle hashes": (DIGEST_BYTES, MAX_TREES, MAX_WITNESS),  # 16 decommitments of 2^20 hashes
    "column witness": (4, MAX_TREES, MAX_WITNESS),  # their M31 words
    "FRI siblings": (16, 1 + MAX_FRI_LAYERS, MAX_OPENED * 8),  # 41 FRI layers of 2^15 QM31
}


def _counted(n: int, item: bytes) -> bytes:
    return struct.pack("<I", n) + item * n


def _spread(total: int, slots: int, per_slot: int) -> list[int]:
    out = []
    for _ in range(slots):
        out.append(min(per_slot, total))
        total -= out[-1]
    return out


def public_part(public: list[list[int]]) -> bytes:
    """The public values of proof.bin, each tensor in the codec the prover picks."""
    w = Writer()
    w.u32(len(public))
    for t in public:
        w.public_tensor(t)
    return w.bytes()


def deflated_tensor(values: list[int]) -> bytes:
    """One public tensor of 16-bit values (signed), deflated."""
    packed = zlib.compress(struct.pack(f"<{len(values)}h", *values), 9)
    return bytes([PUBLIC_I16_DEFLATE]) + struct.pack("<II", len(values), len(packed)) + packed


def filled_proof(settings: bytes, fills: tuple[str, ...], size: int = MAX_PROOF_BYTES, public: bytes | None = None) -> bytes:
    """A well-formed proof.bin of at most `size` bytes: `public` (public_part bytes; default one
    tensor [0]), then a STARK part whose lists named in `fills` (FILLS) share the room left equally,
    each spread over its slots up to the codec's bound a slot."""
    head = PROOF_MAGIC + struct.pack("<H", FORMAT_VERSION) + hashlib.blake2s(settings).digest()
    head += public_part([[0]]) if public is None else public

    def stark(n: dict[str, int]) -> bytes:
        def counts(fill: str) -> list[int]:
            item, slots, per_slot = FILLS[fill]
            return _spread(n.get(fill, 0), slots, per_slot)

        def trees(fill: str, item: bytes) -> bytes:
            if fill not in fills:
                return struct.pack("<I", 0)
            c = counts(fill)
            return struct.pack("<I", MAX_TREES) + b"".join(
                struct.pack("<I", MAX_COLUMNS) + b"".join(_counted(k, item) for k in c[t * MAX_COLUMNS : (t + 1) * MAX_COLUMNS])
                for t in range(MAX_TREES))

        decs = struct.pack("<I", 0)
        if "Merkle hashes" in fills or "column witness" in fills:
            decs = struct.pack("<I", MAX_TREES) + b"".join(
                _counted(h, _DIGEST) + _counted(wit, _WORD) for h, wit in zip(counts("Merkle hashes"), counts("column witness")))
        layers = [_DIGEST + _counted(k, _QM31) + _counted(0, _DIGEST) + _counted(0, _WORD) for k in counts("FRI siblings")]
        if "FRI siblings" not in fills:
            layers = layers[:1]
        return (_counted(0, _DIGEST) + struct.pack("<Q", 0) + struct.pack("<I", 0) + _counted(0, _QM31) + trees("sampled values", _QM31)
                + trees("queried values", _WORD) + decs + layers[0] + struct.pack("<I", len(layers) - 1) + b"".join(layers[1:])
                + _counted(0, _QM31) + struct.pack("<Q", 0))

    room = size - len(head) - len(stark({}))
    n = {f: min(FILLS[f][1] * FILLS[f][2], room // len(fills) // FILLS[f][0]) for f in fills}
    assert room >= 0, "the public values alone exceed the size"
    return head + stark(n)


def word_tensor(n: int, codec: int) -> bytes:
    """One public tensor of n values, each the costliest to decode: P - 2 as an M31 word, -2^15 as
    an i16 word."""
    word = _WORD if codec == PUBLIC_M31 else struct.pack("<h", -(1 << 15))
    return bytes([codec]) + struct.pack("<I", n) + word * n


def public_at_cap(codec: int) -> Pair:
    """proof.bin's public values at its cap in one tensor of this codec."""
    settings, _ = public_input_graph(1)
    per = 4 if codec == PUBLIC_M31 else 2
    n = min(MAX_PUBLIC_TOTAL, (MAX_PROOF_BYTES - 200) // per)
    return filled_proof(settings, (), public=struct.pack("<I", 1) + word_tensor(n, codec)), settings


def deflate_bomb_values(n: int) -> list[int]:
    """n negative 16-bit values (no small-int caching once in the field) that deflate to ~24 KB."""
    return [-1000 - (i % 1000) for i in range(n)]


def all_caps_pair(n_deflated: int) -> Pair:
    """Every decoder at its cap at once: a settings.bin of ~1M weights at its cap, and a proof.bin at
    its cap holding a deflated tensor of n_deflated negative values, then a STARK part whose
    sampled values, queried values, hashes, column witness and FRI siblings share the rest."""
    settings, _ = weights_graph(_fit(MAX_SETTINGS_BYTES, 4, 300))
    public = struct.pack("<I", 2) + deflated_tensor(deflate_bomb_values(n_deflated)) + word_tensor(1, PUBLIC_M31)
    return filled_proof(settings, tuple(FILLS), public=public), settings


def huge_count_proof(settings: bytes) -> bytes:
    def body(w: Writer) -> None:
        w.u32(0xFFFFFFFF)

    return raw_proof(settings, body)


# --- the cases ------------------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    build: Callable[[], Pair]
    expect: frozenset[str]  # the checks that may refuse it ("" = verified)
    fast: bool = False  # in the subset the tests run (cheap to build)
    floor: int = 96
    kwargs: dict | None = None  # verify()'s other arguments (JSON), besides min_security_bits=floor


def _at_budget(make: Callable[[int], tuple[bytes, list[list[int]]]], lo: int, hi: int) -> Callable[[], Pair]:
    def build() -> Pair:
        n = largest(make, lo, hi)
        while True:  # the forged STARK part adds bytes (and work): step down until the pair fits
            pair = forged(*make(n))
            work, budget = estimate(*pair)
            if work <= budget:
                return pair
            n = max(lo, n - max(1, n // 100))

    return build


def _fit(n_bytes: int, per_element: int, overhead: int) -> int:
    return (n_bytes - overhead) // per_element


BUDGET = frozenset({"work budget"})
MALFORMED = frozenset({"malformed file"})
OPENINGS = frozenset({"Merkle path"})


def cases() -> list[Case]:
    max_public = _fit(MAX_PROOF_BYTES, 4, 300)
    max_weights = _fit(MAX_SETTINGS_BYTES, 4, 300)
    return [
        # the list
        Case("two 4 MB files: 1M weights, 1M public inputs", lambda: _pair(two_files_graph(1_000_000, 1_000_000)), BUDGET),
        Case("sin table at scale 9, log blowup 5 (evaluated, no root), forged", lambda: forged(*table_graph(9, 5)), OPENINGS, fast=True),
        Case("issue's 405-byte pair: sin, scale 9, log blowup 3, forged", lambda: forged(*table_graph(9, 3)), OPENINGS, fast=True),
        Case("every function table at scale 14, forged", lambda: forged(*every_table_graph(14)), BUDGET, fast=True),
        Case("every function table at scale 8, forged", lambda: forged(*every_table_graph(8)), OPENINGS, fast=True),
        Case("settings of statement kind 1 (an example AIR)", lambda: (proof_file(example_air_settings(), [[0]]),
             example_air_settings()), MALFORMED, fast=True),
        Case("range8 at log blowup 6, forged", lambda: forged(*range8_blowup_graph(6)), OPENINGS),
        # declared sizes at the codec's and the budget's limits
        Case("public M31 values at the proof cap (8 MiB)", lambda: public_at_cap(PUBLIC_M31), BUDGET, fast=True),
        Case("public i16 values at the proof cap (8 MiB)", lambda: public_at_cap(PUBLIC_I16), BUDGET, fast=True),
        Case("deflate bomb: 2^21 - 2 negative values in 24 KB", lambda: _pair_raw(public_input_graph(1)[0],
             struct.pack("<I", 1) + deflated_tensor(deflate_bomb_values(MAX_PUBLIC_TOTAL - 2))), BUDGET, fast=True),
        Case("weights at the settings cap (4 MiB)", lambda: _pair(weights_graph(max_weights)), BUDGET),
        Case("settings over the cap (4 MiB + 1 byte)", lambda: (proof_file(b"", [[0]]), b"\0" * (MAX_SETTINGS_BYTES + 1)), BUDGET, fast=True),
        Case("proof over the cap (8 MiB + 1 byte)", lambda: (b"\0" * (MAX_PROOF_BYTES + 1), b""), BUDGET, fast=True),
        Case("outputs of 2^20 elements", lambda: _pair(output_graph(MAX_OUTPUT_NUMEL)), BUDGET, fast=True),
        Case("huge nodes (2^24 elements), tiny files", lambda: _pair(huge_node_graph()), frozenset({"config below floor"}), fast=True),
        Case("huge nodes (2^24 elements), forged, floor 0", lambda: forged(*huge_node_graph()), OPENINGS, floor=0),
        Case("symbolic: a 2^24-element node at batch 2^9, tiny files", lambda: _pair(symbolic_huge_node_graph(1 << 9)),
             frozenset({"config below floor"}), fast=True),
        Case("symbolic: a 2^24-element node at batch 2^9, forged, floor 0", lambda: forged(*symbolic_huge_node_graph(1 << 9)),
             OPENINGS, floor=0),
        # its 2^20 outputs are deflated zeros: charged before they are inflated
        Case("symbolic: a 2^35-element node at batch 2^20", lambda: _pair(symbolic_huge_node_graph(1 << 20)), BUDGET,
             fast=True, floor=0),
        Case("one output element of a 2^24-element node", lambda: _pair(huge_output_source_graph()), MALFORMED, fast=True),
        Case("non-affine output of 2^18 elements", lambda: _pair(non_affine_output_graph(512)), BUDGET, fast=True),
        Case("symbolic: a non-affine output of 2^18 elements (204-byte template)",
             lambda: _pair(symbolic_non_affine_output_graph(512)), BUDGET, fast=True),
        Case("topology of 2^23 boundary rows", lambda: _pair(sparse_graph(1 << 23)), BUDGET, fast=True),
        Case(f"{MAX_NODES} nodes", lambda: _pair(many_nodes_graph(MAX_NODES - 1)), BUDGET, fast=True),
        Case(f"{MAX_NODES + 1} nodes", lambda: _pair(many_nodes_graph(MAX_NODES)), MALFORMED, fast=True),
        Case("deep views: 64 steps per input up to the settings cap", lambda: _pair(deep_views_graph(MAX_SETTINGS_BYTES // (2 * MAX_STEPS * 41))),
             MALFORMED, fast=True),
        Case("deep views at the graph's step cap, forged", lambda: forged(*deep_views_graph((MAX_GRAPH_STEPS - 1) // (2 * MAX_STEPS))),
             OPENINGS, floor=0),
        Case("proof count 2^32 - 1", lambda: (huge_count_proof(public_input_graph(1)[0]), public_input_graph(1)[0]), MALFORMED, fast=True),
        *[Case(f"{fill} at the proof cap", lambda fill=fill: _filled((fill,)), BUDGET, fast=fill != "sampled values")
          for fill in FILLS],
        Case("all decoders at their caps at once: 1M weights, 2^21 - 2 deflated values, every STARK list",
             lambda: all_caps_pair(MAX_PUBLIC_TOTAL - 2), BUDGET),
        Case("all decoders at their caps at once, the deflated values within the budget (900,000)",
             lambda: all_caps_pair(900_000), BUDGET),
        Case("symbol bomb: 783,360 references to a 16-term expression (3.3 MB)", lambda: _pair(symbol_bomb_graph()),
             MALFORMED | BUDGET, fast=True),
        Case("symbol bomb, every view valid: 783,360 references in 8-axis slices", lambda: _pair(symbol_bomb_graph(True)),
             MALFORMED | BUDGET, fast=True),
        # arguments of the wrong type: a one-line usage error, never an internal error
        *[Case(f"wrong-type argument: {k}={v!r}", _demo_pair, frozenset({"usage"}), fast=True, kwargs={k: v})
          for k, v in (("max_work", "1000000"), ("min_security_bits", "96"), ("max_work", True), ("progress", 5))],
        # the largest pairs the budget accepts, forged through every statement-sized step
        Case("weights at the budget, forged", _at_budget(weights_graph, 8, max_weights), OPENINGS),
        Case("public inputs at the budget, forged", _at_budget(public_input_graph, 8, max_public), OPENINGS),
        Case("outputs at the budget, forged", _at_budget(output_graph, 8, MAX_OUTPUT_NUMEL), OPENINGS, fast=True),
        Case("boundary rows at the budget, forged", _at_budget(sparse_graph, 16, 1 << 23), OPENINGS, fast=True),
        Case("boundary rows at the budget, lifted by public inputs, forged", _at_budget(sparse_padded_graph, 16, 1 << 23),
             OPENINGS),
        Case("nodes at the budget, forged", _at_budget(many_nodes_graph, 1, MAX_NODES - 1), OPENINGS, fast=True),
        # format 11: index inputs and Gather (the verifier computes every gathered row itself)
        Case("Gather at the budget: 64-wide rows of a 16-row table, forged", _at_budget(gather_graph, 1, 1 << 18), OPENINGS,
             fast=True),
        Case("Gather of a table an Add reads too, table rows at the budget, forged",
             _at_budget(lambda n: gather_graph(16, 64, n, reader=True), 16, max_weights // 64), OPENINGS),
        Case("Gather of 2^24 elements: 2^14 ids of 1024-wide rows of a 1-row table", lambda: _pair(gather_graph(1 << 14, 1024, 1)),
             BUDGET, fast=True),
        Case("index input at the 2^24-element cap, one id in proof.bin", lambda: _pair((gather_graph(1 << 24, 1, 1)[0], [[0], [0]])),
             BUDGET, fast=True),
        Case("index input of 2^21 - 2 deflated ids in 24 KB", lambda: _pair_raw(gather_graph(MAX_PUBLIC_TOTAL - 2, 1, 1)[0],
             struct.pack("<I", 2) + deflated_tensor(deflate_bomb_values(MAX_PUBLIC_TOTAL - 2)) + word_tensor(1, PUBLIC_M31)),
             BUDGET, fast=True),
        Case("Gather of one row of a table at the settings cap (1M values), forged",
             lambda: forged(*gather_graph(1, 1000, max_weights // 1000)), OPENINGS),
        Case(f"{MAX_NODES - 3} Gathers of one table, at the budget, forged", _at_budget(many_gathers_graph, 1, MAX_NODES - 3),
             OPENINGS, fast=True),
        Case(f"{(MAX_NODES - 2) // 2} index inputs, each read by its own Gather, forged",
             lambda: forged(*many_index_inputs_graph((MAX_NODES - 2) // 2)), OPENINGS, fast=True),
        Case("Gather at private ids at the budget: 64-wide rows of a 16-row table, forged",
             _at_budget(lambda n: gather_graph(n, private=True), 1, 1 << 18), OPENINGS, fast=True),
        Case("Gather at private ids of a table at the settings cap (1M values), forged",
             lambda: forged(*gather_graph(1, 1000, max_weights // 1000, private=True)), BUDGET),
        Case("symbolic: 2^19 ids of 16-wide rows (1.3 KB of settings)", lambda: _pair(symbolic_gather_graph(1 << 19)), BUDGET,
             fast=True),
        Case("symbolic: ids at the budget, forged", _at_budget(symbolic_gather_graph, 1, 1 << 19), OPENINGS),
        Case("a token id past the table (16 of 16 rows)", lambda: _pair(bad_ids_graph(16)), frozenset({"statement mismatch"}),
             fast=True),
        Case("a negative token id (P - 1)", lambda: _pair(bad_ids_graph(P_1)), frozenset({"statement mismatch"}), fast=True),
        # honest proofs (the prover is needed to build them)
        Case("honest: the demo MLP 64-64-10 (public/)", _demo_pair, frozenset({""}), fast=True),
        Case("honest: every op, 256 queries, log blowup 3", _every_op_pair, frozenset({""}), floor=0),
    ]


def _demo_pair() -> Pair:
    return (ROOT / "public" / "proof.bin").read_bytes(), (ROOT / "public" / "settings.bin").read_bytes()


def _every_op_pair() -> Pair:
    """An honest proof of a graph using every op, at the most queries the config allows."""
    import numpy as np
    from luminair.prover import Graph

    rng = np.random.default_rng(3)
    cx = Graph(scale_bits=7)
    x = cx.input("x", (32, 32))
    w = cx.constant(rng.uniform(0.1, 0.9, (32, 32)), "w")
    h = x * w + w
    a = h.exp2() + h.log2() + h.sin() + h.sqrt() + h.recip() + (h % 0.75) + (h < w)
    (a.sum_reduce(1) + a.max_reduce(1)).output("y")
    cfg = PcsConfig(pow_bits=0, log_blowup=3, n_queries=256, interaction_pow_bits=0)
    settings = cx.gen_settings(config=cfg)
    proof = cx.prove(cx.gen_trace({"x": rng.uniform(0.2, 0.8, (32, 32))}), settings)
    return proof.data, settings.data


def _pair(made: tuple[bytes, list[list[int]]]) -> Pair:
    settings, public = made
    return proof_file(settings, public), settings


def _filled(fills: tuple[str, ...]) -> Pair:
    settings, _ = public_input_graph(1)
    return filled_proof(settings, fills), settings


def _pair_raw(settings: bytes, public: bytes) -> Pair:
    """A proof of these raw public values (public_part bytes) and an empty STARK part."""
    return filled_proof(settings, (), public=public), settings


# --- running --------------------------------------------------------------------------------------

CHILD = r"""
import json, resource, sys, time
limit = int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from luminair.verifier import verify
proof = open(sys.argv[1], "rb").read()
settings = open(sys.argv[2], "rb").read()
kwargs = {"min_security_bits": int(sys.argv[4]), **json.loads(sys.argv[5])}
t = time.perf_counter()
r = verify(proof, settings, **kwargs)
dt = time.perf_counter() - t
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
print(json.dumps({"time_s": round(dt, 3),
                  "peak_rss_mib": round(int(hwm[0].split()[1]) / 1024, 1),
                  "success": r.success, "check": r.check, "message": r.error_message}))
"""


def run_pair(proof: bytes, settings: bytes, floor: int = 96, limit: int = LIMIT_BYTES, timeout: float = 60,
             kwargs: dict | None = None) -> dict:
    """verify() in a fresh python under an address-space limit: time, peak RSS, verdict."""
    with tempfile.TemporaryDirectory() as d:
        p, s = Path(d) / "proof.bin", Path(d) / "settings.bin"
        p.write_bytes(proof)
        s.write_bytes(settings)
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(p), str(s), str(limit), str(floor), json.dumps(kwargs or {})],
            check=False, capture_output=True, text=True, timeout=timeout, env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    if out.returncode != 0:
        return {"time_s": None, "peak_rss_mib": None, "success": False, "check": "crashed",
                "message": f"exit {out.returncode}: {out.stderr.strip()[-500:]}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(case: Case, calibrate: bool = False, keep: Path | None = None, runs: int = 1) -> dict:
    """One case: its pair built once, verified in `runs` fresh processes (the median time, the
    largest peak RSS)."""
    proof, settings = case.build()
    if keep is not None:
        folder = keep / "".join(c if c.isalnum() else "_" for c in case.name)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "proof.bin").write_bytes(proof)
        (folder / "settings.bin").write_bytes(settings)
        meta = {"name": case.name, "floor": case.floor, "kwargs": case.kwargs or {}, "expect": sorted(case.expect)}
        (folder / "case.json").write_text(json.dumps(meta))
    results = [run_pair(proof, settings, case.floor, kwargs=case.kwargs) for _ in range(runs)]
    times = sorted(r["time_s"] for r in results if r["time_s"] is not None)
    row = {"case": case.name, "proof_bytes": len(proof), "settings_bytes": len(settings), **results[-1]}
    if runs > 1 and len(times) == runs:
        row.update(time_s=times[runs // 2], times_s=[r["time_s"] for r in results],
                   peak_rss_mib=max(r["peak_rss_mib"] for r in results))
    row["verdict"] = "verified" if row["success"] else "rejected"
    row["as_expected"] = (row["check"] or "") in case.expect
    row["within_bounds"] = row["time_s"] is not None and row["time_s"] <= TIME_LIMIT_S and row["peak_rss_mib"] <= LIMIT_BYTES / 2**20
    if calibrate:
        try:
            work, row["budget_units"] = estimate(proof, settings)
            row["work_units"] = round(work)
        except Exception as e:  # noqa: BLE001 - files the codec refuses have no estimate
            row["work_units"] = f"no estimate: {type(e).__name__}"
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="*", help="substrings of case names to run")
    ap.add_argument("--fast", action="store_true", help="only the subset the tests run")
    ap.add_argument("--calibrate", action="store_true", help="add the budget's estimate of each pair")
    ap.add_argument("--keep", type=Path, help="write each pair to KEEP/<case>/")
    ap.add_argument("--pyodide", action="store_true", help="also measure every pair in Pyodide under Node")
    ap.add_argument("--runs", type=int, default=1, help="fresh processes per pair (median time, largest peak)")
    args = ap.parse_args()
    keep = args.keep or (Path(tempfile.mkdtemp(prefix="hostile-")) if args.pyodide else None)
    rows = []
    for case in cases():
        if args.fast and not case.fast:
            continue
        if args.cases and not any(c in case.name for c in args.cases):
            continue
        rows.append(measure(case, args.calibrate, keep, args.runs))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    doc = {"runtime": f"CPython {sys.version.split()[0]}", "runs": args.runs,
           "limit": {"time_s": TIME_LIMIT_S, "address_space_mib": LIMIT_BYTES >> 20},
           "cases": rows, "all_within_bounds": all(r["within_bounds"] for r in rows),
           "all_as_expected": all(r["as_expected"] for r in rows)}
    if args.pyodide:
        node = subprocess.run(["node", str(ROOT / "bench" / "web" / "hostile_pyodide.mjs"), str(keep), "--runs", str(args.runs)],
                              check=True, capture_output=True, text=True, timeout=3600)
        doc = {"cpython": doc, "pyodide": json.loads(node.stdout)}
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
