"""The primitive ops of a graph (the only node kinds) and named groups of them.

Passes ask "is this op in GroupOp.BINARY?" instead of switching on every op. High-level ops
(matmul, softmax, conv2d, ...) are compositions of these and never become nodes.
"""

from __future__ import annotations

from enum import Enum


class Op(Enum):
    INPUT = "Input"
    CONSTANT = "Constant"
    LOG2 = "Log2"
    EXP2 = "Exp2"
    SIN = "Sin"
    SQRT = "Sqrt"
    RECIP = "Recip"
    ADD = "Add"
    MUL = "Mul"
    MOD = "Mod"
    LESS_THAN = "LessThan"
    SUM_REDUCE = "SumReduce"
    MAX_REDUCE = "MaxReduce"
    CONTIGUOUS = "Contiguous"
    DOT = "Dot"  # fused: sum over an axis of a * b, rounded once (made by FuseOpCompiler)
    RELU = "Relu"  # fused: max(x, 0), one comparison (made by FuseOpCompiler from x * (0 < x))
    EXP = "Exp"  # fused: e^x through one table (made by FuseOpCompiler from hl exp's two exp2)
    ERF = "Erf"  # fused: erf through one table (made by FuseOpCompiler from the importer's erf chain)
    GATHER = "Gather"  # rows of a constant (V, d) table at an index input's integers (an embedding)

    def __repr__(self) -> str:
        return f"Op.{self.name}"


class GroupOp:
    """Frozen sets of ops that passes and executors treat alike."""

    SOURCE = frozenset({Op.INPUT, Op.CONSTANT})
    # values the compilers keep as they are, like inputs: a Gather (embedding) is computed by the
    # verifier from its table and its index input
    OPAQUE = frozenset({Op.INPUT, Op.GATHER})
    # one source, elementwise
    UNARY = frozenset({Op.LOG2, Op.EXP2, Op.SIN, Op.SQRT, Op.RECIP, Op.CONTIGUOUS, Op.RELU, Op.EXP, Op.ERF})
    # two sources of equal shape, elementwise
    BINARY = frozenset({Op.ADD, Op.MUL, Op.MOD, Op.LESS_THAN})
    # one source, one axis removed
    REDUCE = frozenset({Op.SUM_REDUCE, Op.MAX_REDUCE})
    # two sources of equal shape, one axis contracted (fused ops, prover/compile/fuse.py)
    CONTRACT = frozenset({Op.DOT})
    # ops that FuseOpCompiler makes (never built by the graph API)
    FUSED = frozenset({Op.DOT, Op.RELU, Op.EXP, Op.ERF})
    # ops with an axis attribute
    AXIS = REDUCE | CONTRACT
    # ops computed through a lookup table of verifier.numeric.TABLE_FUNCTIONS
    TABLE = frozenset({Op.EXP2, Op.LOG2, Op.SIN, Op.EXP, Op.ERF})
    # a op b == b op a, in float and in fixed point
    COMMUTATIVE = frozenset({Op.ADD, Op.MUL})
    # ops whose output is a pure rearrangement of the input values (no arithmetic)
    MOVEMENT = frozenset({Op.CONTIGUOUS})
    ALL = frozenset(Op)


TABLE_NAME = {Op.EXP2: "exp2", Op.LOG2: "log2", Op.SIN: "sin", Op.EXP: "exp", Op.ERF: "erf"}
