"""Pure standard-library verifier (placeholder until the core lands)."""
