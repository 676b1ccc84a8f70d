"""Prover side."""
