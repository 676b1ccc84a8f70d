"""luminair: prove ML graph executions with Circle STARKs (luminair.prover) and check the proofs
with a pure-Python verifier (luminair.verifier). This module imports nothing heavy on purpose."""
