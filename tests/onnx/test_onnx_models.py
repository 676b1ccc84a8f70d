"""Whole ONNX models built with onnx.helper (MLPs, a small CNN, an attention-like block): same
outputs as onnxruntime in float, and within the derived fixed-point error bound."""

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx_helpers import check_against_ort, make_model

from luminair.prover import GenericCompiler, Graph, Op
from luminair.prover.onnx import OnnxImportError, UnsupportedOnnxError, load_onnx, unsupported_nodes

N = helper.make_node


def mlp_model(sizes, rng):
    """Gemm + Relu layers, weights like torch.nn.Linear's default initialization."""
    nodes, inits = [], {}
    prev = "input"
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        bound = 1 / np.sqrt(a)
        inits[f"w{i}"] = rng.uniform(-bound, bound, (b, a)).astype(np.float32)
        inits[f"b{i}"] = rng.uniform(-bound, bound, b).astype(np.float32)
        out = "output" if i == len(sizes) - 2 else f"h{i}"
        nodes.append(N("Gemm", [prev, f"w{i}", f"b{i}"], [out], transB=1, name=f"fc{i}"))
        if out != "output":
            nodes.append(N("Relu", [out], [f"r{i}"], name=f"relu{i}"))
            prev = f"r{i}"
    return make_model(nodes, {"input": ["batch", sizes[0]]}, {"output": ["batch", sizes[-1]]}, inits)


@pytest.mark.parametrize("sizes, bound_cap", [((16, 16, 4), 0.05), ((64, 64, 10), 0.3), ((784, 128, 10), 6.0)])
def test_mlps_match_onnxruntime(rng, sizes, bound_cap):
    model = mlp_model(sizes, rng)
    feed = {"input": rng.uniform(0, 1, (1, sizes[0]))}
    cx, worst = check_against_ort(model, feed)
    # the worst-case bound grows with the fan-in; the observed error stays at a few raw units per layer
    from luminair.prover.graph.error_bound import error_bound

    assert error_bound(cx, feed)["output"].max() < bound_cap
    assert worst["output"] < 0.02
    ops = {n.op for n in cx.nodes()}
    assert ops <= {Op.INPUT, Op.CONSTANT, Op.MUL, Op.SUM_REDUCE, Op.ADD, Op.LESS_THAN}


def test_batched_mlp_with_a_given_input_shape(rng):
    model = mlp_model((8, 6, 3), rng)
    feed = {"input": rng.uniform(-1, 1, (5, 8))}
    cx, _ = check_against_ort(model, feed, input_shapes={"input": (5, 8)})
    assert cx.inputs()["input"].shape == (5, 8)
    assert load_onnx(model).inputs()["input"].shape == (1, 8)  # symbolic dims default to 1


def cnn_model(rng):
    f32 = np.float32
    inits = {
        "c1.w": rng.uniform(-0.5, 0.5, (4, 1, 3, 3)).astype(f32), "c1.b": rng.uniform(-0.1, 0.1, 4).astype(f32),
        "c2.w": rng.uniform(-0.3, 0.3, (8, 4, 3, 3)).astype(f32),
        "bn.s": rng.uniform(0.5, 1.5, 8).astype(f32), "bn.b": rng.uniform(-0.2, 0.2, 8).astype(f32),
        "bn.m": rng.uniform(-0.2, 0.2, 8).astype(f32), "bn.v": rng.uniform(0.5, 1.5, 8).astype(f32),
        "fc.w": rng.uniform(-0.4, 0.4, (10, 8)).astype(f32), "fc.b": rng.uniform(-0.1, 0.1, 10).astype(f32),
    }
    nodes = [
        N("Conv", ["img", "c1.w", "c1.b"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        N("Relu", ["c1"], ["r1"], name="relu1"),
        N("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2], name="pool1"),
        N("Conv", ["p1", "c2.w"], ["c2"], name="conv2"),
        N("BatchNormalization", ["c2", "bn.s", "bn.b", "bn.m", "bn.v"], ["bn"], name="bn"),
        N("Relu", ["bn"], ["r2"], name="relu2"),
        N("GlobalAveragePool", ["r2"], ["gap"], name="gap"),
        N("Flatten", ["gap"], ["flat"], name="flatten"),
        N("Gemm", ["flat", "fc.w", "fc.b"], ["logits"], transB=1, name="fc"),
        N("Softmax", ["logits"], ["probs"], axis=1, name="softmax"),
    ]
    return make_model(nodes, {"img": [1, 1, 8, 8]}, {"probs": [1, 10], "logits": [1, 10]}, inits)


def test_small_cnn_matches_onnxruntime(rng):
    model = cnn_model(rng)
    feed = {"img": rng.uniform(0, 1, (1, 1, 8, 8))}
    cx, worst = check_against_ort(model, feed)
    assert worst["probs"] < 0.01 and worst["logits"] < 0.02
    assert any(n.name == "logits" for n in cx.nodes())  # the node computing an ONNX tensor is named
    assert any("ONNX Conv node 'conv1'" in (n.origin or "") for n in cx.nodes())


def attention_model(rng, seq=4, dim=8):
    f32 = np.float32
    inits = {k: rng.uniform(-0.5, 0.5, (dim, dim)).astype(f32) for k in ("wq", "wk", "wv", "wo")}
    inits.update(scale=np.array(np.sqrt(dim), f32), two=np.array(2.0, f32), eps=np.array(1e-2, f32),
                 ax=np.array([-1], np.int64))
    nodes = [
        N("MatMul", ["x", "wq"], ["q"]), N("MatMul", ["x", "wk"], ["k"]), N("MatMul", ["x", "wv"], ["v"]),
        N("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        N("MatMul", ["q", "kt"], ["s0"]), N("Div", ["s0", "scale"], ["s"]),
        N("Softmax", ["s"], ["p"], axis=-1),
        N("MatMul", ["p", "v"], ["a"]), N("MatMul", ["a", "wo"], ["o"]), N("Add", ["o", "x"], ["res"]),
        # layer norm written out: (res - mean) / sqrt(mean((res - mean)^2) + eps)
        N("ReduceMean", ["res"], ["mu"], axes=[-1]), N("Sub", ["res", "mu"], ["d"]),
        N("Pow", ["d", "two"], ["d2"]), N("ReduceMean", ["d2"], ["var"], axes=[-1]),
        N("Add", ["var", "eps"], ["ve"]), N("Sqrt", ["ve"], ["sd"]), N("Div", ["d", "sd"], ["y"]),
    ]
    return make_model(nodes, {"x": [1, seq, dim]}, {"y": [1, seq, dim], "p": [1, seq, seq]}, inits)


def test_attention_block_with_softmax_matches_onnxruntime(rng):
    model = attention_model(rng)
    feed = {"x": rng.uniform(-1, 1, (1, 4, 8))}
    cx, worst = check_against_ort(model, feed)
    assert worst["p"] < 0.01 and worst["y"] < 0.05
    before = cx.run(feed, exact=True)
    cx.compile(GenericCompiler())
    after = cx.run(feed, exact=True)
    for k in before:
        np.testing.assert_array_equal(before[k], after[k])


def test_unsupported_ops_are_all_listed_in_one_error(rng):
    nodes = [
        N("Round", ["x"], ["e"], name="round_1"),
        N("Relu", ["e"], ["r"], name="ok"),
        N("Einsum", ["r", "w"], ["s"], equation="ij,jk->ik", name="einsum_1"),
        N("FancyOp", ["s"], ["y"], name="custom_1", domain="com.example"),
    ]
    model = helper.make_model(
        helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("x", 1, [2, 3])],
                          [helper.make_tensor_value_info("y", 1, None)],
                          [onnx.numpy_helper.from_array(np.ones((3, 4), np.float32), "w")]),
        opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)],
    )
    with pytest.raises(UnsupportedOnnxError) as e:
        load_onnx(model)
    msg = str(e.value)
    assert msg.startswith("the ONNX model has 3 unsupported node(s):")
    assert "Round node 'round_1' (inputs: x (2, 3))" in msg
    assert "Einsum node 'einsum_1' (inputs: r (2, 3), w (3, 4))" in msg
    assert "com.example.FancyOp node 'custom_1'" in msg
    assert [n[0] for n in e.value.nodes] == ["Round", "Einsum", "com.example.FancyOp"]
    assert len(unsupported_nodes(model)) == 3


def test_conversion_errors_name_the_onnx_node():
    reshape_model = make_model([N("Reshape", ["x", "s"], ["y"], name="dyn_shape")], {"x": [2, 3], "s": [2]},
                               {"y": [3, 2]})
    with pytest.raises(OnnxImportError, match=r"ONNX Reshape node 'dyn_shape': input shape \('s'\) must be a constant"):
        load_onnx(reshape_model)
    gather_model = make_model([N("Gather", ["x", "i"], ["y"], name="dyn")], {"x": [3], "i": [2]}, {"y": [2]})
    with pytest.raises(OnnxImportError, match="ONNX Gather node 'dyn': its indices .* are computed in the graph"):
        load_onnx(gather_model)
    shape_model = make_model([N("Add", ["x", "b"], ["y"], name="bad_add")], {"x": [2, 3]}, {"y": [2, 3]},
                             {"b": np.ones(4, np.float32)})
    with pytest.raises(OnnxImportError, match=r"ONNX Add node 'bad_add': add: shapes \(2, 3\) and \(4,\)"):
        load_onnx(shape_model)
    with pytest.raises(OnnxImportError, match="does not exist"):
        load_onnx("/nonexistent/model.onnx")


def test_load_from_path_bytes_and_options(tmp_path, rng):
    model = mlp_model((4, 3), rng)
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    feed = {"input": rng.uniform(0, 1, (1, 4))}
    a = load_onnx(path).run(feed)
    b = load_onnx(model.SerializeToString(), scale_bits=8, private_inputs=["input"])
    np.testing.assert_array_equal(a["output"], b.run(feed)["output"])
    assert b.numeric_format.scale_bits == 8 and b.inputs()["input"].private
    assert isinstance(b, Graph)
    w = [n for n in b.nodes() if n.op is Op.CONSTANT and n.name == "w0"]
    assert len(w) == 1 and w[0].shape == (3, 4)  # initializers become named constants
    with pytest.raises(OnnxImportError, match="unknown input"):
        load_onnx(model, input_shapes={"nope": (1, 4)})


@pytest.mark.parametrize("name", ["cnn", "attention_residual_layernorm"])
def test_hold_out_models_prove_and_the_proof_attests_the_exact_outputs(rng, name):
    """The ONNX CNN (conv, batch norm, pooling, softmax) and the attention block with a residual
    and a layer norm: proven and verified; the attested outputs are the fixed-point run's, which
    check_against_ort holds within the error bound of onnxruntime."""
    from luminair.prover import StwoCompiler
    from luminair.verifier import verify

    if name == "cnn":
        model, feed = cnn_model(rng), {"img": rng.uniform(0, 1, (1, 1, 8, 8))}
    else:
        model, feed = attention_model(rng), {"x": rng.uniform(-1, 1, (1, 4, 8))}
    cx, _ = check_against_ort(model, feed)
    feed32 = {k: v.astype(np.float32).astype(np.float64) for k, v in feed.items()}
    cx.compile(GenericCompiler(), StwoCompiler())
    settings = cx.gen_settings(preset="fast")
    proof = cx.prove(cx.gen_trace(feed32), settings)
    r = verify(proof.data, settings.data, min_security_bits=0)
    assert r.success, r.error_message
    for out, arr in cx.run(feed32, exact=True).items():
        assert np.array_equal(np.array(r.outputs[out]["values"]), arr.reshape(-1)), out
