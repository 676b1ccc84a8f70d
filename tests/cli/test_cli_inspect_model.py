"""`inspect MODEL`: how a model compiles (graph, components, cells, the search's rewrites), unproven."""

from __future__ import annotations

import json

from cli_helpers import EXAMPLES
from luminair.prover.cli import main as cli

ONNX = str(EXAMPLES / "mlp_64_64_10" / "network.onnx")


def test_inspect_an_onnx_model_names_the_search_rewrites_and_cells(capsys):
    assert cli(["inspect", ONNX, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["file"] == "model" and info["search"]["rewrites"]
    assert info["search"]["cost_after_cells"] < info["search"]["cost_before_cells"]
    names = {c["component"] for c in info["components"]}
    assert "relu" in names and {"matin1.n3+1", "matoutb"} <= names, names  # small: one lane
    assert info["fused"]["Relu"] == 1
    assert cli(["inspect", ONNX]) == 0
    out = capsys.readouterr().out
    assert "search: " in out and "estimated cells" in out and "committed trace cells" in out


def test_inspect_without_the_search_says_so(capsys):
    assert cli(["inspect", ONNX, "--no-search", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["search"] is None and info["fused"]["Relu"] == 1  # the hand-written fusion still runs
    assert cli(["inspect", str(EXAMPLES / "tiny_mlp.py"), "--no-search"]) == 0
    assert "search: off (--no-search" in capsys.readouterr().out


def test_inspect_prints_the_topology_bound_and_takes_scale_bits_for_onnx_only(capsys):
    assert cli(["inspect", ONNX, "--no-search", "--scale-bits", "8", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["numeric_format"]["scale_bits"] == 8
    assert info["topology"].startswith("at most ") and info["topology"].endswith("(its hard bound: 1048576)")
    assert cli(["inspect", str(EXAMPLES / "tiny_mlp.py"), "--scale-bits", "8"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--scale-bits applies to ONNX models" in err, err
