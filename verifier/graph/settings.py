"""Codec of the graph body of settings.bin (kind 2). Bounded like every reader in formats.py."""

from __future__ import annotations

from ..errors import FormatError
from ..formats import Reader, Writer
from ..numeric import MAX_SCALE_BITS, MIN_SCALE_BITS, VALUE_MAX, VALUE_MIN
from .spec import N_INPUTS, OPS, OP_CODE, STEP_KINDS, GraphSpec, InputSpec, NodeSpec, OutputSpec, view_shape

MAX_NODES = 1 << 16
MAX_DIMS = 8
MAX_NUMEL = 1 << 24
MAX_STEPS = 64


def _write_ints(w: Writer, vals: list[int] | tuple[int, ...]) -> None:
    w.u32(len(vals))
    for v in vals:
        w.i32(v)


def _read_ints(r: Reader, what: str, maximum: int) -> list[int]:
    n = r.count(what, maximum, 4)
    import struct

    return list(struct.unpack(f"<{n}i", r.take(4 * n, what)))


def _flatten(kind: str, arg: tuple) -> list[int]:
    if kind in ("slice", "pad"):
        return [int(v) for t in arg for v in t]
    return [int(v) for v in arg]


def _unflatten(kind: str, vals: list[int], what: str, r: Reader) -> tuple:
    width = 3 if kind == "slice" else 2 if kind == "pad" else 1
    if len(vals) % width:
        raise r.fail(what, f"{kind} step with {len(vals)} values")
    if width == 1:
        return tuple(vals)
    return tuple(tuple(vals[i : i + width]) for i in range(0, len(vals), width))


def write_graph(w: Writer, g: GraphSpec) -> None:
    w.string(g.title)
    w.u8(g.scale_bits)
    w.raw(g.model_root)
    w.u32(len(g.nodes))
    for node in g.nodes:
        w.u8(OP_CODE[node.op])
        w.string(node.name)
        w.u8(1 if node.private else 0)
        w.u8(0xFF if node.axis is None else node.axis)
        _write_ints(w, node.shape)
        w.u32(len(node.srcs))
        for src, src_shape, steps in node.srcs:
            w.u32(src)
            w.u32(len(steps))
            for kind, arg in steps:
                w.u8(STEP_KINDS.index(kind))
                _write_ints(w, _flatten(kind, arg))
        if node.op == "Constant":
            _write_ints(w, node.values or [])
    w.u32(len(g.inputs))
    for inp in g.inputs:
        w.string(inp.name)
        w.u32(inp.node)
        _write_ints(w, inp.fanout)
    w.u32(len(g.outputs))
    for out in g.outputs:
        w.string(out.name)
        w.u32(out.node)
        _write_ints(w, out.shape)
        _write_ints(w, out.src_indices)


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def read_graph(r: Reader) -> GraphSpec:
    title = r.string("graph title", 1024)
    scale = r.u8("numeric format scale_bits")
    if not MIN_SCALE_BITS <= scale <= MAX_SCALE_BITS:
        raise r.fail("numeric format scale_bits", f"{scale} outside [{MIN_SCALE_BITS}, {MAX_SCALE_BITS}]")
    root = r.take(32, "model root")
    nodes: list[NodeSpec] = []
    for i in range(r.count("graph nodes", MAX_NODES, 8)):
        where = f"node {i}"
        code = r.u8(f"{where} op")
        if code >= len(OPS):
            raise r.fail(f"{where} op", f"unknown op code {code}")
        op = OPS[code]
        name = r.string(f"{where} name", 1024)
        flags = r.u8(f"{where} flags")
        axis_raw = r.u8(f"{where} axis")
        shape = tuple(_read_ints(r, f"{where} shape", MAX_DIMS))
        if any(d < 1 for d in shape) or _numel(shape) > MAX_NUMEL:
            raise r.fail(f"{where} shape", f"invalid shape {shape}")
        srcs = []
        n_src = r.count(f"{where} inputs", 4, 8)
        if n_src != N_INPUTS[op]:
            raise r.fail(f"{where} inputs", f"{op} takes {N_INPUTS[op]} inputs, got {n_src}")
        for k in range(n_src):
            src = r.u32(f"{where} input {k}")
            if src >= i:
                raise r.fail(f"{where} input {k}", f"refers to node {src}, which is not earlier in the graph")
            steps = []
            for s in range(r.count(f"{where} input {k} view", MAX_STEPS, 5)):
                kind_code = r.u8(f"{where} input {k} view step {s}")
                if kind_code >= len(STEP_KINDS):
                    raise r.fail(f"{where} input {k} view step {s}", f"unknown view step {kind_code}")
                kind = STEP_KINDS[kind_code]
                vals = _read_ints(r, f"{where} input {k} view step {s}", 3 * MAX_DIMS)
                steps.append((kind, _unflatten(kind, vals, where, r)))
            srcs.append((src, nodes[src].shape, tuple(steps)))
        axis = None if axis_raw == 0xFF else axis_raw
        node = NodeSpec(op, shape, srcs, axis, name, bool(flags & 1))
        _check_node_shapes(node, where, r)
        if op == "Constant":
            vals = _read_ints(r, f"{where} values", MAX_NUMEL)
            if len(vals) != _numel(shape):
                raise r.fail(f"{where} values", f"{len(vals)} values for shape {shape}")
            if vals and (min(vals) < VALUE_MIN or max(vals) > VALUE_MAX):
                raise r.fail(f"{where} values", "a constant is outside the 16-bit value range")
            node.values = vals
        nodes.append(node)
    inputs = []
    for i in range(r.count("graph inputs", MAX_NODES, 12)):
        name = r.string(f"input {i} name", 1024)
        idx = r.u32(f"input {i} node")
        if idx >= len(nodes) or nodes[idx].op != "Input":
            raise r.fail(f"input {i} node", f"{idx} is not an input node")
        fanout = _read_ints(r, f"input {i} fanout", MAX_NUMEL)
        if not nodes[idx].private and len(fanout) != nodes[idx].numel:
            raise r.fail(f"input {i} fanout", "one count per element expected")
        if any(f < 0 for f in fanout):
            raise r.fail(f"input {i} fanout", "negative count")
        inputs.append(InputSpec(name, idx, fanout))
    outputs = []
    for i in range(r.count("graph outputs", MAX_NODES, 16)):
        name = r.string(f"output {i} name", 1024)
        idx = r.u32(f"output {i} node")
        if idx >= len(nodes):
            raise r.fail(f"output {i} node", f"no node {idx}")
        shape = tuple(_read_ints(r, f"output {i} shape", MAX_DIMS))
        indices = _read_ints(r, f"output {i} indices", MAX_NUMEL)
        if len(indices) != _numel(shape) or any(j < -1 or j >= nodes[idx].numel for j in indices):
            raise r.fail(f"output {i} indices", "index map does not fit the node")
        outputs.append(OutputSpec(name, idx, shape, indices))
    if not outputs:
        raise FormatError("settings.bin: the graph has no outputs")
    return GraphSpec(scale, nodes, inputs, outputs, root, title)


def _check_node_shapes(node: NodeSpec, where: str, r: Reader) -> None:
    try:
        in_shapes = [view_shape(s, steps) for _, s, steps in node.srcs]
    except ValueError as e:
        raise r.fail(f"{where} view", str(e)) from None
    if node.op in ("Add", "Mul", "Mod", "LessThan"):
        if in_shapes[0] != in_shapes[1] or in_shapes[0] != node.shape:
            raise r.fail(where, f"{node.op} input shapes {in_shapes} do not match output {node.shape}")
    elif node.op in ("SumReduce", "MaxReduce"):
        s = in_shapes[0]
        if node.axis is None or node.axis >= len(s) or s[: node.axis] + s[node.axis + 1 :] != node.shape:
            raise r.fail(where, f"{node.op} over axis {node.axis} of {s} cannot give {node.shape}")
        if s[node.axis] > 1 << 15:
            raise r.fail(where, "reduction longer than 2^15 elements")
    elif node.op not in ("Input", "Constant"):
        if in_shapes[0] != node.shape:
            raise r.fail(where, f"{node.op} input shape {in_shapes[0]} does not match output {node.shape}")
