"""Where a node came from: the line of user code (or the ONNX node) that built it.

The frame search skips every frame inside the luminair prover package, so the line reported is the
user's own call even when the node was made deep inside a high-level op.
"""

from __future__ import annotations

import contextlib
import linecache
import os
import sys
import threading
from typing import Iterator

_PROVER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_state = threading.local()


def _frames_outside_package() -> tuple[str, int] | None:
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(_PROVER_DIR + os.sep) and not frame.f_code.co_filename.startswith("<frozen"):
            return path, frame.f_lineno
        frame = frame.f_back
    return None


def user_line() -> str | None:
    """'file.py:12: <source text>' of the nearest caller outside luminair.prover, or None."""
    found = _frames_outside_package()
    if found is None:
        return None
    path, line = found
    text = linecache.getline(path, line).strip()
    short = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
    return f"{short}:{line}" + (f": {text}" if text else "")


def current_context() -> str | None:
    """The stack of high-level ops / import scopes being built, outermost first ('softmax > exp')."""
    stack = getattr(_state, "stack", None)
    return " > ".join(stack) if stack else None


@contextlib.contextmanager
def scope(label: str) -> Iterator[None]:
    """Label every node built inside (e.g. the high-level op or the ONNX node that makes it)."""
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    stack.append(label)
    try:
        yield
    finally:
        stack.pop()


def in_scope() -> bool:
    return bool(getattr(_state, "stack", None))


@contextlib.contextmanager
def fixed_origin(origin: str | None) -> Iterator[None]:
    """Use ``origin`` instead of the caller's line for nodes built inside (ONNX import uses this,
    since the user's line there is just the load_onnx call)."""
    prev = getattr(_state, "origin", None)
    _state.origin = origin
    try:
        yield
    finally:
        _state.origin = prev


def capture() -> str | None:
    """The origin string stored on a new node: 'context at file:line: code'."""
    fixed = getattr(_state, "origin", None)
    where = fixed if fixed is not None else user_line()
    ctx = current_context()
    if ctx and where:
        return f"{ctx} at {where}"
    return ctx or where
