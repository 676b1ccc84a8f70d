"""Twins of the protocol steps: OODS evaluation, DEEP quotients, FRI folds, constraint evaluators."""

import random

import numpy as np
import pytest

from luminair.prover.stark import circle_fft as cf
from luminair.prover.stark.constraints import DomainEvaluator
from luminair.prover.stark.fri_prover import fold_circle, fold_line
from luminair.prover.stark.pcs_prover import eval_at_point, quotient_column
from example_airs import FibonacciComponent, SquareTableComponent, SquareUserComponent
from luminair.verifier.air.framework import Air
from luminair.verifier.air.point import PointEvaluator, shifted_point
from luminair.verifier.circle import domain_point, line_domain_x, qpoint_from_point, qpoint_from_t
from luminair.verifier.fields import P
from luminair.verifier.pcs import Sample, quotient_values
from luminair.verifier.poly import eval_circle_poly_m31, fold_circle_pair, fold_line_pair


def arr(x):
    return np.array(x, dtype=np.uint64)


def test_eval_at_point_matches_the_folding_evaluation():
    rng = random.Random(1)
    coeffs = [arr([rng.randrange(P) for _ in range(64)]) for _ in range(3)]
    z = qpoint_from_t((9, 8, 7, 6))
    got = eval_at_point(coeffs, z)
    assert got == [eval_circle_poly_m31(c.tolist(), z) for c in coeffs]


def test_vectorized_folds_match_scalar_folds():
    rng = random.Random(2)
    n = 5
    col = tuple(arr([rng.randrange(P) for _ in range(1 << n)]) for _ in range(4))
    alpha = (5, 6, 7, 8)
    out = fold_circle(col, n, alpha)
    for i in range(1 << (n - 1)):
        e = tuple(int(c[2 * i]) for c in col)
        o = tuple(int(c[2 * i + 1]) for c in col)
        assert tuple(int(c[i]) for c in out) == fold_circle_pair(e, o, domain_point(2 * i, n)[1], alpha)
    out = fold_line(col, n, alpha)
    for i in range(1 << (n - 1)):
        e = tuple(int(c[2 * i]) for c in col)
        o = tuple(int(c[2 * i + 1]) for c in col)
        assert tuple(int(c[i]) for c in out) == fold_line_pair(e, o, line_domain_x(2 * i, n), alpha)


def test_quotient_column_matches_the_verifier_at_every_position():
    rng = random.Random(3)
    ell = 5
    cols = {(0, c): arr([rng.randrange(P) for _ in range(1 << ell)]) for c in range(3)}
    z = qpoint_from_t((1, 2, 3, 4))
    z2 = shifted_point(z, 1, ell - 1)
    samples = [
        Sample(0, 0, z, (1, 2, 3, 4)),
        Sample(0, 1, z, (5, 6, 7, 8)),
        Sample(0, 1, z2, (9, 9, 9, 9)),
        Sample(0, 2, z2, (0, 1, 0, 1)),
    ]
    alpha = (11, 12, 13, 14)
    vec = quotient_column(ell, samples, cols, alpha)
    opened = {k: dict(enumerate(v.tolist())) for k, v in cols.items()}
    ref = quotient_values(ell, list(range(1 << ell)), samples, opened, alpha)
    assert [tuple(int(c[p]) for c in vec) for p in range(1 << ell)] == [ref[p] for p in range(1 << ell)]


def _components():

    from luminair.verifier.graph.components import (
        COMPONENT_ORDER,
        FunctionTableComponent,
        RangeTableComponent,
        make_component,
    )

    comps = [FibonacciComponent(4, 5, 1, 1, 77), SquareUserComponent(4, 123), SquareTableComponent(4)]
    rng = random.Random(9)
    made = []
    for kind in COMPONENT_ORDER:
        comp = make_component(kind, 4, 10)
        if comp.aux_columns:  # (challenges and aux columns: BoundaryInput, whose proofs check it end to end,
            continue  # tests/graph_proving/test_segments.py)
        # random sparse topology columns and anchors: the closed form must match the dense column
        for col in comp.topology_kinds():
            comp.sparse_columns[f"d.{col}"] = {r: rng.randrange(P) for r in rng.sample(range(16), 3)}
            comp.anchors[col] = rng.randrange(P)
        if comp.reduce:
            comp.sparse_columns["first"] = {r: 1 for r in rng.sample(range(16), 4)}
            comp.sparse_columns["last"] = {r: 1 for r in rng.sample(range(16), 4)}
        comps.append(comp)
        made.append((kind, comp))
    for kind, comp in made[:9]:  # 16-bit limbs (RANGE16_MIN_LOG)
        if not comp.ranges:
            continue
        wide = make_component(kind, 4, 10)
        wide.sparse_columns, wide.anchors = comp.sparse_columns, comp.anchors
        wide.use_limbs(16)
        wide.name = f"{comp.name}.limbs16"
        comps.append(wide)
    comps += [RangeTableComponent(8), RangeTableComponent(16), FunctionTableComponent("exp2", 4)]
    return comps


@pytest.mark.parametrize("component", _components(), ids=lambda c: c.name)
def test_domain_evaluator_equals_point_evaluator_on_the_same_values(component):
    """Random polynomials for every column the component reads (main, preprocessed, interaction),
    random LogUp elements: the prover's combination of all constraints at a domain point equals
    the verifier's combination from the same polynomials' values at that point."""
    from luminair.verifier.air.framework import PreprocessedColumn, PreprocessedTree, RelationElements, component_info
    from luminair.verifier.air.framework import logup_constraints

    rng = random.Random(4)
    n = component.log_size
    m = n + 1
    keys = sorted(component_info(component).pre_masks)
    air = Air([component], [PreprocessedTree("pre", [PreprocessedColumn(k, n) for k in keys])] if keys else [])
    info = air.infos[0]
    lay = air.layout
    rand_poly = lambda: arr([rng.randrange(P) for _ in range(1 << n)])  # noqa: E731
    coeffs = {("main", name): rand_poly() for name in component.main_columns}
    coeffs.update({("pre", k): rand_poly() for k in keys})
    n_inter = len(lay.columns[lay.interaction_tree]) if lay.interaction_tree is not None else 0
    coeffs.update({("inter", str(i)): rand_poly() for i in range(n_inter)})
    ext = {k: cf.extend(c, m) for k, c in coeffs.items()}
    alpha = (3, 5, 7, 11)
    rq = lambda: tuple(rng.randrange(P) for _ in range(4))  # noqa: E731
    elements = {rel: RelationElements(rq(), rq()) for rel in air.relations}
    shift = rq()

    def source(kind, key, offset):
        if kind in ("main", "pre", "inter"):
            col = ext[(kind, key)]
        elif kind == "sparse":
            dense = np.zeros(1 << n, dtype=np.uint64)
            for r, v in component.sparse_columns[key].items():
                dense[cf.row_to_storage(n)[r]] = v
            col = cf.extend(cf.circle_interpolate(dense), m)
        else:
            ind = np.zeros(1 << n, dtype=np.uint64)
            ind[cf.row_to_storage(n)[int(key)]] = 1
            col = cf.extend(cf.circle_interpolate(ind), m)
        return col if offset == 0 else col[cf.mask_permutation(m, n, offset)]

    def interaction(batch, offset):
        return tuple(source("inter", str(4 * batch + k), offset) for k in range(4))

    ev = DomainEvaluator(component, 1 << m, source, interaction, alpha, info.n_constraints)
    component.evaluate(ev)
    ev.finalize_logup(elements, info.n_batches, shift)
    for pos in (0, 3, 17, (1 << m) - 1):
        pt = qpoint_from_point(domain_point(pos, m))
        sampled = []
        for t, cols in enumerate(lay.columns):
            vals = []
            for c, slot in enumerate(cols):
                if t == lay.main_tree:  # the preprocessed columns open the main tree, before the component's
                    key = ("pre", keys[c]) if c < len(keys) else ("main", component.main_columns[c - len(keys)])
                elif t == lay.interaction_tree:
                    key = ("inter", str(c))
                else:  # the composition tree
                    vals.append([(0, 0, 0, 0)] * len(slot.masks))
                    continue
                vals.append([eval_circle_poly_m31(coeffs[key].tolist(), shifted_point(pt, o, n)) for o in slot.masks])
            sampled.append(vals)
        pe = PointEvaluator(0, component, lay, sampled, pt, alpha)
        component.evaluate(pe)
        if info.n_batches:
            logup_constraints(pe, pe.entries, elements, info.n_batches, shift)
        assert tuple(int(c[pos]) for c in ev.acc) == pe.acc
