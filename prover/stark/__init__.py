"""The numpy STARK prover."""
