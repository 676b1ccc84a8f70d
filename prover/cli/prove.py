"""`luminair prove MODEL --input INPUT.json --out DIR`: prove a model, print the summary."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from .common import EXIT_OK, IDENTITY_NOTE, LABEL_NOTE, UsageError, check_out_dir, check_regular_file, component_title, label_text, printable, read_file, read_input_file, say


def _progress(stages: list[str], quiet: bool) -> Any:
    """A progress bar over the prover's stages on a terminal (tqdm); one plain line a stage when
    stderr is a pipe or a file, where a bar's carriage returns would only garble the log."""
    if quiet:
        return None
    try:
        if not sys.stderr.isatty():
            raise ImportError("not a terminal")
        from tqdm import tqdm

        bar = tqdm(total=len(stages), desc="proving", unit="stage", file=sys.stderr, leave=True)

        def hook(name: str) -> None:
            bar.set_postfix_str(printable(name))
            bar.update(1)

        hook.close = bar.close  # type: ignore[attr-defined]
        return hook
    except ImportError:  # not a terminal (tqdm is a prover dependency)
        done = iter(range(1, len(stages) + 1))

        def plain(name: str) -> None:
            say(f"proving: {next(done, len(stages))}/{len(stages)} {name}", err=True)

        plain.close = lambda: None  # type: ignore[attr-defined]
        return plain


PROVE_STAGES = [
    "trace columns", "commit main trace", "interaction trace", "composition", "out-of-domain sampling",
    "DEEP quotients", "FRI commit", "proof of work", "openings",
]  # fmt: skip


def _load_onnx_bytes(data: bytes, path: str, options: dict[str, Any]) -> Any:
    from luminair.prover.onnx import load_onnx

    return load_onnx(_read_onnx(data, path), **options)


def _read_onnx(data: bytes, path: str) -> Any:
    """The ONNX ModelProto in `data` (external weights read beside `path`), or a UsageError."""
    import onnx

    try:
        model = onnx.load_from_string(data)
        from onnx.external_data_helper import load_external_data_for_model, uses_external_data

        if any(uses_external_data(t) for t in model.graph.initializer):
            load_external_data_for_model(model, str(Path(path).absolute().parent))
    except Exception as e:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise UsageError(f"model file {path!r} is not a readable ONNX model: {e}") from None
    return model


def check_labels(title: str | None, description: str | None) -> tuple[str, str]:
    """--title and --description as gen_settings takes them ("" when not given); UsageError for a
    label the settings codec would refuse (not printable text, or too long)."""
    from luminair.verifier.graph.settings import MAX_DESCRIPTION, MAX_TITLE, label_problem

    labels = []
    for flag, value, maximum in (
        ("--title", title, MAX_TITLE),
        ("--description", description, MAX_DESCRIPTION),
    ):
        value = value or ""
        problem = label_problem(value, maximum)
        if problem:
            raise UsageError(
                f"{flag} is refused: {problem} (a publisher's label is printable text of at most "
                f"{maximum} characters, no control or format characters)"
            )
        labels.append(value)
    return labels[0], labels[1]


def parse_symbols(specs: list[str]) -> dict[str, tuple[int, int]]:
    """--symbol NAME=LO:HI (repeatable) as {name: (lo, hi)}."""
    out: dict[str, tuple[int, int]] = {}
    for spec in specs:
        name, sep, rng = spec.partition("=")
        lo, sep2, hi = rng.partition(":")
        try:
            bounds = (int(lo), int(hi))
        except ValueError:
            bounds = None
        if not sep or not sep2 or not name or bounds is None or name in out:
            raise UsageError(f"--symbol {spec!r}: expected NAME=LO:HI once per symbol, e.g. --symbol batch=1:256")
        out[name] = bounds
    return out


def _symbolic_instance(args: argparse.Namespace, symbols: dict[str, tuple[int, int]] | None, model_bytes: bytes | None,
                       input_data: dict[str, Any], options: dict[str, Any], title: str, description: str) -> tuple:
    """A model with symbolic dimensions: its one settings.bin (the same for every value of the
    symbols) bound to the values the input implies. `symbols` None: an ONNX model's dynamic axes,
    each over SymbolicModel's default range. (graph, settings, inputs, float outputs, times, the
    search compiler's report at these values)"""
    from luminair.prover.graph.model_file import load_python_builder, read_symbolic_input
    from luminair.prover.symbolic import SymbolicError, SymbolicModel, shape_inputs, symbol_values_from_inputs

    flag = "--symbol" if symbols else "dynamic axes (give ranges with --symbol NAME=LO:HI)"
    t0 = time.perf_counter()
    try:
        if model_bytes is not None:
            model = SymbolicModel(_read_onnx(model_bytes, args.model), symbols, search=not args.no_search, **options)
        else:
            if args.scale_bits is not None:
                raise UsageError("--scale-bits applies to ONNX models; a Python model sets its own numeric format")
            model = SymbolicModel(load_python_builder(args.model), symbols, search=not args.no_search)
        load_s = time.perf_counter() - t0
        t = time.perf_counter()
        sym_settings = model.gen_settings(preset=args.preset, security_bits=args.security, title=title,
                                          description=description)
        raw_inputs = read_symbolic_input(input_data, sym_settings.parsed.body)
        values = symbol_values_from_inputs(sym_settings.parsed.body, raw_inputs)
        for s in sym_settings.symbols:
            if not s.lo <= values[s.name] <= s.hi:
                raise UsageError(
                    f"the input gives {s.name}={values[s.name]}, outside the range [{s.lo}, {s.hi}] the settings "
                    f"declare{'' if symbols else ' (the default range, narrowed to what this graph allows)'}; "
                    f"prove with --symbol {s.name}=LO:HI holding it"
                )
        settings, graph = sym_settings.bind(values)
        settings_s = time.perf_counter() - t
    except SymbolicError as e:
        raise UsageError(f"{flag}: {e}") from None
    inputs = shape_inputs(graph, raw_inputs)
    float_out = model.graph_at(values).run(inputs)  # the float64 reference of the model at these values
    return graph, settings, inputs, float_out, load_s, settings_s, model.search_report


def _input_shapes(model_bytes: bytes, path: str, input_data: dict[str, Any]) -> dict[str, tuple[int, ...]] | None:
    """The shapes the input file gives each ONNX input (one nested list each, of the input's rank),
    or None where it does not say them."""
    import numpy as np

    from luminair.prover.onnx import shape_inputs

    model = _read_onnx(model_bytes, path)
    inits = {i.name for i in model.graph.initializer} | set(shape_inputs(model))  # shapes: constants
    inputs = [vi for vi in model.graph.input if vi.name not in inits]
    rows = input_data.get("input_data")
    if not isinstance(rows, list) or len(rows) != len(inputs):
        return None
    shapes = {}
    for vi, row in zip(inputs, rows):
        try:
            shape = np.asarray(row).shape
        except ValueError:  # ragged lists
            return None
        if len(shape) != len(vi.type.tensor_type.shape.dim):
            return None
        shapes[vi.name] = tuple(int(d) for d in shape)
    return shapes


def _split_shape_values(model_bytes: bytes, path: str, input_data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The values the input file gives the ONNX inputs read as shapes (a static graph's shapes are
    constants: those values become part of the model), and the input file without them."""
    from luminair.prover.onnx import shape_inputs

    model = _read_onnx(model_bytes, path)
    names = shape_inputs(model)
    if not names:
        return {}, input_data
    inits = {i.name for i in model.graph.initializer}
    order = [vi.name for vi in model.graph.input if vi.name not in inits]
    rows = input_data.get("input_data")
    if not isinstance(rows, list) or len(rows) != len(order):
        got = len(rows) if isinstance(rows, list) else type(rows).__name__
        raise UsageError(f"model {path!r} reads input(s) {names} as shapes: the input file's input_data must hold one list "
                         f"per ONNX input, those included ({len(order)}: {', '.join(order)}), got {got}")
    values = {n: row for n, row in zip(order, rows) if n in names}
    print(f"note: input(s) {names} set shapes of the graph: their values from the input file "
          f"({'; '.join(f'{n}={str(values[n])[:60]}' for n in names)}) are constants of this model, part of its digest",
          file=sys.stderr)
    return values, {**input_data, "input_data": [row for n, row in zip(order, rows) if n not in names]}


def _calibration_samples(args: argparse.Namespace, graph: Any, input_data: dict[str, Any]) -> list[dict[str, Any]]:
    """The proving input, then --calibrate's samples (a .npy stack of one input's samples, first
    axis, or a JSON list of input objects, {"input_data": ...} each)."""
    from luminair.prover.graph.model_file import read_input_json

    if not args.calibrate:
        return [read_input_json(input_data, graph)]
    if args.scale_bits is not None:
        raise UsageError("--calibrate chooses a scale per tensor: drop --scale-bits (a fixed scale for every tensor)")
    raw = read_input_file(args.calibrate)["input_data"] if args.calibrate.lower().endswith(".npy") else None
    if raw is not None:
        objects = [{"input_data": [row]} for row in raw[0]]
    else:
        try:
            objects = json.loads(read_file(args.calibrate, "input"))
        except (ValueError, RecursionError):
            objects = None
        if not isinstance(objects, list) or not all(isinstance(o, dict) for o in objects):
            raise UsageError(f"calibration file {args.calibrate!r} must hold a JSON list of input objects "
                             f'({{"input_data": [...]}} each) or be a .npy stack of samples')
    return [read_input_json(o, graph) for o in [input_data, *objects]]


def _calibrate_tensors(graph: Any, samples: list[dict[str, Any]]) -> Any:
    """A scale per tensor from the samples (after compiling: prover/graph/calibrate.py)."""
    cal = graph.calibrate_tensors(samples)
    scales = ", ".join(f"2^{s} ({n})" for s, n in cal.histogram().items())
    print(f"note: a scale per tensor from the input{f' and {len(samples) - 1} sample(s)' if len(samples) > 1 else ''} "
          f"({cal.headroom_bits:g} bit of headroom): {scales} tensors; function tables at 2^{cal.graph_scale}",
          file=sys.stderr)
    return cal


def cmd_prove(args: argparse.Namespace) -> int:
    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.graph.model_file import load_model, read_input_json
    from luminair.prover.proving import gen_settings, gen_trace, prove, write_files
    from luminair.verifier.graph.planner import plan_graph
    from luminair.prover.costs import plan_cells
    from luminair.verifier.graph.summary import graph_summary

    # Everything the user named is checked before any work: labels, model, input, the output folder.
    title, description = check_labels(args.title, args.description)
    is_onnx = Path(args.model).suffix.lower() == ".onnx"
    model_bytes = read_file(args.model, "model") if is_onnx else None
    if not is_onnx:
        check_regular_file(args.model, "model")
    input_data = read_input_file(args.input)
    out = check_out_dir(args.out)
    if args.private and not is_onnx:
        raise UsageError(
            "--private applies to ONNX models; a Python model marks its inputs with private=True"
        )

    symbols = parse_symbols(args.symbol)
    t0 = time.perf_counter()
    options: dict[str, Any] = {}
    if args.scale_bits is not None:
        options["scale_bits"] = args.scale_bits
    if args.private:
        options["private_inputs"] = tuple(args.private)
    if model_bytes is not None:
        shapes, input_data = _split_shape_values(model_bytes, args.model, input_data)
        if shapes:
            options["shape_values"] = shapes
    if not symbols and model_bytes is not None:
        from luminair.prover.symbolic import onnx_dynamic_axes

        dynamic = onnx_dynamic_axes(_read_onnx(model_bytes, args.model))  # dim_params become symbols
    else:
        dynamic = []
    fixed = None
    if dynamic and not symbols:
        try:
            sym = _symbolic_instance(args, None, model_bytes, input_data, options, title, description)
        except UsageError as e:
            # a model whose constants depend on its dynamic axes has no one settings.bin: prove it
            # at the input's own shapes (those files hold for them alone), or refuse as before
            fixed = _input_shapes(model_bytes, args.model, input_data)
            if fixed is None or not str(e).startswith("dynamic axes"):
                raise
            try:
                preloaded = _load_onnx_bytes(model_bytes, args.model, {**options, "input_shapes": fixed})
            except Exception:  # noqa: BLE001 - it does not build at the input's shapes either: the first refusal
                raise e from None
            print(f"note: {e}; proving at the input's shapes {fixed} (this settings.bin holds for them alone)",
                  file=sys.stderr)
    calibration, samples = None, []
    segmented = args.segments is not None or bool(args.ray) or bool(args.max_memory)
    if segmented:
        _check_segment_args(args)
    if args.calibrate and (symbols or (dynamic and fixed is None)):
        raise UsageError("--calibrate applies to a model of fixed shapes, not to symbolic dimensions")
    if (args.weights == "committed" or args.inputs != "public" or args.outputs != "public") and (
            symbols or (dynamic and fixed is None)):
        raise UsageError("--weights, --inputs and --outputs other than public apply to a model of fixed shapes, "
                         "not to symbolic dimensions (yet; --private NAME does)")
    if symbols or (dynamic and fixed is None):
        graph, settings, inputs, float_out, load_s, settings_s, search = (
            sym if not symbols else _symbolic_instance(args, symbols, model_bytes, input_data, options, title, description)
        )
        t = time.perf_counter()
        trace = gen_trace(graph, inputs)
        trace_s = time.perf_counter() - t
    else:
        if fixed is not None:
            graph = preloaded
        elif model_bytes is not None:
            graph = _load_onnx_bytes(model_bytes, args.model, options)
        else:
            graph = load_model(args.model)
            if args.scale_bits is not None:
                from luminair.verifier.numeric import NumericFormat

                graph.numeric_format = NumericFormat(args.scale_bits)
        # a scale per tensor (after compiling) for an ONNX model, or with --calibrate; --scale-bits
        # keeps one scale for every tensor, and a Python model its own numeric format
        per_tensor = bool(args.calibrate) or (model_bytes is not None and args.scale_bits is None)
        samples = _calibration_samples(args, graph, input_data) if per_tensor else []
        stwo = StwoCompiler(search=not args.no_search)
        graph.compile(GenericCompiler(), stwo)
        search = stwo.search_report
        calibration = _calibrate_tensors(graph, samples) if per_tensor else None
        inputs = read_input_json(input_data, graph)
        load_s = time.perf_counter() - t0
        t = time.perf_counter()
        settings = gen_settings(
            graph, preset=args.preset, security_bits=args.security, title=title, description=description,
            weights=args.weights, inputs=args.inputs, outputs=args.outputs, whole=not segmented,
        )
        settings_s = time.perf_counter() - t
        t = time.perf_counter()
        trace = gen_trace(graph, inputs)
        float_out = graph.run(inputs)
        trace_s = time.perf_counter() - t
    from .accuracy import bound_report, error_report, onnxruntime_report, samples_report  # (numpy: only a command that proves)

    accuracy = samples_report(graph, samples) if calibration is not None else None  # (before prove drops the kept runs)
    if segmented:
        proof = _prove_segmented(args, graph, inputs, settings, trace)
    else:
        hook = _progress(PROVE_STAGES, args.quiet)
        try:
            proof = prove(graph, trace, settings, on_stage=hook)
        finally:
            if hook is not None:
                hook.close()  # type: ignore[attr-defined]
    try:
        settings_path, proof_path = write_files(out, settings, proof)
    except OSError as e:
        raise UsageError(
            f"cannot write the proof files into {args.out!r}: {e.strerror or e} (any previous pair there is unchanged)"
        ) from None
    work = verifier_work(proof.data, settings.data)
    summary = {
        "model": str(args.model),
        "model_digest": settings.model_digest,
        "weights": "committed" if settings.spec.committed else "public",
        "model_root": settings.spec.model_root.hex() if settings.spec.committed else None,
        "symbols": dict(settings.spec.bound) or None,
        "title": title,
        "description": description,
        "security": settings.describe_security() if not hasattr(proof, "security_bits") else
        f"{proof.security_bits} bits by the union bound over the {len(proof.segments)} segments' terms "
        f"(FRI term {proof.config.describe()} each)",
        "security_bits": getattr(proof, "security_bits", None) or settings.security_bits,
        "numeric_format": graph_summary(settings.spec)["numeric_format"]["description"],
        "calibration": {**calibration.as_dict(), "accuracy": accuracy} if calibration is not None else None,
        "components": [
            {
                "component": p.component.name,
                "nodes": len(p.nodes),
                "rows": p.rows,
                "trace_rows": 1 << p.component.log_size,
                **plan_cells(plan_graph(settings.spec), p, settings.plans),
            }
            for p in settings.plans
        ],
        "time_s": {
            "load_and_compile": round(load_s, 3),
            "settings": round(settings_s, 3),
            "execution": round(trace_s, 3),
            **({k: round(v, 3) for k, v in proof.stats.stages.items()} if hasattr(proof, "stats") else {}),
        },
        "segments": getattr(proof, "segments", None),
        "search": search.as_dict() if search is not None else None,
        "proof_bytes": len(proof.data),
        "settings_bytes": len(settings.data),
        "verifier_work": work,
        "outputs": {k: v.tolist() for k, v in trace.outputs.items()},
        "quantization_error": error_report(float_out, trace.outputs),
        "error_bound": bound_report(graph, inputs) if args.error_bound else None,
        "onnxruntime_error": onnxruntime_report(model_bytes, {**inputs, **options.get("shape_values", {})},
                                                trace.outputs) if model_bytes is not None and args.onnxruntime else None,
        "files": [str(proof_path), str(settings_path)],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_prove_summary(summary)
    if not work["within_default"]:
        say(budget_warning(work["needed"], work["default_budget"], proof_path, settings_path), err=True)
    return EXIT_OK


def _prove_segmented(args: argparse.Namespace, graph: Any, inputs: dict[str, Any], settings: Any, trace: Any) -> Any:
    """`--segments N` / `--ray`: a segmented proof (prover/segments.py) with a progress line per task."""
    from luminair.prover.scheduler import SchedulerError, scheduler_for
    from luminair.prover.segments import prove_segmented
    from luminair.prover.stark.prove import ProverError

    max_memory = parse_size(args.max_memory) if args.max_memory else None

    def progress(done: int, of: int, stage: str) -> None:
        if not args.quiet:
            print(f"  {stage}: {done}/{of}", file=sys.stderr)

    try:
        proof = prove_segmented(graph, inputs, settings, segments=args.segments or 2, max_memory=max_memory,
                                scheduler=scheduler_for(args.ray), on_segment=progress, trace=trace)
    except ProverError as e:
        raise UsageError(f"--segments: {e}") from None
    except SchedulerError as e:
        raise UsageError(f"--ray: {e}") from None
    from luminair.verifier.config import DEFAULT_MIN_SECURITY_BITS

    if proof.security_bits < DEFAULT_MIN_SECURITY_BITS <= settings.security_bits:
        say(f"warning: the {len(proof.segments)} segments reach {proof.security_bits} bits together (the union of "
            f"their terms), below the verifier's floor of {DEFAULT_MIN_SECURITY_BITS}: prove with --security "
            f"{DEFAULT_MIN_SECURITY_BITS + len(proof.segments).bit_length()} or fewer segments", err=True)
    return proof


def _check_segment_args(args: argparse.Namespace) -> None:
    """UsageError for --segments / --max-memory / --ray options that cannot be proven in segments."""
    if args.segments is not None and args.segments < 1:
        raise UsageError(f"--segments {args.segments}: give at least 1")
    if args.segments is not None and args.max_memory:
        raise UsageError("give --segments or --max-memory, not both")
    if args.max_memory:
        parse_size(args.max_memory)
    if args.weights != "public" or args.inputs == "committed" or args.outputs != "public":
        raise UsageError("--segments: a segmented proof is of public weights, public or private inputs and public outputs")


def parse_size(text: str) -> int:
    """"8G", "512M", "2048K" or bytes: the size in bytes (UsageError naming the value otherwise)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = units.get(t[-1:], 1)
    try:
        value = float(t[:-1] if t[-1:] in units else t)
    except ValueError:
        raise UsageError(f"--max-memory {text!r}: expected a size such as 8G or 512M") from None
    if not value > 0:
        raise UsageError(f"--max-memory {text!r}: give a positive size")
    return int(value * scale)


def verifier_work(proof: bytes, settings: bytes) -> dict[str, Any]:
    """The work budget a verifier needs for this pair (the verifier's own estimate, as `verify`
    makes it) beside the default budget for files of their size."""
    from luminair.verifier.budget import MAX_PROOF_BYTES, MAX_SETTINGS_BYTES, MAX_WORK, budget_for
    from luminair.verifier.api import declared_work
    from luminair.verifier.budget import work_needed
    from luminair.verifier.formats import is_bundle

    if is_bundle(proof):  # a segmented proof: one budget for its segments together
        from luminair.verifier.segments import declared_bundle_work

        meter, default = declared_bundle_work(proof, settings)
        needed = work_needed(meter.parts)
        return {"needed": needed, "default_budget": default, "within_default": needed <= default}
    needed = work_needed(declared_work(proof, settings).parts)
    scale = max(-(-len(proof) // MAX_PROOF_BYTES), -(-len(settings) // MAX_SETTINGS_BYTES), 1)
    if scale > 1:  # files over the default size caps need the budget that raises them
        needed = max(needed, scale * MAX_WORK)
    default = budget_for(len(proof), len(settings))
    return {"needed": needed, "default_budget": default, "within_default": needed <= default}


def budget_warning(needed: int, default: int, proof: object, settings: object) -> str:
    """The warning of `prove` for a proof above the default budget: how each surface grants it."""
    cmd = shlex.join(["luminair", "verify", str(proof), str(settings), "--max-work", str(needed)])
    return (
        f"warning: this proof needs a verifier work budget of {needed} units, more than the default "
        f"{default} for files of its size: a verifier reports it as not checked unless granted the "
        f'budget ({cmd}; max-work="{needed}" on <luminair-verify>; maxWork: {needed} in the JS API)'
    )


def fused_note(c: dict[str, Any]) -> str:
    """For a fused component: the cells its primitive decomposition would have needed."""
    if "primitive_cells" not in c:
        return ""
    if "product_cells" in c:  # Freivalds-checked products: the MatOut with its MatIn / MatPair components
        ratio = c["primitive_cells"] / max(1, c["product_cells"])
        return (f"; with its operands' components {c['product_cells']} cells, as primitive rows: "
                f"{c['primitive_cells']} cells, {ratio:.1f}x")
    ratio = c["primitive_cells"] / max(1, c["cells"])
    return f"; as primitive rows: {c['primitive_cells']} cells, {ratio:.1f}x"


def search_text(r: dict[str, Any] | None) -> str:
    """The search compiler's line of the prove summary: rewrites applied, estimated cells before and
    after, time."""
    if r is None:
        return "off (--no-search: the hand-written fusion only)"
    applied = ", ".join(f"{k} x{v}" for k, v in sorted(r["rewrites"].items())) or "none (the input was cheapest)"
    stop = "saturated" if r["saturated"] else "time budget reached, best graph found so far"
    return (
        f"{applied}; estimated cells {r['cost_before_cells']} (the graph as built) -> {r['cost_after_cells']}; "
        f"{r['time_s']:.2f}s, {r['iterations']} iterations, {stop}"
    )


def print_prove_summary(s: dict[str, Any]) -> None:
    say(f"model          {s['model']}")
    say(f"model digest   {s['model_digest']}  ({IDENTITY_NOTE}; the same whatever the labels)")
    if s.get("model_root"):
        say(f"weights        committed: model root {s['model_root']} (settings.bin holds no weight; "
            "`luminair audit MODEL SETTINGS` recomputes the root from the weights)")
    say(f"title          {LABEL_NOTE}: {label_text(s.get('title'))}")
    say(f"description    {LABEL_NOTE}: {label_text(s.get('description'))}")
    if s.get("symbols"):
        say("symbols        " + ", ".join(f"{printable(k)}={v}" for k, v in s["symbols"].items())
            + " (fixed by this proof; the settings.bin serves every value in the model's ranges)")
    say(f"security       {s['security']}")
    say(f"numbers        {s['numeric_format']}")
    if s.get("segments"):  # a bundle: no whole trace (each segment's own is in --json's "segments")
        segs = s["segments"]
        say(f"segments       {len(segs)}: " + ", ".join(f"{x['nodes']} nodes {x['seconds']:.1f}s {x['proof_bytes']} bytes"
                                                     for x in segs))
        say(f"peak memory    {max(x['process_peak_rss_mb'] for x in segs):.0f} MB, the largest process's")
    else:
        _print_trace(s)
    say(f"search         {search_text(s.get('search'))}")
    say("time           " + ", ".join(f"{k} {v:.2f}s" for k, v in s["time_s"].items()))
    say(f"proof          {s['proof_bytes']} bytes (settings {s['settings_bytes']} bytes)")
    w = s.get("verifier_work")
    if w:
        verdict = "within the default" if w["within_default"] else "ABOVE the default"
        say(f"verifier work  {w['needed']} units (about {w['needed'] / 1e6:.1f} s of CPython), {verdict} "
            f"budget of {w['default_budget']} for files of this size")
    for name, q in s["quantization_error"].items():
        label = repr(printable(name))
        say(
            f"output {label:<8} max |fixed - float64| = {q['max_abs_error']:.3g}, mean {q['mean_abs_error']:.3g}"
        )
    cal = s.get("calibration") or {}
    for name, q in cal.get("accuracy", {}).items():
        top1 = f", top-1 agreement {q['top1_agreement']:.0%}" if "top1_agreement" in q else ""
        say(f"output {repr(printable(name)):<8} over the {cal['samples']} calibration inputs: max |fixed - float64| = "
            f"{q['max_abs_error']:.3g}, mean {q['mean_abs_error']:.3g}{top1}")
    for name, b in (s.get("error_bound") or {}).items():
        first = (f"first order {b['first_order']:.3g} (an estimate: docs/onnx.md \"Error bounds\")"
                 if b["first_order"] is not None else f"no first-order bound: {b['first_order_refused']}")
        say(f"output {repr(printable(name)):<8} error bound: worst case {b['worst_case']:.3g}, {first}")
    ort = s.get("onnxruntime_error") or {}
    if "error" in ort:
        say(f"onnxruntime    cannot run the model: {ort['error']}")
    for name, q in ({} if "error" in ort else ort).items():
        top1 = f", top-1 agreement {q['top1_agreement']:.0%}" if "top1_agreement" in q else ""
        say(f"output {repr(printable(name)):<8} max |fixed - onnxruntime| = {q['max_abs_error']:.3g}, "
            f"mean {q['mean_abs_error']:.3g}{top1}")
    say("wrote          " + ", ".join(s["files"]))



def _print_trace(s: dict[str, Any]) -> None:
    say(
        "trace          "
        + ", ".join(f"{component_title(c['component'])} {c['rows']}/{c['trace_rows']} rows" for c in s["components"])
    )
    total = sum(c["cells"] for c in s["components"])
    say(
        f"cells          {total} committed trace cells: "
        + ", ".join(
            f"{component_title(c['component'])} {c['cells']} ({c['main_columns']} main + {c['topology_columns']} topology + "
            f"{c['interaction_columns']} LogUp columns{fused_note(c)})"
            for c in s["components"]
        )
    )


def cmd_audit(args: argparse.Namespace) -> int:
    """`luminair audit MODEL SETTINGS`: recompute the model root from the model's weights."""
    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.audit import audit
    from luminair.prover.graph.model_file import load_model
    from luminair.verifier.errors import FormatError
    from luminair.verifier.statement import read_settings

    data = read_file(args.settings, "settings")
    try:
        body = read_settings(data).body
    except FormatError as e:
        raise UsageError(str(e)) from None
    if Path(args.model).suffix.lower() == ".onnx":
        options: dict[str, Any] = {"scale_bits": body.scale_bits}
        if args.private:
            options["private_inputs"] = tuple(args.private)
        graph = _load_onnx_bytes(read_file(args.model, "model"), args.model, options)
    else:
        check_regular_file(args.model, "model")
        graph = load_model(args.model)
    graph.compile(GenericCompiler(), StwoCompiler(search=not args.no_search))
    result = audit(graph, data)
    say(f"{'MATCH' if result.matches else 'MISMATCH'}: {result.detail}")
    if result.model_root:
        say(f"  model root  {result.model_root}  (settings.bin)")
    if result.recomputed_root and result.recomputed_root != result.model_root:
        say(f"  recomputed  {result.recomputed_root}  (from {args.model})")
    return EXIT_OK if result.matches else 1
