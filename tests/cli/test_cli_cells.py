"""Trace-cell accounting: inspect and the prove summary count the committed cells per component."""

import json
from pathlib import Path

from luminair.prover.cli import main as cli
from luminair.prover.costs import components_summary
from luminair.verifier.statement import read_settings

PUBLIC = Path(__file__).resolve().parents[2] / "public"


def test_inspect_counts_cells_per_component(capsys):
    assert cli(["inspect", str(PUBLIC / "settings.bin"), "--json"]) == 0
    comps = json.loads(capsys.readouterr().out)["components"]
    for c in comps:
        width = c["main_columns"] + c["topology_columns"] + c["interaction_columns"]
        assert c["cells"] == (1 << c["log_size"]) * width > 0
    spec = read_settings((PUBLIC / "settings.bin").read_bytes()).body
    by_name = {c["component"]: c for c in components_summary(spec)}
    assert by_name["relu"]["topology_columns"] == 5  # addr, mult, is_real, in_addr, in_real
    assert cli(["inspect", str(PUBLIC / "settings.bin")]) == 0
    text = capsys.readouterr().out
    assert f"{sum(c['cells'] for c in comps)} committed trace cells" in text


def test_the_prove_summary_counts_cells(tmp_path, capsys):
    examples = Path(__file__).resolve().parents[2] / "examples" / "mlp_16_16_4"
    args = ["prove", str(examples / "network.onnx"), "--input", str(examples / "input.json"),
            "--out", str(tmp_path), "--preset", "fast", "--quiet", "--json"]
    assert cli(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert all(c["cells"] == c["trace_rows"] * (c["main_columns"] + c["topology_columns"] + c["interaction_columns"])
               for c in summary["components"])
    fused = [c for c in summary["components"] if c["component"].startswith(("dot", "matout", "relu"))]
    # (a product too small for the Freivalds check's two components stays a Dot: graph/matmul.py)
    kinds = {c["component"][:3] for c in fused}
    assert "rel" in kinds and kinds & {"dot", "mat"}, "the MLP's matmuls, biases and relu are fused"
    for c in fused:  # what the same work costs as primitive rows (Mul + SumReduce + Add, LessThan + Mul)
        assert c["primitive_cells"] > c.get("product_cells", c["cells"])
        assert c.get("product_cells", c["cells"]) >= c["cells"]
    assert max(c["primitive_cells"] / c.get("product_cells", c["cells"]) for c in fused) > 2
    assert all("primitive_cells" not in c for c in summary["components"] if c not in fused)
