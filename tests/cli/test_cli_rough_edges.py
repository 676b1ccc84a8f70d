"""The CLI edges of issue 11: --version, remedies in CLI terms, supported ONNX ops, a closed pipe,
the development-proof hint, and the README's command block run in order."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from importlib.metadata import version

import pytest

from cli_helpers import REPO, SPOOF, assert_no_raw_controls, one_line
from luminair.prover.cli import main as cli


def test_version(capsys):
    assert cli(["--version"]) == 0
    assert capsys.readouterr().out == f"luminair {version('luminair')}\n"


def test_a_range_error_names_the_cli_flag_and_the_flag_fixes_it(tmp_path, capsys):
    model = tmp_path / "square.py"
    model.write_text(
        "from luminair.prover import Graph\n"
        "def build():\n"
        "    cx = Graph()\n"
        "    x = cx.input('x', (3,))\n"
        "    (x * x).output('sq')\n"
        "    return cx\n"
    )
    inp = tmp_path / "input.json"
    inp.write_text(json.dumps({"input_data": [[1.0, 7.0, 2.0]]}))  # 49 > 32, the range at scale 2^10
    args = [
        "prove",
        str(model),
        "--input",
        str(inp),
        "--out",
        str(tmp_path / "o"),
        "--preset",
        "fast",
        "--quiet",
    ]
    assert cli(args) == 2
    err = one_line(capsys.readouterr().err)
    assert err.startswith("error (numeric range): ") and "--scale-bits 9" in err and "Graph(" not in err
    assert cli([*args, "--scale-bits", "9", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["outputs"]["sq"] == [1.0, 49.0, 4.0]


def test_an_unsupported_onnx_op_lists_the_supported_ones(tmp_path, capsys):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    from luminair.prover.onnx import SUPPORTED_OPS

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    nodes = [
        helper.make_node("Relu", ["x"], ["h"], name="ok"),
        helper.make_node("Hardmax", ["h"], ["y"], name=f"bad{SPOOF}"),
    ]
    model = helper.make_model(helper.make_graph(nodes, "g", [x], [y]))
    path = tmp_path / "net.onnx"
    onnx.save(model, str(path))
    inp = tmp_path / "input.json"
    inp.write_text(json.dumps({"input_data": [[0.1, 0.2, 0.3, 0.4]]}))
    assert cli(["prove", str(path), "--input", str(inp), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert_no_raw_controls(err)
    first, second = err.splitlines()
    assert first.startswith(
        "error (unsupported ONNX op): the model has 1 unsupported node(s): Hardmax node 'bad\\x1b[2K"
    )
    assert second == f"supported ONNX ops: {', '.join(sorted(SUPPORTED_OPS))}"
    assert "Gemm" in second and "MatMul" in second and "Relu" in second
    path.write_bytes(b"\x08\x01garbage")
    assert cli(["prove", str(path), "--input", str(inp), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert "is not a readable ONNX model" in one_line(capsys.readouterr().err)


def test_a_closed_stdout_ends_quietly(dev_pair):
    """`luminair inspect ... | head`: the reader leaves before the output is written."""
    p = subprocess.Popen(
        [sys.executable, "-m", "luminair.prover.cli", "inspect", str(dev_pair / "settings.bin")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert p.stdout is not None and p.stderr is not None
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=60) == 141
    assert err == b""


def test_a_development_proof_is_rejected_with_the_flag_that_accepts_it(dev_pair, capsys):
    args = ["verify", str(dev_pair / "proof.bin"), str(dev_pair / "settings.bin")]
    assert cli(args) == 1
    rejected, hint = capsys.readouterr().out.splitlines()
    assert rejected.startswith("rejected: config below floor: 20 conjectured bits")
    assert hint.startswith("hint: this is a development proof (20 bits")
    command = shlex.split(hint.split("lower the floor: ", 1)[1])
    assert command[:2] == ["luminair", "verify"] and command[-2:] == ["--min-security-bits", "20"]
    assert cli(command[1:]) == 0
    assert capsys.readouterr().out.startswith("valid: ")
    assert cli([*args, "--json"]) == 1
    assert "--min-security-bits 20" in json.loads(capsys.readouterr().out)["extra"]["hint"]
    assert cli([*args, "--min-security-bits", "21"]) == 1  # a floor the proof does not reach: same hint
    assert "--min-security-bits 20" in capsys.readouterr().out


def test_a_rejection_that_is_not_the_floor_has_no_hint(dev_pair, tmp_path, capsys):
    bad = tmp_path / "proof.bin"
    bad.write_bytes((dev_pair / "proof.bin").read_bytes()[:-3])
    assert cli(["verify", str(bad), str(dev_pair / "settings.bin"), "--min-security-bits", "20"]) == 1
    assert one_line(capsys.readouterr().out).startswith("rejected: malformed file")


def readme_commands() -> list[list[str]]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Command line\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "README's Command line section has no bash block"
    lines = re.sub(r"\\\n\s*", " ", block.group(1)).splitlines()  # join continued lines
    return [shlex.split(line, comments=True) for line in lines if line.startswith("luminair ")]


def test_the_readme_command_block_runs_in_order(tmp_path, monkeypatch, capsys):
    commands = readme_commands()
    assert len(commands) >= 5 and {c[1] for c in commands} >= {"prove", "verify", "inspect"}
    monkeypatch.chdir(REPO)
    for command in commands:
        args = [str(tmp_path / a) if re.match(r"^(out|dev)/", a) else a for a in command[1:]]
        if args[0] == "prove":
            args.append("--quiet")
        code = cli(args)
        out, err = capsys.readouterr()
        assert code == 0, f"{shlex.join(command)} -> exit {code}: {out}{err}"
        assert not out.startswith("rejected")
