"""`luminair inspect FILE`: what a proof.bin or settings.bin holds, or how a model compiles."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from .common import EXIT_OK, EXIT_REJECTED, IDENTITY_NOTE, LABEL_NOTE, UsageError, check_regular_file, component_title, index_map_text, label_text, printable, read_file, say, source_text
from .prove import _load_onnx_bytes, fused_note, search_text


def print_inspect(info: dict[str, Any]) -> None:
    """The human-readable dump of a settings_summary / proof_summary (every line escaped)."""
    for key, value in info.items():
        if key == "model_digest":
            say(f"model_digest ({IDENTITY_NOTE}): {value}")
        elif key == "settings_digest" and info.get("file") == "settings":
            say(f"settings_digest (this file, labels included; what a proof commits to): {value}")
        elif key in ("title", "description"):
            say(f"{key} ({LABEL_NOTE}): {label_text(value)}")
        elif key == "publisher_labels":
            continue  # the same title and description, for --json readers
        elif key == "outputs" and isinstance(value, list) and all(isinstance(o, dict) for o in value):
            say(f"outputs: {len(value)}")
            for o in value:
                source = source_text(o.get("node"), o.get("source_op"), o.get("source_name"))
                say(f"  {str(o.get('name'))!r} {tuple(o.get('shape') or ())} from {source}")
                say(f"      view: {o.get('view', '(not given)')}")
                say(f"      index map: {index_map_text(o.get('index_map'))}")
        elif key == "components" and isinstance(value, list) and all(isinstance(c, dict) for c in value):
            say(f"components: {len(value)}, {sum(c.get('cells', 0) for c in value)} committed trace cells")
            for c in value:
                say(
                    f"  {printable(component_title(str(c.get('component'))))}: {c.get('nodes')} nodes, {c.get('rows')} rows of "
                    f"2^{c.get('log_size')}, {c.get('cells')} cells ({c.get('main_columns')} main + "
                    f"{c.get('topology_columns')} topology + {c.get('interaction_columns')} LogUp columns"
                    f"{fused_note(c)})"
                )
        elif key == "graph":
            say(f"graph: {len(value['nodes'])} nodes, {len(value['edges'])} edges")
            for n in value["nodes"]:
                say(f"  {n['id']:>4}  {printable(n['label']):<28} {tuple(n['shape'])}")
        elif isinstance(value, (list, dict)):
            say(f"{key}: {json.dumps(value)}")
        else:
            say(f"{key}: {value}")


def with_identity_and_labels(info: dict[str, Any], data: bytes) -> dict[str, Any]:
    """A graph settings summary with the file's own digest (what every proof commits to: the model
    and the labels) after the model digest, the labels also under "publisher_labels", and each
    output's source node as {"node", "op", "name"} (as `verify --json` gives it)."""
    import hashlib

    out: dict[str, Any] = {}
    for key, value in info.items():
        out[key] = value
        if key == "model_digest":
            out["settings_digest"] = hashlib.blake2s(data).hexdigest()
    out["publisher_labels"] = {"title": info.get("title"), "description": info.get("description")}
    outputs = out.get("outputs")
    if isinstance(outputs, list):
        out["outputs"] = [
            {**o, "source": {"node": o.get("node"), "op": o.get("source_op"), "name": o.get("source_name")}}
            if isinstance(o, dict)
            else o
            for o in outputs
        ]
    return out


def topology_text(spec: Any) -> str:
    """The planner's bound on the boundary rows a verifier derives for this graph's topology, and
    whether a verifier can (MAX_SPARSE_ENTRIES; the default work budget admits far fewer)."""
    from luminair.prover.costs import boundary_rows
    from luminair.verifier.graph.planner import plan_graph
    from luminair.verifier.graph.settings import instantiate
    from luminair.verifier.graph.topology import MAX_SPARSE_ENTRIES

    if spec.is_template:
        spec = instantiate(spec, tuple(s.lo for s in spec.symbols))
    rows = boundary_rows(plan_graph(spec))
    if rows <= MAX_SPARSE_ENTRIES:
        return f"at most {rows} boundary rows for a verifier to derive (its hard bound: {MAX_SPARSE_ENTRIES})"
    return (f"at most {rows} boundary rows for a verifier to derive, past its hard bound of {MAX_SPARSE_ENTRIES}: "
            f"the graph compiles and its cells are counted, but `luminair prove` refuses it before writing a settings.bin "
            f"(a smaller input, or fewer and larger views)")


def inspect_model(args: argparse.Namespace) -> dict[str, Any]:
    """A model file compiled as `prove` would compile it, without proving: its graph, components and
    committed cells (each fused one beside its primitive decomposition) and what the search compiler
    rewrote (or, with --no-search, that it did not run)."""
    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.air.graph_trace import build_spec
    from luminair.prover.graph.model_file import load_model
    from luminair.prover.costs import components_summary
    from luminair.verifier.graph.summary import graph_summary

    scale_bits = getattr(args, "scale_bits", None)
    if Path(args.file).suffix.lower() == ".onnx":
        options = {} if scale_bits is None else {"scale_bits": scale_bits}
        graph = _load_onnx_bytes(read_file(args.file, "model"), args.file, options)
    else:
        if scale_bits is not None:
            raise UsageError("--scale-bits applies to ONNX models; a Python model sets its own numeric format")
        check_regular_file(args.file, "model")
        graph = load_model(args.file)
    t = time.perf_counter()
    stwo = StwoCompiler(search=not args.no_search)
    graph.compile(GenericCompiler(), stwo)
    compile_s = time.perf_counter() - t
    info: dict[str, Any] = {"file": "model", "model": str(args.file)}
    spec = build_spec(graph)
    info.update(graph_summary(spec), components=components_summary(spec))
    info["topology"] = topology_text(spec)
    info["compile_s"] = round(compile_s, 3)
    info["fused"] = dict(stwo.fused)
    info["search"] = stwo.search_report.as_dict() if stwo.search_report is not None else None
    return info


def cmd_inspect(args: argparse.Namespace) -> int:
    from luminair.verifier import summary
    from luminair.verifier.errors import VerificationError
    from luminair.verifier.formats import sniff
    from luminair.verifier.usage import MAX_MAX_WORK

    if Path(args.file).suffix.lower() in (".onnx", ".py"):
        info = inspect_model(args)
        if args.json:
            print(json.dumps(info, indent=2))
        else:
            print_inspect({k: v for k, v in info.items() if k != "search"})
            say(f"search: {search_text(info['search'])}")
        return EXIT_OK
    data = read_file(args.file, "proof or settings")
    try:
        kind = sniff(data)["kind"]
        # a file of your own: read at the largest caps and with no work budget (the web's reads keep the defaults)
        read = summary.settings_summary if kind == "settings" else summary.proof_summary
        info = read(data, max_work=MAX_MAX_WORK)
    except VerificationError as e:
        say(f"not readable: {e.detail}")
        return EXIT_REJECTED
    if kind == "settings" and "title" in info:
        info = with_identity_and_labels(info, data)
        from luminair.prover.costs import components_summary  # (the AIR's cells: the prover's accounting)
        from luminair.verifier.statement import read_settings

        info["components"] = components_summary(read_settings(data).body)
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        print_inspect(info)
    return EXIT_OK
