"""The model as data: what settings.bin says about the graph (verifier side, no numpy)."""

from __future__ import annotations

from dataclasses import dataclass, field

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
)
OP_CODE = {name: i for i, name in enumerate(OPS)}
UNARY = ("Log2", "Exp2", "Sin", "Sqrt", "Recip", "Contiguous")
BINARY = ("Add", "Mul", "Mod", "LessThan")
REDUCE = ("SumReduce", "MaxReduce")
N_INPUTS = {**{op: 1 for op in UNARY}, **{op: 2 for op in BINARY}, **{op: 1 for op in REDUCE}, "Input": 0, "Constant": 0}

# View steps, as the prover's ShapeTracker records them.
STEP_KINDS = ("reshape", "permute", "expand", "slice", "pad")

Step = tuple[str, tuple]


@dataclass
class NodeSpec:
    op: str
    shape: tuple[int, ...]
    srcs: list[tuple[int, tuple[int, ...], tuple[Step, ...]]] = field(default_factory=list)  # (node, src shape, steps)
    axis: int | None = None
    name: str = ""
    private: bool = False
    values: list[int] | None = None  # constants: raw fixed-point values, row-major

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass
class InputSpec:
    name: str
    node: int
    fanout: list[int]  # reads of each element by consumers and outputs (public inputs)


@dataclass
class OutputSpec:
    name: str
    node: int
    shape: tuple[int, ...]
    src_indices: list[int]  # element i of the output reads element src_indices[i] of the node (-1: 0)


@dataclass
class GraphSpec:
    scale_bits: int
    nodes: list[NodeSpec]
    inputs: list[InputSpec]
    outputs: list[OutputSpec]
    model_root: bytes
    title: str = ""

    def node_id(self, index: int) -> int:
        """The id a node carries in data-flow tuples (0 is never a node)."""
        return index + 1

    def rows_of(self, index: int) -> int:
        """Trace rows a node occupies in its component."""
        node = self.nodes[index]
        if node.op in REDUCE:
            return _numel(view_shape(node.srcs[0][1], node.srcs[0][2]))
        return node.numel


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def view_shape(src_shape: tuple[int, ...], steps: tuple[Step, ...]) -> tuple[int, ...]:
    """The shape a view produces; ValueError if a step does not fit (a malformed settings file)."""
    shape = tuple(src_shape)
    for kind, arg in steps:
        if kind == "reshape":
            if any(d < 1 for d in arg) or _numel(arg) != _numel(shape):
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
        if _numel(shape) > 1 << 24:
            raise ValueError(f"view of {shape} is too large")
    return shape
