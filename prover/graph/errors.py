"""Errors raised while building, compiling and running graphs.

Each message names the op, the shapes or values involved and, where known, the line of user code
(or the ONNX node) that built the offending node, so a user can find the cause without a debugger.
"""

from __future__ import annotations

from luminair.verifier.numeric import NumericError


class GraphError(ValueError):
    """Base class of graph frontend errors."""


class ShapeError(GraphError):
    """Shapes that do not fit an op (raised when the op is built, not when the graph runs)."""


class InputError(GraphError):
    """Wrong inputs given to a run: unknown or missing names, wrong shapes, non-numeric data."""


class BoundsError(NumericError):
    """A fixed-point value outside the 16-bit range, or an op applied outside its domain
    (recip of zero, sqrt of a negative, mod by zero, a table input outside its table)."""


class CompileError(GraphError):
    """A compiler that is not a compiler, or a rewrite that breaks the graph's invariants."""
