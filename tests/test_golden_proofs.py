"""Golden bytes: the examples' settings.bin and proof.bin are byte for byte what they were when
tests/golden/proofs.json was written (proving is deterministic). A refactor of the planner, the
witness generation or the prover's kernels must leave them unchanged; a format change rewrites the
file on purpose (`python tests/test_golden_proofs.py --write`) and says so in docs/changelog.md.

The MLPs prove at the default preset's config at blowup 16 (a fixed config: how presets are sized
may change without changing what a config proves); the CNN, a miniature of the transformer example
(the same op kinds, 1 layer of width 16) and a training step at the fast preset (seconds, not
minutes); the transformer example itself by its settings.bin and the shape of its AIR."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "proofs.json"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _example(name: str):
    from luminair.prover.onnx import load_onnx

    cx = load_onnx(ROOT / "examples" / name / "network.onnx")
    (inp, node), = cx.inputs().items()
    x = np.array(json.loads((ROOT / "examples" / name / "input.json").read_text())["input_data"], dtype=float)
    return cx, {inp: x.reshape(node.shape)}


def _config(preset: str):
    from luminair.verifier.config import PRESETS, at_blowup

    return at_blowup(PRESETS["default"], 4) if preset == "default" else PRESETS[preset]


def _proved(cx, feed: dict, preset: str) -> dict[str, str]:
    settings = cx.gen_settings(config=_config(preset))
    proof = cx.prove(cx.gen_trace(feed), settings)
    return {"settings": _sha(settings.data), "proof": _sha(proof.data)}


def _onnx_case(name: str, preset: str) -> Callable[[], dict[str, str]]:
    return lambda: _proved(*_example(name), preset)


def _mini_transformer() -> dict[str, str]:
    sys.path.insert(0, str(ROOT / "examples"))
    from make_models import make_transformer

    from luminair.prover.onnx import load_onnx

    model, onehot = make_transformer(3, vocab=32, d_model=16, n_head=2, n_layer=1, seq=8)
    cx = load_onnx(model.SerializeToString())
    return _proved(cx, {"onehot": np.array(onehot).reshape(1, 8, 32)}, "fast")


def _transformer_shape() -> dict[str, str]:
    """The transformer example's settings.bin and AIR (every component's name, log size and
    columns): its proof takes a minute here, its plan a second."""
    from luminair.prover.air.graph_trace import build_spec
    from luminair.prover.compile import GenericCompiler, StwoCompiler
    from luminair.verifier.config import PRESETS, at_blowup
    from luminair.verifier.graph.statement import build_graph_air
    from luminair.verifier.statement import KIND_GRAPH, encode_settings

    cx, _ = _example("transformer_tiny")
    cx.compile(GenericCompiler(), StwoCompiler())
    spec = build_spec(cx)
    cfg = at_blowup(PRESETS["default"], 3)
    air, _ = build_graph_air(spec, cfg.log_blowup)
    shape = [(c.name, c.log_size, list(c.main_columns), sorted(c.sparse_columns)) for c in air.components]
    return {"settings": _sha(encode_settings(KIND_GRAPH, cfg, spec)), "air": _sha(json.dumps(shape).encode())}


def _training_step() -> dict[str, str]:
    from luminair.prover.train import TDCLM, init_mlp, mlp_program, onehot

    prog = mlp_program([4, 8, 2], 4, TDCLM(lr=0.02), config=_config("fast"))
    rng = np.random.default_rng(0)
    batch = {"x": rng.uniform(0, 1, (4, 4)), "y": onehot(np.array([0, 1, 1, 0]), 2)}
    step = prog.prove_step(prog.quantize(init_mlp([4, 8, 2])), prog.init_state(), batch, 3, 5)
    return {"settings": _sha(step.settings), "proof": _sha(step.proof)}


CASES: dict[str, Callable[[], dict[str, str]]] = {
    "mlp_16_16_4 default": _onnx_case("mlp_16_16_4", "default"),
    "mlp_64_64_10 default": _onnx_case("mlp_64_64_10", "default"),
    "mlp_784_128_10 default": _onnx_case("mlp_784_128_10", "default"),
    "cnn_cifar fast": _onnx_case("cnn_cifar", "fast"),
    "transformer miniature fast": _mini_transformer,
    "transformer_tiny plan": _transformer_shape,
    "training step fast": _training_step,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_examples_prove_to_their_golden_bytes(name: str) -> None:
    golden = json.loads(GOLDEN.read_text())
    assert CASES[name]() == golden[name], f"{name}: the bytes changed (a format change rewrites {GOLDEN.name})"


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps({name: case() for name, case in sorted(CASES.items())}, indent=1) + "\n")
    print(f"wrote {GOLDEN}")
