"""STARK numpy backend."""
