"""The planner's cost view against the layout it plans (verifier/graph/planner.py): the work
budget's charges come from the plan before anything is built, the search compiler's cells per row
from the same components, so neither may drift from what the statement then builds."""

from __future__ import annotations

from pathlib import Path

import pytest

from luminair.prover.air.graph_trace import build_spec
from luminair.prover.compile import GenericCompiler, StwoCompiler
from luminair.prover.compile.search_cost import cells_per_row, padded_rows
from luminair.prover.onnx import load_onnx
from luminair.verifier.graph.plan import component_cells
from luminair.verifier.graph.planner import plan_graph
from luminair.verifier.graph.statement import build_components

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module", params=["mlp_16_16_4", "mlp_784_128_10", "cnn_cifar", "transformer_tiny"])
def planned(request):
    cx = load_onnx(EXAMPLES / request.param / "network.onnx")
    cx.compile(GenericCompiler(), StwoCompiler())
    plan = plan_graph(build_spec(cx))
    return plan, build_components(plan)


def test_the_plans_instances_are_the_components_built(planned):
    plan, built = planned
    assert [(i.kind, i.name, list(i.nodes), i.rows, i.log_size) for i in plan.instances] == [
        (p.kind, p.component.name, p.nodes, p.rows, p.component.log_size) for p in built]


def test_the_boundary_bound_the_budget_charges_bounds_the_topology_built(planned):
    plan, built = planned
    for inst, p in zip(plan.instances, built):
        listed = sum(len(col) for key, col in p.component.sparse_columns.items() if key.startswith("d."))
        if inst.kind not in ("MatIn", "MatPair", "MatOut"):  # (a product's bound covers its MatOut share too)
            assert listed <= inst.boundary_bound, inst.name
    total = sum(len(col) for p in built for col in p.component.sparse_columns.values())
    assert 0 < total <= plan.boundary_bound


def test_the_public_terms_the_budget_charges_are_the_statements(planned):
    """One LogUp term per known row and per row of a Dot reading its weights directly, one per output
    element: counted from the built components' segments, as graph_statement's public_sum adds them."""
    plan, built = planned
    rows = sum(seg.rows for p in built if p.kind == "Known" or (p.instance.variant and p.instance.variant.direct)
               for seg in p.segments)
    assert plan.public_terms() == rows + sum(len(o.src_indices) for o in plan.spec.outputs)


def test_the_search_cost_model_bounds_each_op_components_cells(planned):
    """search_cost's cells per row come from the same components; with 8-bit limbs they are the
    component's own, with 16-bit limbs (a large graph) an upper bound (more limbs, more lookups)."""
    plan, built = planned
    per_row = cells_per_row(plan.spec.scale_bits)
    for p in built:
        if p.kind not in per_row:
            continue  # the checked products and tables: the search models them as Dots, or not at all
        estimate = per_row[p.kind] * (1 << p.component.log_size)
        actual = component_cells(p.component)["cells"]
        assert estimate == actual if plan.limb_bits == 8 else estimate >= actual, p.component.name
    assert padded_rows(1000) == 1024 and padded_rows(1 << 20) == 1 << 20
