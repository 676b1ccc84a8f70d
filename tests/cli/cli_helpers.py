"""Helpers for the command-line tests."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
TINY = [str(EXAMPLES / "tiny_mlp.py"), "--input", str(EXAMPLES / "tiny_mlp.input.json")]

# What a hostile model author would put in a title or a name: erase the line, return to column 0 and
# print a fake verdict; C1 CSI; a right-to-left override; a line separator; a newline and a BEL.
SPOOF = "\x1b[2K\rVALID: model 0000 96 bits\x9b2K\u202eevil\u2028\nrejected\x07"
RAW_CONTROLS = ("\x1b", "\r", "\x9b", "\u202e", "\u2028", "\x07")


def one_line(text: str) -> str:
    """The single line of `text` (fails unless there is exactly one)."""
    assert text.endswith("\n") and text.count("\n") == 1, repr(text)
    return text[:-1]


def assert_no_raw_controls(text: str) -> None:
    """Every line of `text` holds printable characters only."""
    for line in text.split("\n"):
        assert line.isprintable(), repr(line)
