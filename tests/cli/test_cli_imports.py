"""`luminair verify` pays for the verifier only: importing the command (prover/cli) and building its
parser (the training commands' too) loads neither numpy nor the prover's graph and compiler
modules (luminair.prover's names load on first use, numpy where a command proves or trains)."""

from __future__ import annotations

import subprocess
import sys


def test_the_command_and_its_parser_import_neither_numpy_nor_the_prover_graph():
    code = ("import sys, luminair.prover.cli as cli; cli.build_parser(); "
            "print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith(('luminair.prover.graph', "
            "'luminair.prover.compile', 'luminair.prover.proving'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.strip() == "[]"


def test_the_prover_package_still_gives_its_names():
    import luminair.prover as prover

    assert prover.Graph.__name__ == "Graph" and prover.GenericCompiler.__name__ == "GenericCompiler"
    assert set(prover.__all__) >= {"Graph", "load_model", "NumericFormat", "where"}
    try:
        prover.NoSuchName  # noqa: B018
    except AttributeError as e:
        assert "NoSuchName" in str(e)
    else:
        raise AssertionError("an unknown name must raise AttributeError")
