"""`python -m luminair.prover.cli`: the `luminair` command."""

from . import console

console()
