"""Dynamic axes: an ONNX dim_param becomes a symbol. `luminair prove dyn.onnx --input batch7.npy`
proves with no extra flag (SymbolicModel's default range, narrowed to what the verifier accepts),
outputs per row match onnxruntime, and an input no declared range holds is refused in one line
naming --symbol."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper
from onnx_helpers import ort_run

from luminair.prover.cli import main as cli
from luminair.prover.symbolic import DEFAULT_RANGE, SymbolicModel, onnx_dynamic_axes
from luminair.verifier import verify

RNG = np.random.default_rng(11)
W1, B1 = RNG.uniform(-0.5, 0.5, (16, 8)), RNG.uniform(-0.2, 0.2, 16)
W2, B2 = RNG.uniform(-0.5, 0.5, (4, 16)), RNG.uniform(-0.2, 0.2, 4)


def dyn_mlp() -> onnx.ModelProto:
    """Gemm, Relu, Gemm over a batch axis that is the dim_param "batch" (as torch.onnx.export writes
    dynamic_axes)."""
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "w2", "b2"], ["y"], transB=1)]
    inits = [numpy_helper.from_array(a.astype(np.float32), n) for a, n in ((W1, "w1"), (B1, "b1"), (W2, "w2"), (B2, "b2"))]
    graph = helper.make_graph(nodes, "dyn", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", 8])],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["batch", 4])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dyn")
    onnx.save(dyn_mlp(), folder / "dyn.onnx")
    return folder


def test_prove_with_no_flag_takes_the_batch_from_the_input_and_matches_onnxruntime_per_row(files, capsys):
    from luminair.prover.graph.error_bound import error_bound
    from luminair.prover.onnx import load_onnx

    x = RNG.uniform(-1, 1, (7, 8)).astype(np.float32).astype(np.float64)
    np.save(files / "batch7.npy", x)
    assert cli(["prove", str(files / "dyn.onnx"), "--input", str(files / "batch7.npy"), "--out", str(files / "out"),
                "--preset", "fast", "--quiet", "--json", "--onnxruntime"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["symbols"] == {"batch": 7}
    y = np.array(summary["outputs"]["y"])
    ref = ort_run(dyn_mlp(), {"x": x})["y"]
    assert y.shape == ref.shape == (7, 4)
    bound = error_bound(load_onnx(dyn_mlp(), {"x": (7, 8)}), {"x": x})["y"]
    for row in range(7):  # each row within the derived fixed-point bound of onnxruntime's row
        assert np.all(np.abs(y[row] - ref[row]) <= bound[row] + 1e-5), row
    ort = summary["onnxruntime_error"]["y"]  # the accuracy report: against onnxruntime, top-1 per row
    assert ort["max_abs_error"] == pytest.approx(float(np.abs(y - ref).max()), abs=1e-6)
    assert ort["top1_agreement"] == float(np.mean(y.argmax(-1) == ref.argmax(-1)))
    assert cli(["verify", str(files / "out" / "proof.bin"), str(files / "out" / "settings.bin"),
                "--min-security-bits", "0"]) == 0
    assert "symbols (fixed by this proof): batch=7" in capsys.readouterr().out


def test_a_batch_outside_the_default_range_is_refused_in_one_line_naming_symbol(files, capsys):
    np.save(files / "big.npy", RNG.uniform(-1, 1, (DEFAULT_RANGE[1] + 1, 8)))
    code = cli(["prove", str(files / "dyn.onnx"), "--input", str(files / "big.npy"), "--out", str(files / "big"),
                "--preset", "fast", "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert f"batch={DEFAULT_RANGE[1] + 1}, outside the range [1, {DEFAULT_RANGE[1]}]" in err
    assert "--symbol batch=LO:HI" in err


def test_default_ranges_are_narrowed_to_what_the_verifier_accepts():
    """(batch, 16) times a constant of (1, 1, 8192): batch * 2^17 elements, so a tensor of at most 2^24
    elements caps batch at 128: the default range [1, 256] is narrowed to [1, 128]."""
    nodes = [helper.make_node("Unsqueeze", ["x", "ax"], ["u"]), helper.make_node("Mul", ["u", "c"], ["m"]),
             helper.make_node("ReduceMax", ["m"], ["y"], axes=[2], keepdims=0)]
    graph = helper.make_graph(
        nodes, "wide", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["batch", 16])],
        [numpy_helper.from_array(np.array([2], np.int64), "ax"),
         numpy_helper.from_array(np.linspace(-1, 1, 8192, dtype=np.float32).reshape(1, 1, 8192), "c")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    assert onnx_dynamic_axes(model) == ["batch"]
    settings = SymbolicModel(model, search=False).gen_settings(preset="fast")
    (sym,) = settings.symbols
    assert (sym.name, sym.lo, sym.hi) == ("batch", 1, 128)


def test_a_model_without_dynamic_axes_or_a_python_builder_needs_explicit_symbols():
    from luminair.prover.symbolic import SymbolicError

    fixed = dyn_mlp()
    for d in list(fixed.graph.input[0].type.tensor_type.shape.dim)[:1]:
        d.dim_value = 2
    with pytest.raises(SymbolicError, match="no dynamic axes"):
        SymbolicModel(fixed)
    with pytest.raises(SymbolicError, match="needs its symbols and their ranges"):
        SymbolicModel(lambda: None)


def test_a_model_that_builds_only_at_some_batch_sizes_is_refused_in_one_line_naming_the_axis_and_symbol(files, capsys):
    """A Reshape to a constant (3, -1) holds only batches of a multiple of 3: with batch symbolic the
    graph cannot be built over the default range. An input of such a batch proves at its own shape
    (saying so); any other is refused in one line naming the value, the node and --symbol (no
    traceback)."""
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("ReduceSum", ["r", "axes"], ["y"], keepdims=0)]
    graph = helper.make_graph(
        nodes, "r3", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [3])],
        [numpy_helper.from_array(np.array([3, -1], np.int64), "shape"),
         numpy_helper.from_array(np.array([1], np.int64), "axes")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), files / "r3.onnx")
    np.save(files / "x4.npy", RNG.uniform(-1, 1, (4, 8)))
    code = cli(["prove", str(files / "r3.onnx"), "--input", str(files / "x4.npy"), "--out", str(files / "r3"),
                "--preset", "fast", "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "--symbol NAME=LO:HI" in err and "does not build at batch=" in err and "ONNX Reshape node" in err, err
    np.save(files / "x6.npy", RNG.uniform(-1, 1, (6, 8)))
    code = cli(["prove", str(files / "r3.onnx"), "--input", str(files / "x6.npy"), "--out", str(files / "r6"),
                "--preset", "fast", "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 0 and "does not build at batch=" in err and "proving at the input's shapes {'x': (6, 8)}" in err, err
    r = verify((files / "r6" / "proof.bin").read_bytes(), (files / "r6" / "settings.bin").read_bytes(), min_security_bits=0)
    assert r.success and r.outputs["y"]["shape"] == [3]
