"""The `luminair` command: prove | verify | inspect | audit.

    luminair prove MODEL --input INPUT.json --out DIR [--preset fast|default|secure] [--security BITS]
    luminair verify PROOF SETTINGS            exit 0 valid, 1 rejected (one-line reason), 2 usage/IO error
    luminair inspect FILE [--json]            readable dump of proof.bin or settings.bin
    luminair audit SETTINGS                   recompute the model commitment from the graph and weights
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or unreadable files: exit code 2 with a one-line message."""


def _read(path: str, what: str) -> bytes:
    p = Path(path)
    if not p.exists():
        raise UsageError(f"{what} file {path!r} does not exist")
    if p.is_dir():
        raise UsageError(f"{what} path {path!r} is a directory, not a file")
    try:
        return p.read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {what} file {path!r}: {e.strerror}") from None


# --- prove ----------------------------------------------------------------------------------------


def _progress(stages: list[str], quiet: bool) -> Any:
    """A progress bar over the prover's stages (tqdm when available, plain lines otherwise)."""
    if quiet:
        return None
    try:
        from tqdm import tqdm

        bar = tqdm(total=len(stages), desc="proving", unit="stage", file=sys.stderr, leave=True)

        def hook(name: str) -> None:
            bar.set_postfix_str(name)
            bar.update(1)

        hook.close = bar.close  # type: ignore[attr-defined]
        return hook
    except ImportError:  # pragma: no cover - tqdm is a prover dependency
        def plain(name: str) -> None:
            print(f"  done: {name}", file=sys.stderr)

        plain.close = lambda: None  # type: ignore[attr-defined]
        return plain


PROVE_STAGES = [
    "trace columns", "commit main trace", "interaction trace", "composition", "out-of-domain sampling",
    "DEEP quotients", "FRI commit", "proof of work", "openings",
]  # fmt: skip


def quantization_report(float_out: dict[str, Any], exact_out: dict[str, Any]) -> dict[str, dict[str, float]]:
    import numpy as np

    out = {}
    for name, ref in float_out.items():
        err = np.abs(np.asarray(exact_out[name], dtype=np.float64) - np.asarray(ref, dtype=np.float64))
        out[name] = {"max_abs_error": float(err.max(initial=0.0)), "mean_abs_error": float(err.mean()) if err.size else 0.0}
    return out


def cmd_prove(args: argparse.Namespace) -> int:
    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.graph.model_file import load_model, read_input_json
    from luminair.prover.proving import gen_settings, gen_trace, prove

    if not Path(args.model).exists():
        raise UsageError(f"model file {args.model!r} does not exist")
    if not Path(args.input).exists():
        raise UsageError(f"input file {args.input!r} does not exist")
    t0 = time.perf_counter()
    is_onnx = str(args.model).endswith(".onnx")
    options: dict[str, Any] = {}
    if args.scale_bits is not None:
        options["scale_bits"] = args.scale_bits
    if args.private:
        if not is_onnx:
            raise UsageError("--private applies to ONNX models; a Python model marks its inputs with private=True")
        options["private_inputs"] = tuple(args.private)
    graph = load_model(args.model, **options) if is_onnx else load_model(args.model)
    if args.scale_bits is not None and not is_onnx:
        from luminair.verifier.numeric import NumericFormat

        graph.numeric_format = NumericFormat(args.scale_bits)
    graph.compile(GenericCompiler(), StwoCompiler())
    inputs = read_input_json(args.input, graph)
    load_s = time.perf_counter() - t0
    t = time.perf_counter()
    settings = gen_settings(graph, preset=args.preset, security_bits=args.security, title=Path(args.model).stem)
    settings_s = time.perf_counter() - t
    t = time.perf_counter()
    trace = gen_trace(graph, inputs)
    float_out = graph.run(inputs)
    trace_s = time.perf_counter() - t
    hook = _progress(PROVE_STAGES, args.quiet)
    try:
        proof = prove(graph, trace, settings, on_stage=hook)
    finally:
        if hook is not None:
            hook.close()  # type: ignore[attr-defined]
    out = Path(args.out)
    proof_path = proof.write(out / "proof.bin")
    settings_path = settings.write(out / "settings.bin")
    summary = {
        "model": str(args.model),
        "model_digest": settings.model_digest,
        "security": _describe(settings.config),
        "security_bits": settings.config.security_bits,
        "numeric_format": graph.numeric_format.describe(),
        "components": [
            {"component": p.component.name, "nodes": len(p.nodes), "rows": p.rows, "trace_rows": 1 << p.component.log_size}
            for p in settings.plans
        ],
        "time_s": {
            "load_and_compile": round(load_s, 3),
            "settings": round(settings_s, 3),
            "execution": round(trace_s, 3),
            **{k: round(v, 3) for k, v in proof.stats.stages.items()},
        },
        "proof_bytes": len(proof.data),
        "settings_bytes": len(settings.data),
        "outputs": {k: v.tolist() for k, v in trace.outputs.items()},
        "quantization_error": quantization_report(float_out, trace.outputs),
        "files": [str(proof_path), str(settings_path)],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print_prove_summary(summary)
    return EXIT_OK


def _describe(cfg: Any) -> str:
    return cfg.describe()


def _print_prove_summary(s: dict[str, Any]) -> None:
    print(f"model          {s['model']}  (digest {s['model_digest'][:16]}...)")
    print(f"security       {s['security']}")
    print(f"numbers        {s['numeric_format']}")
    print("trace          " + ", ".join(f"{c['component']} {c['rows']}/{c['trace_rows']} rows" for c in s["components"]))
    print("time           " + ", ".join(f"{k} {v:.2f}s" for k, v in s["time_s"].items()))
    print(f"proof          {s['proof_bytes']} bytes (settings {s['settings_bytes']} bytes)")
    for name, q in s["quantization_error"].items():
        print(f"output {name!r:<8} max |fixed - float64| = {q['max_abs_error']:.3g}, mean {q['mean_abs_error']:.3g}")
    print("wrote          " + ", ".join(s["files"]))


# --- verify / inspect / audit -------------------------------------------------------------------


def cmd_verify(args: argparse.Namespace) -> int:
    from luminair.verifier import verify

    proof = _read(args.proof, "proof")
    settings = _read(args.settings, "settings")
    r = verify(proof, settings, min_security_bits=args.min_security_bits)
    if r.success and args.audit:
        from luminair.prover.audit import audit_settings

        ok, message = audit_settings(settings)
        r.extra["audit"] = message
        if not ok:
            r.success, r.check, r.error_message = False, "settings audit", message
    if args.json:
        print(json.dumps(r.to_dict(), indent=2))
    elif r.success:
        print(f"valid: {r.statement}; {r.security_bits} bits ({r.security_label or 'custom config'}); "
              f"model {r.model_digest}; {r.verification_time_ms:.1f} ms")
        if "audit" in r.extra:
            print(f"  {r.extra['audit']}")
        for name, o in (r.outputs or {}).items():
            vals = o["values"]
            shown = ", ".join(f"{v:g}" for v in vals[:8]) + (", ..." if len(vals) > 8 else "")
            print(f"  output {name} {o['shape']}: [{shown}]")
    else:
        print(f"rejected: {r.error_message}")
    return EXIT_OK if r.success else EXIT_REJECTED


def cmd_inspect(args: argparse.Namespace) -> int:
    from luminair.verifier.errors import FormatError
    from luminair.verifier.formats import sniff
    from luminair.verifier.summary import proof_summary, settings_summary

    data = _read(args.file, "input")
    try:
        kind = sniff(data)["kind"]
        info = settings_summary(data) if kind == "settings" else proof_summary(data)
    except FormatError as e:
        print(f"not readable: {e.detail}")
        return EXIT_REJECTED
    if args.json:
        print(json.dumps(info, indent=2))
        return EXIT_OK
    for key, value in info.items():
        if key == "graph":
            print(f"graph: {len(value['nodes'])} nodes, {len(value['edges'])} edges")
            for n in value["nodes"]:
                print(f"  {n['id']:>4}  {n['label']:<28} {tuple(n['shape'])}")
        elif isinstance(value, (list, dict)):
            print(f"{key}: {json.dumps(value)}")
        else:
            print(f"{key}: {value}")
    return EXIT_OK


def cmd_audit(args: argparse.Namespace) -> int:
    from luminair.prover.audit import audit_settings

    ok, message = audit_settings(_read(args.settings, "settings"))
    print(message)
    return EXIT_OK if ok else EXIT_REJECTED


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="luminair", description="Prove and verify ML graph runs with Circle STARKs.")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prove", help="prove a model run; writes DIR/proof.bin and DIR/settings.bin")
    p.add_argument("model", help="an ONNX file or a Python file with build() -> Graph")
    p.add_argument("--input", required=True, help='INPUT.json: {"input_data": [[...floats...]]}')
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--preset", choices=["fast", "default", "secure"], default=None)
    p.add_argument("--security", type=int, default=None, help="target conjectured bits (overrides --preset)")
    p.add_argument("--scale-bits", type=int, default=None, help="fixed-point fractional bits (default 10)")
    p.add_argument("--private", action="append", default=[], metavar="INPUT",
                   help="keep this ONNX input out of the proof file (repeatable)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(fn=cmd_prove)
    v = sub.add_parser("verify", help="verify PROOF against SETTINGS")
    v.add_argument("proof")
    v.add_argument("settings")
    v.add_argument("--min-security-bits", type=int, default=96)
    v.add_argument("--audit", action="store_true", help="also recompute the model commitment from its graph and weights")
    v.add_argument("--json", action="store_true")
    v.set_defaults(fn=cmd_verify)
    i = sub.add_parser("inspect", help="show what a proof.bin or settings.bin contains")
    i.add_argument("file")
    i.add_argument("--json", action="store_true")
    i.set_defaults(fn=cmd_inspect)
    a = sub.add_parser("audit", help="recompute a settings file's model commitment from its graph and weights")
    a.add_argument("settings")
    a.set_defaults(fn=cmd_audit)
    return ap


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse already printed the usage message
        return EXIT_USAGE if e.code else EXIT_OK
    try:
        return args.fn(args)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as e:  # noqa: BLE001 - the CLI reports errors in one line, never a traceback
        from luminair.verifier.numeric import NumericError

        kind = "numeric range" if isinstance(e, NumericError) else type(e).__name__
        print(f"error ({kind}): {e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
