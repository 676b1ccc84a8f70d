"""Codec of the graph body of settings.bin (kind 2). Bounded like every reader in formats.py; a
constant's values are decoded into an array("i") (4 bytes a value, as in the file)."""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Sequence
from itertools import chain
from math import prod

from ..errors import FormatError
from ..budget import WorkMeter, index_map_work, substitution_work, view_work
from ..formats import Reader, Writer
from ..numeric import MAX_SCALE_BITS, MIN_SCALE_BITS, VALUE_MAX, VALUE_MIN, NumericError, node_constant
from ..packed import INT, from_le, to_le
from .spec import N_INPUTS, OP_CODE, OPS, STEP_KINDS, GraphSpec, InputSpec, NodeSpec, OutputSpec, view_shape
from .symbols import count_refs, expression_values, has_refs, read_symbols, substitute, write_symbols
from .topology import AffineView, ViewError, affine_view, is_affine


MAX_NODES = 1 << 13  # decoding costs ~15 us a node; a component of ~1000 nodes reaches the work budget
MAX_DIMS = 8
MAX_NUMEL = 1 << 24
MAX_OUTPUT_NUMEL = 1 << 20
# Work bounds of the output index maps (docs/formats.md "Verifier work budget"): an output reads a node of at
# most MAX_OUTPUT_SOURCE elements, and a view that is not affine over its node costs one pass over
# the output per affine piece, at most MAX_VIEW_PASSES element passes over all outputs.
MAX_OUTPUT_SOURCE = 1 << 20
MAX_VIEW_PASSES = 1 << 18
MAX_STEPS = 64
MAX_GRAPH_STEPS = 1 << 15  # view steps of all node inputs and outputs together (each is decoded and
# made affine a few times: ~20 us)
# Labels shown to people: printable text of bounded length (no control, format or private-use
# characters, so no terminal escapes or bidi overrides can disguise a verdict).
MAX_TITLE = 200
MAX_DESCRIPTION = 2000
MAX_NAME = 256
COMMITTED_FLAG = 4  # a node flag: a constant whose values are in the model tree, not in settings.bin
# committed constants are range-checked on every proof to |w| < 2^(bits-1) (a value is 16 bits at most)
MIN_MODEL_BITS, MAX_MODEL_BITS = 2, 16


def label_problem(text: str, maximum: int) -> str | None:
    """Why `text` is not an acceptable label, or None."""
    if len(text) > maximum:
        return f"{len(text)} characters, more than {maximum}"
    for i, ch in enumerate(text):
        if not ch.isprintable():  # control, format (bidi overrides), separators other than space...
            return f"character {i} is U+{ord(ch):04X}, not printable text"
    return None


def _read_label(r: Reader, what: str, maximum: int) -> str:
    text = r.string(what, 4 * maximum)
    problem = label_problem(text, maximum)
    if problem:
        raise r.fail(what, problem)
    return text


def _write_ints(w: Writer, vals: Sequence[int]) -> None:
    w.u32(len(vals))
    w.raw(to_le(vals, INT))  # one object for a whole weight tensor (model digest)


def _read_int_array(r: Reader, what: str, maximum: int) -> array:
    n = r.count(what, maximum, 4)
    return from_le(INT, r.view(4 * n, what))


def _read_ints(r: Reader, what: str, maximum: int) -> list[int]:
    return _read_int_array(r, what, maximum).tolist()


def _flatten(kind: str, arg: tuple) -> list[int]:
    if kind in ("slice", "pad"):
        return [int(v) for t in arg for v in t]
    return [int(v) for v in arg]


def _unflatten(kind: str, vals: list[int], what: str, r: Reader | None) -> tuple:
    width = 3 if kind == "slice" else 2 if kind == "pad" else 1
    if len(vals) % width:
        assert r is not None  # instantiate() only unflattens what it flattened
        raise r.fail(what, f"{kind} step with {len(vals)} values")
    if width == 1:
        return tuple(vals)
    return tuple(tuple(vals[i : i + width]) for i in range(0, len(vals), width))


def write_graph(w: Writer, g: GraphSpec, labels: bool = True) -> None:
    """The graph body; labels=False leaves out the publisher's labels (title, description, node
    names): those bytes define the model's identity (model_digest)."""
    w.string(g.title if labels else "")
    w.string(g.description if labels else "")
    w.u8(g.scale_bits)
    write_symbols(w, g.symbols, g.exprs)
    w.u32(len(g.nodes))
    for i, node in enumerate(g.nodes):
        w.u8(OP_CODE[node.op])
        w.string(node.name if labels else "")
        w.u8((1 if node.private else 0) | (2 if node.index else 0) | (COMMITTED_FLAG if node.committed else 0))
        w.u8(0xFF if node.axis is None else node.axis)
        w.u8(g.scale_of(i))
        _write_ints(w, node.shape)
        w.u32(len(node.srcs))
        for src, src_shape, steps in node.srcs:
            w.u32(src)
            _write_steps(w, steps)
        if node.op == "Constant" and not node.committed:
            _write_ints(w, node.values or [])
    w.u32(len(g.inputs))
    for inp in g.inputs:
        w.string(inp.name)
        w.u32(inp.node)
    w.u32(len(g.outputs))
    for out in g.outputs:
        w.string(out.name)
        w.u32(out.node)
        _write_steps(w, out.steps)
    w.u8(g.model_bits)
    _write_ints(w, [k for k, out in enumerate(g.outputs) if out.committed])


def _write_steps(w: Writer, steps: tuple) -> None:
    w.u32(len(steps))
    for kind, arg in steps:
        w.u8(STEP_KINDS.index(kind))
        _write_ints(w, _flatten(kind, arg))


def _read_steps(r: Reader, where: str, budget: list[int] | None = None) -> tuple:
    """A view's steps; `budget` ([steps left]) bounds the steps of the whole graph."""
    steps = []
    n = r.count(f"{where} view", MAX_STEPS, 5)
    if budget is not None:
        budget[0] -= n
        if budget[0] < 0:
            raise r.fail(f"{where} view", f"the graph's views take more than {MAX_GRAPH_STEPS} steps in all")
    for s in range(n):
        kind_code = r.u8(f"{where} view step {s}")
        if kind_code >= len(STEP_KINDS):
            raise r.fail(f"{where} view step {s}", f"unknown view step {kind_code}")
        kind = STEP_KINDS[kind_code]
        vals = _read_ints(r, f"{where} view step {s}", 3 * MAX_DIMS)
        steps.append((kind, _unflatten(kind, vals, where, r)))
    return tuple(steps)


def read_graph(r: Reader, meter: WorkMeter | None = None, views_charged: bool = False) -> GraphSpec:
    """The graph body. A graph with symbols is read as a template: its structure is checked here,
    its shapes and views when it is instantiated for a proof's symbol values (`instantiate`).
    `meter` (verify's work budget) is charged for each node's and output's view checks first
    (unless `views_charged`: an instantiated template's, charged before it was instantiated) and
    for each output's index map before it is built."""
    title = _read_label(r, "graph title", MAX_TITLE)
    description = _read_label(r, "graph description", MAX_DESCRIPTION)
    scale = r.u8("numeric format scale_bits")
    if not MIN_SCALE_BITS <= scale <= MAX_SCALE_BITS:
        raise r.fail("numeric format scale_bits", f"{scale} outside [{MIN_SCALE_BITS}, {MAX_SCALE_BITS}]")
    symbols, exprs = read_symbols(r, _read_label)
    template = bool(symbols)
    nodes: list[NodeSpec] = []
    steps_left = [MAX_GRAPH_STEPS]
    for i in range(r.count("graph nodes", MAX_NODES, 8)):
        where = f"node {i}"
        code = r.u8(f"{where} op")
        if code >= len(OPS):
            raise r.fail(f"{where} op", f"unknown op code {code}")
        op = OPS[code]
        name = _read_label(r, f"{where} name", MAX_NAME)
        flags = r.u8(f"{where} flags")
        axis_raw = r.u8(f"{where} axis")
        node_scale = r.u8(f"{where} scale")
        shape = tuple(_read_ints(r, f"{where} shape", MAX_DIMS))
        if template and has_refs(shape):
            if op == "Constant":
                raise r.fail(f"{where} shape", "a constant's shape cannot depend on the symbols")
        elif any(d < 1 for d in shape):
            raise r.fail(f"{where} shape", f"invalid shape {shape}")
        elif prod(shape) > MAX_NUMEL:
            raise r.fail(f"{where} shape", f"{shape} holds {prod(shape)} elements, more than a tensor may ({MAX_NUMEL})")
        srcs = []
        n_src = r.count(f"{where} inputs", 4, 8)
        if n_src != N_INPUTS[op] and not (op == "Dot" and n_src == 3):
            raise r.fail(f"{where} inputs", f"{op} takes {N_INPUTS[op]} inputs, got {n_src}")
        for k in range(n_src):
            src = r.u32(f"{where} input {k}")
            if src >= i:
                raise r.fail(f"{where} input {k}", f"refers to node {src}, which is not earlier in the graph")
            srcs.append((src, nodes[src].shape, _read_steps(r, f"{where} input {k}", steps_left)))
        axis = None if axis_raw == 0xFF else axis_raw
        committed_input = op == "Input" and flags == 1 | COMMITTED_FLAG  # private, its digest reported
        if (flags & ~(3 | COMMITTED_FLAG) or (flags & 2 and op != "Input") or (flags & 1 and op != "Input")
                or (flags & COMMITTED_FLAG and op != "Constant" and not committed_input)):
            raise r.fail(f"{where} flags", f"{flags:#x} is not a valid flag set for {op} (1: private input, 2: "
                         f"index input, {COMMITTED_FLAG}: committed constant, or with 1 a committed input)")
        node = NodeSpec(op, shape, srcs, axis, name, bool(flags & 1), index=bool(flags & 2), scale=node_scale,
                        committed=bool(flags & COMMITTED_FLAG))
        _check_scales(nodes, node, scale, where, r)
        if op == "Gather":
            _check_gather(nodes, node, where, r, shapes=not template)
        elif any(nodes[s].index for s, _, _ in srcs):
            raise r.fail(where, f"{op} reads an index input; only a Gather's second input may")
        if not template:
            if meter is not None and not views_charged:
                meter.charge("view checks", view_work([s for _, _, steps in srcs for s in steps]))
            _check_node_shapes(node, where, r)
        if op == "Constant" and not node.committed:
            vals = _read_int_array(r, f"{where} values", MAX_NUMEL)
            if len(vals) != prod(shape):
                raise r.fail(f"{where} values", f"{len(vals)} values for shape {shape}")
            if vals and (min(vals) < VALUE_MIN or max(vals) > VALUE_MAX):
                raise r.fail(f"{where} values", "a constant is outside the 16-bit value range")
            node.values = vals
        nodes.append(node)
    inputs = []
    seen_inputs: set[int] = set()
    for i in range(r.count("graph inputs", MAX_NODES, 8)):
        name = _read_label(r, f"input {i} name", MAX_NAME)
        idx = r.u32(f"input {i} node")
        if idx >= len(nodes) or nodes[idx].op != "Input" or idx in seen_inputs:
            raise r.fail(f"input {i} node", f"{idx} is not an input node (or is listed twice)")
        seen_inputs.add(idx)
        inputs.append(InputSpec(name, idx))
    if len(seen_inputs) != sum(1 for n in nodes if n.op == "Input"):
        raise r.fail("graph inputs", "every Input node must be listed exactly once")
    unread = {i for i, n in enumerate(nodes) if n.index} - {n.srcs[1][0] for n in nodes if n.op == "Gather"}
    if unread:
        raise r.fail(f"node {min(unread)}", "an index input that no Gather reads (its ids would index nothing)")
    outputs = []
    total = passes = 0
    for i in range(r.count("graph outputs", MAX_NODES, 12)):
        where = f"output {i}"
        name = _read_label(r, f"{where} name", MAX_NAME)
        idx = r.u32(f"{where} node")
        if idx >= len(nodes) or nodes[idx].index:
            raise r.fail(f"{where} node", f"no node {idx}" if idx >= len(nodes) else f"node {idx} is an index input")
        steps = _read_steps(r, where, steps_left)
        if template:
            outputs.append(OutputSpec(name, idx, steps))
            continue
        if meter is not None and not views_charged:
            meter.charge("view checks", view_work(steps))
        try:
            shape = view_shape(nodes[idx].shape, steps)
        except ValueError as e:
            raise r.fail(f"{where} view", str(e)) from None
        total += prod(shape)
        if total > MAX_OUTPUT_NUMEL:
            raise r.fail(f"{where} view", f"the outputs hold more than {MAX_OUTPUT_NUMEL} elements")
        if nodes[idx].numel > MAX_OUTPUT_SOURCE:
            raise r.fail(f"{where} node", f"node {idx} has {nodes[idx].numel} elements; an output reads at most {MAX_OUTPUT_SOURCE}")
        pieces = affine_pieces(nodes[idx].shape, steps)
        passes += prod(shape) * (len(pieces) - 1)
        if passes > MAX_VIEW_PASSES:
            raise r.fail(f"{where} view", "the output views are too costly to map (reshapes of permuted or padded views "
                         f"over more than {MAX_VIEW_PASSES} elements in all); materialize them in the graph")
        if meter is not None:
            meter.charge("output index maps", index_map_work(prod(shape), len(pieces)))
        outputs.append(OutputSpec(name, idx, steps, shape, pieces_indices(pieces)))
    if not outputs:
        raise FormatError("settings.bin: the graph has no outputs")
    model_bits = _read_model_bits(r, nodes)
    committed = _read_ints(r, "committed outputs", MAX_NODES)
    if committed != sorted(set(committed)) or any(not 0 <= k < len(outputs) for k in committed):
        raise r.fail("committed outputs", f"{committed} are not distinct output indices in order (of {len(outputs)})")
    for k in committed:
        outputs[k].committed = True
    return GraphSpec(scale, nodes, inputs, outputs, title, description, symbols, exprs, model_bits=model_bits)


def _read_model_bits(r: Reader, nodes: list[NodeSpec]) -> int:
    """The committed constants' bound (0 without any), and where a committed constant may be read:
    not as a Gather's table (a Gather at public ids is the verifier's own values, docs/committed-models.md)."""
    bits = r.u8("model bits")
    committed = [i for i, n in enumerate(nodes) if n.committed and n.op == "Constant"]
    if bool(bits) != bool(committed):
        raise r.fail("model bits", f"{bits} with {len(committed)} committed constants (0 exactly when there are none)")
    if committed and not MIN_MODEL_BITS <= bits <= MAX_MODEL_BITS:
        raise r.fail("model bits", f"{bits} outside [{MIN_MODEL_BITS}, {MAX_MODEL_BITS}]")
    for i, n in enumerate(nodes):
        if n.op == "Gather" and nodes[n.srcs[0][0]].committed:
            raise r.fail(f"node {i}", f"a Gather reads the committed constant {n.srcs[0][0]} as its table; "
                         "a Gather's table stays public")
    return bits


def _check_scales(nodes: list[NodeSpec], node: NodeSpec, graph_scale: int, where: str, r: Reader) -> None:
    """The node's scale is one the format allows and fits its op with its inputs' (numeric.node_constant:
    every shift the proof uses is derived from these, none is read)."""
    try:
        node_constant(node.op, [nodes[s].scale or 0 for s, _, _ in node.srcs], node.scale or 0, graph_scale)
    except NumericError as e:
        raise r.fail(f"{where} scale", str(e)) from None


def template_parts(template: GraphSpec) -> tuple[int, int, list]:
    """What instantiating a template costs (verifier/budget.py): its expressions' terms, its
    references, and its view steps (the concrete graph's, checked when it is read back)."""
    steps = [s for n in template.nodes for _, _, st in n.srcs for s in st] + [s for o in template.outputs for s in o.steps]
    refs = sum(count_refs(n.shape) for n in template.nodes)
    refs += sum(count_refs(chain.from_iterable(arg) if kind in ("slice", "pad") else arg) for kind, arg in steps)
    return sum(len(p) for p in template.exprs), refs, steps


def charge_template(meter: WorkMeter, template: GraphSpec) -> None:
    """Before instantiating: the substitution, then the concrete graph's view checks (template_parts)."""
    n_terms, n_references, steps = template_parts(template)
    meter.charge_all({"symbol substitution": substitution_work(n_terms, n_references), "view checks": view_work(steps)})


def instantiate(template: GraphSpec, values: tuple[int, ...], meter: WorkMeter | None = None) -> GraphSpec:
    """The concrete graph a template gives for these symbol values (checked by the caller against
    the symbols' bounds). Each expression is evaluated once and every reference substituted, then
    the result is encoded and read back as a graph without symbols, so it passes every check a
    concrete settings.bin passes (their cost: template_parts, charged by the caller; `meter` is
    charged for the output index maps as they are read back, before each is built: their sizes
    are known only once substituted)."""
    evaluated = expression_values(template.exprs, values)

    def steps_of(steps: tuple, where: str) -> tuple:
        out = []
        for kind, arg in steps:
            flat = substitute(_flatten(kind, arg), evaluated, f"{where} {kind} step")
            out.append((kind, _unflatten(kind, list(flat), where, None) if kind in ("slice", "pad") else flat))
        return tuple(out)

    nodes: list[NodeSpec] = []
    for i, n in enumerate(template.nodes):
        shape = substitute(n.shape, evaluated, f"node {i} shape")
        srcs = [(s, nodes[s].shape, steps_of(st, f"node {i} input {k}")) for k, (s, _, st) in enumerate(n.srcs)]
        nodes.append(NodeSpec(n.op, shape, srcs, n.axis, n.name, n.private, n.values, n.index, n.scale, n.committed))
    outputs = [OutputSpec(o.name, o.node, steps_of(o.steps, f"output {k}"), committed=o.committed)
               for k, o in enumerate(template.outputs)]
    concrete = GraphSpec(template.scale_bits, nodes, template.inputs, outputs, template.title, template.description,
                         model_bits=template.model_bits)
    w = Writer()
    write_graph(w, concrete)
    label = ", ".join(f"{s.name}={v}" for s, v in zip(template.symbols, values))
    r = Reader(w.bytes(), f"settings.bin at {label}")
    spec = read_graph(r, meter, views_charged=True)
    spec.bound = {s.name: v for s, v in zip(template.symbols, values)}
    spec.model_root, spec.model_log_blowup = template.model_root, template.model_log_blowup
    return spec


def _check_gather(nodes: list[NodeSpec], node: NodeSpec, where: str, r: Reader, shapes: bool) -> None:
    """Gather(table, ids): the table a (V, d) constant, ids an index input, both read whole; the
    output has the ids' shape and then d."""
    (t, t_shape, t_steps), (ids, ids_shape, ids_steps) = node.srcs
    if nodes[t].op != "Constant" or len(t_shape) != 2 or t_steps:
        raise r.fail(f"{where} input 0", "a Gather reads a (rows, width) constant table, unchanged")
    if not nodes[ids].index or ids_steps:
        raise r.fail(f"{where} input 1", "a Gather reads an index input, unchanged")
    if node.axis not in (None, 0) or (shapes and node.shape != (*ids_shape, t_shape[1])):
        raise r.fail(where, f"Gather of {t_shape} at indices {ids_shape} cannot give {node.shape}")


def _check_node_shapes(node: NodeSpec, where: str, r: Reader) -> None:
    try:
        in_shapes = [view_shape(s, steps) for _, s, steps in node.srcs]
    except ValueError as e:
        raise r.fail(f"{where} view", str(e)) from None
    for k, (_, s, steps) in enumerate(node.srcs):
        if not is_affine(s, steps):
            raise r.fail(f"{where} input {k} view", "not affine over its source; the AIR needs affine views")
    if node.op in ("Add", "Mul", "Mod", "LessThan"):
        if in_shapes[0] != in_shapes[1] or in_shapes[0] != node.shape:
            raise r.fail(where, f"{node.op} input shapes {in_shapes} do not match output {node.shape}")
    elif node.op in ("SumReduce", "MaxReduce", "Dot"):
        s = in_shapes[0]
        if node.op == "Dot" and in_shapes[1] != s:
            raise r.fail(where, f"Dot input shapes {in_shapes[:2]} differ")
        if node.op == "Dot" and len(in_shapes) == 3:
            if in_shapes[2] != node.shape:
                raise r.fail(f"{where} input 2", f"a Dot's bias view has shape {in_shapes[2]}, not the output's {node.shape}")
            if affine_view(node.srcs[2][1], node.srcs[2][2]).masked():
                raise r.fail(f"{where} input 2", "a Dot's bias view must not pad")
        if node.axis is None or node.axis >= len(s) or s[: node.axis] + s[node.axis + 1 :] != node.shape:
            raise r.fail(where, f"{node.op} over axis {node.axis} of {s} cannot give {node.shape}")
        if s[node.axis] > 1 << 15:
            raise r.fail(where, "reduction longer than 2^15 elements")
    elif node.op not in ("Input", "Constant", "Gather"):
        if in_shapes[0] != node.shape:
            raise r.fail(where, f"{node.op} input shape {in_shapes[0]} does not match output {node.shape}")


# --- output index maps ----------------------------------------------------------------------------


def affine_pieces(src_shape: tuple[int, ...], steps: tuple) -> list[AffineView]:
    """A view's steps cut into affine pieces: a piece ends where a reshape is not affine over it (it
    merges permuted or padded axes), and the next piece starts contiguous over that intermediate
    shape. Piece i maps its elements (row-major over its sizes) to flat indices of piece i - 1."""
    pieces = []
    shape = tuple(src_shape)
    v = AffineView.contiguous(shape)
    for kind, arg in steps:
        try:
            v = v.apply(kind, arg)
        except ViewError:
            pieces.append(v)
            v = AffineView.contiguous(shape).apply(kind, arg)
        shape = view_shape(shape, ((kind, arg),))
    pieces.append(v)
    return pieces


def _expand(v: AffineView) -> list[int]:
    """Every element's flat source index (-1: padding), axis by axis with ranges (no digit loop)."""
    cur: list[int | None] = [v.offset]
    for d, s, (lo, hi) in zip(v.sizes, v.strides, v.masks):
        lo, hi = max(lo, 0), min(hi, d)
        nxt: list[int | None] = []
        if lo >= hi:
            nxt = [None] * (len(cur) * d)
        else:
            pre, post = [None] * lo, [None] * (d - hi)
            for b in cur:
                if b is None:
                    nxt.extend([None] * d)
                    continue
                nxt.extend(pre)
                nxt.extend(range(b + lo * s, b + hi * s, s) if s else [b] * (hi - lo))
                nxt.extend(post)
        cur = nxt
    return [-1 if x is None else x for x in cur]


def _map_back(v: AffineView, flat: list[int]) -> list[int]:
    """Flat indices of v's elements to flat indices of v's source (-1 stays -1, padding gives -1)."""
    axes = list(zip(v.sizes, v.strides, v.masks))[::-1]
    out = []
    for x in flat:
        if x < 0:
            out.append(-1)
            continue
        addr = v.offset
        for d, s, (lo, hi) in axes:
            x, digit = divmod(x, d)
            if not lo <= digit < hi:
                addr = -1
                break
            addr += digit * s
        out.append(addr)
    return out


def pieces_indices(pieces: list[AffineView]) -> list[int]:
    """The flat source index each output element reads (-1: padding): tests/reference_views.view_indices without
    materializing the source node or any intermediate view."""
    idx = _expand(pieces[-1])
    for v in reversed(pieces[:-1]):
        idx = _map_back(v, idx)
    return idx


def model_digest(spec: GraphSpec) -> bytes:
    """The model's identity: BLAKE2s of the graph body without the publisher's labels (title,
    description, node names): graph, views, weights, numeric format, input/output names and maps;
    with committed weights, the model root and the log blowup it depends on instead of their values."""
    w = Writer()
    write_graph(w, spec, labels=False)
    if spec.committed:
        w.u8(spec.model_log_blowup)
        w.raw(spec.model_root)
    h = hashlib.blake2s(b"luminair model v2")
    for part in w.parts:  # part by part: no copy of the whole body (a weight tensor is one part)
        h.update(part)
    return h.digest()
