"""Graph display: a text summary, Graphviz DOT text, and an SVG drawn by this module (a layered
layout, no graphviz binary needed)."""

from __future__ import annotations

from collections import Counter
from html import escape as _html_escape
from typing import TYPE_CHECKING

from .ops import GroupOp, Op

if TYPE_CHECKING:
    from .graph import Graph
    from .node import Node


def escape(s: str) -> str:
    """&, < and > as entities, for SVG text (xml.sax.saxutils.escape's meaning; its import pulls
    urllib.request and http.client into every CLI start)."""
    return _html_escape(s, quote=False)


def _view_text(view) -> str:
    return "" if view.is_identity() else f"[{view.describe()}]"


def summary(graph: "Graph") -> str:
    """A readable table of every node, then the outputs and per-op counts."""
    nodes = graph.nodes()
    consts = [n for n in nodes if n.op is Op.CONSTANT]
    lines = [
        f"Graph: {len(nodes)} nodes, {len(graph.inputs())} input(s), {len(consts)} constant(s) holding "
        f"{sum(n.numel for n in consts)} values, {len(graph.outputs())} output(s)",
        f"numeric format: {graph.numeric_format.describe()}",
        f"{'id':>4}  {'op':<16}{'shape':<18}{'sources':<34}name / origin",
    ]
    for n in nodes:
        srcs = ", ".join(f"{s.id}{_view_text(v)}" for s, v in n.srcs)
        if len(srcs) > 32:
            srcs = srcs[:29] + "..."
        op = n.op.value + (f"({n.axis})" if n.op in GroupOp.AXIS else "")
        extra = []
        if n.name:
            extra.append(repr(n.name))
        if n.op is Op.INPUT:
            extra.append("private" if n.private else "public index" if n.index else "public")
        if n.origin:
            extra.append(n.origin)
        lines.append(f"{n.id:>4}  {op:<16}{str(n.shape):<18}{srcs:<34}{'  '.join(extra)}")
    lines.append("outputs:")
    for name, (n, v) in graph.outputs().items():
        lines.append(f"  {name!r} <- node {n.id} {_view_text(v)} shape {v.shape}")
    counts = Counter(n.op.value for n in nodes)
    lines.append("op counts: " + ", ".join(f"{k} {c}" for k, c in sorted(counts.items())))
    return "\n".join(lines)


_COLORS = {
    "source": "#d9f2d9", "table": "#e8dcf5", "binary": "#dbe8fb", "unary": "#f0f0f0",
    "reduce": "#fde4c8", "contiguous": "#fff4bf", "output": "#e6e6e6",
}


def _kind(n: "Node") -> str:
    if n.op in GroupOp.SOURCE:
        return "source"
    if n.op in GroupOp.TABLE:
        return "table"
    if n.op in GroupOp.BINARY:
        return "binary"
    if n.op in GroupOp.AXIS:
        return "reduce"
    if n.op is Op.CONTIGUOUS:
        return "contiguous"
    return "unary"


def _dot_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def to_dot(graph: "Graph") -> str:
    """Graphviz DOT text: one box per node, one ellipse per output, edges labelled with views."""
    out = [
        "digraph luminair {",
        '  rankdir=TB; node [shape=box, style="rounded,filled", fontname="Helvetica"];',
    ]
    for n in graph.nodes():
        label = _dot_escape(f"{n.id}: {n.label()}") + "\\n" + _dot_escape(str(n.shape))
        out.append(f'  n{n.id} [label="{label}", fillcolor="{_COLORS[_kind(n)]}"];')
    for n in graph.nodes():
        for s, v in n.srcs:
            attr = "" if v.is_identity() else f' [label="{_dot_escape(v.describe()[:40])}"]'
            out.append(f"  n{s.id} -> n{n.id}{attr};")
    for i, (name, (n, v)) in enumerate(graph.outputs().items()):
        out.append(f'  out{i} [shape=ellipse, label="{_dot_escape(name)}", fillcolor="{_COLORS["output"]}"];')
        out.append(f"  n{n.id} -> out{i};")
    out.append("}")
    return "\n".join(out) + "\n"


BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN = 170, 42, 24, 46, 20


def layout(graph: "Graph") -> tuple[dict[str, tuple[float, float]], list[tuple[str, str]], dict[str, tuple[str, str, str]]]:
    """Layered layout: level = longest path from an input; a constant sits just above its first
    reader; rows are ordered by barycenter sweeps (down by parents, up by children, down again).
    Returns box centres, edges and (title, detail, kind) texts."""
    nodes = graph.nodes()
    level: dict[str, int] = {}
    parents: dict[str, list[str]] = {}
    children: dict[str, list[str]] = {}
    texts: dict[str, tuple[str, str, str]] = {}
    for n in nodes:
        key = f"n{n.id}"
        parents[key] = [f"n{s.id}" for s, _ in n.srcs]
        children[key] = []
        for p in parents[key]:
            children[p].append(key)
        level[key] = 1 + max((level[p] for p in parents[key]), default=-1)
        texts[key] = (f"{n.id}: {n.label()}", str(n.shape), _kind(n))
    for i, (name, (n, v)) in enumerate(graph.outputs().items()):
        key = f"out{i}"
        parents[key] = [f"n{n.id}"]
        children[key] = []
        children[f"n{n.id}"].append(key)
        texts[key] = (f"output {name!r}", str(v.shape), "output")
    for n in nodes:  # constants float down next to the node that first reads them
        key = f"n{n.id}"
        if n.op is Op.CONSTANT and children[key]:
            level[key] = min(level[c] for c in children[key] if c.startswith("n")) - 1 \
                if any(c.startswith("n") for c in children[key]) else level[key]
    for key in parents:
        if key.startswith("out"):
            level[key] = level[parents[key][0]] + 1
    rows: dict[int, list[str]] = {}
    for key in sorted(level, key=lambda k: (k.startswith("out"), int(k.lstrip("nout")))):
        rows.setdefault(level[key], []).append(key)
    order = {k: float(i) for row in rows.values() for i, k in enumerate(row)}

    def sweep(levels: list[int], neighbours: dict[str, list[str]]) -> None:
        for lv in levels:
            row = rows[lv]
            keys = {k: (sum(order[m] for m in neighbours[k]) / len(neighbours[k]) if neighbours[k] else order[k])
                    for k in row}
            row.sort(key=lambda k: keys[k])
            for i, k in enumerate(row):
                order[k] = float(i) - (len(row) - 1) / 2  # centred rows

    for k in order:
        order[k] -= (len(rows[level[k]]) - 1) / 2
    down, up = sorted(rows), sorted(rows, reverse=True)
    sweep(down, parents)
    sweep(up, children)
    sweep(down, parents)
    width = max(len(r) for r in rows.values()) if rows else 1
    centres = {}
    for key in level:
        x = MARGIN + (order[key] + (width - 1) / 2) * (BOX_W + GAP_X) + BOX_W / 2
        y = MARGIN + level[key] * (BOX_H + GAP_Y) + BOX_H / 2
        centres[key] = (x, y)
    edges = [(p, k) for k in parents for p in parents[k]]
    return centres, edges, texts


def to_svg(graph: "Graph") -> str:
    """A standalone SVG picture of the graph."""
    centres, edges, texts = layout(graph)
    width = max((x for x, _ in centres.values()), default=0) + BOX_W / 2 + MARGIN
    height = max((y for _, y in centres.values()), default=0) + BOX_H / 2 + MARGIN
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>',
        '<g class="edges" stroke="#555" fill="none" stroke-width="1.2">',
    ]
    for a, b in edges:
        (x1, y1), (x2, y2) = centres[a], centres[b]
        y1 += BOX_H / 2
        y2 -= BOX_H / 2
        my = (y1 + y2) / 2
        out.append(f'<path d="M {x1:.1f} {y1:.1f} C {x1:.1f} {my:.1f}, {x2:.1f} {my:.1f}, {x2:.1f} {y2:.1f}" '
                   'marker-end="url(#arrow)"/>')
    out.append("</g>")
    out.append('<g class="nodes">')
    for key, (x, y) in centres.items():
        title, detail, kind = texts[key]
        rx = BOX_H / 2 if kind == "output" else 8
        out.append(
            f'<g class="node {kind}" id="{key}"><title>{escape(title)} {escape(detail)}</title>'
            f'<rect x="{x - BOX_W / 2:.1f}" y="{y - BOX_H / 2:.1f}" width="{BOX_W}" height="{BOX_H}" rx="{rx}" '
            f'fill="{_COLORS[kind]}" stroke="#333"/>'
            f'<text x="{x:.1f}" y="{y - 3:.1f}" text-anchor="middle">{escape(title[:26])}</text>'
            f'<text x="{x:.1f}" y="{y + 12:.1f}" text-anchor="middle" fill="#555">{escape(detail[:28])}</text></g>'
        )
    out.append("</g></svg>")
    return "\n".join(out) + "\n"
