"""The CLI's verdicts and rough edges of issue 31: swapped arguments are a usage error, a proof made
for another settings.bin of the same model says so, `prove` names the work budget its proof needs
(and warns above the default), no progress bar goes into a pipe, `--preset` is explained, and
`inspect` names components in words."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from cli_helpers import REPO, TINY
from luminair.prover import cli as cli_module
from luminair.prover.cli import EXIT_NOT_CHECKED, EXIT_REJECTED, EXIT_USAGE, component_title
from luminair.prover.cli import main as cli
from luminair.verifier import verify
from luminair.verifier.formats import read_proof_file

PUBLIC = REPO / "public"


def test_swapped_arguments_are_a_usage_error_naming_the_right_order(stdio):
    proof, settings = str(PUBLIC / "proof.bin"), str(PUBLIC / "settings.bin")
    assert cli(["verify", settings, proof]) == EXIT_USAGE
    err = stdio.readouterr().err
    assert "swapped" in err and shlex.join(["luminair", "verify", proof, settings]) in err


def test_a_proof_for_another_settings_of_the_same_model_says_so(tmp_path, dev_pair, stdio):
    # the same model under another label: another settings digest, the same public inputs and outputs
    other = tmp_path / "other"
    assert cli(["prove", *TINY, "--out", str(other), "--preset", "fast", "--title", "other", "--quiet", "--json"]) == 0
    stdio.readouterr()
    code = cli(["verify", str(dev_pair / "proof.bin"), str(other / "settings.bin"), "--min-security-bits", "0"])
    assert code == EXIT_REJECTED
    out = stdio.readouterr().out
    assert out.startswith("rejected: statement mismatch")
    assert "hint: the proof's public inputs and outputs fit this model" in out and "--title/--description" in out
    # a proof of another model gets no such hint
    assert cli(["verify", str(PUBLIC / "proof.bin"), str(other / "settings.bin"), "--min-security-bits", "0"]) == 1
    assert "hint:" not in stdio.readouterr().out


def test_a_proof_from_another_preset_of_the_same_model_names_the_configurations(tmp_path, dev_pair, stdio):
    other = tmp_path / "default"
    assert cli(["prove", *TINY, "--out", str(other), "--quiet", "--json"]) == 0
    stdio.readouterr()
    pairs = ((dev_pair / "proof.bin", other / "settings.bin", "20 bits [fast preset", "[default preset]"),
             (other / "proof.bin", dev_pair / "settings.bin", "[default preset]", "20 bits [fast preset"))
    for proof, settings, made_with, these in pairs:
        assert cli(["verify", str(proof), str(settings), "--min-security-bits", "0"]) == EXIT_REJECTED
        first, hint = stdio.readouterr().out.splitlines()[:2]
        assert first.startswith("rejected: statement mismatch") and "wrong model or tampered" not in first
        assert made_with in first.split("another configuration: the proof's is ")[1].split(", these")[0]
        assert these in first.split("these settings' ")[1]
        assert hint.startswith("hint: verify it with the settings.bin written next to it")
    assert cli(["verify", str(dev_pair / "proof.bin"), str(other / "settings.bin"), "--min-security-bits", "0", "--json"]) == 1
    got = json.loads(stdio.readouterr().out)
    assert got["extra"]["proof_config"] == {"pow_bits": 8, "log_blowup": 1, "n_queries": 12, "log_last_layer": 0,
                                            "interaction_pow_bits": 0}
    assert "another configuration" in got["error_message"]


def test_the_configuration_search_is_bounded(tmp_path, dev_pair, stdio, monkeypatch):
    """A settings file too large for the search to hash every candidate: the hint, never unbounded work."""
    from luminair.prover.cli import mismatch

    other = tmp_path / "default"
    assert cli(["prove", *TINY, "--out", str(other), "--quiet", "--json"]) == 0
    stdio.readouterr()
    settings = (other / "settings.bin").read_bytes()
    digest = read_proof_file((dev_pair / "proof.bin").read_bytes()).settings_digest
    assert mismatch.proof_config(settings, digest) is not None
    monkeypatch.setattr(mismatch, "MAX_HASHED_BYTES", len(settings) - 1)  # not even the first candidate
    assert mismatch.proof_config(settings, digest) is None
    assert cli(["verify", str(dev_pair / "proof.bin"), str(other / "settings.bin"), "--min-security-bits", "0"]) == 1
    out = stdio.readouterr().out
    assert "wrong model or tampered settings" in out and "hint: the proof's public inputs and outputs fit" in out


def test_prove_prints_the_budget_its_proof_needs(dev_pair, tmp_path, stdio):
    out = tmp_path / "p"
    assert cli(["prove", *TINY, "--out", str(out), "--preset", "fast", "--quiet"]) == 0
    got = stdio.readouterr()
    line = next(x for x in got.out.splitlines() if x.startswith("verifier work"))
    proof, settings = (out / "proof.bin").read_bytes(), (out / "settings.bin").read_bytes()
    needed = verify(proof, settings, min_security_bits=0, max_work=1).work_needed
    assert f"{needed} units" in line and "within the default" in line
    assert "warning" not in got.err
    assert verify(proof, settings, min_security_bits=0, max_work=needed).success
    assert not verify(proof, settings, min_security_bits=0, max_work=needed - 1).success


def test_prove_warns_when_the_proof_needs_more_than_the_default_budget(tmp_path, stdio, monkeypatch):
    import luminair.verifier.budget as budget

    monkeypatch.setattr(budget, "budget_for", lambda *a: 1000)  # as if the model were large
    out = tmp_path / "big"
    assert cli(["prove", *TINY, "--out", str(out), "--preset", "fast", "--quiet", "--json"]) == 0
    got = stdio.readouterr()
    work = json.loads(got.out)["verifier_work"]
    assert work["default_budget"] == 1000 and not work["within_default"]
    needed = work["needed"]
    assert got.err.startswith(f"warning: this proof needs a verifier work budget of {needed} units")
    for grant in (f"--max-work {needed}", f'max-work="{needed}"', f"maxWork: {needed}"):
        assert grant in got.err, grant


def test_not_checked_is_its_own_exit_code_with_the_budget_to_grant(dev_pair, stdio):
    args = [str(dev_pair / "proof.bin"), str(dev_pair / "settings.bin"), "--min-security-bits", "0"]
    assert cli(["verify", *args, "--max-work", "10"]) == EXIT_NOT_CHECKED
    out = stdio.readouterr().out
    assert out.startswith("not checked: work budget") and "--max-work" in out.splitlines()[1]


def test_progress_goes_to_a_pipe_as_plain_lines_not_a_bar(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "luminair.prover.cli", "prove", *TINY, "--out", str(tmp_path / "o"), "--preset", "fast"],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "\r" not in r.stderr and "it/s" not in r.stderr and "stage/s" not in r.stderr
    lines = [x for x in r.stderr.splitlines() if x.startswith("proving: ")]
    assert len(lines) == len(cli_module.PROVE_STAGES) and lines[-1].startswith(f"proving: {len(lines)}/{len(lines)}")


def test_preset_has_help_text(stdio):
    with pytest.raises(SystemExit):
        cli_module.build_parser().parse_args(["prove", "--help"])
    text = " ".join(stdio.readouterr().out.split())
    assert "--preset {fast,default,secure,small}" in text and "development proof" in text and "96 bits" in text
    assert "the smallest proof" in text
    with pytest.raises(SystemExit):  # train-step's --preset too, and verify-chain's floor and budget
        cli_module.build_parser().parse_args(["train-step", "--help"])
    text = " ".join(stdio.readouterr().out.split())
    assert "--preset {fast,default,secure}" in text and "development proof" in text and "96 bits" in text
    with pytest.raises(SystemExit):
        cli_module.build_parser().parse_args(["verify-chain", "--help"])
    text = " ".join(stdio.readouterr().out.split())
    assert "--min-security-bits BITS the floor" in text and "--max-work UNITS each step" in text


def test_inspect_names_components_in_words(stdio):
    assert cli(["inspect", str(PUBLIC / "settings.bin")]) == 0
    out = stdio.readouterr().out
    components = out[out.index("components:"):]
    assert "matin" not in components and "matout" not in components
    assert "matrix product inputs (node" in components and "matrix products, checked by Freivalds" in components
    assert component_title("matin1.n3+1") == "matrix product inputs (node 3 and 1 more)"
    assert component_title("matpair2x4.n5") == "products of two computed matrices (node 5)"
    assert component_title("dotw4b") == "Dot products (4 lanes, weights read directly, bias)"
    assert component_title("table.exp2") == "lookup table exp2"
    assert component_title("sum_reduce") == "SumReduce"
    assert component_title("mul.1") == "Mul (part 1)"  # the transformer's elementwise Mul, split in two parts
    assert component_title("matoutb.2") == "matrix products, checked by Freivalds (with bias, part 2)"
    # every component the planner can name, whole or split in parts ("<name>.1"), reads in words
    from luminair.verifier.graph.components import make_component
    from luminair.verifier.graph.planner import COMPONENT_ORDER

    for kind in COMPONENT_ORDER:
        name = make_component(kind, 4, 10).name
        for shown in (name, f"{name}.1", f"{name}.12"):
            title = component_title(shown)
            assert title != shown and "." not in title and "_" not in title, (shown, title)
    # --json keeps the internal names
    assert cli(["inspect", str(PUBLIC / "settings.bin"), "--json"]) == 0
    names = [c["component"] for c in json.loads(stdio.readouterr().out)["components"]]
    assert any(n.startswith("matin") for n in names)
