"""The graph settings reader refuses every malformed statement with the field named, and the
statement checks refuse public values that do not fit the model."""

import numpy as np
import pytest

from luminair.verifier.merkle import DIGEST_BYTES
from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.verifier import verify
from luminair.verifier.formats import read_proof_file
from luminair.verifier.statement import KIND_GRAPH, encode_settings, read_settings
from luminair.verifier.graph.planner import plan_graph

from proving_helpers import check, prove_graph


@pytest.fixture(scope="module")
def case():
    cx = Graph()
    x = cx.input("x", (2, 3))
    w = cx.constant(np.array([[0.5, -1.0, 0.25], [1.0, 0.5, -0.5]]), "w")
    (x * w).sum_reduce(1).output("y")
    cx.compile(GenericCompiler(), StwoCompiler(fuse=False))  # node 2 a Mul, node 3 a SumReduce
    settings, trace, proof = prove_graph(cx, {"x": np.array([[1.0, 2, 3], [4, 5, 6]]) / 8})
    assert check(settings, proof).success
    return settings, proof


@pytest.fixture(scope="module")
def fused_case():
    cx = Graph()
    x = cx.input("x", (2, 8))
    w = cx.constant(np.linspace(-1, 1, 24).reshape(8, 3), "w")
    (x @ w).output("y")
    settings, trace, proof = prove_graph(cx, {"x": np.linspace(-1, 1, 16).reshape(2, 8)})
    assert [n.op for n in settings.spec.nodes] == ["Input", "Constant", "Dot"]
    assert check(settings, proof).success
    return settings, proof


def _respec(settings, edit):
    spec = read_settings(settings.data).body
    edit(spec)
    return encode_settings(KIND_GRAPH, settings.config, spec)


EDITS = {
    "forward reference": (lambda g: g.nodes[2].srcs.__setitem__(0, (3,) + g.nodes[2].srcs[0][1:]), "not earlier"),
    "wrong input count": (lambda g: g.nodes[2].srcs.pop(), "takes 2 inputs"),
    "bad permute": (lambda g: g.nodes[2].srcs.__setitem__(0, (0, (2, 3), (("permute", (0, 0)),))), "permute"),
    "bad reshape": (lambda g: g.nodes[2].srcs.__setitem__(0, (0, (2, 3), (("reshape", (7,)),))), "reshape"),
    "shape mismatch": (lambda g: setattr(g.nodes[2], "shape", (3, 2)), "do not match"),
    "constant out of range": (lambda g: g.nodes[1].values.__setitem__(0, 1 << 20), "16-bit value range"),
    "constant count": (lambda g: g.nodes[1].values.pop(), "values for shape"),
    "output view": (lambda g: setattr(g.outputs[0], "steps", (("reshape", (7,)),)), "output 0 view"),
    "control character in the title": (lambda g: setattr(g, "title", "ok\x1b[2K\rVALID"), "U+001B"),
    "bidi override in an output name": (lambda g: setattr(g.outputs[0], "name", "y\u202e"), "U+202E"),
    "newline in a node name": (lambda g: setattr(g.nodes[2], "name", "a\nb"), "U+000A"),
    "title too long": (lambda g: setattr(g, "title", "t" * 201), "more than 200"),
    "input listed twice": (lambda g: g.inputs.append(g.inputs[0]), "listed twice"),
    "input missing": (lambda g: g.inputs.clear(), "listed exactly once"),
    "non-affine view": (
        lambda g: g.nodes[2].srcs.__setitem__(0, (0, (2, 3), (("permute", (1, 0)), ("reshape", (2, 3))))),
        "affine views",
    ),
    "no outputs": (lambda g: g.outputs.clear(), "no outputs"),
    "window wider than its axis": (
        lambda g: g.nodes[2].srcs.__setitem__(0, (0, (2, 3), (("window", (1, 4, 1, 1)),))), "window (1, 4, 1, 1)"),
    "window axis out of range": (
        lambda g: g.nodes[2].srcs.__setitem__(0, (0, (2, 3), (("window", (2, 1, 1, 1)),))), "window (2, 1, 1, 1)"),
    "window stride 0": (
        lambda g: g.nodes[2].srcs.__setitem__(0, (0, (2, 3), (("window", (1, 2, 0, 1)),))), "window (1, 2, 0, 1)"),
    "window of three values": (
        lambda g: g.nodes[2].srcs.__setitem__(0, (0, (2, 3), (("window", (1, 2, 1)),))), "expected (axis, k, stride"),
    "window over a padded axis": (
        lambda g: g.nodes[2].srcs.__setitem__(0, (0, (2, 3), (("pad", ((0, 0), (1, 1))), ("window", (1, 3, 2, 1)),
                                                             ("reshape", (2, 6)), ("slice", ((0, 2, 1), (0, 3, 1)))))),
        "affine views",
    ),
    "reduce axis": (lambda g: setattr(g.nodes[3], "axis", 5), "axis"),
    "scale": (lambda g: setattr(g, "scale_bits", 20), "scale_bits"),
    "tensor too large": (lambda g: setattr(g.nodes[0], "shape", (1 << 13, 1 << 12)), "more than a tensor may"),
}


def _assert_malformed(case, edit, needle):
    settings, proof = case
    r = verify(proof.data, _respec(settings, edit), min_security_bits=0)
    assert r.check == "malformed file" and needle in r.error_message, r.error_message


@pytest.mark.parametrize("name", sorted(EDITS))
def test_malformed_graph_settings_are_rejected_with_the_field_named(case, name):
    _assert_malformed(case, *EDITS[name])


DOT_EDITS = {
    "dot axis": (lambda g: setattr(g.nodes[2], "axis", 7), "Dot over axis 7"),
    "dot output shape": (lambda g: setattr(g.nodes[2], "shape", (2, 4)), "cannot give (2, 4)"),
    "dot operand shapes": (
        lambda g: g.nodes[2].srcs.__setitem__(1, (1, (8, 3), (("permute", (1, 0)), ("reshape", (1, 3, 8))))),
        "Dot input shapes",
    ),
    "dot input count": (lambda g: g.nodes[2].srcs.pop(), "Dot takes 2 inputs"),
    "dot bias shape": (lambda g: g.nodes[2].srcs.append((0, (2, 8), ())), "bias view has shape (2, 8)"),
    "dot padded bias": (
        lambda g: g.nodes[2].srcs.append((0, (2, 8), (("slice", ((0, 2, 1), (0, 2, 1))), ("pad", ((0, 0), (0, 1)))))),
        "must not pad",
    ),
}


@pytest.mark.parametrize("name", sorted(DOT_EDITS))
def test_malformed_fused_nodes_are_rejected_with_the_field_named(fused_case, name):
    _assert_malformed(fused_case, *DOT_EDITS[name])


def test_public_values_that_do_not_fit_the_model_are_rejected(case):
    settings, proof = case
    P = (1 << 31) - 1
    for edit, needle in (
        (lambda pv: pv.pop(), "public tensors"),
        (lambda pv: pv[0].pop(), "values for shape"),
        (lambda pv: pv[-1].__setitem__(0, 1 << 20), "16-bit value range"),
        (lambda pv: pv[0].__setitem__(0, P - (1 << 20)), "16-bit value range"),
    ):
        pf = read_proof_file(proof.data)
        edit(pf.public_values)
        r = verify(pf.to_bytes(), settings.data, min_security_bits=0)
        assert r.check == "statement mismatch" and needle in r.error_message, r.error_message


def test_a_topology_over_the_verifier_budget_is_refused_before_any_work():
    """A 27-byte-per-node graph can declare 2^20 elements read through a view with runs of 2: the
    verifier estimates the boundary rows from the shapes and refuses before enumerating them."""
    import time

    from luminair.verifier.config import PRESETS
    from luminair.verifier.formats import Decommitment, FriLayerProof, FriProof, ProofFile, StarkProof
    from luminair.verifier.graph.spec import GraphSpec, InputSpec, NodeSpec, OutputSpec

    shape = (1 << 18, 2, 2)
    nodes = [NodeSpec("Input", shape, private=True),
             NodeSpec("Contiguous", (1 << 18, 2, 2), [(0, shape, (("permute", (0, 2, 1)),))])]
    spec = GraphSpec(10, nodes, [InputSpec("x", 0)], [OutputSpec("y", 1, (("slice", ((0, 1, 1), (0, 1, 1), (0, 1, 1))),))])
    settings = encode_settings(KIND_GRAPH, PRESETS["default"], spec)
    empty = FriLayerProof(bytes(DIGEST_BYTES), [], Decommitment())
    stark = StarkProof([], [], [], [], [], FriProof(empty, [], []), 0)
    proof = ProofFile(read_settings(settings).digest, [[0]], stark).to_bytes()
    t = time.perf_counter()
    r = verify(proof, settings)
    assert time.perf_counter() - t < 1.0
    # refused by the file-level work budget (verifier/budget.py) or, past it, by the topology's own
    assert r.check in ("work budget", "malformed file") and "budget" in r.error_message, r.error_message
    from luminair.verifier.errors import FormatError
    from luminair.verifier.graph.statement import build_components

    with pytest.raises(FormatError, match="work budget"):
        build_components(plan_graph(read_settings(settings).body))
