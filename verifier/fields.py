"""Placeholder; replaced by the field module."""
P = (1 << 31) - 1
