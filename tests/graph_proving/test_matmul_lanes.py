"""How many values of A a MatIn row holds (matmul._split): one lane while a one-lane MatIn stays
within MAT_SMALL_ROWS rows (8 columns fewer, each opened at every query), two past it, wider past
MAT_ROWS; one-lane rows are checked as strictly as any."""

import numpy as np

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.verifier.graph.matmul import MAT_SMALL_ROWS, _split

from proving_helpers import check, component_index, forge, prove_exact


def test_lanes_follow_the_rows_a_matin_would_take():
    assert _split(96, 4) == (1, 7)  # 4 rows of A x 128 (96 padded): 512 rows, one lane
    assert _split(784, 1) == (1, 10)  # an MLP's first layer at batch 1
    assert 16 << 10 > MAT_SMALL_ROWS and _split(784, 16) == (2, 9)  # 16 rows of A: two lanes
    assert _split(1024, 64) == (4, 8) and _split(1024, 512)[0] == 8  # past MAT_ROWS (2 lanes: 2^15 rows): wider


def _one_lane_case():
    rng = np.random.default_rng(11)
    cx = Graph()
    x = cx.input("x", (3, 40))
    (x @ cx.constant(rng.uniform(-0.8, 0.8, (40, 5)), "w")).output("y")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = {"x": rng.uniform(-1, 1, (3, 40))}
    settings, trace = prove_exact(cx, feed, ("y",))
    return cx, settings, trace


def test_a_one_lane_product_proves_and_a_value_it_did_not_read_is_rejected():
    cx, settings, trace = _one_lane_case()
    k = component_index(settings, "MatIn")
    assert settings.plans[k].component.name.startswith("matin1.") and settings.plan.matmuls[2].lanes == 1

    assert check(settings, forge(cx, trace, settings, lambda main: None)).success  # the forger's baseline

    def tamper(main):
        main[k]["lo0"][5] = (main[k]["lo0"][5] + 1) % 256  # x[0, 5] read one unit off

    r = check(settings, forge(cx, trace, settings, tamper))
    assert not r.success and r.check in ("LogUp sum", "OODS mismatch"), r.error_message


def test_matins_merge_across_periods_only_within_the_verifiers_budget():
    """A product of K = 2048 (period 2^11) and seven of K = 4 (period 4, 256 rows each) would save
    rows in one MatIn, but its periodic column would hold 8 x 2^11 values against the 2076 the
    budget pays for through the nodes' K (budget.graph_work): they stay two components. With one
    product of K = 512 (4 rows of A, period 2^9) the column holds 2 x 2^11 values, within
    4 x 2560: one component."""
    rng = np.random.default_rng(5)

    def plans(n_small, m, k):
        cx = Graph()
        x = cx.input("x", (1, 2048))
        (x @ cx.constant(rng.uniform(-0.1, 0.1, (2048, 4)), "w")).output("y")
        for i in range(n_small):
            z = cx.input(f"z{i}", (m, k))
            (z @ cx.constant(rng.uniform(-0.5, 0.5, (k, 4)), f"w{i}")).output(f"u{i}")
        cx.compile(GenericCompiler(), StwoCompiler())
        return [p for p in cx.gen_settings(preset="default").plans if p.kind == "MatIn"]

    assert [len(p.nodes) for p in plans(7, 64, 4)] == [1, 7]
    assert [len(p.nodes) for p in plans(1, 4, 512)] == [2]
