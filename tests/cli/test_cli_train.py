"""`luminair train-step` and `luminair verify-chain`: k chained steps from a batch file, the weights
written out and loadable again, a replaced step rejected with its check, usage errors in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from luminair.prover.cli import main as cli
from luminair.prover.train import load_npz

MLP = "8-8-4"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("train")
    rng = np.random.default_rng(0)
    np.savez(
        d / "batch.npz", x=rng.uniform(0, 1, (2, 8, 8)), y=rng.integers(0, 4, (2, 8))
    )  # 2 steps, int labels
    args = [
        "train-step",
        "--mlp",
        MLP,
        "--batch",
        str(d / "batch.npz"),
        "--out",
        str(d / "out"),
        "--init",
        "3",
        "--seed",
        "9",
        "--step",
        "5",
        "--preset",
        "fast",
        "--json",
    ]
    assert cli(args) == 0
    return d


def test_train_step_writes_steps_weights_and_summary(run: Path, capsys) -> None:
    out = run / "out"
    summary = json.loads((out / "train.json").read_text())
    assert [s["step"] for s in summary["steps"]] == [5, 6]
    assert summary["steps"][0]["new_weights_digest"] == summary["steps"][1]["old_weights_digest"]
    params, state = load_npz(out / "weights.npz")
    assert set(params) == {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"} and set(state["fc1.bias"]) == {
        "m"
    }
    # the written weights continue the chain: one more step from weights.npz
    np.savez(run / "one.npz", x=np.zeros((8, 8)), y=np.zeros(8, dtype=int))
    assert (
        cli(
            [
                "train-step",
                "--mlp",
                MLP,
                "--batch",
                str(run / "one.npz"),
                "--out",
                str(run / "more"),
                "--weights",
                str(out / "weights.npz"),
                "--seed",
                "9",
                "--step",
                "7",
                "--preset",
                "fast",
                "--json",
            ]
        )
        == 0
    )
    more = json.loads((run / "more" / "train.json").read_text())
    assert more["start_state_digest"] == summary["end_state_digest"]
    assert more["steps"][0]["old_weights_digest"] == summary["steps"][1]["new_weights_digest"]


def test_verify_chain_accepts_the_run_and_rejects_a_replaced_step(run: Path, capsys, tmp_path: Path) -> None:
    out = run / "out"
    summary = json.loads((out / "train.json").read_text())
    capsys.readouterr()
    assert (
        cli(
            [
                "verify-chain",
                str(out),
                "--min-security-bits",
                "0",
                "--max-work",
                "50000000",
                "--start-digest",
                summary["start_state_digest"],
            ]
        )
        == 0
    )
    assert "valid: 2 chained training steps 5..6" in capsys.readouterr().out
    # step 6 replaced by a copy of step 5
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    shutil.rmtree(bad / "step_00006")
    shutil.copytree(out / "step_00005", bad / "step_00006")
    assert cli(["verify-chain", str(bad), "--min-security-bits", "0", "--max-work", "50000000"]) == 1
    text = capsys.readouterr().out
    assert text.startswith("rejected: chain step: step 1: step number 5, expected 6"), text
    # a single step through `luminair verify` shows the training statement
    assert (
        cli(
            [
                "verify",
                str(out / "step_00005" / "proof.bin"),
                str(out / "step_00005" / "settings.bin"),
                "--min-security-bits",
                "0",
                "--max-work",
                "50000000",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "training step 5 (seed 9)" in text and summary["steps"][0]["new_weights_digest"] in text


def test_usage_errors(run: Path, capsys) -> None:
    base = [
        "train-step",
        "--mlp",
        MLP,
        "--batch",
        str(run / "batch.npz"),
        "--out",
        str(run / "x"),
        "--init",
        "1",
    ]
    assert cli([*base, "--optimizer", "sgd", "--lam", "0.5"]) == 2
    assert "--lam does not apply to --optimizer sgd" in capsys.readouterr().err
    assert cli([*base[:2], "6-8-4", *base[3:]]) == 2
    assert "array 'x' has shape" in capsys.readouterr().err
    assert cli(["verify-chain", str(run)]) == 2
    assert "has no step_*/ folders" in capsys.readouterr().err


MODEL_PY = """
import numpy as np

PARAMS = {"w": (3, 2)}
BATCH = {"x": (4, 3), "t": (4, 2)}


def loss(params, batch):
    return (batch["x"] @ params["w"] - batch["t"]).square().mean()


def init(seed):
    return {"w": np.random.default_rng(seed).uniform(-1, 1, (3, 2))}
"""


def test_train_step_with_a_python_model(tmp_path: Path, capsys) -> None:
    (tmp_path / "model.py").write_text(MODEL_PY)
    rng = np.random.default_rng(1)
    np.savez(tmp_path / "b.npz", x=rng.uniform(0, 1, (4, 3)), t=rng.uniform(0, 1, (4, 2)))
    assert (
        cli(
            [
                "train-step",
                "--model",
                str(tmp_path / "model.py"),
                "--batch",
                str(tmp_path / "b.npz"),
                "--out",
                str(tmp_path / "out"),
                "--optimizer",
                "sgd",
                "--lr",
                "0.05",
                "--momentum",
                "0.9",
                "--preset",
                "fast",
                "--json",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["optimizer"] == {"optimizer": "sgd", "lr": 0.05, "momentum": 0.9}
    assert cli(["verify-chain", str(tmp_path / "out"), "--min-security-bits", "0"]) == 0
