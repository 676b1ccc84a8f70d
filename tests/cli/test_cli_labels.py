"""The model's identity and the publisher's labels on the command line (issue 8).

`prove --title/--description` set the labels; `verify` and `inspect` show the model digest as the
identity and the labels as the publisher's; each output's source node and index map are shown."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import EXAMPLES, assert_no_raw_controls
from luminair.prover.cli import index_map_text
from luminair.prover.cli import main as cli

MLP = [
    str(EXAMPLES / "mlp_16_16_4" / "network.onnx"),
    "--input",
    str(EXAMPLES / "mlp_16_16_4" / "input.json"),
]
DEV_FLOOR = ["--min-security-bits", "20"]  # what the CLI asks for a --preset fast proof
TITLE = "MLP 16-16-4 démo"
DESCRIPTION = "A two-layer perceptron; 16 inputs, 4 outputs."


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same ONNX model proven under two titles (the first also with a description)."""
    root = tmp_path_factory.mktemp("labelled")
    a, b = root / "a", root / "b"
    assert cli(["prove", *MLP, "--out", str(a), "--preset", "fast", "--quiet", "--json",
                "--title", TITLE, "--description", DESCRIPTION]) == 0  # fmt: skip
    assert cli(["prove", *MLP, "--out", str(b), "--preset", "fast", "--quiet", "--json",
                "--title", "Another name"]) == 0  # fmt: skip
    return {"a": a, "b": b}


@pytest.fixture(scope="module")
def permuted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A graph whose output reads its node through a transpose: a non-identity index map."""
    from luminair.prover import Graph
    from luminair.prover.proving import write_files

    cx = Graph()
    x = cx.input("x", (2, 3))
    y = (x * cx.constant(np.arange(6.0).reshape(2, 3) * 0.25, "w")).named("scaled")
    y.permute((1, 0)).output("yt")
    settings = cx.gen_settings(preset="fast", title="permuted")
    proof = cx.prove(cx.gen_trace({"x": np.ones((2, 3))}), settings)
    out = tmp_path_factory.mktemp("permuted")
    write_files(out, settings, proof)
    return out


def test_prove_shows_the_digest_and_the_labels_as_the_publishers(tmp_path: Path, stdio):
    out = tmp_path / "o"
    assert cli(["prove", *MLP, "--out", str(out), "--preset", "fast", "--quiet",
                "--title", TITLE, "--description", DESCRIPTION]) == 0  # fmt: skip
    text = stdio.readouterr().out
    assert_no_raw_controls(text)
    lines = text.splitlines()
    digest = next(line for line in lines if line.startswith("model digest"))
    assert "the model's identity" in digest and len(digest.split()[2]) == 64
    assert f"publisher's label: {TITLE}" in text and f"publisher's label: {DESCRIPTION}" in text
    assert not any(TITLE in line for line in lines if line.startswith("model digest"))  # separately
    assert (
        cli(["prove", *MLP, "--out", str(out), "--preset", "fast", "--quiet", "--json", "--title", TITLE])
        == 0
    )
    summary = json.loads(stdio.readouterr().out)
    assert summary["title"] == TITLE and summary["description"] == ""


def test_without_labels_the_title_and_description_are_none(tmp_path: Path, stdio):
    out = tmp_path / "o"
    assert cli(["prove", *MLP, "--out", str(out), "--preset", "fast", "--quiet"]) == 0
    assert "title          publisher's label: (none)" in stdio.readouterr().out
    assert cli(["verify", str(out / "proof.bin"), str(out / "settings.bin"), "--json", *DEV_FLOOR]) == 0
    r = json.loads(stdio.readouterr().out)
    assert r["model_title"] is None and r["model_description"] is None


def test_same_model_two_titles_same_digest_different_settings(labelled: dict[str, Path], stdio):
    a, b = labelled["a"], labelled["b"]
    assert (a / "settings.bin").read_bytes() != (b / "settings.bin").read_bytes()
    infos = {}
    for key, folder in labelled.items():
        assert cli(["inspect", str(folder / "settings.bin"), "--json"]) == 0
        infos[key] = json.loads(stdio.readouterr().out)
    assert infos["a"]["model_digest"] == infos["b"]["model_digest"]
    assert infos["a"]["settings_digest"] != infos["b"]["settings_digest"]
    assert infos["a"]["title"] == TITLE and infos["b"]["title"] == "Another name"
    # a proof is bound to its own settings file, labels included
    assert cli(["verify", str(a / "proof.bin"), str(b / "settings.bin"), *DEV_FLOOR]) == 1
    assert stdio.readouterr().out.startswith("rejected: statement mismatch")


def test_verify_shows_identity_labels_source_and_index_map(labelled: dict[str, Path], stdio):
    a = labelled["a"]
    args = ["verify", str(a / "proof.bin"), str(a / "settings.bin"), *DEV_FLOOR]
    assert cli(args) == 0
    text = stdio.readouterr().out
    assert_no_raw_controls(text)
    lines = text.splitlines()
    assert lines[0].startswith("valid: ")
    assert lines[1].startswith("  model digest (the model's identity") and len(lines[1].split()[-1]) == 64
    assert lines[2] == f"  title (publisher's label): {TITLE}"
    assert lines[3] == f"  description (publisher's label): {DESCRIPTION}"
    assert lines[4].startswith("  output output [1, 4]: [")
    assert lines[5] == "    source node 7 (Dot 'output'); index map: identity"
    assert cli([*args, "--json"]) == 0
    r = json.loads(stdio.readouterr().out)
    assert r["model_title"] == TITLE and r["model_description"] == DESCRIPTION
    assert len(r["model_digest"]) == 64
    assert r["outputs"]["output"]["source"] == {"node": 7, "op": "Dot", "name": "output"}
    assert r["outputs"]["output"]["index_map"] == "identity"


def test_inspect_shows_identity_labels_source_view_and_index_map(labelled: dict[str, Path], stdio):
    settings = str(labelled["a"] / "settings.bin")
    assert cli(["inspect", settings]) == 0
    text = stdio.readouterr().out
    assert_no_raw_controls(text)
    lines = text.splitlines()
    assert any(line.startswith("model_digest (the model's identity") for line in lines)
    assert any(line.startswith("settings_digest (this file, labels included") for line in lines)
    assert f"title (publisher's label): {TITLE}" in lines
    assert f"description (publisher's label): {DESCRIPTION}" in lines
    i = lines.index("outputs: 1")
    assert lines[i + 1 : i + 4] == [
        "  'output' (1, 4) from node 7 (Dot 'output')",
        "      view: identity",
        "      index map: identity",
    ]
    assert cli(["inspect", settings, "--json"]) == 0
    info = json.loads(stdio.readouterr().out)
    assert info["publisher_labels"] == {"title": TITLE, "description": DESCRIPTION}
    (o,) = info["outputs"]
    assert o["source"] == {"node": 7, "op": "Dot", "name": "output"}
    assert o["view"] == "identity" and o["index_map"] == "identity"


def test_a_permuted_output_shows_its_index_map(permuted: Path, stdio):
    assert cli(["inspect", str(permuted / "settings.bin")]) == 0
    lines = stdio.readouterr().out.splitlines()
    i = lines.index("outputs: 1")
    assert lines[i + 1] == "  'yt' (3, 2) from node 2 (Mul 'scaled')"
    assert lines[i + 2] == "      view: permute(1, 0)"
    assert lines[i + 3] == "      index map: 6 elements [0, 3, 1, 4, 2, 5]"
    assert cli(["inspect", str(permuted / "settings.bin"), "--json"]) == 0
    (o,) = json.loads(stdio.readouterr().out)["outputs"]
    assert o["index_map"] == [0, 3, 1, 4, 2, 5] and o["view"] == "permute(1, 0)"
    args = ["verify", str(permuted / "proof.bin"), str(permuted / "settings.bin"), *DEV_FLOOR]
    assert cli(args) == 0
    lines = stdio.readouterr().out.splitlines()
    assert lines[4] == "  output yt [3, 2]: [0, 0.75, 0.25, 1, 0.5, 1.25]"
    assert lines[5] == "    source node 2 (Mul 'scaled'); index map: 6 elements [0, 3, 1, 4, 2, 5]"
    assert cli([*args, "--json"]) == 0
    o = json.loads(stdio.readouterr().out)["outputs"]["yt"]
    assert o["index_map"] == [0, 3, 1, 4, 2, 5]
    assert o["source"] == {"node": 2, "op": "Mul", "name": "scaled"}


def test_index_map_summary_is_compact():
    assert index_map_text("identity") == "identity"
    assert index_map_text(list(range(100))[::-1]) == "100 elements [99, 98, 97, 96, 95, 94, 93, 92, ...]"
    assert index_map_text([2, -1, 0, -1]) == "4 elements [2, -1, 0, -1], 2 read the constant 0 (-1)"
    assert index_map_text([5]) == "1 element [5]"
    assert index_map_text(None) == "(not given)"


@pytest.mark.parametrize(
    "flags, needle",
    [
        (["--title", "bad\x07title"], "--title is refused: character 3 is U+0007"),
        (["--title", "right\u202eleft"], "--title is refused: character 5 is U+202E"),
        (["--title", "t" * 201], "--title is refused: 201 characters, more than 200"),
        (["--description", "line one\nline two"], "--description is refused: character 8 is U+000A"),
        (["--description", "d" * 2001], "--description is refused: 2001 characters, more than 2000"),
    ],
)
def test_labels_the_codec_would_refuse_are_refused_before_proving(tmp_path: Path, stdio, flags, needle):
    out = tmp_path / "o"
    assert cli(["prove", *MLP, "--out", str(out), "--preset", "fast", "--quiet", *flags]) == 2
    captured = stdio.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("error: ") and needle in captured.err
    assert_no_raw_controls(captured.err)
    assert not out.exists()  # refused before anything was proven or written


def test_labels_at_the_limits_are_accepted(tmp_path: Path, stdio):
    out = tmp_path / "o"
    assert cli(["prove", *MLP, "--out", str(out), "--preset", "fast", "--quiet", "--json",
                "--title", "t" * 200, "--description", "d" * 2000]) == 0  # fmt: skip
    stdio.readouterr()
    assert cli(["inspect", str(out / "settings.bin"), "--json"]) == 0
    info = json.loads(stdio.readouterr().out)
    assert info["title"] == "t" * 200 and info["description"] == "d" * 2000
