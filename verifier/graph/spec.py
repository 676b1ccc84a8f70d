"""The model as data: what settings.bin says about the graph (verifier side, no numpy). Everything
derived from it (how it becomes AIR components) is the planner's: verifier/graph/planner.py."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import prod

from ..numeric import node_constant

# Op names mirror luminair.prover.graph.ops.Op values; the code is the position in this tuple.
OPS = (
    "Input",
    "Constant",
    "Log2",
    "Exp2",
    "Sin",
    "Sqrt",
    "Recip",
    "Add",
    "Mul",
    "Mod",
    "LessThan",
    "SumReduce",
    "MaxReduce",
    "Contiguous",
    "Dot",
    "Relu",
    "Exp",
    "Erf",
    "Gather",
)
OP_CODE = {name: i for i, name in enumerate(OPS)}
UNARY = ("Log2", "Exp2", "Sin", "Sqrt", "Recip", "Contiguous", "Relu", "Exp", "Erf")
BINARY = ("Add", "Mul", "Mod", "LessThan")
REDUCE = ("SumReduce", "MaxReduce")
# Gather reads rows of a constant table (V, d) at the integers of an index input (token ids): at
# public ids the verifier computes its values itself (a known node, like a constant); at private ids
# a gather component proves each read (graph/components.py GatherComponent). No row read is trusted.
# Fused ops (prover/compile/fuse.py): Dot is sum over `axis` of a * b, rounded once.
CONTRACT = ("Dot",)
# A view is never enumerated by the verifier (its affine form is; an output's elements are, bounded
# by the outputs' own limit): this bounds what the prover materializes, e.g. a batched product's
# (batch, N, K) broadcast, which the Freivalds check never holds in a trace (graph/matmul.py).
MAX_VIEW_NUMEL = 1 << 26
# Ops whose rows form groups (one output element per group of consecutive rows).
GROUPED = REDUCE + CONTRACT
N_INPUTS = {
    **{op: 1 for op in UNARY}, **{op: 2 for op in BINARY}, **{op: 1 for op in REDUCE}, "Dot": 2,
    "Input": 0, "Constant": 0, "Gather": 2,
}

# View steps, as the prover's ShapeTracker records them. ("window", (axis, k, stride, dilation))
# replaces an axis of size n by (o, k), o = (n - dilation (k - 1) - 1) // stride + 1: element
# [t, j] reads [t stride + j dilation] (a convolution's sliding windows, without copies)
STEP_KINDS = ("reshape", "permute", "expand", "slice", "pad", "window")
MAX_VIEW_DIMS = 24  # as many as a reshape step can name (settings.bin: 3 x 8 values a step)

Step = tuple[str, tuple]


@dataclass
class NodeSpec:
    op: str
    shape: tuple[int, ...]
    srcs: list[tuple[int, tuple[int, ...], tuple[Step, ...]]] = field(default_factory=list)  # (node, src shape, steps)
    axis: int | None = None
    name: str = ""
    private: bool = False
    values: Sequence[int] | None = None  # constants: raw fixed-point values, row-major (an array once decoded)
    index: bool = False  # inputs only: integers (token ids) that only Gather nodes read, not fixed-point values
    scale: int | None = None  # its values' scale 2^scale (None: the graph's; settings.bin names every node's)
    # a constant held in the model tree (settings.bin has its root, not its values), or a private
    # input held in the input tree (proof.bin has its root: the input digest)
    committed: bool = False
    # a segment's boundary input (committed too): a tensor an earlier segment of a segmented proof
    # wrote (verifier/graph/segments.py); only ever set by the cut, never read from settings.bin
    boundary: bool = False

    @property
    def numel(self) -> int:
        return prod(self.shape)


@dataclass
class InputSpec:
    name: str
    node: int


@dataclass
class OutputSpec:
    """An output is a view of a node; the verifier derives its index map from the view's steps."""

    name: str
    node: int
    steps: tuple[Step, ...]
    shape: tuple[int, ...] = ()
    src_indices: Sequence[int] = field(default_factory=list)  # output element i reads node element [i] (-1: 0)
    committed: bool = False  # its values in the proof's output tree (their digest reported), not in proof.bin
    boundary: bool = False  # (committed) a segment's tensor a later segment reads, fingerprinted (segments.py)


@dataclass
class GraphSpec:
    scale_bits: int
    nodes: list[NodeSpec]
    inputs: list[InputSpec]
    outputs: list[OutputSpec]
    title: str = ""  # the publisher's labels: bound by the statement, not part of the model's identity
    description: str = ""
    # Symbolic dimensions (verifier/graph/symbols.py): a template names its symbols and its shape and
    # step integers may refer to `exprs`; an instantiated graph has none and records `bound`.
    symbols: list = field(default_factory=list)
    exprs: list = field(default_factory=list)
    bound: dict = field(default_factory=dict)
    # Committed weights (docs/committed-models.md): every committed constant lies in
    # (-2^(model_bits-1), 2^(model_bits-1)), checked on every proof; the model tree's root and the
    # log blowup it was extended with (settings.bin's model section, after the body)
    model_bits: int = 0
    model_root: bytes = b""
    model_log_blowup: int = 0

    @property
    def committed(self) -> bool:
        """Whether any constant is committed (the weights' visibility is "committed")."""
        return self.model_bits > 0

    @property
    def committed_inputs(self) -> list[int]:
        """The committed inputs' nodes (their values in the input tree, its root the proof's digest)."""
        return [inp.node for inp in self.inputs if self.nodes[inp.node].committed]

    @property
    def is_template(self) -> bool:
        return bool(self.symbols)

    def scale_of(self, index: int) -> int:
        """Node `index`'s scale (its values are raw = real * 2^scale)."""
        s = self.nodes[index].scale
        return self.scale_bits if s is None else s

    def constant_of(self, index: int) -> int:
        """The constant node `index`'s rows are proven with (numeric.node_constant: a product's
        rounding shift, a reciprocal's exponent, ...), derived from the scales; NumericError if the
        scales break a rule."""
        node = self.nodes[index]
        return node_constant(node.op, [self.scale_of(src) for src, _, _ in node.srcs], self.scale_of(index),
                             self.scale_bits)


def is_identity_map(spec: GraphSpec, out: OutputSpec) -> bool:
    """Whether an output reads its node unchanged (checked without building the node's range)."""
    node = spec.nodes[out.node]
    if tuple(out.shape) != tuple(node.shape) or len(out.src_indices) != node.numel:
        return False
    return all(i == j for j, i in enumerate(out.src_indices))


def view_shape(src_shape: tuple[int, ...], steps: tuple[Step, ...]) -> tuple[int, ...]:
    """The shape a view produces; ValueError if a step does not fit (a malformed settings file)."""
    shape = tuple(src_shape)
    for kind, arg in steps:
        if kind == "reshape":
            if any(d < 1 for d in arg) or prod(arg) != prod(shape):
                raise ValueError(f"reshape {shape} -> {arg} changes the element count")
            shape = tuple(arg)
        elif kind == "expand":
            if len(arg) != len(shape) or any(a != b and a != 1 for a, b in zip(shape, arg)) or any(d < 1 for d in arg):
                raise ValueError(f"cannot expand {shape} to {arg}")
            shape = tuple(arg)
        elif kind == "permute":
            if sorted(arg) != list(range(len(shape))):
                raise ValueError(f"permute {arg} of {len(shape)} axes")
            shape = tuple(shape[a] for a in arg)
        elif kind == "slice":
            if len(arg) != len(shape) or any(c < 1 or not 0 <= a <= b <= d for (a, b, c), d in zip(arg, shape)):
                raise ValueError(f"slice {arg} of {shape}")
            shape = tuple(len(range(a, b, c)) for a, b, c in arg)
        elif kind == "pad":
            if len(arg) != len(shape) or any(a < 0 or b < 0 for a, b in arg):
                raise ValueError(f"pad {arg} of {shape}")
            shape = tuple(d + a + b for d, (a, b) in zip(shape, arg))
        elif kind == "window":
            shape = window_shape(shape, arg)
        if prod(shape) > MAX_VIEW_NUMEL:
            raise ValueError(f"view of {shape} is too large (more than {MAX_VIEW_NUMEL} elements)")
    return shape


def window_shape(shape: tuple[int, ...], arg: tuple) -> tuple[int, ...]:
    """The shape after a window step (axis, k, stride, dilation); ValueError if it does not fit."""
    if len(arg) != 4:
        raise ValueError(f"window step {arg}: expected (axis, k, stride, dilation)")
    axis, k, stride, dilation = arg
    if len(shape) >= MAX_VIEW_DIMS:
        raise ValueError(f"window {arg} of {shape}: a view has at most {MAX_VIEW_DIMS} axes")
    if not 0 <= axis < len(shape) or k < 1 or stride < 1 or dilation < 1 or dilation * (k - 1) + 1 > shape[axis]:
        raise ValueError(f"window {arg} of {shape}")
    o = (shape[axis] - dilation * (k - 1) - 1) // stride + 1
    return shape[:axis] + (o, k) + shape[axis + 1 :]


def known_gather(spec: GraphSpec, index: int) -> bool:
    """A Gather at public ids: its values are the verifier's own (a known node)."""
    node = spec.nodes[index]
    return node.op == "Gather" and not spec.nodes[node.srcs[1][0]].private


def gather_tables(spec: GraphSpec) -> set[int]:
    """The tables of Gathers at private ids (held in known rows whose lane multiplicities are witnesses)."""
    got = spec.__dict__.get("_gather_tables")  # (a derived cache, like the plan)
    if got is None:
        got = spec.__dict__["_gather_tables"] = {
            n.srcs[0][0] for i, n in enumerate(spec.nodes) if n.op == "Gather" and not known_gather(spec, i)}
    return got


def gather_rows(table: Sequence[int], width: int, ids: Sequence[int]) -> array:
    """A Gather's values: row ids[t] of a (V, width) table for every t, row-major (ids in [0, V)), in
    a compact array (4 bytes a value: many rows may come from a few ids and a small table)."""
    return array("i", (v for i in ids for v in table[i * width : (i + 1) * width]))
