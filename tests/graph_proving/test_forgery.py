"""A dishonest prover (a patched witness generator that still builds a complete proof) cannot make
a wrong statement verify. Each forgery names the check that must catch it."""

import numpy as np

from luminair.prover import Graph
from luminair.prover.proving import table_trees
from luminair.prover.stark.prove import commit_preprocessed
from luminair.verifier.fields import P
from luminair.verifier.graph.components import HALF, limb_names
from luminair.verifier.graph.tables import function_table

from proving_helpers import check, component_index, forge, prove_graph

RNG = np.random.default_rng(11)


def set_limbs(cols, prefix, bits, value, rows=None):
    """Re-derive limbs of `value` the way a forger would (8 bits each, top limb not clipped)."""
    n = len(limb_names(prefix, bits))
    for i, name in enumerate(limb_names(prefix, bits)):
        v = value >> (8 * i)
        cols[name] = v if i == n - 1 else v & 255


def rows_of(settings, kind):
    return settings.plans[component_index(settings, kind)].rows


def test_the_honest_witness_through_the_forgery_path_verifies(mlp_case):
    cx, settings, trace, _ = mlp_case
    assert check(settings, forge(cx, trace, settings)).success


def test_claiming_a_different_output_value(mlp_case):
    cx, settings, trace, _ = mlp_case
    public = [list(v) for v in trace.public]
    public[-1][0] = (public[-1][0] + 1) % P
    r = check(settings, forge(cx, trace, settings, public=public))
    assert r.check == "LogUp sum", r.error_message


def _single(op_builder, shape, ranges):
    cx = Graph()
    ins = [cx.input(n, shape) for n in "ab"[: len(ranges)]]
    op_builder(*ins).output("out")
    feed = {n: RNG.uniform(*r, shape) for n, r in zip("ab", ranges)}
    settings, trace, proof = prove_graph(cx, feed)
    assert check(settings, proof).success
    return cx, settings, trace


def _public_out(trace, row_values):
    public = [list(v) for v in trace.public]
    public[-1] = [int(v) % P for v in row_values]
    return public


def test_one_op_result_changed_mid_graph_is_caught_by_its_constraint(mlp_case):
    """An Add (primitives) or Relu (fused) output one unit off and every reader fed the forged value
    (the data flow balances): the constraints catch it."""
    cx, settings, trace, _ = mlp_case
    kinds = [p.kind for p in settings.plans]
    kind = "Add" if "Add" in kinds else "Relu"
    k = component_index(settings, kind)
    name = settings.plans[k].component.name

    topo = settings.topology

    def tamper(main):
        cols = main[k]
        cols["out"][0] += 1
        if kind == "Add":
            set_limbs(cols, "out", 16, cols["out"] + HALF)
        # keep the data flow consistent: every reader of that element sees the forged value
        addr = topo[f"{name}.addr"][0]
        for j, plan in enumerate(settings.plans):
            comp = plan.component
            for key, inp in (("a", 0), ("b", 1), ("x", 0)):
                if f"{comp.name}.in{inp}_addr" not in topo:
                    continue
                real = topo[f"{comp.name}.in{inp}_real"] == 1
                if plan.kind == "MatIn":  # its lanes hold the value as lo + 256 hi
                    for lane in range(comp.lanes):
                        hit = (topo[f"{comp.name}.in0_addr"] + lane * topo[f"{comp.name}.in0_step"] == addr) & real
                        a = main[j][f"lo{lane}"] + 256 * main[j][f"hi{lane}"] + hit
                        main[j][f"lo{lane}"], main[j][f"hi{lane}"] = a & 255, a >> 8
                    continue
                if key in main[j]:
                    main[j][key][(topo[f"{comp.name}.in{inp}_addr"] == addr) & real] += 1
                for lane in range(getattr(comp, "lanes", 0) if key != "x" else 0):  # a Dot's lanes
                    lane_addr = topo[f"{comp.name}.in{inp}_addr"] + lane * topo[f"{comp.name}.in{inp}_step"]
                    main[j][f"{key}{lane}"][(lane_addr == addr) & real] += 1

    r = check(settings, forge(cx, trace, settings, tamper))
    # (a matrix product reading the forged value: its Freivalds sums, kept honest, no longer match
    # and the LogUp sum, checked first, objects before the constraint does)
    expect = ("OODS mismatch", "LogUp sum") if "MatIn" in kinds else ("OODS mismatch",)
    assert r.check in expect, r.error_message


def test_values_permuted_inside_a_tensor_break_the_data_flow():
    cx, settings, trace = _single(lambda a, b: a * b, (4, 4), [(-2, 2), (-2, 2)])
    k = component_index(settings, "Mul")
    s = settings.spec.scale_bits

    def tamper(main):
        c = main[k]
        c["a"][[0, 1]] = c["a"][[1, 0]]  # read x[1] as x[0] and vice versa
        prod = c["a"] * c["b"] + (1 << (s - 1))
        c["out"] = prod >> s
        c["rem"] = prod - (c["out"] << s)
        set_limbs(c, "out", 16, c["out"] + HALF)
        set_limbs(c, "rem", s, c["rem"])

    r = check(settings, forge(cx, trace, settings, tamper))
    assert r.check == "LogUp sum", r.error_message


def test_a_remainder_outside_its_range_is_caught_by_the_range_check():
    cx, settings, trace = _single(lambda a, b: a * b, (4, 4), [(-2, 2), (-2, 2)])
    k = component_index(settings, "Mul")
    s = settings.spec.scale_bits

    def tamper(main):
        c = main[k]
        c["out"][3] -= 1  # a*b + 2^(s-1) = (out - 1) 2^s + (rem + 2^s): same equation, rem too big
        c["rem"][3] += 1 << s
        set_limbs(c, "out", 16, c["out"] + HALF)
        set_limbs(c, "rem", s, c["rem"])

    out = trace.values[max(trace.values)].copy()
    out[3] -= 1
    r = check(settings, forge(cx, trace, settings, tamper, public=_public_out(trace, out)))
    assert r.check == "LogUp sum", r.error_message


def test_a_reduction_skipping_one_element_breaks_the_accumulator_chain():
    cx, settings, trace = _single(lambda a: a.sum_reduce(1), (3, 5), [(-1, 1)])
    k = component_index(settings, "SumReduce")
    skip_row, x_skipped = 2, None

    def tamper(main):
        nonlocal x_skipped
        c = main[k]
        x_skipped = int(c["x"][skip_row])
        c["acc"][skip_row:5] -= x_skipped  # rows 0..4 are group 0; acc no longer adds row 2
        last = np.zeros(len(c["acc"]), dtype=bool)
        last[list(settings.plans[k].component.sparse_columns["last"])] = True
        set_limbs(c, "out", 16, np.where(last, c["acc"] + HALF, 0))

    out = trace.values[max(trace.values)].copy()
    out[0] -= int(trace.values[0][skip_row])
    r = check(settings, forge(cx, trace, settings, tamper, public=_public_out(trace, out)))
    assert r.check == "OODS mismatch", r.error_message


def test_less_than_flipped_is_caught_by_its_range_check():
    cx, settings, trace = _single(lambda a, b: a.less_than(b), (4, 4), [(-2, 2), (-2, 2)])
    k = component_index(settings, "LessThan")
    one = 1 << settings.spec.scale_bits
    out = trace.values[max(trace.values)].copy()
    row = int(np.flatnonzero(out == one)[0])  # a < b here; claim a >= b

    def tamper(main):
        c = main[k]
        c["lt"][row] = 0
        set_limbs(c, "d", 16, c["b"] - c["a"] - 1 + (1 - c["lt"]) * (1 << 16))

    out[row] = 0
    r = check(settings, forge(cx, trace, settings, tamper, public=_public_out(trace, out)))
    assert r.check == "LogUp sum", r.error_message


def test_max_reduce_picking_a_non_maximum_is_caught_by_the_comparison():
    cx, settings, trace = _single(lambda a: a.max_reduce(1), (2, 6), [(-4, 4)])
    k = component_index(settings, "MaxReduce")
    x = trace.values[0][:6]
    top = int(np.argmax(x))
    assert top > 0

    def tamper(main):
        c = main[k]
        # at the maximum's row, claim it is not larger than the running max
        c["ge"][top] = 0
        for r in range(top, 6):
            c["m"][r] = c["m"][top - 1] if r == top else max(c["m"][r - 1], c["x"][r])
            if r > top:
                c["ge"][r] = int(c["x"][r] >= c["m"][r - 1])
        prev = np.roll(c["m"], 1)
        first = np.zeros(len(c["m"]), dtype=bool)
        first[list(settings.plans[k].component.sparse_columns["first"])] = True
        diff = (2 * c["ge"] - 1) * (c["x"] - prev) - (1 - c["ge"])
        set_limbs(c, "diff", 16, np.where(first, 0, diff))

    out = trace.values[max(trace.values)].copy()
    out[0] = max(int(v) for i, v in enumerate(x) if i != top)  # the second largest
    r = check(settings, forge(cx, trace, settings, tamper, public=_public_out(trace, out)))
    # the difference is negative: its top limb is not a range8 value, so the lookup cannot balance
    assert r.check == "LogUp sum", r.error_message


def _forged_exp2_table_proof():
    """A proof whose exp2 table says exp2(x0) is one unit more, and whose trace uses that row."""
    cx, settings, trace = _single(lambda a: a.exp2(), (4, 4), [(-2, 2)])
    s = settings.spec.scale_bits
    k = component_index(settings, "Exp2")
    xs, ys = function_table("exp2", s)
    from luminair.verifier.graph.tables import table_start

    start = table_start("exp2", s)
    x0 = int(trace.values[0][0])
    ys = list(ys)
    ys[x0 - start] = (ys[x0 - start] + 1) % P
    from luminair.verifier.graph.statement import build_graph_air

    air, _ = build_graph_air(settings.spec, settings.config.log_blowup)
    tree_idx = [t.name for t in air.preprocessed].index("table.exp2")
    forged = commit_preprocessed(
        air.preprocessed[tree_idx], {"table.exp2.in": np.array(xs), "table.exp2.out": np.array(ys)}, settings.config.log_blowup
    )
    honest = [settings.topology_tree, *table_trees(air, s, settings.config.log_blowup)]
    pre = honest[:tree_idx] + [forged] + honest[tree_idx + 1 :]

    def tamper(main):
        main[k]["y"][0] += 1

    out = trace.values[max(trace.values)].copy()
    out[0] += 1
    return settings, air, forge(cx, trace, settings, tamper, public=_public_out(trace, out), pre_override=pre)


def test_a_wrong_table_entry_is_caught_by_the_verifiers_own_table_evaluation():
    settings, _, proof = _forged_exp2_table_proof()
    r = check(settings, proof)
    assert r.check == "OODS mismatch" and "table.exp2.out" in r.error_message, r.error_message


def test_a_wrong_table_entry_with_the_true_tables_sample_fails_the_openings(monkeypatch):
    """The prover commits the forged table but claims the true table's value at the out-of-domain
    point: the composition no longer matches its samples, or the DEEP quotient is not low degree."""
    import importlib

    verify_module = importlib.import_module("luminair.verifier.verify")
    from luminair.verifier.formats import read_proof_file

    settings, air, proof = _forged_exp2_table_proof()
    t, c = air.layout.pre_index["table.exp2.out"]
    seen = {}
    real_check = verify_module.check_known_columns

    def capture(air_, sampled, oods):  # the OODS point is drawn before the samples are mixed
        seen["oods"] = oods
        real_check(air_, sampled, oods)

    monkeypatch.setattr(verify_module, "check_known_columns", capture)
    assert check(settings, proof).check == "OODS mismatch"
    monkeypatch.setattr(verify_module, "check_known_columns", real_check)
    from luminair.verifier.poly import dense_columns_at

    log = air.layout.columns[t][c].log_size
    _, ys = function_table("exp2", settings.spec.scale_bits)
    pf = read_proof_file(proof)
    true_value = dense_columns_at(seen["oods"], [ys], log)[0]
    assert pf.stark.sampled_values[t][c][0] != true_value
    pf.stark.sampled_values[t][c][0] = true_value
    r = check(settings, pf.to_bytes())
    assert r.check in ("OODS mismatch", "FRI", "Merkle path"), (r.check, r.error_message)
    assert "table.exp2" not in (r.error_message or ""), r.error_message


def test_changed_public_inputs_or_outputs_in_the_file_are_rejected(mlp_case):
    from luminair.verifier.formats import read_proof_file

    cx, settings, trace, proof = mlp_case
    for tensor in (0, len(trace.public) - 1):
        pf = read_proof_file(proof.data)
        pf.public_values[tensor][0] = (pf.public_values[tensor][0] + 1) % P
        r = check(settings, pf.to_bytes())
        assert r.check == "LogUp sum", r.error_message
