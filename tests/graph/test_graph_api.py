"""The graph contract the prover relies on, laziness, and the user-facing API."""

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import luminair.prover.graph.execute as execute_module
from luminair.prover import (
    Graph, GraphError, GraphTensor, GroupOp, InputError, NumericFormat, Op, load_model, load_python_model,
    read_input_json,
)
from luminair.prover import graph as G

ROOT = Path(__file__).resolve().parents[2]


def small_model():
    cx = Graph()
    x = cx.input("x", (2, 3))
    s = cx.input("secret", (3,), private=True)
    w = cx.constant(np.arange(12.0).reshape(3, 4) / 10, "w")
    h = G.relu(x @ w)
    h.T.output("hT")  # an output read through a view
    G.softmax(h + s.sum(), 1).output("p")
    return cx


def test_op_enum_and_groups_are_the_twelve_primitives_plus_sources_fused_ops_and_gather():
    assert {o.name for o in Op} == {
        "INPUT", "CONSTANT", "LOG2", "EXP2", "SIN", "SQRT", "RECIP", "ADD", "MUL", "MOD", "LESS_THAN",
        "SUM_REDUCE", "MAX_REDUCE", "CONTIGUOUS", "DOT", "RELU", "EXP", "ERF", "GATHER",
    }
    assert GroupOp.TABLE == {Op.EXP2, Op.LOG2, Op.SIN, Op.EXP, Op.ERF}
    assert GroupOp.REDUCE == {Op.SUM_REDUCE, Op.MAX_REDUCE}
    assert GroupOp.CONTRACT == {Op.DOT}
    assert GroupOp.FUSED == {Op.DOT, Op.RELU, Op.EXP, Op.ERF}  # made by FuseOpCompiler, never by the graph API
    assert GroupOp.OPAQUE == {Op.INPUT, Op.GATHER}  # values the compilers keep as they are
    assert GroupOp.SOURCE | GroupOp.UNARY | GroupOp.BINARY | GroupOp.REDUCE | GroupOp.CONTRACT | GroupOp.OPAQUE == GroupOp.ALL


def test_nodes_are_topological_with_dense_ids_and_consistent_views():
    cx = small_model()
    nodes = cx.nodes()
    assert [n.id for n in nodes] == list(range(len(nodes)))
    for n in nodes:
        for src, view in n.srcs:
            assert src.id < n.id and nodes[src.id] is src
            assert view.src_shape == src.shape
            idx = view.src_indices()
            assert idx.dtype == np.int64 and len(idx) == int(np.prod(view.shape))
            assert idx.max(initial=-1) < src.numel
        if n.op in GroupOp.BINARY or n.op in GroupOp.UNARY:
            assert all(v.shape == n.shape for _, v in n.srcs)
        if n.op in GroupOp.REDUCE:
            in_shape = n.srcs[0][1].shape
            assert n.shape == in_shape[:n.axis] + in_shape[n.axis + 1:]
        if n.op is Op.CONSTANT:
            assert n.value.dtype == np.float64 and n.value.shape == n.shape and not n.value.flags.writeable
    inputs = cx.inputs()
    assert list(inputs) == ["x", "secret"]
    assert not inputs["x"].private and inputs["secret"].private
    outs = cx.outputs()
    assert list(outs) == ["hT", "p"]
    node, view = outs["hT"]
    assert view.shape == (4, 2) and not view.is_identity()


def test_execute_exact_gives_raw_int64_values_of_every_node_and_run_dequantizes_them(rng):
    cx = small_model()
    feed = {"x": rng.uniform(0, 1, (2, 3)), "secret": rng.uniform(-0.2, 0.2, 3)}
    raw = cx.execute_exact(feed)
    assert set(raw) == {n.id for n in cx.nodes()}
    for n in cx.nodes():
        assert raw[n.id].dtype == np.int64 and raw[n.id].shape == (n.numel,)
        assert raw[n.id].min() >= -32768 and raw[n.id].max() <= 32767
    node, view = cx.outputs()["hT"]
    out = cx.run(feed, exact=True)
    np.testing.assert_array_equal(out["hT"], view.gather(raw[node.id]).reshape(view.shape) / 1024)
    flt = cx.execute_float(feed)
    assert set(flt) == set(raw) and all(v.dtype == np.float64 for v in flt.values())


def test_nothing_is_computed_until_run(monkeypatch):
    calls = []
    real = execute_module.eval_float
    monkeypatch.setattr(execute_module, "eval_float", lambda n, a: calls.append(n.op) or real(n, a))
    cx = Graph()
    x = cx.input("x", (2,))
    y = (x.recip() * cx.constant([0.0, 0.0])).exp().output("y")  # would fail in fixed point
    assert isinstance(y, GraphTensor) and calls == []
    cx.run({"x": np.array([1.0, 2.0])})
    assert calls  # computed only now


def test_numeric_format_is_configurable():
    assert Graph().numeric_format == NumericFormat(10)
    assert Graph(scale_bits=8).numeric_format.scale_bits == 8
    assert Graph(numeric_format=NumericFormat(12)).numeric_format.scale_bits == 12
    cx = Graph()
    x = cx.input("x", (1,))
    (x * 3.0).output("y")
    feed = {"x": np.array([0.3])}
    assert cx.run(feed, exact=True)["y"][0] == round(0.3 * 1024) * 3 / 1024
    cx.numeric_format = NumericFormat(6)
    assert cx.run(feed, exact=True)["y"][0] == round(0.3 * 64) * 3 / 64
    with pytest.raises(GraphError):
        cx.numeric_format = 8


class FakeTorchTensor:
    """Duck-typed like a torch tensor: detach().cpu().numpy()."""

    def __init__(self, a):
        self.a = np.asarray(a, dtype=np.float32)

    def detach(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return self.a


def test_constants_and_inputs_accept_array_likes_and_torch_style_tensors():
    cx = Graph()
    x = cx.input("x", (2,))
    w = cx.constant(FakeTorchTensor([1.5, -2.0]), "w")
    (x * w + [1, 2] + cx.constant(3)).output("y")
    out = cx.run({"x": FakeTorchTensor([2.0, 1.0])})["y"]
    np.testing.assert_allclose(out, [7.0, 3.0])
    out = cx.run({"x": [2.0, 1.0]})["y"]
    np.testing.assert_allclose(out, [7.0, 3.0])


def test_outputs_get_default_names_and_tensors_are_not_iterable():
    cx = Graph()
    x = cx.input("x", (2,))
    (x + 1).output()
    (x + 2).output()
    assert list(cx.outputs()) == ["output_0", "output_1"]
    with pytest.raises(TypeError):
        list(x)


def test_summary_dot_and_svg_describe_every_node(tmp_path):
    cx = small_model()
    text = cx.summary()
    for n in cx.nodes():
        assert re.search(rf"^\s*{n.id}\s+{n.op.value}", text, re.M)
    assert "'secret'" in text and "private" in text and "'hT' <- node" in text
    dot = cx.to_dot()
    assert dot.startswith("digraph luminair {") and dot.rstrip().endswith("}")
    assert len(re.findall(r"^\s*n\d+ \[label=", dot, re.M)) == len(cx.nodes())
    n_edges = sum(len(n.srcs) for n in cx.nodes()) + len(cx.outputs())
    assert len(re.findall(r"^\s*n\d+ -> (n|out)\d+", dot, re.M)) == n_edges
    path = tmp_path / "g.svg"
    cx.write_svg(str(path))
    root = ET.parse(path).getroot()  # well-formed XML
    ns = {"s": "http://www.w3.org/2000/svg"}
    assert len(root.findall(".//s:g[@class='nodes']/s:g", ns)) == len(cx.nodes()) + len(cx.outputs())
    assert len(root.findall(".//s:g[@class='edges']/s:path", ns)) == n_edges
    cx.write_dot(str(tmp_path / "g.dot"))
    assert (tmp_path / "g.dot").read_text() == dot


def test_python_model_file_and_ezkl_input_json(tmp_path):
    cx = load_python_model(ROOT / "examples" / "tiny_mlp.py")
    assert list(cx.inputs()) == ["x"] and list(cx.outputs()) == ["y"]
    feed = read_input_json(ROOT / "examples" / "tiny_mlp.input.json", cx)
    assert feed["x"].shape == (1, 8)
    assert cx.run(feed)["y"].shape == (1, 2)
    again = load_model(ROOT / "examples" / "tiny_mlp.py")
    np.testing.assert_array_equal(again.run(feed, exact=True)["y"], cx.run(feed, exact=True)["y"])
    assert "tiny_mlp.py:" in cx.nodes()[2].origin  # nodes point at the model file's lines
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\n")
    with pytest.raises(GraphError, match=r"must define a function build\(\) -> Graph"):
        load_python_model(bad)
    with pytest.raises(GraphError, match="unknown model file type '.txt'"):
        load_model(tmp_path / "m.txt")
    with pytest.raises(InputError, match=r"expected 8 values \(shape \(1, 8\)\), got 3"):
        read_input_json({"input_data": [[1, 2, 3]]}, cx)
    with pytest.raises(InputError, match="one list per graph input"):
        read_input_json({"input_data": [[1.0] * 8, [2.0]]}, cx)
    (tmp_path / "in.json").write_text(json.dumps({"input_data": [[0.5] * 8]}))
    assert read_input_json(tmp_path / "in.json", cx)["x"].tolist() == [[0.5] * 8]
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(InputError, match="cannot read input file"):
        read_input_json(tmp_path / "broken.json", cx)


def test_importing_the_prover_does_not_import_onnx():
    import subprocess
    import sys

    code = "import sys, luminair.prover as p; assert 'onnx' not in sys.modules, 'onnx imported'; print(p.Graph)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_a_kept_run_is_served_only_for_the_same_nodes_format_and_input():
    """Graph.run_nodes keeps the last run of each kind (calibration, gen_trace and the CLI run one
    input several times): a hit returns the same values; other scales, formats or inputs run again."""
    from luminair.verifier.numeric import NumericFormat

    g = Graph()
    (g.input("x", (3,)) * g.constant(np.array([1.5, -0.5, 2.0]), "w")).output("y")
    feed = g._check_inputs({"x": np.array([1.0, 2.0, 3.0])})
    first = g.run_nodes(feed, exact=True)
    again = g.run_nodes(g._check_inputs({"x": np.array([1.0, 2.0, 3.0])}), exact=True)
    assert all(again[k] is first[k] for k in first) and not first[2].flags.writeable
    g.numeric_format = NumericFormat(8)
    coarse = g.run_nodes(feed, exact=True)
    assert coarse[2] is not first[2] and np.array_equal(coarse[2], execute_module.execute_exact(g.nodes(), feed, g.numeric_format)[2])
    g.set_scales({2: 10})
    assert g.run_nodes(feed, exact=True)[2] is not coarse[2]
    assert not np.array_equal(g.run_nodes(g._check_inputs({"x": np.array([1.0, 2.0, 4.0])}), exact=True)[2], coarse[2])
    f = g.run_nodes(feed, exact=False)
    g.set_scales({2: 9})  # the float run reads no scale: kept
    assert g.run_nodes(feed, exact=False)[2] is f[2] and np.allclose(g.run({"x": np.array([1.0, 2.0, 3.0])})["y"], f[2])
    g.forget_runs()
    assert g.run_nodes(feed, exact=False)[2] is not f[2]


def test_a_run_after_a_rewrite_or_new_scales_reuses_what_reads_the_same(monkeypatch):
    """run_nodes after a rewrite (a sum as Dot(x, 1.0), as calibration makes) or new scales takes
    the kept run's values where a node reads the same (ex.Reuse), bit for bit what a fresh run
    gives; a run stopped by a BoundsError keeps what it checked, and the next raises the same."""
    from luminair.prover.graph.calibrate import _sums_as_dots
    from luminair.prover.graph.errors import BoundsError

    g = Graph()
    x = g.input("x", (4, 8))
    h = (x * g.constant(np.linspace(-1, 1, 32).reshape(4, 8), "w")).sum(axis=1)
    (h * g.constant(np.array([2.0, -3.0, 0.5, 1.0]), "v") + 1.0).output("y")
    feed = g._check_inputs({"x": np.arange(32.0).reshape(4, 8) / 7})
    g.run_nodes(feed, exact=False)
    assert _sums_as_dots(g, {n.id: 1e4 if n.op is Op.SUM_REDUCE else 1.0 for n in g.nodes()}, 0) == 1
    seen: list[int] = []
    real = execute_module.Reuse.get
    monkeypatch.setattr(execute_module.Reuse, "get", lambda self, n: seen.append(n.id) or real(self, n))
    again = g.run_nodes(feed, exact=False)
    fresh = execute_module.execute_float(g.nodes(), feed)
    assert all(again[k].tobytes() == fresh[k].tobytes() for k in fresh) and seen
    last = g.nodes()[-1].id
    assert again[last] is not fresh[last]  # downstream of the Dot: taken from the kept run
    exact = g.run_nodes(feed, exact=True)
    g.set_scales({n.id: 14 for n in g.nodes() if n.op is not Op.INPUT})  # the sum leaves the range
    with pytest.raises(BoundsError) as first:
        g.run_nodes(feed, exact=True)
    with pytest.raises(BoundsError) as second:
        g.run_nodes(feed, exact=True)
    assert str(first.value) == str(second.value)
    g.set_scales({n.id: 10 for n in g.nodes()})
    assert all(np.array_equal(v, exact[k]) for k, v in g.run_nodes(feed, exact=True).items())
