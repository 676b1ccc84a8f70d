"""A dishonest publisher: settings.bin shows one model, the prover (patched as needed) proves
another and writes a self-consistent proof for the displayed file. The verifier derives every
topology column, weight and output map from the displayed file itself, so each is rejected with a
named check; nothing is taken from a root, count or map written by the publisher."""

import numpy as np

from luminair.prover import GenericCompiler, StwoCompiler
from luminair.verifier.fields import P

from make_forgeries import X, _maps, _mlp, _reads, _two
from proving_helpers import check, component_index, forge, forge_as, prove_graph


def test_a_changed_weight_is_rejected():
    """The file shows w = [.5, .25, -1, 2]; the prover computes with w[0] = .75."""
    shown = np.array([[0.5], [0.25], [-1.0], [2.0]])
    proven = shown.copy()
    proven[0, 0] = 0.75
    displayed, _, honest = prove_graph(_mlp(shown), X)
    assert check(displayed, honest).success
    r = check(displayed, forge_as(displayed, _mlp(proven), X))
    assert r.check == "LogUp sum", r.error_message


def test_known_rows_that_show_the_displayed_weight_but_feed_another_are_rejected():
    """The patched prover keeps the displayed weight in its known rows and feeds the product rows
    another value: the data flow no longer balances."""
    cx = _mlp(np.array([[0.5], [0.25], [-1.0], [2.0]]))
    cx.compile(GenericCompiler(), StwoCompiler(fuse=False))  # test_fused_forgery.py: the Dot twin
    settings, trace, _ = prove_graph(cx, X)
    k = component_index(settings, "Mul")

    def tamper(main):
        main[k]["b"][0] += 256
        # the forger recomputes the product so the Mul constraints hold
        s = settings.spec.scale_bits
        prod = main[k]["a"] * main[k]["b"] + (1 << (s - 1))
        main[k]["out"] = prod >> s
        main[k]["rem"] = prod - (main[k]["out"] << s)

    r = check(settings, forge(cx, trace, settings, tamper))
    assert r.check in ("LogUp sum", "OODS mismatch"), r.error_message
    assert not r.success


def test_a_rewired_edge_is_rejected():
    """The file shows y = x * c1 + c2; the prover computes y = x * c2 + c1 (same shapes, same
    layout): the addresses the product rows read are pinned by the displayed graph."""
    displayed, _, honest = prove_graph(_two(False), X)
    assert check(displayed, honest).success
    r = check(displayed, forge_as(displayed, _two(True), X))
    assert r.check == "OODS mismatch", r.error_message


def test_an_input_the_proven_graph_never_reads_is_rejected():
    """The file shows y = x * z; the proof is of y = z * z, which never reads the input x."""
    feed = {"x": np.array([[1.0, 2.0, 3.0, 4.0]]), "z": np.array([[0.5, -0.5, 1.0, 2.0]])}
    displayed, _, honest = prove_graph(_reads(True), feed)
    assert check(displayed, honest).success
    r = check(displayed, forge_as(displayed, _reads(False), feed))
    assert r.check == "OODS mismatch", r.error_message


def test_a_changed_fan_out_is_rejected(mlp_case):
    """Fan-outs are witnesses now; one that does not match the reads leaves the LogUp sum open."""
    cx, settings, trace, _ = mlp_case
    for key in ("known.m0", f"{_elementwise(settings)}.mult"):

        def tamper(topo, key=key):
            topo[key][0] += 1

        r = check(settings, forge(cx, trace, settings, tamper_topology=tamper))
        assert r.check == "LogUp sum", (key, r.error_message)


def _grouped(settings) -> int:
    """The first component whose rows form groups: SumReduce (primitives; with MaxReduce, the
    merged SumMaxReduce) or a matrix product's
    output side (fused: MatOut, groups of one row per output element per m; or a Dot)."""
    return next(i for i, p in enumerate(settings.plans)
                if p.kind in ("SumReduce", "SumMaxReduce", "MatOut") or p.kind.startswith("Dot"))


def _elementwise(settings) -> str:
    """An elementwise component of the MLP: add (primitives) or relu (fused: the biases are in the Dots)."""
    names = [p.component.name for p in settings.plans]
    return "add" if "add" in names else "relu"


def _product(settings) -> str:
    """The name of the component reading x @ w's operands: mul, or a fused matrix product's input
    side (MatIn: its weights are the verifier's, so it reads x alone) or dot."""
    return next(p.component.name for p in settings.plans if p.kind in ("Mul", "MatIn") or p.kind.startswith("Dot"))


def _operand_keys(p: str) -> list[str]:
    return [f"{p}.in0_addr", f"{p}.in0_step"] if p.startswith("matin") else [f"{p}.in1_addr"]


def test_a_fan_out_on_a_row_that_yields_nothing_is_rejected(mlp_case):
    """A padding row (or a reduction row that is not a group's last) must not yield anything."""
    cx, settings, trace, _ = mlp_case
    k = _grouped(settings)
    comp = settings.plans[k].component
    if "last" in comp.sparse_columns:  # a reduction: a row that is not its group's last
        last = comp.sparse_columns["last"]
        row = next(r for r in range(1, 64) if r not in last)
    else:  # one output element a row: a padding row (of another producer if this one has none)
        k = next(i for i in [k] + list(range(len(settings.plans)))
                 if "mult" in settings.plans[i].component.topology_columns()
                 and settings.plans[i].rows < 1 << settings.plans[i].component.log_size)
        comp, row = settings.plans[k].component, settings.plans[k].rows

    def tamper(topo):
        topo[f"{comp.name}.mult"][row] = 1

    r = check(settings, forge(cx, trace, settings, tamper_topology=tamper))
    assert not r.success and r.check in ("OODS mismatch", "LogUp sum"), r.error_message


def test_a_topology_column_that_departs_from_the_graph_is_rejected(mlp_case):
    """The topology tree is the prover's commitment: change any address or flag and either the
    difference constraints against the verifier's own sparse columns fail (OODS) or the reads it
    redirects find no matching element (LogUp), whichever the verifier meets first."""
    cx, settings, trace, _ = mlp_case
    p, g = _product(settings), settings.plans[_grouped(settings)].component.name
    keys = [*_operand_keys(p), f"{p}.in0_real", f"{g}.addr", "known.addr", f"{_elementwise(settings)}.is_real"]
    keys += [f"{p}.in0_step", f"{p}.in1_step"] if p.startswith("dot") else []
    for key in keys:

        def tamper(topo, key=key):
            topo[key][3] += 1

        r = check(settings, forge(cx, trace, settings, tamper_topology=tamper))
        assert not r.success and r.check in ("OODS mismatch", "LogUp sum"), (key, r.error_message)


def test_a_topology_column_shifted_as_a_whole_is_rejected(mlp_case):
    """Shifting every row of a column by a constant keeps its differences: only the anchor at row 0
    (and what the shifted addresses or flags then read) can catch it."""
    cx, settings, trace, _ = mlp_case
    p, g = _product(settings), settings.plans[_grouped(settings)].component.name
    keys = [*_operand_keys(p), f"{g}.addr", f"{_elementwise(settings)}.in0_real", "known.is_real"]
    keys += [f"{p}.in1_step"] if p.startswith("dot") else []
    for key in keys:

        def tamper(topo, key=key):
            topo[key] += 1

        r = check(settings, forge(cx, trace, settings, tamper_topology=tamper))
        assert not r.success and r.check in ("OODS mismatch", "LogUp sum"), (key, r.error_message)


def test_permuted_output_maps_are_rejected():
    """The file maps y to the transpose of the product; the proof claims the untransposed values."""
    feed = {"x": np.array([[0.5, 1.0], [1.5, 2.0]])}
    displayed, _, honest = prove_graph(_maps(True), feed)
    assert check(displayed, honest).success
    r = check(displayed, forge_as(displayed, _maps(False), feed))
    assert r.check == "LogUp sum", r.error_message


def test_an_output_value_relabelled_inside_the_proof_is_rejected(mlp_case):
    """Swapping two output values in proof.bin (a relabelling the map does not allow)."""
    from luminair.verifier.formats import read_proof_file

    _, settings, trace, proof = mlp_case
    pf = read_proof_file(proof.data)
    out = pf.public_values[-1]
    i, j = next((i, j) for i in range(len(out)) for j in range(len(out)) if out[i] != out[j])
    out[i], out[j] = out[j], out[i]
    r = check(settings, pf.to_bytes())
    assert r.check == "LogUp sum", r.error_message


def test_a_degenerate_oods_point_is_refused(monkeypatch, mlp_case):
    """Force the OODS point onto y = conj(y) (an M31 point): refused by name."""
    import importlib

    from luminair.verifier.circle import index_to_point, qpoint_from_point

    verify_module = importlib.import_module("luminair.verifier.verify")
    _, settings, _, proof = mlp_case
    point = qpoint_from_point(index_to_point(12345))  # an M31 point: y is its own conjugate
    assert verify_module.degenerate(point)
    monkeypatch.setattr(verify_module, "qpoint_from_t", lambda t: point)
    r = check(settings, proof)
    assert r.check == "OODS mismatch" and "degenerate sample point" in r.error_message, r.error_message


def test_every_shifted_mask_point_is_checked(monkeypatch, mlp_case):
    """A point that is fine itself but whose mask one row back is degenerate is refused too."""
    import importlib

    from luminair.verifier.air.point import shifted_point

    verify_module = importlib.import_module("luminair.verifier.verify")
    _, settings, _, proof = mlp_case
    drawn = []
    real_draw = verify_module.qpoint_from_t
    monkeypatch.setattr(verify_module, "qpoint_from_t", lambda t: drawn.append(real_draw(t)) or drawn[-1])
    n = settings.air.components[_grouped(settings)].log_size
    monkeypatch.setattr(verify_module, "degenerate", lambda p: bool(drawn) and p == shifted_point(drawn[-1], -1, n))
    r = check(settings, proof)
    assert r.check == "OODS mismatch" and "mask offset -1" in r.error_message, r.error_message


def test_public_values_outside_the_field_range_are_not_silently_reduced(mlp_case):
    _, settings, trace, proof = mlp_case
    from luminair.verifier.formats import read_proof_file

    pf = read_proof_file(proof.data)
    pf.public_values[0][0] = (pf.public_values[0][0] + 7) % P
    assert check(settings, pf.to_bytes()).check == "LogUp sum"
