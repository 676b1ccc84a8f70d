"""Names chosen by a model's author cannot spoof the CLI's human-readable output (issue 10).

The settings codec refuses control characters in names (or will); these tests force such names
past it (patching what the CLI calls, or building results directly) so that they keep testing the
CLI's own escaping."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import luminair.verifier
import luminair.verifier.summary
from cli_helpers import RAW_CONTROLS, SPOOF, assert_no_raw_controls
from luminair.prover.cli import main as cli, print_inspect, print_verify_result, printable
from luminair.verifier.api import VerifyResult
from luminair.verifier.errors import VerificationError


def test_printable_escapes_everything_a_terminal_would_interpret():
    out = printable(SPOOF)
    assert out.isprintable()
    for raw in RAW_CONTROLS:
        assert raw not in out
    for escaped in ("\\x1b[2K\\rVALID", "\\x9b2K", "\\u202eevil", "\\u2028", "\\nrejected", "\\x07"):
        assert escaped in out
    assert printable("\U000e0001 tag \x00 \x7f \ud800") == "\\U000e0001 tag \\x00 \\x7f \\ud800"
    assert printable("MLP 64-64-10 ünïcode ✓ 名前") == "MLP 64-64-10 ünïcode ✓ 名前"  # printable text is kept
    assert printable(out) == out  # escaping is idempotent
    assert printable(3) == "3"


def _hostile_verify(real_verify):
    def fake(proof: bytes, settings: bytes, **kw):
        r = real_verify(proof, settings, **kw)
        assert r.success, r.error_message
        r.statement = f"graph: {SPOOF} graph of 9 nodes"
        r.outputs = {SPOOF: {**o, "source": {**o["source"], "name": SPOOF}} for o in r.outputs.values()}
        r.model_title = r.model_description = SPOOF
        return r

    return fake


def test_verify_prints_a_hostile_title_and_output_names_escaped(dev_pair: Path, monkeypatch, stdio):
    monkeypatch.setattr(luminair.verifier, "verify", _hostile_verify(luminair.verifier.verify))
    args = [
        "verify",
        str(dev_pair / "proof.bin"),
        str(dev_pair / "settings.bin"),
        "--min-security-bits",
        "20",
    ]
    assert cli(args) == 0
    out = stdio.readouterr().out
    assert_no_raw_controls(out)
    lines = out.splitlines()
    assert lines[0].startswith("valid: graph: \\x1b[2K\\rVALID") and len(lines) == 6, out
    assert lines[1].startswith("  model digest (the model's identity")
    assert lines[2].startswith("  title (publisher's label): \\x1b[2K\\rVALID")
    assert lines[3].startswith("  description (publisher's label): \\x1b[2K\\rVALID")
    assert lines[4].startswith("  output \\x1b[2K\\rVALID")
    assert lines[5].startswith("    source node ") and "'\\x1b[2K\\rVALID" in lines[5]
    assert cli([*args, "--json"]) == 0  # JSON stays JSON, escaped by json.dumps
    text = stdio.readouterr().out
    assert_no_raw_controls(text)
    assert SPOOF in json.loads(text)["outputs"]


def test_a_rejection_quoting_a_hostile_name_is_escaped(dev_pair: Path, monkeypatch, stdio):
    def fake(proof: bytes, settings: bytes, **kw):
        return VerifyResult(False, f"statement mismatch: input {SPOOF} has 3 values", "statement mismatch")

    monkeypatch.setattr(luminair.verifier, "verify", fake)
    assert cli(["verify", str(dev_pair / "proof.bin"), str(dev_pair / "settings.bin")]) == 1
    out = stdio.readouterr().out
    assert_no_raw_controls(out)
    assert out.count("\n") == 1 and out.startswith("rejected: statement mismatch: input \\x1b[2K")


def test_inspect_prints_hostile_names_escaped(dev_pair: Path, monkeypatch, stdio):
    real = luminair.verifier.summary.settings_summary

    def hostile(data: bytes, **kwargs):
        info = real(data, **kwargs)
        info["title"] = SPOOF
        info["inputs"][0]["name"] = SPOOF
        info["outputs"][0]["name"] = SPOOF
        info["graph"]["nodes"][0]["label"] = f"Input {SPOOF}"
        return info

    monkeypatch.setattr(luminair.verifier.summary, "settings_summary", hostile)
    assert cli(["inspect", str(dev_pair / "settings.bin")]) == 0
    out = stdio.readouterr().out
    assert_no_raw_controls(out)
    assert "title (publisher's label): \\x1b[2K\\rVALID" in out and "Input \\x1b[2K" in out
    assert "  '\\x1b[2K\\rVALID" in out  # the output's name, quoted
    assert cli(["inspect", str(dev_pair / "settings.bin"), "--json"]) == 0
    text = stdio.readouterr().out
    assert_no_raw_controls(text)
    assert json.loads(text)["title"] == SPOOF


def test_the_printing_functions_escape_a_result_built_directly(stdio):
    r = VerifyResult(
        True,
        statement=SPOOF,
        security_bits=96,
        security_label=SPOOF,
        model_digest=SPOOF,
        model_title=SPOOF,
        model_description=SPOOF,
        outputs={
            SPOOF: {
                "shape": [1],
                "values": [1.0],
                "source": {"node": 0, "op": "Add", "name": SPOOF},
                "index_map": [0],
            }
        },
    )
    print_verify_result(r)
    print_verify_result(VerifyResult(False, SPOOF, "x"), hint=SPOOF)
    print_inspect(
        {
            "title": SPOOF,
            "description": SPOOF,
            "graph": {"nodes": [{"id": 0, "label": SPOOF, "shape": [1]}], "edges": []},
            "outputs": [{"name": SPOOF, "node": 0, "source_op": "Add", "source_name": SPOOF, "view": SPOOF}],
        }
    )
    print_inspect({"outputs": [{"name": SPOOF}]})  # an output without its source, view or map
    out = stdio.readouterr().out
    assert_no_raw_controls(out)
    assert out.count("\\x1b[2K") == 16  # every field that held the sequence, none dropped


def test_errors_quoting_a_hostile_name_are_one_escaped_line(tmp_path: Path, stdio):
    model = tmp_path / "model.py"
    model.write_text(
        "from luminair.prover import Graph\n"
        "def build():\n"
        "    cx = Graph()\n"
        f"    x = cx.input({SPOOF!r}, (1, 2))\n"
        "    (x * x).output('y')\n"
        "    return cx\n"
    )
    inp = tmp_path / "input.json"
    inp.write_text(json.dumps({"input_data": [[1.0, 2.0, 3.0]]}))  # 3 values for an input of 2
    assert cli(["prove", str(model), "--input", str(inp), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = stdio.readouterr().err
    assert_no_raw_controls(err)
    assert err.count("\n") == 1 and "\\x1b[2K\\rVALID" in err and "expected 2 values" in err


def test_a_real_pair_with_hostile_names_prints_escaped(tmp_path: Path, stdio):
    """End to end without patches, for as long as the settings codec accepts such names."""
    from luminair.prover import Graph
    from luminair.prover.proving import write_files

    try:
        cx = Graph()
        x = cx.input("x", (1, 2))
        (x * cx.constant(np.array([[0.5, 0.25]]), "w")).output(SPOOF)
        settings = cx.gen_settings(preset="fast", title=SPOOF)
    except (ValueError, VerificationError) as e:  # the codec's own refusal is tested where the codec is
        pytest.skip(
            f"the settings codec refuses control characters ({type(e).__name__}); the patched tests cover the CLI"
        )
    proof = cx.prove(cx.gen_trace({"x": np.array([[1.0, 2.0]])}), settings)
    write_files(tmp_path, settings, proof)
    assert (
        cli(
            [
                "verify",
                str(tmp_path / "proof.bin"),
                str(tmp_path / "settings.bin"),
                "--min-security-bits",
                "20",
            ]
        )
        == 0
    )
    assert cli(["inspect", str(tmp_path / "settings.bin")]) == 0
    out = stdio.readouterr().out
    assert_no_raw_controls(out)
    # the verdict's title and output line, inspect's title and output line
    assert out.count("\\x1b[2K\\rVALID") == 4
