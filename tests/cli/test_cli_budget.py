"""`luminair verify --max-work`: the verifier's work cap from the command line."""

from pathlib import Path

import json

from luminair.prover.cli import EXIT_NOT_CHECKED
from luminair.prover.cli import main as cli
from luminair.verifier import verify

PUBLIC = Path(__file__).resolve().parents[2] / "public"


def test_a_work_cap_below_the_files_needs_is_not_checked_and_names_the_budget(capsys):
    """Over the budget nothing was checked: exit 3 (never 1, "rejected"), and the hint is the
    command with the budget the files need, which then verifies them."""
    proof, settings = str(PUBLIC / "proof.bin"), str(PUBLIC / "settings.bin")
    assert cli(["verify", proof, settings, "--max-work", "1000"]) == EXIT_NOT_CHECKED == 3
    out = capsys.readouterr().out
    assert out.startswith("not checked: work budget") and "1000" in out
    needed = verify(PUBLIC.joinpath("proof.bin").read_bytes(), PUBLIC.joinpath("settings.bin").read_bytes(),
                    max_work=1000).work_needed
    assert f"max_work={needed}" in out and f"--max-work {needed}" in out.splitlines()[1]
    assert cli(["verify", proof, settings, "--max-work", str(needed)]) == 0
    assert cli(["verify", proof, settings, "--max-work", str(needed - 1)]) == 3
    capsys.readouterr()
    assert cli(["verify", proof, settings, "--max-work", "1000", "--json"]) == 3
    got = json.loads(capsys.readouterr().out)
    assert got["kind"] == "not checked" and got["work_needed"] == needed and got["success"] is False
