"""Symbolic dimensions on the prover side: one settings.bin for every batch size (or sequence length).

    model = SymbolicModel(build, {"batch": (1, 256)})   # build(batch=n) -> Graph, or an ONNX file
    settings = model.gen_settings()                       # the same bytes whatever batch is proven
    proof, outputs = model.prove(settings, {"x": xs})     # batch = xs.shape[0], fixed in the proof

How the template is made: the model is built and compiled for a few sample values of its symbols
(a grid of degree + 1 values each, all at least 2 so no axis is degenerate), the compiled graphs
must have the same structure and weights, and every shape or view integer that differs is
interpolated as an integer polynomial in the symbols (verifier/graph/symbols.py). The template is
then checked against one more compiled sample it was not fitted on. How a proof is made: the
template is instantiated for the proof's values by the verifier's own code, and the prover runs
and proves exactly that graph (rebuilt from the instantiated spec), so what is proven is by
construction what the verifier checks.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..verifier.graph.settings import _flatten, _unflatten, instantiate
from ..verifier.graph.spec import GraphSpec, NodeSpec, OutputSpec, view_shape
from ..verifier.graph.statement import build_graph_air
from ..verifier.graph.symbols import MAX_EXPONENT, MAX_SYMBOL_VALUE, Poly, Symbol, ref
from ..verifier.statement import KIND_GRAPH, Settings as SettingsFile, bind_symbols, encode_settings, read_settings
from .proving import Graph
from .graph.graph import SYMBOL_VALUES
from .graph.errors import GraphError, InputError
from .graph.ops import Op
from .graph.shape import ShapeTracker

DEFAULT_DEGREE = 2  # per symbol: enough for batch * seq and seq^2 (attention scores)
DEFAULT_RANGE = (1, 256)  # an ONNX dynamic axis given no range (narrowed to what the verifier accepts)
MAX_I32 = (1 << 31) - 1


class SymbolicError(GraphError):
    """A model whose graph cannot be described with symbolic dimensions, or inputs that fit none."""


# --- the template ------------------------------------------------------------------------------


def _skeleton(spec: GraphSpec) -> tuple[tuple, list[int]]:
    """(everything but the shape and view integers, those integers in a fixed order)."""
    ints: list[int] = []
    skel: list[Any] = []

    def steps(st: tuple) -> tuple:
        out = []
        for kind, arg in st:
            flat = _flatten(kind, arg)
            ints.extend(flat)
            out.append((kind, len(flat)))
        return tuple(out)

    for n in spec.nodes:
        ints.extend(n.shape)
        skel.append((n.op, n.axis, n.name, n.private, len(n.shape), tuple(n.values or ()),
                     tuple((s, steps(st)) for s, _, st in n.srcs)))
    skel.append(tuple((i.name, i.node) for i in spec.inputs))
    skel.append(tuple((o.name, o.node, steps(o.steps)) for o in spec.outputs))
    skel.append((spec.scale_bits, spec.title, spec.description))
    return tuple(skel), ints


def _rebuild(spec: GraphSpec, ints: list[int], symbols: list[Symbol], exprs: list[Poly]) -> GraphSpec:
    """`spec` with its shape and view integers replaced, in _skeleton's order."""
    it = iter(ints)

    def steps(st: tuple) -> tuple:
        out = []
        for kind, arg in st:
            flat = [next(it) for _ in _flatten(kind, arg)]
            out.append((kind, _unflatten(kind, flat, kind, None) if kind in ("slice", "pad") else tuple(flat)))
        return tuple(out)

    nodes: list[NodeSpec] = []
    for n in spec.nodes:
        shape = tuple(next(it) for _ in n.shape)
        srcs = [(s, nodes[s].shape, steps(st)) for s, _, st in n.srcs]
        nodes.append(NodeSpec(n.op, shape, srcs, n.axis, n.name, n.private, n.values, n.index, n.scale))
    outputs = [OutputSpec(o.name, o.node, steps(o.steps)) for o in spec.outputs]
    return GraphSpec(spec.scale_bits, nodes, spec.inputs, outputs, spec.title, spec.description, symbols, exprs)


def _basis(points: list[int]) -> list[list[Fraction]]:
    """Monomial coefficients of the Lagrange basis polynomials of `points`."""
    out = []
    for i, xi in enumerate(points):
        coeffs = [Fraction(1)]
        denom = Fraction(1)
        for j, xj in enumerate(points):
            if j == i:
                continue
            coeffs = [Fraction(0)] + coeffs  # multiply by (x - xj)
            for k in range(len(coeffs) - 1):
                coeffs[k] -= xj * coeffs[k + 1]
            denom *= xi - xj
        out.append([c / denom for c in coeffs])
    return out


def _sample_points(symbols: list[Symbol], degree: int) -> list[list[int]]:
    """degree + 2 values per symbol (the last one checks the fit), all at least 2."""
    out = []
    for s in symbols:
        start = max(s.lo, 2)
        pts = list(range(start, min(s.hi, start + degree + 1) + 1))
        if len(pts) < degree + 2:
            raise SymbolicError(
                f"symbol {s.name!r}: its range [{s.lo}, {s.hi}] holds fewer than {degree + 2} values from 2 up, "
                f"too few to fit the graph's shapes; fix the dimension instead"
            )
        out.append(pts)
    return out


def fit_template(compile_at: Callable[[dict[str, int]], GraphSpec], symbols: list[Symbol],
                 degree: int = DEFAULT_DEGREE, narrow: bool = False) -> GraphSpec:
    """The symbolic graph whose instances are `compile_at(values)`, fitted on a grid of sample
    values and checked on one more. Raises SymbolicError naming what does not fit; with `narrow`,
    ranges whose largest values the verifier would refuse are narrowed to what it accepts."""
    if not 1 <= degree <= MAX_EXPONENT:
        raise SymbolicError(f"degree {degree} outside [1, {MAX_EXPONENT}]")
    points = _sample_points(symbols, degree)
    grid_pts = [p[: degree + 1] for p in points]
    names = [s.name for s in symbols]
    samples = {}
    for combo in itertools.product(*grid_pts):
        at = dict(zip(names, combo))
        try:
            samples[combo] = compile_at(at)
        except GraphError as e:  # a model that builds only at some values (its unsupported ops: as they are)
            if type(e).__name__ == "UnsupportedOnnxError":
                raise
            values = ", ".join(f"{k}={v}" for k, v in at.items())
            raise SymbolicError(f"the graph does not build at {values}, a value of the range: {e}") from None
    first = next(iter(samples.values()))
    skel0, _ = _skeleton(first)
    vectors = {}
    for combo, spec in samples.items():
        skel, ints = _skeleton(spec)
        if skel != skel0:
            raise SymbolicError(_difference(skel0, skel, dict(zip(names, combo))))
        vectors[combo] = ints
    bases = [_basis(p) for p in grid_pts]
    exprs: list[Poly] = []
    index: dict[Poly, int] = {}
    ints_out = []
    for pos in range(len(vectors[next(iter(vectors))])):
        column = {c: v[pos] for c, v in vectors.items()}
        if len(set(column.values())) == 1:
            ints_out.append(next(iter(column.values())))
            continue
        poly = _interpolate(column, bases, grid_pts, pos)
        if poly not in index:
            index[poly] = len(exprs)
            exprs.append(poly)
        ints_out.append(ref(index[poly]))
    template = _rebuild(first, ints_out, list(symbols), exprs)
    template = _narrowed(template) if narrow else template
    _check_range(template)
    check = tuple(p[-1] for p in points)
    expected = compile_at(dict(zip(names, check)))
    got = instantiate(template, check)
    if _skeleton(got) != _skeleton(expected):
        at = ", ".join(f"{n}={v}" for n, v in zip(names, check))
        raise SymbolicError(
            f"the graph's shapes are not polynomials of degree {degree} in the symbols: the template fitted on "
            f"the samples does not reproduce the graph compiled at {at}"
        )
    return template


def _check_range(template: GraphSpec) -> None:
    """Every value the settings will declare must give a graph the verifier accepts: the largest
    (shapes grow with the symbols) and the smallest. For one symbol, name the largest that does."""
    from ..verifier.errors import FormatError

    def fails(values: tuple[int, ...]) -> str | None:
        try:
            instantiate(template, values)
        except FormatError as e:
            return str(e)
        return None

    syms = template.symbols
    low = tuple(s.lo for s in syms)
    why = fails(low)
    if why:
        raise SymbolicError(f"at the smallest values ({_at(syms, low)}) the graph is not provable: {why}")
    high = tuple(s.hi for s in syms)
    why = fails(high)
    if why is None:
        return
    hint = ""
    if len(syms) == 1:
        lo, hi = syms[0].lo, syms[0].hi  # the largest good value, by bisection (lo is good)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if fails((mid,)) is None else (lo, mid - 1)
        hint = f"; the largest {syms[0].name} this graph allows is {lo}"
    raise SymbolicError(f"at the largest values ({_at(syms, high)}) the graph is not provable: {why}{hint}")


def _narrowed(template: GraphSpec) -> GraphSpec:
    """The template with every symbol's upper bound lowered, by one common fraction t of its range
    (bisection), until the largest values give a graph the verifier accepts."""
    from dataclasses import replace

    from ..verifier.errors import FormatError

    syms = template.symbols

    def his(t: Fraction) -> tuple[int, ...]:
        return tuple(s.lo + int((s.hi - s.lo) * t) for s in syms)

    def fits(values: tuple[int, ...]) -> bool:
        try:
            instantiate(template, values)
        except FormatError:
            return False
        return True

    if fits(his(Fraction(1))):
        return template
    lo, hi = Fraction(0), Fraction(1)
    for _ in range(24):  # (hi - lo) < 2^-24 of the range: every bound is exact
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if fits(his(mid)) else (lo, mid)
    return replace(template, symbols=[Symbol(s.name, s.lo, h) for s, h in zip(syms, his(lo))])


def _at(symbols: list[Symbol], values: tuple[int, ...]) -> str:
    return ", ".join(f"{s.name}={v}" for s, v in zip(symbols, values))


def _interpolate(column: dict[tuple, int], bases: list, grid_pts: list[list[int]], pos: int) -> Poly:
    """Integer monomial coefficients of the polynomial through `column` (tensor-product Lagrange)."""
    k = len(grid_pts)
    coeffs: dict[tuple[int, ...], Fraction] = {}
    for combo, value in column.items():
        idx = [grid_pts[j].index(combo[j]) for j in range(k)]
        for exps in itertools.product(*(range(len(grid_pts[j])) for j in range(k))):
            c = Fraction(value)
            for j in range(k):
                c *= bases[j][idx[j]][exps[j]]
            if c:
                coeffs[exps] = coeffs.get(exps, Fraction(0)) + c
    terms = []
    for exps in sorted(coeffs):
        c = coeffs[exps]
        if c == 0:
            continue
        if c.denominator != 1 or abs(c) > MAX_I32:
            raise SymbolicError(f"shape integer {pos} of the compiled graph is not an integer polynomial in the symbols")
        terms.append((int(c), exps))
    return tuple(terms)


def _difference(a: tuple, b: tuple, at: dict[str, int]) -> str:
    where = ", ".join(f"{k}={v}" for k, v in at.items())
    n_nodes = len(a) - 3
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            what = f"node {i} ({x[0]} vs {y[0]})" if i < n_nodes else ("the inputs", "the outputs", "the format")[i - n_nodes]
            if i < n_nodes and x[5] != y[5]:
                what = f"the values of constant node {i}"
            return (f"the compiled graph at {where} differs from the first sample in {what}: its structure or "
                    f"weights depend on the symbols, so it cannot be one symbolic settings.bin")
    return f"the compiled graph at {where} has {len(b) - 3} nodes, the first sample {n_nodes}"


# --- the prover's graph for one instance -------------------------------------------------------------


def graph_from_spec(spec: GraphSpec) -> Graph:
    """The compiled Graph of a concrete spec, node for node (constants keep their raw values)."""
    from .compile.stwo import StwoCompiler

    g = Graph(scale_bits=spec.scale_bits)
    input_names = {i.node: i.name for i in spec.inputs}
    nodes = []
    for i, n in enumerate(spec.nodes):
        if n.op == "Input":
            node = g.input(input_names[i], n.shape, private=n.private).node
        elif n.op == "Constant":
            raw = np.asarray(n.values, dtype=np.int64).reshape(n.shape)
            value = raw / float(1 << spec.scale_bits)  # exact: the float view of the raw fixed point
            node = g.add_node(Op.CONSTANT, (), n.shape, name=n.name or None, value=value, raw=raw,
                              raw_scale=spec.scale_bits)
        else:
            srcs = [(nodes[s], ShapeTracker(shape, steps, view_shape(shape, steps))) for s, shape, steps in n.srcs]
            node = g.add_node(Op(n.op), srcs, n.shape, axis=n.axis, name=n.name or None)
        nodes.append(node)
    for o in spec.outputs:
        src = nodes[o.node]
        g.tensor(src, ShapeTracker(src.shape, o.steps, view_shape(src.shape, o.steps))).output(o.name)
    if [i.name for i in spec.inputs] != list(g.inputs()):
        raise SymbolicError("the settings' inputs are not listed in node order")
    StwoCompiler(fuse=False).compile(g)  # checks every node is provable; the graph is already fused
    if len(g) != len(spec.nodes):
        raise SymbolicError("the settings' graph computes nodes no output reads")
    return g


# --- the model -------------------------------------------------------------------------------------


@dataclass
class SymbolicSettings:
    """settings.bin of a symbolic model (the template); `bind` gives the prover's view for values."""

    data: bytes
    parsed: SettingsFile

    @property
    def symbols(self) -> list[Symbol]:
        return self.parsed.body.symbols

    @property
    def model_digest(self) -> str:
        return self.parsed.model_digest.hex()

    def write(self, path: str | Path) -> Path:
        from .proving import _write

        return _write(path, self.data)

    def bind(self, values: Mapping[str, int]) -> tuple[Any, Graph]:
        """(prover Settings for these symbol values, the graph to run and prove)."""
        from .air.graph_trace import topology_columns
        from .proving import Settings
        from .stark.prove import commit_preprocessed, prepare_sparse_columns

        order = [s.name for s in self.symbols]
        if set(values) != set(order):
            raise SymbolicError(f"give a value for each symbol ({', '.join(order)}), got {sorted(values)}")
        vals = [int(values[n]) for n in order]
        from ..verifier.errors import VerificationError

        try:
            bound = bind_symbols(self.parsed, [vals])
        except VerificationError as e:
            raise SymbolicError(e.message) from None
        graph = graph_from_spec(bound.body)
        cfg = bound.config
        air, plans = build_graph_air(bound.body, cfg.log_blowup)
        topology = topology_columns(graph, plans, bound.body)
        tree = commit_preprocessed(air.preprocessed[0], topology, cfg.log_blowup)
        prepare_sparse_columns(air, cfg.log_blowup)
        return Settings(self.data, bound, plans, air, topology, tree), graph


class SymbolicModel:
    """A model with symbolic dimensions and each symbol's range. `build` is a Python builder, which
    names a symbol in an input's shape, cx.input("x", ("batch", 784)), or takes it as a keyword
    argument, build(batch) (shapes then follow as usual: x.shape[0] is the batch size); or an ONNX
    file or ModelProto whose dynamic axes are named like the symbols."""

    def __init__(self, build: Callable[..., Graph] | str | os.PathLike | Any,
                 symbols: Mapping[str, tuple[int, int]] | None = None, *, degree: int = DEFAULT_DEGREE,
                 compilers: Sequence[Any] | None = None, search: bool = True, **onnx_options: Any):
        self.narrow = symbols is None  # default ranges: narrowed to what the graph allows
        if symbols is None:
            if callable(build):
                raise SymbolicError("a Python builder needs its symbols and their ranges, e.g. {'batch': (1, 256)}")
            symbols = {name: DEFAULT_RANGE for name in onnx_dynamic_axes(_onnx_proto(build))}
            if not symbols:
                raise SymbolicError("the ONNX model has no dynamic axes (dim_param) to make symbolic")
        if not symbols:
            raise SymbolicError("a symbolic model needs at least one symbol")
        self.symbols = []
        for name, bounds in symbols.items():
            lo, hi = (int(b) for b in bounds)
            if not (isinstance(name, str) and name and 1 <= lo <= hi <= MAX_SYMBOL_VALUE):
                raise SymbolicError(f"symbol {name!r}: range [{lo}, {hi}] must lie within [1, {MAX_SYMBOL_VALUE}]")
            self.symbols.append(Symbol(name, lo, hi))
        if callable(build):
            if onnx_options:
                raise SymbolicError(f"options {sorted(onnx_options)} apply to ONNX models only")
            self.build = build
            self._keywords = _keywords(build, [s.name for s in self.symbols])
        else:
            self.build = _onnx_builder(build, [s.name for s in self.symbols], onnx_options)
            self._keywords = {s.name for s in self.symbols}
        self.degree = degree
        self.compilers = compilers  # None: StwoCompiler(search=search), the default pipeline
        self.search = search
        self.search_report: Any = None  # the search compiler's report of the last graph compiled

    def graph_at(self, values: Mapping[str, int]) -> Graph:
        """The model built and compiled for concrete symbol values."""
        from .compile.stwo import StwoCompiler

        token = SYMBOL_VALUES.set(dict(values))
        try:
            g = self.build(**{k: v for k, v in values.items() if k in self._keywords})
        finally:
            SYMBOL_VALUES.reset(token)
        if not isinstance(g, Graph):
            raise SymbolicError(f"build({values}) returned {type(g).__name__}, not a Graph")
        if self.compilers is not None:
            g.compile(*self.compilers)
        if getattr(g, "stwo_plan", None) is None:
            stwo = StwoCompiler(search=self.search)
            stwo.compile(g)
            self.search_report = stwo.search_report
        return g

    def template(self, title: str = "", description: str = "") -> GraphSpec:
        from .air.graph_trace import build_spec

        return fit_template(lambda v: build_spec(self.graph_at(v), title, description), self.symbols, self.degree,
                            narrow=self.narrow)

    def gen_settings(self, *, preset: str | None = None, config: Any = None, security_bits: int | None = None,
                     title: str = "", description: str = "") -> SymbolicSettings:
        from .proving import reach_union_bound, resolve_config, security_target

        cfg = resolve_config(preset, config, security_bits)
        cfg.validate()
        template = self.template(title, description)
        target = security_target(preset, config, security_bits)
        if target is not None:  # the largest instance has the most rows: the weakest algebraic terms
            cfg = reach_union_bound(cfg, instantiate(template, tuple(s.hi for s in template.symbols)), target)
        data = encode_settings(KIND_GRAPH, cfg, template)
        return SymbolicSettings(data, read_settings(data))

    def values_for(self, settings: SymbolicSettings, inputs: Mapping[str, Any]) -> dict[str, int]:
        """The symbol values the inputs' shapes imply (each symbol must be a whole axis of an input)."""
        return symbol_values_from_inputs(settings.parsed.body, inputs)

    def prove(self, settings: SymbolicSettings, inputs: Mapping[str, Any], values: Mapping[str, int] | None = None,
              on_stage: Callable[[str], None] | None = None) -> tuple[Any, dict[str, np.ndarray]]:
        """(Proof, outputs) for one instance: the symbols' values from `values` or the inputs' shapes."""
        from .proving import gen_trace, prove

        values = dict(values) if values is not None else self.values_for(settings, inputs)
        st, graph = settings.bind(values)
        trace = gen_trace(graph, shape_inputs(graph, inputs))
        return prove(graph, trace, st, on_stage=on_stage), trace.outputs


def _keywords(build: Callable[..., Graph], names: list[str]) -> set[str]:
    """The symbols `build` takes as keyword arguments (the others it reads as named input
    dimensions, cx.input("x", ("batch", 784)))."""
    import inspect

    try:
        params = inspect.signature(build).parameters
    except (TypeError, ValueError):
        return set(names)
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return set(names)
    return {n for n in names if n in params}


def shape_inputs(graph: Graph, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Each input reshaped to the instance's shape (flat lists and batches of rows accepted)."""
    out = {}
    for name, node in graph.inputs().items():
        if name not in inputs:
            raise InputError(f"missing input {name!r}")
        arr = np.asarray(inputs[name], dtype=np.float64)
        if arr.size != node.numel:
            raise InputError(f"input {name!r}: {arr.size} values, the instance's shape {node.shape} holds {node.numel}")
        out[name] = arr.reshape(node.shape)
    return out


def symbol_values_from_inputs(template: GraphSpec, inputs: Mapping[str, Any]) -> dict[str, int]:
    """Each symbol's value from the first input axis that is exactly that symbol (e.g. ("batch", 784)
    with 7 x 784 values gives batch = 7); an input given flat is split over its fixed axes."""
    names = [s.name for s in template.symbols]
    found: dict[str, int] = {}
    for inp in template.inputs:
        if inp.name not in inputs:
            raise InputError(f"missing input {inp.name!r}")
        arr = np.asarray(inputs[inp.name])
        dims = template.nodes[inp.node].shape
        unknown = [(j, _single_symbol(template, d)) for j, d in enumerate(dims) if d < 0]
        if not unknown:
            continue
        if any(sym is None for _, sym in unknown) or len(unknown) > 1 and arr.ndim != len(dims):
            raise InputError(f"input {inp.name!r}: give its shape explicitly (an array of {len(dims)} axes) or the "
                             f"symbol values, its symbolic axes cannot be read from a flat list")
        if arr.ndim == len(dims):
            for j, sym in unknown:
                found.setdefault(names[sym], int(arr.shape[j]))
        else:
            fixed = int(np.prod([d for d in dims if d >= 0]))
            j, sym = unknown[0]
            if fixed == 0 or arr.size % fixed:
                raise InputError(f"input {inp.name!r}: {arr.size} values are not a whole number of rows of {fixed}")
            found.setdefault(names[sym], arr.size // fixed)
    missing = [n for n in names if n not in found]
    if missing:
        raise InputError(f"no input axis gives the value of symbol(s) {missing}; pass the values explicitly")
    return found


def _single_symbol(template: GraphSpec, dim: int) -> int | None:
    """The index of the symbol a reference is exactly (1 * symbol), or None."""
    poly = template.exprs[-dim - 1]
    if len(poly) == 1 and poly[0][0] == 1 and sorted(poly[0][1]) == [0] * (len(poly[0][1]) - 1) + [1]:
        return poly[0][1].index(1)
    return None


def _onnx_proto(source: Any) -> Any:
    import onnx

    return source if isinstance(source, onnx.ModelProto) else onnx.load(str(source))


def _input_dims(model: Any) -> dict[str, list]:
    """Each (non-initializer) input's dimensions: ints, dim_param names, or "" (unnamed)."""
    inits = {i.name for i in model.graph.initializer}
    return {vi.name: [d.dim_value if d.HasField("dim_value") else d.dim_param for d in vi.type.tensor_type.shape.dim]
            for vi in model.graph.input if vi.name not in inits}


def onnx_dynamic_axes(model: Any) -> list[str]:
    """The dim_param names of an ONNX model's inputs, in order of first use: the symbols `luminair
    prove` makes of them when no --symbol is given (each over DEFAULT_RANGE, narrowed)."""
    names: list[str] = []
    for dims in _input_dims(_onnx_proto(model)).values():
        names.extend(d for d in dims if isinstance(d, str) and d and d not in names)
    return names


def _onnx_builder(source: Any, names: list[str], options: Mapping[str, Any]) -> Callable[..., Graph]:
    """build(**values) for an ONNX file or ModelProto: its dynamic axes named like the symbols take
    their values."""
    from .onnx import load_onnx

    model = _onnx_proto(source)
    dynamic = _input_dims(model)
    used = {d for dims in dynamic.values() for d in dims if isinstance(d, str)}
    unknown = set(names) - used
    if unknown:
        raise SymbolicError(f"the ONNX model has no dynamic axis named {sorted(unknown)}; its dynamic axes: "
                            f"{sorted(used) or 'none'}")

    def build(**values: int) -> Graph:
        shapes = {name: [values[d] if isinstance(d, str) and d in values else (1 if isinstance(d, str) else d)
                         for d in dims] for name, dims in dynamic.items()}
        return load_onnx(model, shapes, **options)

    return build
