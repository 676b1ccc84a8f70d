"""`luminair verify --max-work`: the verifier's work cap from the command line."""

from pathlib import Path

from luminair.prover.cli import main as cli

PUBLIC = Path(__file__).resolve().parents[2] / "public"


def test_a_work_cap_below_the_files_needs_is_a_named_rejection(capsys):
    proof, settings = str(PUBLIC / "proof.bin"), str(PUBLIC / "settings.bin")
    assert cli(["verify", proof, settings, "--max-work", "1000"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("rejected: work budget") and "1000" in out
    assert cli(["verify", proof, settings, "--max-work", "5000000"]) == 0
