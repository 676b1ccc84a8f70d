"""Graph: a static graph of primitive ops, built lazily through GraphTensor handles.

Nothing computes while the graph is built. ``compile`` hands the graph to compilers, which rewrite
it through ``transform`` / ``remove_unused``; both keep every live GraphTensor handle pointing at the
node (and view) that now computes its value, and renumber node ids densely in topological order.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from contextvars import ContextVar
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from luminair.verifier.numeric import NumericFormat

from . import display
from . import execute as ex
from . import origin as _origin
from .errors import CompileError, GraphError, InputError
from .node import Node, check_node
from .ops import Op
from .shape import ShapeTracker
from .autograd import grad
from .tensor import GraphTensor
from .tensor_base import as_array, index_array

Replacement = tuple[Node, ShapeTracker]

# The values of symbolic dimensions while a SymbolicModel builds its graph for one instance
# (prover/symbolic.py): an input's named dimension, e.g. ("batch", 784), takes its value here.
SYMBOL_VALUES: ContextVar[Mapping[str, int] | None] = ContextVar("luminair_symbol_values", default=None)


def run_compilers(compilers: Iterable[Any], graph: "Graph") -> None:
    """Run compilers in order; a tuple or list of compilers is itself a compiler."""
    for c in compilers:
        if isinstance(c, (tuple, list)):
            run_compilers(c, graph)
        elif hasattr(c, "compile") and callable(c.compile):
            c.compile(graph)
        else:
            raise CompileError(
                f"{c!r} is not a compiler: a compiler is an object with a compile(graph) method, "
                f"or a tuple of compilers"
            )


def _dimension(d: Any, name: str) -> int:
    """An input dimension: an int, or the name of a symbolic dimension (its value for the instance
    being built; the graph's other shapes follow from it, so `x.shape[0]` is the batch size)."""
    if isinstance(d, str):
        values = SYMBOL_VALUES.get()
        if values is None or d not in values:
            known = f"; the model's symbols are {sorted(values)}" if values else ""
            raise GraphError(
                f"input {name!r}: dimension {d!r} is symbolic; build the graph through "
                f"luminair.prover.symbolic.SymbolicModel(build, {{{d!r}: (lo, hi)}}) (or `luminair prove "
                f"--symbol {d}=LO:HI`){known}"
            )
        return int(values[d])
    return int(d)


def _run_key(nodes: Sequence[Node], feed: Mapping[int, Any], fmt: NumericFormat | None) -> tuple:
    """What an executor reads: every node's ex.node_key; for an exact run (fmt given) the format;
    the feed's values."""
    arrays = tuple((k, a.dtype.str, a.shape, a.tobytes()) for k, a in
                   sorted((k, np.asarray(v)) for k, v in feed.items()))
    return tuple(ex.node_key(n, fmt is not None) for n in nodes), fmt, arrays


class Graph:
    """A model: inputs, constants, primitive-op nodes and named outputs."""

    def __init__(self, numeric_format: NumericFormat | None = None, *, scale_bits: int | None = None):
        if numeric_format is not None and scale_bits is not None:
            raise GraphError("give either numeric_format or scale_bits, not both")
        self._fmt = numeric_format if numeric_format is not None else (
            NumericFormat(scale_bits) if scale_bits is not None else NumericFormat()
        )
        if not isinstance(self._fmt, NumericFormat):
            raise GraphError(f"numeric_format must be a NumericFormat, got {type(self._fmt).__name__}")
        self._nodes: list[Node] = []
        self._inputs: OrderedDict[str, Node] = OrderedDict()
        self._outputs: OrderedDict[str, Replacement] = OrderedDict()
        self._tensors: weakref.WeakSet = weakref.WeakSet()
        self._building: list[Node] | None = None  # the new node list while a transform runs
        # (kind, x, out): `out` computes kind(x) through primitives (mark_composite)
        self._composites: list[tuple[str, Any, Any]] = []
        self._runs: dict[bool, tuple[tuple, dict[int, np.ndarray], tuple, bool]] = {}  # exact? -> (key, values, nodes, complete): run_nodes

    # -- numeric format ------------------------------------------------------------------------

    @property
    def numeric_format(self) -> NumericFormat:
        return self._fmt

    @numeric_format.setter
    def numeric_format(self, fmt: NumericFormat) -> None:
        if not isinstance(fmt, NumericFormat):
            raise GraphError(f"numeric_format must be a NumericFormat, got {type(fmt).__name__}")
        self._fmt = fmt

    def calibrate(self, samples: Any, headroom_bits: int = 1) -> Any:
        """Set numeric_format to the largest scale at which every value of these sample inputs fits
        with headroom_bits to spare (prover/graph/calibrate.py); before compiling. A Calibration."""
        from .calibrate import calibrate

        return calibrate(self, samples, headroom_bits)

    def calibrate_tensors(self, samples: Any, headroom_bits: float | None = None) -> Any:
        """Choose every tensor's own scale from sample inputs (prover/graph/calibrate.py
        calibrate_tensors, headroom TENSOR_HEADROOM_BITS by default); after compiling. A
        TensorCalibration."""
        from .calibrate import TENSOR_HEADROOM_BITS, calibrate_tensors

        return calibrate_tensors(self, samples, TENSOR_HEADROOM_BITS if headroom_bits is None else headroom_bits)

    def set_scales(self, scales: Mapping[int, int]) -> None:
        """Give nodes (by id) their own scales; a constant folded at another scale is quantized
        again from its real value at its new one. The rules an assignment must keep are
        verifier/numeric.node_constant's (the executors and the prover check them)."""
        new: list[Node] = []
        mapping: dict[Node, Replacement] = {}
        for old in self._nodes:
            srcs = tuple((mapping[src][0], view) for src, view in old.srcs)
            s = scales.get(old.id, old.scale)
            changes: dict[str, Any] = {"srcs": srcs, "id": len(new), "scale": s}
            if old.raw is not None and old.raw_scale != (self._fmt.scale_bits if s is None else s):
                changes.update(raw=None, raw_scale=None)
            n = old.replace(**changes)
            new.append(n)
            mapping[old] = (n, ShapeTracker(n.shape))
        self._install(new, mapping)

    # -- building --------------------------------------------------------------------------------

    def add_node(
        self,
        op: Op,
        srcs: Sequence[Replacement] = (),
        shape: Sequence[int] = (),
        *,
        axis: int | None = None,
        name: str | None = None,
        private: bool = False,
        index: bool = False,
        value: np.ndarray | None = None,
        raw: np.ndarray | None = None,
        raw_scale: int | None = None,
        origin: str | None = None,
    ) -> Node:
        """Append a new node (during a transform: to the graph being built) and return it."""
        target = self._nodes if self._building is None else self._building
        node = Node(
            id=len(target), op=op, srcs=tuple(srcs), shape=tuple(int(d) for d in shape), axis=axis,
            name=name, private=private, index=index, value=value, raw=raw, raw_scale=raw_scale,
            origin=origin if origin is not None else _origin.capture(),
        )
        try:
            check_node(node)
        except ValueError as e:
            raise CompileError(str(e)) from None
        target.append(node)
        return node

    def tensor(self, node: Node, view: ShapeTracker | None = None):
        """A GraphTensor handle on ``node`` (read through ``view``)."""
        return GraphTensor(self, node, view if view is not None else ShapeTracker(node.shape))

    def _register(self, t) -> None:
        self._tensors.add(t)

    def input(self, name: str, shape: Sequence[int | str], *, private: bool = False, index: bool = False):
        """A graph input (public unless ``private``), fed by name when the graph runs. A dimension
        may be a symbol's name, ``cx.input("x", ("batch", 784))``, in a model built by a
        SymbolicModel (one settings.bin for every batch size). ``index``: the input holds integers
        (token ids, fed as an integer array) that only ``embedding`` reads; private ids (a hidden
        prompt) are proven by a lookup into the table (docs/statement.md "Embeddings: index inputs and Gather")."""
        if not isinstance(name, str) or not name:
            raise GraphError(f"input name must be a non-empty string, got {name!r}")
        if name in self._inputs:
            raise GraphError(f"an input named {name!r} already exists")
        try:
            shape_t = tuple(_dimension(d, name) for d in shape)
        except TypeError:
            raise GraphError(f"input {name!r}: shape must be a sequence of ints, got {shape!r}") from None
        if any(d < 0 for d in shape_t):
            raise GraphError(f"input {name!r}: negative dimension in shape {shape_t}")
        node = self.add_node(Op.INPUT, (), shape_t, name=name, private=bool(private), index=bool(index))
        self._inputs[name] = node
        return self.tensor(node)

    def constant(self, value: Any, name: str | None = None):
        """A constant (weights, biases, scalars): numpy arrays, lists, torch tensors, numbers."""
        arr = as_array(value, f"constant {name!r}" if name else "constant")
        if not np.isfinite(arr).all():
            raise GraphError(f"constant {name or ''}: values must be finite (found inf or nan)")
        arr = arr.copy()
        arr.flags.writeable = False
        node = self.add_node(Op.CONSTANT, (), arr.shape, name=name, value=arr)
        return self.tensor(node)

    def embedding(self, ids: Any, table: Any, name: str | None = None):
        """Rows of a constant (V, d) ``table`` at the integers of the index input ``ids``: shape
        ids.shape + (d,), like torch's ``F.embedding(ids, table)``. At public ids the verifier
        computes these values itself; at private ids each read is proven (docs/statement.md)."""
        for what, t in (("ids", ids), ("table", table)):
            if getattr(t, "graph", None) is not self:
                raise GraphError(f"embedding: {what} is not a tensor of this graph")
        if not ids.node.index or not ids.view.is_identity():
            raise GraphError("embedding: ids must be an index input (cx.input(name, shape, index=True)), unchanged")
        if table.node.op is not Op.CONSTANT or len(table.shape) != 2 or not table.view.is_identity():
            raise GraphError(f"embedding: the table must be a (rows, width) constant, got shape {tuple(table.shape)}")
        node = self.add_node(Op.GATHER, ((table.node, table.view), (ids.node, ids.view)),
                             (*ids.shape, table.shape[1]), name=name)
        return self.tensor(node)

    def grad(self, loss: Any, params: Sequence[Any], grad_output: Any = 1.0) -> list:
        """Gradients of ``loss`` with respect to ``params`` as new tensors of this graph (reverse-mode
        autograd over the primitive ops, prover/graph/autograd.py)."""
        if getattr(loss, "graph", None) is not self:
            raise GraphError("grad: the loss is not a tensor of this graph")
        return grad(loss, params, grad_output)

    def name_node(self, node: Node, name: str) -> Node:
        """Give a freshly built node a name (e.g. the ONNX tensor it computes). Nodes are immutable,
        so this swaps in a named copy; it is only allowed while nothing reads the node yet."""
        if self._building is not None:
            raise GraphError("cannot name nodes while a compiler rewrites the graph")
        if node.op in (Op.INPUT,) or self._nodes[node.id] is not node:
            raise GraphError(f"cannot rename {node.where()}")
        if any(s is node for n in self._nodes[node.id + 1:] for s, _ in n.srcs) or any(
            n is node for n, _ in self._outputs.values()
        ):
            raise GraphError(f"{node.where()} is already used; name a value right after building it")
        named = node.replace(name=name)
        self._nodes[node.id] = named
        for t in list(self._tensors):
            if t._node is node:
                t._node = named
        return named

    def set_output(self, name: str | None, node: Node, view: ShapeTracker, replace: bool = False) -> str:
        if name is None:
            k = len(self._outputs)
            while f"output_{k}" in self._outputs:
                k += 1
            name = f"output_{k}"
        if not isinstance(name, str) or not name:
            raise GraphError(f"output name must be a non-empty string, got {name!r}")
        if name in self._outputs and not replace:
            raise GraphError(f"an output named {name!r} already exists")
        self._outputs[name] = (node, view)
        return name

    # -- the contract for compilers and the prover ---------------------------------------------

    def subgraph(self, members: Sequence[int], boundary: Iterable[int], outputs: Sequence[tuple[str, int, ShapeTracker]],
                 input_names: Mapping[int, str]) -> "Graph":
        """A graph of the nodes `members` (ids, in order), the ones in `boundary` replaced by private
        inputs of their shape and scale, with `outputs` (name, member id, view); inputs named by
        `input_names` (member id -> name). A segment of a segmented proof (prover/segments.py)."""
        g = Graph(self._fmt)
        boundary, local = set(boundary), {}
        for m in members:
            node = self._nodes[m]
            if m in boundary:
                new = Node(len(g._nodes), Op.INPUT, (), node.shape, name=input_names[m], private=True,
                           index=node.index, scale=ex.node_scale(node, self._fmt))
            else:
                new = node.replace(id=len(g._nodes), srcs=tuple((local[s.id], v) for s, v in node.srcs))
            local[m] = new
            g._nodes.append(new)
            if new.op == Op.INPUT:
                g._inputs[input_names[m]] = new
        for name, m, view in outputs:
            g._outputs[name] = (local[m], view)
        return g

    def nodes(self) -> list[Node]:
        """All nodes in topological order; ``node.id`` is the index in this list."""
        return list(self._nodes)

    def node(self, node_id: int) -> Node:
        return self._nodes[node_id]

    def inputs(self) -> "OrderedDict[str, Node]":
        return OrderedDict(self._inputs)

    def outputs(self) -> "OrderedDict[str, Replacement]":
        """name -> (node, view): an output may read its node through a view."""
        return OrderedDict(self._outputs)

    def consumers(self) -> dict[int, list[Node]]:
        """node id -> nodes that read it."""
        out: dict[int, list[Node]] = {n.id: [] for n in self._nodes}
        for n in self._nodes:
            for s, _ in n.srcs:
                out[s.id].append(n)
        return out

    def __len__(self) -> int:
        return len(self._nodes)

    # -- compiling -------------------------------------------------------------------------------

    def compile(self, *compilers: Any) -> "Graph":
        """Run compilers in order (tuples of compilers run in order too). Returns the graph. The
        passes rewrite a graph of one scale: per-tensor scales (calibrate_tensors) come after."""
        scaled = next((n for n in self._nodes if n.scale is not None), None)
        if scaled is not None:
            raise CompileError(f"{scaled.where()} has its own scale 2^{scaled.scale}: compile before choosing "
                               "per-tensor scales (Graph.calibrate_tensors), not after")
        run_compilers(compilers, self)
        return self

    def mark_composite(self, kind: str, x: Any, out: Any) -> None:
        """Record that the tensor `out` computes the function `kind` (a fused op, "Erf") of the
        tensor `x` through a chain of primitives: FuseOpCompiler may then compute it with the fused
        op instead (StwoCompiler(fuse=False) keeps the primitives)."""
        self._composites.append((kind, x, out))

    def composites(self) -> list[tuple[str, Any, Any]]:
        """The marked composites whose tensors are still in the graph."""
        self._composites = [c for c in self._composites if c[1]._node is not None and c[2]._node is not None]
        return list(self._composites)

    def drop_composite(self, out: Any) -> None:
        self._composites = [c for c in self._composites if c[2] is not out]

    def transform(self, fn: Callable[..., Any], *, context: bool = False) -> bool:
        """Rewrite the graph node by node, in topological order.

        ``fn`` sees each node with its sources already rewritten, and returns None to keep it, or a
        replacement for its value: a GraphTensor, or a ``(node, view)`` pair, of the same shape,
        built from nodes already in the new graph (fn may add new nodes with the usual methods).
        With ``context``, fn(node, old, mapping) also gets the node as it was and the rewrites so
        far (old node -> (new node, view)). Returns True if anything changed."""
        if self._building is not None:
            raise CompileError("transform cannot be nested")
        new: list[Node] = []
        mapping: dict[Node, Replacement] = {}
        changed = False
        self._building = new
        try:
            for old in self._nodes:
                srcs = []
                for src, view in old.srcs:
                    nsrc, nview = mapping[src]
                    srcs.append((nsrc, nview.compose(view)))
                same = all(a is b[0] and v == b[1] for (a, v), b in zip(old.srcs, srcs))
                cand = old if same else old.replace(srcs=tuple(srcs), id=len(new))
                if cand is not old:
                    changed = True
                mark = len(new)
                result = fn(cand, old, mapping) if context else fn(cand)
                if result is None:
                    if len(new) != mark:
                        raise CompileError("a rewrite that keeps its node must not add nodes")
                    new.append(cand)
                    mapping[old] = (cand, ShapeTracker(cand.shape))
                    continue
                if isinstance(result, GraphTensor):
                    result = (result.node, result.view)
                rnode, rview = result
                if rview.shape != old.shape:
                    raise CompileError(
                        f"rewrite of {old.where()} returned shape {rview.shape}, expected {old.shape}"
                    )
                if old.op is Op.INPUT and not (rnode is cand and rview.is_identity()):
                    raise CompileError(f"a rewrite must not replace the input {old.name!r}")
                if rnode is cand:
                    new.append(cand)
                elif rnode is old:
                    raise CompileError(f"rewrite of {old.where()} returned the old node")
                mapping[old] = (rnode, rview)
                changed = True
        finally:
            self._building = None
        if changed:
            self._install(new, mapping)
        return changed

    def remove_unused(self) -> bool:
        """Dead-node removal: drop every node no output depends on (inputs always stay)."""
        keep = ex.needed_nodes(self._nodes, [n for n, _ in self._outputs.values()])
        keep |= {n.id for n in self._inputs.values()}
        if len(keep) == len(self._nodes):
            return False
        new = [n for n in self._nodes if n.id in keep]
        mapping = {n: (n, ShapeTracker(n.shape)) for n in new}
        self._install(new, mapping)
        return True

    def _install(self, new: list[Node], mapping: dict[Node, Replacement]) -> None:
        """Renumber ``new`` densely and point inputs, outputs and live handles at it."""
        position = {n: i for i, n in enumerate(new)}
        renum: dict[Node, Node] = {}
        for i, n in enumerate(new):
            srcs = []
            for s, v in n.srcs:
                if s not in renum:
                    where = "later in the graph" if s in position else "not in the graph"
                    raise CompileError(f"{n.where()} reads node {s.id} ({s.op.value}), which is {where}")
                srcs.append((renum[s], v))
            renum[n] = n.replace(id=i, srcs=tuple(srcs))

        def resolve(node: Node, view: ShapeTracker) -> Replacement | None:
            if node in mapping:
                m_node, m_view = mapping[node]
                if m_node not in renum:
                    return None
                return renum[m_node], m_view.compose(view)
            if node in renum:
                return renum[node], view
            return None

        outputs = OrderedDict()
        for name, (node, view) in self._outputs.items():
            r = resolve(node, view)
            if r is None:
                raise CompileError(f"output {name!r} lost its node during a rewrite")
            outputs[name] = r
        inputs = OrderedDict()
        for name, node in self._inputs.items():
            r = resolve(node, ShapeTracker(node.shape))
            if r is None or r[0].op is not Op.INPUT:
                raise CompileError(f"input {name!r} was removed by a rewrite")
            inputs[name] = r[0]
        for t in list(self._tensors):
            if t._node is None:
                continue
            r = resolve(t._node, t._view)
            if r is None:
                t._node, t._view = None, t._view  # detached: its node is gone
            else:
                t._node, t._view = r
        self._nodes = [renum[n] for n in new]
        self._outputs = outputs
        self._inputs = inputs

    def signature(self) -> tuple:
        """A structural fingerprint (used to run passes to a fixed point)."""
        out = []
        for n in self._nodes:
            const = None
            if n.op is Op.CONSTANT:
                const = (n.value.tobytes(), None if n.raw is None else n.raw.tobytes())
            out.append((n.op, n.shape, n.axis, tuple((s.id, v.key()) for s, v in n.srcs), const))
        outs = tuple((k, n.id, v.key()) for k, (n, v) in self._outputs.items())
        return tuple(out), outs

    # -- running ---------------------------------------------------------------------------------

    def _check_inputs(self, inputs: Mapping[str, Any]) -> dict[int, np.ndarray]:
        if not isinstance(inputs, Mapping):
            raise InputError(f"inputs must be a dict of input name -> array, got {type(inputs).__name__}")
        expected = list(self._inputs)
        unknown = [k for k in inputs if k not in self._inputs]
        if unknown:
            raise InputError(
                f"unknown input name(s) {', '.join(repr(k) for k in unknown)}; the graph's inputs are "
                f"{', '.join(repr(k) for k in expected) or '(none)'}"
            )
        missing = [k for k in expected if k not in inputs]
        if missing:
            raise InputError(
                f"missing input(s) {', '.join(repr(k) for k in missing)} (expected shapes: "
                + ", ".join(f"{k!r}: {self._inputs[k].shape}" for k in missing) + ")"
            )
        out = {}
        for name, node in self._inputs.items():
            arr = index_array(inputs[name], f"input {name!r}") if node.index else as_array(inputs[name], f"input {name!r}")
            if arr.shape != node.shape:
                raise InputError(f"input {name!r}: expected shape {node.shape}, got {arr.shape}")
            out[node.id] = arr
        return out

    def execute_float(self, inputs: Mapping[str, Any]) -> dict[int, np.ndarray]:
        """float64 values (flat, row-major) of every node, by node id."""
        return self.run_nodes(self._check_inputs(inputs), exact=False)

    def execute_exact(self, inputs: Mapping[str, Any]) -> dict[int, np.ndarray]:
        """Raw int64 fixed-point values (flat, row-major) of every node, by node id, after the
        bounds pass (raises BoundsError naming the node and value that do not fit)."""
        return self.run_nodes(self._check_inputs(inputs), exact=True)

    def run_nodes(self, feed: Mapping[int, np.ndarray], exact: bool) -> dict[int, np.ndarray]:
        """ex.execute_exact / execute_float of every node on a checked feed (_check_inputs). The last
        run of each kind is kept (calibration, gen_trace and the CLI's reports run one input several
        times): its key holds everything the executor reads, so a hit gives the same values. A run
        of the same format and feed after a rewrite or new scales takes its values where a node
        reads the same (ex.Reuse); a run stopped by an error keeps what it checked. The values are
        read-only; forget_runs() drops them."""
        key = _run_key(self._nodes, feed, self._fmt if exact else None)
        got = self._runs.get(exact)
        if got is not None and got[0] == key and got[3]:
            return dict(got[1])
        reuse = ex.Reuse(got[2], got[1], exact, self._fmt) if got is not None and got[0][1:] == key[1:] else None
        vals: dict[int, np.ndarray] = {}
        try:
            if exact:
                ex.execute_exact(self._nodes, feed, self._fmt, reuse=reuse, into=vals)
            else:
                ex.execute_float(self._nodes, feed, reuse=reuse, into=vals)
        finally:
            for v in vals.values():
                v.flags.writeable = False
            complete = len(vals) == len(self._nodes)
            self._runs[exact] = (key, vals, tuple(self._nodes), complete)  # (the nodes keep the ids in keys unique)
        return dict(vals)

    def forget_runs(self) -> None:
        """Drop the kept runs (run_nodes), e.g. before a proof needs the memory."""
        self._runs.clear()

    def run(self, inputs: Mapping[str, Any], exact: bool = False) -> dict[str, np.ndarray]:
        """{output name: array}: the float64 reference, or (exact=True) the dequantized fixed-point
        values the proof attests."""
        feed = self._check_inputs(inputs)
        got = self._runs.get(exact)
        if got is not None and got[3] and got[0] == _run_key(self._nodes, feed, self._fmt if exact else None):
            vals = got[1]  # (a kept run of every node: the needed ones among them)
        elif exact:
            vals = ex.execute_exact(self._nodes, feed, self._fmt, ex.needed_nodes(self._nodes, [n for n, _ in self._outputs.values()]))
        else:
            vals = ex.execute_float(self._nodes, feed, ex.needed_nodes(self._nodes, [n for n, _ in self._outputs.values()]))
        out = {}
        for name, (node, view) in self._outputs.items():
            v = view.gather(vals[node.id]).reshape(view.shape)
            out[name] = v / float(1 << ex.node_scale(node, self._fmt)) if exact else v.astype(np.float64, copy=True)
        return out

    # -- display ---------------------------------------------------------------------------------

    def summary(self) -> str:
        return display.summary(self)

    def to_dot(self) -> str:
        return display.to_dot(self)

    def to_svg(self) -> str:
        return display.to_svg(self)

    def write_svg(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_svg())

    def write_dot(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_dot())

    def __repr__(self) -> str:
        return (
            f"<Graph {len(self._nodes)} nodes, inputs {list(self._inputs)}, outputs {list(self._outputs)}, "
            f"{self._fmt.describe()}>"
        )
