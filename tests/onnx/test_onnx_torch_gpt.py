"""Torch-style decoder-only transformers as torch.onnx.export writes them (examples/gpt_torch:
int64 token ids into a Gather on nn.Embedding's table, learned positions, causal mask through
Where, q/k/v through Split, layer norm as opset-13 primitives and as opset-17 LayerNormalization,
GELU through Erf and through Tanh): imported as they ship, run in fixed point against onnxruntime,
proven and verified."""

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx_helpers import ort_run

from luminair.prover import GenericCompiler, StwoCompiler, load_model, read_input_json
from luminair.prover.graph.errors import InputError
from luminair.verifier import verify

FOLDER = Path(__file__).resolve().parents[2] / "examples" / "gpt_torch"
# max |attested logits - onnxruntime| at the default scale (2^10), of the compiled graph the proof
# attests (measured 0.014 and 0.015: bench/results/models_gpt_torch.json), with some margin
TOLERANCE = {"gpt_opset13.onnx": 0.03, "gpt_opset17.onnx": 0.03}


@pytest.fixture(scope="module", params=sorted(TOLERANCE))
def gpt(request):
    path = FOLDER / request.param
    cx = load_model(path)
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = read_input_json(FOLDER / "input.json", cx)
    return request.param, path, cx, feed


def test_the_token_ids_are_an_index_input_and_the_run_matches_onnxruntime(gpt):
    name, path, cx, feed = gpt
    assert cx.inputs()["input_ids"].index and feed["input_ids"].dtype == np.int64
    ref = ort_run(onnx.load(str(path)), feed)["logits"]
    np.testing.assert_allclose(cx.run(feed)["logits"], ref, atol=1e-4)
    assert np.abs(cx.run(feed, exact=True)["logits"] - ref).max() <= TOLERANCE[name]


def test_the_export_proves_and_verifies(gpt):
    _, _, cx, feed = gpt
    settings = cx.gen_settings(preset="fast")
    proof = cx.prove(cx.gen_trace(feed), settings)
    r = verify(proof.data, settings.data, min_security_bits=0)
    assert r.success, r.error_message
    assert r.inputs["input_ids"]["values"] == feed["input_ids"].reshape(-1).tolist()
    exact = cx.run(feed, exact=True)["logits"].reshape(-1)
    np.testing.assert_array_equal(np.array(r.outputs["logits"]["values"]), exact)


def test_token_ids_given_as_floats_are_refused_before_proving(gpt):
    _, _, cx, _ = gpt
    with pytest.raises(InputError, match="holds indices \\(token ids\\): give integers"):
        cx.gen_trace(read_input_json({"input_data": [[5.0, 17, 3, 63, 0, 22, 9, 41.5]]}, cx))
    with pytest.raises(InputError, match="index 64 at element 0 is outside the table"):
        cx.gen_trace({"input_ids": np.array([[64, 17, 3, 63, 0, 22, 9, 41]])})


@pytest.mark.parametrize("ids, message", [
    ([5, 17, 3, 64, 0, 22, 9, 41], "index 64 at element 3 is outside the table 'wte.weight' (64 rows)"),
    ([5, 17, 3, 6.5, 0, 22, 9, 41], "input 'input_ids' holds indices (token ids): give integers"),
    ([5, 17, 3, -1, 0, 22, 9, 41], "index -1 at element 3 is negative"),
])
def test_the_cli_refuses_bad_token_ids_in_one_line_before_proving(tmp_path, capsys, ids, message):
    from luminair.prover.cli import main as cli

    bad = tmp_path / "ids.json"
    bad.write_text(json.dumps({"input_data": [ids]}))
    assert cli(["prove", str(FOLDER / "gpt_opset13.onnx"), "--input", str(bad), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and not (tmp_path / "out" / "proof.bin").exists()


def test_a_dynamic_batch_export_whose_constants_depend_on_the_batch_proves_at_the_input_shape(tmp_path, capsys):
    """torch's causal mask, broadcast over the batch, folds into a constant that differs per batch
    size: no one symbolic settings.bin exists, so `prove` says so and proves at the input's shape."""
    from luminair.prover.cli import main as cli

    ids = [[5, 17, 3, 63, 0, 22, 9, 41], [1, 2, 3, 4, 5, 6, 7, 8]]
    (tmp_path / "ids.json").write_text(json.dumps({"input_data": [ids]}))
    model = FOLDER / "gpt_opset17_dynamic_batch.onnx"
    out = tmp_path / "out"
    assert cli(["prove", str(model), "--input", str(tmp_path / "ids.json"), "--out", str(out), "--preset", "fast", "--quiet"]) == 0
    assert "proving at the input's shapes {'input_ids': (2, 8)}" in capsys.readouterr().err
    r = verify((out / "proof.bin").read_bytes(), (out / "settings.bin").read_bytes(), min_security_bits=0)
    assert r.success and r.inputs["input_ids"]["values"] == sum(ids, [])
    ref = ort_run(onnx.load(str(model)), {"input_ids": np.array(ids)})["logits"]
    assert np.abs(np.array(r.outputs["logits"]["values"]) - ref.reshape(-1)).max() <= 0.03


def test_the_cli_proves_the_export_at_private_token_ids(tmp_path, capsys):
    """`--private input_ids`: a hidden prompt. The ids stay out of proof.bin; each embedding row is
    proven by a lookup into the table (docs/statement.md "Embeddings: index inputs and Gather"); the logits still match."""
    from luminair.prover.cli import main as cli

    model, out = FOLDER / "gpt_opset17.onnx", tmp_path / "out"
    assert cli(["prove", str(model), "--input", str(FOLDER / "input.json"), "--private", "input_ids",
                "--out", str(out), "--preset", "fast", "--quiet"]) == 0
    proof = (out / "proof.bin").read_bytes()
    r = verify(proof, (out / "settings.bin").read_bytes(), min_security_bits=0)
    assert r.success, r.error_message
    assert not r.inputs  # nothing about the ids is published
    ids = json.loads((FOLDER / "input.json").read_text())["input_data"]
    ref = ort_run(onnx.load(str(model)), {"input_ids": np.array(ids)})["logits"]
    assert np.abs(np.array(r.outputs["logits"]["values"]) - ref.reshape(-1)).max() <= TOLERANCE[model.name]
