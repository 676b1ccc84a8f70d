"""Fixtures for the command-line tests: a development pair proven once through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import TINY
from luminair.prover.cli import main as cli


@pytest.fixture(scope="session")
def dev_pair(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with proof.bin + settings.bin of examples/tiny_mlp.py at the fast preset (20 bits)."""
    out = tmp_path_factory.mktemp("dev_pair")
    assert cli(["prove", *TINY, "--out", str(out), "--preset", "fast", "--quiet", "--json"]) == 0
    return out


@pytest.fixture
def stdio(capsys: pytest.CaptureFixture[str]) -> pytest.CaptureFixture[str]:
    """capsys, emptied of anything a fixture printed."""
    capsys.readouterr()
    return capsys
