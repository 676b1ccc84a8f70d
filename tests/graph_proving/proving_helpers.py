"""Helpers for graph-proof tests: prove with the fast preset (the floor is lowered explicitly), and
build forged proofs with a patched witness generator that still produces complete proofs."""

from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np
from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.prover.air.graph_trace import main_columns, table_multiplicities
from luminair.prover.air.witness import RANGED
from luminair.prover.proving import Settings, Trace, product_vectors, table_trees
from luminair.prover.stark.prove import commit_preprocessed, prove_stark
from luminair.verifier import verify
from luminair.verifier.config import PRESETS
from luminair.verifier.fields import P
from luminair.verifier.formats import ProofFile
from luminair.verifier.statement import build_statement

FAST = PRESETS["fast"]


def prove_graph(cx: Graph, inputs: dict, preset: str = "fast", settings: Settings | None = None):
    if getattr(cx, "stwo_plan", None) is None:
        cx.compile(GenericCompiler(), StwoCompiler())
    settings = settings or cx.gen_settings(preset=preset)
    trace = cx.gen_trace(inputs)
    proof = cx.prove(trace, settings)
    return settings, trace, proof


def check(settings, proof, floor: int = 0):
    return verify(proof.data if hasattr(proof, "data") else proof, settings.data if hasattr(settings, "data") else settings, min_security_bits=floor)


def prove_exact(cx: Graph, inputs: dict, outputs: tuple[str, ...]):
    """(settings, trace) of an honest proof that verifies and attests the executor's exact values
    of `outputs`."""
    settings, trace, proof = prove_graph(cx, inputs)
    res = check(settings, proof)
    assert res.success, res.error_message
    exact = cx.run(inputs, exact=True)
    for name in outputs:
        np.testing.assert_array_equal(np.array(res.outputs[name]["values"]), exact[name].reshape(-1))
    return settings, trace


def with_selector(cx: Graph, trace: Trace, settings: Settings, k: int, row: int, value: int):
    """The verdict on a proof whose merged component k has its selector q set to `value` on `row`
    (statement.MERGED_KINDS: the verifier derives q from the graph)."""
    name = settings.plans[k].component.name

    def flip(topo):
        topo[f"{name}.q"][row] = value

    return check(settings, forge(cx, trace, settings, tamper_topology=flip))


def component_index(settings: Settings, kind: str) -> int:
    return [p.kind for p in settings.plans].index(kind)


def forge(
    cx: Graph,
    trace: Trace,
    settings: Settings,
    tamper: Callable[[list[dict[str, np.ndarray]]], None] | None = None,
    public: list[list[int]] | None = None,
    pre_override: list | None = None,
    tamper_topology: Callable[[dict[str, np.ndarray]], None] | None = None,
    vectors: Callable | None = None,
) -> bytes:
    """A complete proof from a dishonest witness: `tamper` edits the main columns (row order);
    table multiplicities are then recounted as a cheating prover would (dropping lookups that are
    not in a table); `public` replaces the public values; `pre_override` replaces the committed
    preprocessed trees (forged weights or tables) while the transcript keeps the honest roots."""
    pub = public if public is not None else trace.public
    st = build_statement(settings.parsed, pub)
    plans = settings.plans
    topology = {k: np.array(v, copy=True) for k, v in settings.topology.items()} | settings.model
    main = main_columns(cx, plans, trace.values, st.air, topology, settings.spec)
    main = [{k: np.array(v, copy=True) for k, v in cols.items()} for cols in main]
    if tamper is not None:
        tamper(main)
    tree = settings.topology_tree
    if tamper_topology is not None:
        tamper_topology(topology)
        tree = commit_preprocessed(st.air.preprocessed[0], topology, settings.config.log_blowup)
    return _prove_forged(settings, st, plans, main, pub, topology, tree, pre_override, vectors)


def _prove_forged(settings, st, plans, main, pub, topology, topology_tree, pre_override=None, vectors=None) -> bytes:
    """`vectors(challenges)`: the prover's vectors (committed weights' v = W rho; by default the honest ones)."""
    s = settings.spec.scale_bits
    main[len(plans):] = table_multiplicities(st.air, plans, main[: len(plans)], topology, s, strict=False)
    pre = pre_override or [topology_tree, *table_trees(st.air, s, settings.config.log_blowup),
                           *([settings.model_tree] if settings.model_tree is not None else [])]
    stark = prove_stark(st.air, settings.config, st.statement_bytes, main, pre,
                        vectors=vectors or partial(product_vectors, settings, st.air))
    return ProofFile(settings.parsed.digest, pub, stark).to_bytes()


def forge_as(displayed: Settings, cx: Graph, inputs: dict, public: list[list[int]] | None = None) -> bytes:
    """A dishonest publisher: settings.bin shows `displayed`, but the prover runs and proves the
    graph `cx` (its honest witness, topology included) and claims that run's outputs. The
    component layout must match (the forger pads nothing)."""
    if getattr(cx, "stwo_plan", None) is None:
        cx.compile(GenericCompiler(), StwoCompiler())
    settings, trace = cx.gen_settings(config=displayed.config), cx.gen_trace(inputs)
    main = main_columns(cx, settings.plans, trace.values, settings.air, settings.topology, settings.spec)
    pub = public if public is not None else trace.public
    st = build_statement(displayed.parsed, pub)
    sizes = [(c.name, c.log_size) for c in st.air.components]
    assert sizes == [(c.name, c.log_size) for c in settings.air.components], "forgery needs the same layout"
    return _prove_forged(displayed, st, displayed.plans, main, pub, settings.topology, settings.topology_tree)




# --- constant errors on the first rows of Freivalds instances (air/framework.py's plain-term rule) --


def matout_instances(settings: Settings) -> list[int]:
    """Indices (in settings.plans) of the MatOut components, one per Freivalds instance."""
    return [k for k, p in enumerate(settings.plans) if p.kind == "MatOut"]


def forge_instance_constants(cx: Graph, trace: Trace, settings: Settings, deltas: dict[int, int]) -> bytes:
    """A complete proof in which the MatOut instance settings.plans[k] claims its row-0 output
    `deltas[k]` raw units off the product: its first limb sum (S_lo, or S_ll with limb sums) gets
    e = delta 2^s on row 0, the row where the counters u = r = 1 make that sum's Freivalds term a
    constant. The rounding, its range limbs and every value downstream are re-solved (each node
    recomputed exactly from its forged inputs) and the forged outputs claimed, so with deltas
    summing to zero only the instances' constants could object: every constraint, range check
    and lookup holds."""
    from unittest import mock

    from luminair.prover.air import graph_trace as gt
    from luminair.prover.graph.execute import eval_exact, exact_constant
    from luminair.prover.graph.ops import Op
    from luminair.verifier.numeric import DOT_ACC_BOUND
    from luminair.verifier.graph.components import HALF

    s = settings.spec.scale_bits
    by_name = {settings.plans[k].component.name: d for k, d in deltas.items()}
    edits: dict[int, dict[int, int]] = {}
    for k, d in deltas.items():
        plan = settings.plans[k]
        seg = plan.segments[0]
        mp = settings.plan.matmuls.get(seg.node) or settings.plan.pairs[seg.node]
        offset, _ = gt._affine_rows(mp.out_view, seg.rows)
        edits.setdefault(seg.node, {})[int(offset[0])] = d
    values: dict[int, np.ndarray] = {}
    for node in cx.nodes():  # graph order: every value recomputed from its (forged) inputs
        if node.op in (Op.INPUT, Op.CONSTANT):
            values[node.id] = trace.values[node.id]
            continue
        c = exact_constant(node, cx.numeric_format)
        out = eval_exact(node, [view.gather(values[src.id]) for src, view in node.srcs], c).copy()
        for i, d in edits.get(node.id, {}).items():
            out[i] += d
        values[node.id] = out
    real = gt._mat_out_columns

    def forged_out(spec, graph, plan, fan, vals):  # noqa: ANN001, ANN202
        topo, cols = real(spec, graph, plan, fan, vals)
        d = by_name.get(plan.component.name)
        if vals is None or not d:
            return topo, cols
        first = "sll" if plan.component.split_w else "slo"
        cols[first][0] += d << s
        tot = 256 * cols["t1"] + cols["sll"] if plan.component.split_w else cols["slo"] + 256 * cols["shi"]
        rounded = (tot + (1 << (s - 1))) >> s
        out = rounded + (cols["bias"] if "bias" in cols else 0)
        cols["out"], cols["rem"] = out, tot + (1 << (s - 1)) - (rounded << s)
        cols[RANGED + first] = cols[first] + DOT_ACC_BOUND
        cols[RANGED + "tot"] = tot + DOT_ACC_BOUND
        cols[RANGED + "out"] = out + HALF
        cols[RANGED + "rem"] = cols["rem"]
        return topo, cols

    public = [list(v) for v in trace.public]
    n_in = len(public) - len(cx.outputs())
    for j, (node, view) in enumerate(cx.outputs().values()):
        idx = view.src_indices()
        raw = np.where(idx >= 0, values[node.id][np.maximum(idx, 0)], 0)
        public[n_in + j] = [int(v) % P for v in raw.reshape(-1)]
    forged = Trace(trace.inputs, values, public, trace.outputs, 0.0)
    with mock.patch.object(gt, "_mat_out_columns", forged_out), mock.patch.object(gt, "_check_product", lambda *a: None):
        return forge(cx, forged, settings, public=public)
