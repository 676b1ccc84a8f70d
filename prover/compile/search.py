"""SearchCompiler: equality saturation over the graph (egglog), then the equivalent graph of least
proving cost.

The graph goes into an e-graph node by node (search_facts.py: tensors are e-classes, views are
numbered), the generic rewrite rules of search_rules.py run until nothing new appears or the time
budget is spent (every state of the e-graph is sound, so a budget cut still extracts a correct
graph: the best found so far), and search_extract.py picks, under a cost model of committed trace
cells per component (search_cost.py), the cheapest equivalent graph, never worse than the input.
The fusions the hand-written FuseOpCompiler names are rules here, with the algebra that exposes
more of them (a sum read through a transpose, relu moved after a max-pool, a mask folded into a
scale); FuseOpCompiler still runs afterwards inside StwoCompiler for the layout rewrites (Dot
padding, weight re-layout) and anything the search left.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from luminair.prover.graph import Graph, GroupOp, Node, Op, ShapeTracker
from luminair.prover.graph.errors import CompileError

from .search_extract import EGraphView, Extraction, extract, read_egraph, sig_enode
from .search_facts import OP_OF_NAME, Encoding, encode
from .search_rules import RULES, program


@dataclass
class SearchReport:
    """What one search did: for the prove summary and `luminair inspect`-style reports."""

    nodes_before: int = 0
    nodes_after: int = 0
    cost_before: float = 0.0  # estimated committed cells, components padded (search_cost.py)
    cost_after: float = 0.0
    iterations: int = 0
    saturated: bool = False
    eclasses: int = 0
    enodes: int = 0
    rule_matches: dict[str, int] = field(default_factory=dict)
    rewrites: dict[str, int] = field(default_factory=dict)  # "old op -> new op": count of tensors
    fused: dict[str, int] = field(default_factory=dict)  # fused nodes made, named as FuseOpCompiler names them
    time_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "nodes_before": self.nodes_before, "nodes_after": self.nodes_after,
            "cost_before_cells": round(self.cost_before), "cost_after_cells": round(self.cost_after),
            "iterations": self.iterations, "saturated": self.saturated, "eclasses": self.eclasses,
            "enodes": self.enodes, "rule_matches": dict(self.rule_matches), "rewrites": dict(self.rewrites),
            "time_s": round(self.time_s, 3),
        }

    def describe(self) -> str:
        applied = ", ".join(f"{k} x{v}" for k, v in sorted(self.rewrites.items())) or "none"
        stop = "saturated" if self.saturated else "budget reached"
        return (f"{self.cost_before:.0f} -> {self.cost_after:.0f} estimated cells in {self.time_s:.2f}s "
                f"({self.iterations} iterations, {stop}; {self.eclasses} e-classes); rewrites: {applied}")


def egglog_bindings() -> ModuleType:
    """egglog's compiled e-graph (egglog.bindings), the only part of egglog the search uses, loaded
    without the package's Python front end (`import egglog` runs its builtins, its pretty-printer
    and black: about 0.3-0.5 s of every CLI run). If the front end is loaded already, or the
    extension is not where the package keeps it, the ordinary import."""
    got = sys.modules.get("egglog.bindings")
    if got is not None:
        return got
    spec = None if "egglog" in sys.modules else importlib.util.find_spec("egglog")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = Path(folder) / f"bindings{suffix}"
            if path.is_file():
                ext = importlib.util.spec_from_file_location("egglog.bindings", path)
                if ext is None or ext.loader is None:
                    continue
                got = importlib.util.module_from_spec(ext)
                ext.loader.exec_module(got)
                sys.modules["egglog.bindings"] = got  # `import egglog` later reuses this one
                return got
    from egglog import bindings

    return bindings


class SearchCompiler:
    """Equality saturation with egglog over the graph, extraction by proving cost (module doc).

    `time_budget_s` bounds the saturation (checked after every iteration), `max_iterations` the
    number of rule applications rounds."""

    def __init__(self, time_budget_s: float = 2.0, max_iterations: int = 30):
        self.time_budget_s = time_budget_s
        self.max_iterations = max_iterations
        self.report = SearchReport()

    def __repr__(self) -> str:
        return f"SearchCompiler(time_budget_s={self.time_budget_s}, max_iterations={self.max_iterations})"

    def compile(self, graph: Graph) -> bool:
        try:
            bindings = egglog_bindings()
        except ImportError:
            raise CompileError(
                "the search compiler needs egglog (pip install 'luminair[prover]'); or compile without it: "
                "StwoCompiler(search=False), luminair prove --no-search"
            ) from None

        t0 = time.perf_counter()
        report = self.report = SearchReport(nodes_before=len(graph))
        if not graph.outputs():
            return False
        enc = encode(graph)
        eg = bindings.EGraph()
        eg.run_program(*eg.parse_program(program() + "(ruleset load)"))
        _load(eg, enc.text.splitlines())
        step = eg.parse_program("(run search 1)")
        matches: Counter[str] = Counter()
        for report.iterations in range(1, self.max_iterations + 1):
            run = eg.run_program(*step)[0].report
            for rule, n in run.num_matches_per_rule.items():
                matches[_rule_name(rule)] += n
            if not run.updated:
                report.saturated = True
                break
            if time.perf_counter() - t0 > self.time_budget_s:
                break
        report.rule_matches = {k: v for k, v in matches.items() if v}
        egv = read_egraph(eg, len(graph))
        report.eclasses = len(egv.enodes)
        report.enodes = sum(len(e) for e in egv.enodes)
        ex = extract(egv, graph, enc)
        report.cost_before, report.cost_after = ex.cost_before, ex.cost_after
        changed = False
        if ex.cost_after < ex.cost_before:
            report.rewrites = _rewrites(graph, egv, ex, enc)
            changed = _rebuild(graph, egv, ex, enc, report.fused)
        else:
            report.cost_after = ex.cost_before
        report.nodes_after = len(graph)
        report.time_s = time.perf_counter() - t0
        return changed


_RULE_NAMES = {rule.name for rule in RULES}
_LOAD_CHUNK = 64


def _load(eg: Any, lines: list[str]) -> None:
    """Put the graph into the e-graph: its lines as the actions of body-less rules, run once (one
    rebuild instead of one per command), in small chunks (a parsed command keeps a copy of its
    source text, so parsing one huge command is quadratic)."""
    lines = list(dict.fromkeys(lines))  # egglog refuses a rule given twice
    cmds = []
    for i in range(0, len(lines), _LOAD_CHUNK):
        body = "\n".join(lines[i : i + _LOAD_CHUNK])
        cmds += eg.parse_program(f'(rule () ({body}) :ruleset load :name "load {i}")')
    eg.run_program(*cmds)
    eg.run_program(*eg.parse_program("(run load 1)"))


def _rule_name(text: str) -> str:
    if text in _RULE_NAMES:
        return text
    if text.endswith(" 2") and text[:-2] in _RULE_NAMES:  # a rule written as two egglog rules
        return text[:-2]
    if text.startswith("(rewrite (Bin"):
        return "commute"
    return "load" if text.startswith("load ") else "derived facts"


def _label(node: tuple) -> str:
    kind, name = node[0], node[1]
    if kind == "Red":
        return f"{name}Reduce"
    if kind == "DotB":
        return "Dot+bias"
    if kind == "View":
        return "view of Dot+bias"
    return name or kind


def _rewrites(graph: Graph, egv: EGraphView, ex: Extraction, enc: Encoding) -> dict[str, int]:
    """For every tensor of the original graph now computed by another e-node: 'old -> new'."""
    out: Counter[str] = Counter()
    nodes = graph.nodes()
    seen = set()
    for i, c in egv.class_of_node.items():
        if c in seen or not ex.active[c] or nodes[i].op in GroupOp.SOURCE | GroupOp.OPAQUE:
            continue
        seen.add(c)
        new = egv.enodes[c][ex.chosen[c]]
        old = nodes[i]
        old_label = "Dot+bias" if old.op is Op.DOT and len(old.srcs) == 3 else old.op.value
        if new[0] == "View":
            new = egv.enodes[new[2][0][0]][ex.chosen[new[2][0][0]]]
        label = _label(new)
        if label != old_label:
            out[f"{old_label} -> {label}"] += 1
        elif sig_enode(enc.terms[i], egv) != egv.enodes[c][ex.chosen[c]]:
            out[f"{old_label} -> {label} (operands rewritten)"] += 1
    return dict(out)


def _rebuild(graph: Graph, egv: EGraphView, ex: Extraction, enc: Encoding, fused: dict[str, int]) -> bool:
    """Rewrite the graph to the extracted one (graph.transform keeps user handles valid)."""
    built: dict[int, tuple[Node, ShapeTracker]] = {}
    visited: dict[int, tuple[Node, ShapeTracker]] = {}  # old node id -> its node in the new graph
    fmt = graph.numeric_format
    old_nodes = graph.nodes()
    view_index = {v.key(): i for i, v in enumerate(enc.views) if v is not None}
    # a rebuilt value keeps the name and origin of the original node it computes (the last one, the
    # end of a fused pattern, as FuseOpCompiler does); a Dot+bias read through a view takes its reader's
    label: dict[int, Node] = {}
    for i, c in egv.class_of_node.items():
        if old_nodes[i].op not in GroupOp.SOURCE | GroupOp.OPAQUE:
            label[c] = old_nodes[i]
    for c, k in enumerate(ex.chosen):
        kind, _, edges, _ = egv.enodes[c][k]
        if kind == "View" and c in label and edges[0][0] not in label:
            label[edges[0][0]] = label[c]

    def view_id(v: ShapeTracker) -> int:
        return 0 if not v.steps or v.is_identity() else view_index.get(v.key(), -1)

    def view(w: int, shape: tuple[int, ...]) -> ShapeTracker:
        v = enc.views[w]
        return ShapeTracker(shape) if v is None else v

    def build(c: int) -> tuple[Node, ShapeTracker]:
        # iterative post-order: graphs can be thousands of nodes deep
        stack = [c]
        while stack:
            x = stack[-1]
            if x in built:
                stack.pop()
                continue
            node = egv.enodes[x][ex.chosen[x]]
            missing = [ch for ch, _ in node[2] if ch not in built]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            built[x] = _make(x, node)
        return built[c]

    def _make(x: int, node: tuple) -> tuple[Node, ShapeTracker]:
        kind, name, edges, extra = node
        srcs = []
        for ch, w in edges:
            n, v = built[ch]
            srcs.append((n, v.compose(view(w, v.shape))))
        shape = egv.shapes[x]
        if kind == "Leaf":
            if extra in visited:
                return visited[extra]
            if extra in enc.constants:
                k = enc.constants[extra]
                n = graph.add_node(Op.CONSTANT, [], shape, value=_frozen(k.value), raw=_frozen(k.raw),
                                   raw_scale=fmt.scale_bits, origin="search: folded mask")
                return n, ShapeTracker(shape)
            old = old_nodes[extra]
            if old.op is not Op.CONSTANT:
                raise _Unbuildable(f"input {old.name!r} is needed before its place in the graph")
            n = graph.add_node(Op.CONSTANT, [], shape, value=old.value, raw=old.raw, raw_scale=old.raw_scale,
                               name=old.name, origin=old.origin)
            return n, ShapeTracker(shape)
        if kind == "View":
            return srcs[0]
        named = label.get(x)
        tags = {"name": named.name, "origin": named.origin} if named is not None else {"origin": "search"}
        if kind in ("Dot", "DotB"):
            if srcs[0][0].op is Op.CONSTANT and srcs[1][0].op is not Op.CONSTANT:
                srcs[0], srcs[1] = srcs[1], srcs[0]  # weights second: integer products commute
            n = graph.add_node(Op.DOT, srcs, shape, axis=extra, **tags)
            fused["Dot"] = fused.get("Dot", 0) + 1
            if kind == "DotB":
                fused["Dot+bias"] = fused.get("Dot+bias", 0) + 1
        else:
            if name in ("Relu", "Exp"):
                fused[name] = fused.get(name, 0) + 1
            n = graph.add_node(OP_OF_NAME[name], srcs, shape, axis=extra if kind == "Red" else None, **tags)
        return n, ShapeTracker(shape)

    order = iter(range(len(old_nodes)))  # transform visits the old nodes in order (node.id is the new id)

    def rewrite(node: Node) -> Any:
        i = next(order)
        c = egv.class_of_node[i]
        if not ex.active[c] or node.op in GroupOp.OPAQUE:
            visited[i] = (node, ShapeTracker(node.shape))
            if node.op in GroupOp.OPAQUE:
                built.setdefault(c, visited[i])
            return None
        if c in built:
            visited[i] = built[c]
            return built[c]
        chosen = egv.enodes[c][ex.chosen[c]]
        edges = chosen[2]
        if _same(node, i, chosen) and all(ch in built and built[ch][1].is_identity() and built[ch][0] is src and w == vid
                           for (ch, w), (src, v) in zip(edges, node.srcs) for vid in [view_id(v)]):
            built[c] = visited[i] = (node, ShapeTracker(node.shape))
            return None
        result = build(c)
        visited[i] = result
        return result

    try:
        changed = graph.transform(rewrite)
    except _Unbuildable as e:  # pragma: no cover - rules only move values toward their inputs
        raise CompileError(f"search: the extracted graph cannot be laid out in order: {e}") from None
    graph.remove_unused()
    return changed


class _Unbuildable(Exception):
    pass


def _frozen(a: Any) -> Any:
    a = a.copy()
    a.flags.writeable = False
    return a


def _same(node: Node, old_id: int, enode: tuple) -> bool:
    kind, name, _, extra = enode
    if kind == "Leaf":
        return extra == old_id
    if kind in ("Un", "Bin"):
        return node.op.value == name
    if kind == "Red":
        return OP_OF_NAME[f"{name}"] is node.op and node.axis == extra
    if kind in ("Dot", "DotB"):
        return node.op is Op.DOT and node.axis == extra and len(node.srcs) == (2 if kind == "Dot" else 3)
    return False
