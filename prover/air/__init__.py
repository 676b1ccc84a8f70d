"""Trace generation per AIR component (the constraints live in luminair.verifier.air)."""
