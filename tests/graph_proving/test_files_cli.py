"""Both files, every region, bad input and the command line."""

import json
import random
from pathlib import Path

import numpy as np
import pytest

from luminair.verifier.formats import FORMAT_VERSION
from luminair.prover import Graph
from luminair.prover.cli import main as cli
from luminair.verifier import verify
from luminair.verifier.formats import read_proof_file
from luminair.verifier.graph.statement import build_graph_air

from proving_helpers import prove_graph
from tamper_regions import PROOF_REGIONS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"



@pytest.fixture(scope="module")
def default_case():
    """An MLP proven at the default 96-bit preset."""
    rng = np.random.default_rng(1)
    cx = Graph()
    x = cx.input("x", (1, 8))
    w = cx.constant(rng.uniform(-1, 1, (8, 4)), "w")
    b = cx.constant(rng.uniform(-1, 1, (4,)), "b")
    (x @ w + b).relu().output("y")
    settings, trace, proof = prove_graph(cx, {"x": rng.uniform(-1, 1, (1, 8))}, preset="default")
    assert verify(proof.data, settings.data).success
    return cx, settings, trace, proof


@pytest.mark.parametrize("region", sorted(PROOF_REGIONS))
def test_every_region_of_a_graph_proof_is_checked(default_case, region):
    _, settings, _, proof = default_case
    data = proof.data
    start, end = read_proof_file(data).encode().regions()[region]
    rng = random.Random(region)
    for _ in range(5):
        pos = rng.randrange(start, end)
        bad = data[:pos] + bytes([data[pos] ^ (1 << rng.randrange(8))]) + data[pos + 1 :]
        r = verify(bad, settings.data)
        assert not r.success and r.check in PROOF_REGIONS[region], f"{region}@{pos}: {r.error_message}"


def test_every_byte_of_settings_is_bound(default_case):
    _, settings, _, proof = default_case
    data = settings.data
    for pos in range(len(data)):
        bad = data[:pos] + bytes([data[pos] ^ 0x01]) + data[pos + 1 :]
        r = verify(proof.data, bad)
        assert not r.success
        assert r.check in {"statement mismatch", "malformed file", "unsupported version"}, f"byte {pos}: {r.error_message}"


def test_settings_of_another_model_and_proofs_of_other_inputs(default_case):
    cx, settings, trace, proof = default_case
    cx2 = Graph()
    x = cx2.input("x", (1, 8))
    (x @ cx2.constant(np.full((8, 4), 0.25), "w") + cx2.constant(np.zeros(4), "b")).relu().output("y")
    other_settings, _, other_proof = prove_graph(cx2, {"x": np.zeros((1, 8))}, preset="default")
    assert verify(proof.data, other_settings.data).check == "statement mismatch"
    assert verify(other_proof.data, settings.data).check == "statement mismatch"
    pf = read_proof_file(proof.data)
    pf.public_values[0][0] = (pf.public_values[0][0] + 5) % ((1 << 31) - 1)
    assert verify(pf.to_bytes(), settings.data).check == "proof of work"  # the transcript changed


def test_bad_files_give_specific_messages(default_case, tmp_path):
    _, settings, _, proof = default_case
    cases = {
        "empty": (b"", "empty"),
        "truncated": (proof.data[:100], "truncated"),
        "garbage": (b"\x89PNG\r\n" + bytes(200), "not a luminair proof file"),
        "newer": (proof.data[:8] + (FORMAT_VERSION + 1).to_bytes(2, "little") + proof.data[10:], "newer luminair"),
    }
    for name, (data, needle) in cases.items():
        r = verify(data, settings.data)
        assert not r.success and needle in r.error_message, (name, r.error_message)


def test_command_line_exit_codes(default_case, tmp_path, capsys):
    _, settings, _, proof = default_case
    p, s = tmp_path / "proof.bin", tmp_path / "settings.bin"
    proof.write(p)
    settings.write(s)
    assert cli(["verify", str(p), str(s)]) == 0
    assert "valid" in capsys.readouterr().out
    bad = tmp_path / "bad.bin"
    bad.write_bytes(proof.data[:-3])
    assert cli(["verify", str(bad), str(s)]) == 1
    assert capsys.readouterr().out.startswith("rejected: malformed file")
    assert cli(["verify", str(tmp_path / "missing.bin"), str(s)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert cli(["verify", str(tmp_path), str(s)]) == 2
    assert cli(["inspect", str(s)]) == 0
    assert "model_digest" in capsys.readouterr().out
    assert cli(["inspect", str(p), "--json"]) == 0
    assert '"settings_digest"' in capsys.readouterr().out
    assert cli(["bogus"]) == 2


def test_cli_proves_an_onnx_model_and_a_python_model(tmp_path, capsys):
    out = tmp_path / "onnx"
    code = cli([
        "prove", str(EXAMPLES / "mlp_16_16_4" / "network.onnx"), "--input", str(EXAMPLES / "mlp_16_16_4" / "input.json"),
        "--out", str(out), "--preset", "fast", "--quiet",
    ])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "max |fixed - float64|" in text and "DEVELOPMENT ONLY" in text
    assert cli(["verify", str(out / "proof.bin"), str(out / "settings.bin")]) == 1  # below the 96-bit floor
    assert "config below floor" in capsys.readouterr().out
    assert cli(["verify", str(out / "proof.bin"), str(out / "settings.bin"), "--min-security-bits", "20"]) == 0
    out2 = tmp_path / "py"
    code = cli(["prove", str(EXAMPLES / "tiny_mlp.py"), "--input", str(EXAMPLES / "tiny_mlp.input.json"),
                "--out", str(out2), "--preset", "fast", "--quiet", "--json"])
    assert code == 0
    assert '"proof_bytes"' in capsys.readouterr().out


def test_cli_reports_bad_models_and_inputs(tmp_path, capsys):
    assert cli(["prove", str(tmp_path / "nope.onnx"), "--input", "x.json", "--out", str(tmp_path)]) == 2
    assert "does not exist" in capsys.readouterr().err
    bad_input = tmp_path / "in.json"
    bad_input.write_text('{"input_data": [[1, 2, 3]]}')
    code = cli(["prove", str(EXAMPLES / "mlp_16_16_4" / "network.onnx"), "--input", str(bad_input),
                "--out", str(tmp_path / "o"), "--quiet"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error") and "input" in err and "\n" == err[-1] and err.count("\n") == 1


def test_values_out_of_range_at_prove_time_name_the_node():
    from luminair.verifier.numeric import NumericError

    cx = Graph()
    x = cx.input("x", (3,))
    (x * x).output("sq")
    with pytest.raises(NumericError) as e:
        cx.gen_trace({"x": np.array([1.0, 7.0, 2.0])})  # 49 > 32, the range at scale 2^10
    msg = str(e.value)
    assert "Mul" in msg and "49" in msg


def test_the_graph_air_matches_settings(default_case):
    _, settings, _, _ = default_case
    air, plans = build_graph_air(settings.spec, settings.config.log_blowup)
    assert [c.name for c in air.components] == [c.name for c in settings.air.components]


def test_cli_keeps_a_private_onnx_input_out_of_the_proof(tmp_path, capsys):
    out = tmp_path / "private"
    code = cli([
        "prove", str(EXAMPLES / "mlp_16_16_4" / "network.onnx"), "--input", str(EXAMPLES / "mlp_16_16_4" / "input.json"),
        "--out", str(out), "--preset", "fast", "--quiet", "--private", "input",
    ])
    assert code == 0, capsys.readouterr().err
    r = verify((out / "proof.bin").read_bytes(), (out / "settings.bin").read_bytes(), min_security_bits=0)
    assert r.success and not r.inputs and list(r.outputs) == ["output"]
    assert list(read_proof_file((out / "proof.bin").read_bytes()).public_values[0]) == r_raw(r)
    code = cli(["prove", str(EXAMPLES / "tiny_mlp.py"), "--input", str(EXAMPLES / "tiny_mlp.input.json"),
                "--out", str(out), "--private", "x"])
    assert code == 2 and "--private applies to ONNX models" in capsys.readouterr().err


def r_raw(r):
    one = 1 << r.outputs["output"]["scale_bits"]  # (the output's own scale)
    return [round(v * one) % ((1 << 31) - 1) for v in r.outputs["output"]["values"]]


def test_cli_prove_reports_the_search_and_no_search_turns_it_off(tmp_path, capsys):
    """The summary names the rewrites the search applied, its cost estimate and time; with
    --no-search it says the search was off, and both proofs verify and attest the same outputs
    (the search's fusions here are the ones the hand-written pass makes)."""
    model, feed = EXAMPLES / "mlp_16_16_4" / "network.onnx", EXAMPLES / "mlp_16_16_4" / "input.json"
    outs = {}
    for flag in ([], ["--no-search"]):
        out = tmp_path / ("plain" if flag else "searched")
        assert cli(["prove", str(model), "--input", str(feed), "--out", str(out), "--preset", "fast", "--quiet",
                    "--json", *flag]) == 0
        summary = json.loads(capsys.readouterr().out)
        outs[bool(flag)] = summary["outputs"]
        assert cli(["verify", str(out / "proof.bin"), str(out / "settings.bin"), "--min-security-bits", "20"]) == 0
        capsys.readouterr()
        if flag:
            assert summary["search"] is None
        else:
            s = summary["search"]
            assert s["rewrites"] == {"Add -> Dot+bias": 2, "Mul -> Relu": 1} and s["saturated"]
            assert s["cost_after_cells"] < s["cost_before_cells"] and s["time_s"] > 0
    assert outs[True] == outs[False]
    assert cli(["prove", str(model), "--input", str(feed), "--out", str(tmp_path / "t"), "--preset", "fast",
                "--quiet"]) == 0
    line = next(t for t in capsys.readouterr().out.splitlines() if t.startswith("search "))
    assert "Add -> Dot+bias x2, Mul -> Relu x1; estimated cells" in line and "saturated" in line
    assert cli(["prove", str(model), "--input", str(feed), "--out", str(tmp_path / "u"), "--preset", "fast",
                "--quiet", "--no-search"]) == 0
    assert "search         off (--no-search" in capsys.readouterr().out
