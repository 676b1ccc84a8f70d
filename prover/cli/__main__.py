"""`python -m luminair.prover.cli`: the `luminair` command."""

import sys

from . import main

sys.exit(main())
