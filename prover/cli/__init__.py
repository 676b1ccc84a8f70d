"""The `luminair` command: prove | verify | inspect | train-step | verify-chain.

    luminair prove MODEL --input INPUT.json --out DIR [--preset fast|default|secure] [--security BITS]
                         [--scale-bits S] [--title TEXT] [--description TEXT]
    luminair verify PROOF SETTINGS            exit 0 valid, 1 rejected (one-line reason), 2 usage/IO error,
                                              3 not checked (over the work budget: --max-work N grants it)
    luminair inspect FILE [--json]            readable dump of proof.bin or settings.bin
    luminair train-step ... / verify-chain DIR   prove / verify training steps (prover/cli/train.py)
    luminair --version

The model digest is the model's identity (graph, views, weights, numeric format, output maps); the
title and description are the publisher's labels: bound by every proof (they are in settings.bin,
whose whole digest the proof commits to) but not part of the identity, and shown as such.

Every file argument must be a regular file no larger than MAX_BYTES[kind] (a FIFO, a device, a
directory or an oversized file is refused in one line, exit 2, before anything is read). Every
human-readable line goes through `printable`, so names chosen by a model's author (title, node,
input and output names, and error messages that quote them) cannot move the cursor, clear lines or
reorder text in a terminal; `--json` output is JSON (json.dumps escapes the same characters).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any

from .common import (
    EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_NOT_CHECKED, EXIT_OK, EXIT_REJECTED, EXIT_USAGE, LIMITS_HELP, MAX_BYTES,
    UsageError, component_title, index_map_text, printable, say,
)
from .inspect import cmd_inspect, print_inspect
from .prove import PROVE_STAGES, cmd_audit, cmd_prove
from .verify import cmd_verify, print_verify_result

__all__ = [
    "EXIT_NOT_CHECKED", "EXIT_OK", "EXIT_REJECTED", "EXIT_USAGE", "MAX_BYTES", "PROVE_STAGES", "build_parser",
    "component_title", "index_map_text", "main", "print_inspect", "print_verify_result", "printable",
]


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("luminair")
    except Exception:  # noqa: BLE001 - running from a source tree that is not installed
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    from luminair.verifier.budget import MAX_WORK
    from luminair.verifier.config import DEFAULT_MIN_SECURITY_BITS

    ap = argparse.ArgumentParser(
        prog="luminair", description="Prove and verify ML graph runs with Circle STARKs.", epilog=LIMITS_HELP
    )
    ap.add_argument("--version", action="version", version=f"luminair {_version()}")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser(
        "prove", help="prove a model run; writes DIR/proof.bin and DIR/settings.bin", epilog=LIMITS_HELP
    )
    p.add_argument("model", help="an ONNX file or a Python file with build() -> Graph (at most 256 MiB)")
    p.add_argument(
        "--input", required=True, help='INPUT.json: {"input_data": [[...floats...]]} (at most 64 MiB)'
    )
    p.add_argument(
        "--out",
        required=True,
        help="output directory (created if missing; checked before proving; the pair is replaced atomically)",
    )
    p.add_argument(
        "--preset",
        choices=["fast", "default", "secure", "small"],
        default=None,
        help="the proof's configuration: default (96 bits, what verifiers accept; the fastest proof within "
        "150 KB), small (the same security, the smallest proof), secure (more queries), or fast (a development "
        "proof of about 20 bits, accepted only with --min-security-bits; anyone could forge it); default: default",
    )
    p.add_argument("--security", type=int, default=None, help="target conjectured bits (overrides --preset)")
    p.add_argument("--scale-bits", type=int, default=None,
                   help="one fixed-point scale 2^S for every tensor (default: an ONNX model's scales are chosen per "
                        "tensor from the input, a Python model keeps its own format)")
    p.add_argument("--onnxruntime", action="store_true",
                   help="for an ONNX model: also report the outputs' error against onnxruntime and its top-1 agreement")
    p.add_argument("--error-bound", action="store_true",
                   help="also report each output's bound on |fixed - float64|: the worst case per element and the "
                        "first-order bound that keeps the errors' correlations (seconds on a small transformer)")
    p.add_argument("--calibrate", metavar="SAMPLES", default=None,
                   help="choose a scale per tensor from the input and these samples (.npy stack or JSON list of "
                        "inputs): the largest that keeps each tensor's values in range with half a bit of headroom")
    p.add_argument(
        "--title",
        default=None,
        metavar="TEXT",
        help="the publisher's title for the model (printable text, at most 200 characters; default none): "
        "bound by every proof, shown as the publisher's label, not part of the model digest",
    )
    p.add_argument(
        "--description",
        default=None,
        metavar="TEXT",
        help="the publisher's description (printable text, at most 2000 characters; default none), "
        "a label like --title",
    )
    p.add_argument(
        "--private",
        action="append",
        default=[],
        metavar="INPUT",
        help="keep this ONNX input out of the proof file (repeatable)",
    )
    p.add_argument(
        "--symbol",
        action="append",
        default=[],
        metavar="NAME=LO:HI",
        help="make dimension NAME symbolic over [LO, HI] (an ONNX dynamic axis, or a keyword of the Python "
        "model's build()): one settings.bin for every value; the input fixes the value (several rows of "
        "input_data, or a .npy array, make a batch) and the proof binds it (repeatable)",
    )
    p.add_argument(
        "--no-search",
        action="store_true",
        help="skip the search compiler (equality saturation for the cheapest graph to prove): the "
        "hand-written fusion only",
    )
    p.add_argument("--weights", choices=["public", "committed"], default="public",
                   help="public: settings.bin holds every weight (default); committed: it holds the root of the "
                        "model tree instead, so the verifier never reads a weight (binds them, does not hide them: "
                        "anyone with the weights checks the root with `luminair audit`)")
    p.add_argument("--inputs", choices=["public", "private", "committed"], default="public",
                   help="public: proof.bin holds the input values (default); private: it holds nothing of them; "
                        "committed: nothing but a digest, which `luminair verify --input` checks against values")
    p.add_argument("--outputs", choices=["public", "committed"], default="public",
                   help="public: proof.bin holds the output values (default); committed: only their digest, which "
                        "`luminair verify --output` checks against values (the prover prints the values)")
    p.add_argument("--segments", type=int, metavar="N",
                   help="prove the graph as N segments of about equal trace rows, each a proof of its own trace "
                        "(one process never holds the whole trace); proof.bin is then a bundle of the segments' "
                        "proofs, verified as one statement (docs/segments.md)")
    p.add_argument("--max-memory", metavar="SIZE",
                   help="a segmented proof of the fewest segments (1, 2, 4, ...) whose estimated proving peak fits "
                        "SIZE a process (8G, 512M; an estimate from the trace's cells, docs/segments.md)")
    p.add_argument("--ray", nargs="?", const=True, metavar="ADDRESS",
                   help="run the segments' tasks on a Ray cluster at ADDRESS (without one: a local cluster); "
                        "without Ray installed they run in this process (pip install 'luminair[ray]')")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(fn=cmd_prove)
    a = sub.add_parser("audit", help="check that SETTINGS (committed weights) commits to MODEL's weights: exit 0 "
                                     "if its model root is theirs, 1 if not, 2 on a usage error")
    a.add_argument("model", help="the ONNX or Python model file the settings were made from")
    a.add_argument("settings", help="settings.bin made with --weights committed")
    a.add_argument("--no-search", action="store_true", help="the model was proven with --no-search")
    a.add_argument("--private", action="append", default=[], metavar="INPUT",
                   help="an ONNX input the model was proven with as private (repeatable)")
    a.set_defaults(fn=cmd_audit)
    v = sub.add_parser(
        "verify",
        help="verify PROOF against SETTINGS: exit 0 valid, 1 rejected, 2 usage/IO error, 3 not checked (work budget)",
        epilog=LIMITS_HELP,
    )
    v.add_argument("proof", help="proof.bin (a regular file, at most 64 MiB)")
    v.add_argument("settings", help="settings.bin (a regular file, at most 64 MiB)")
    v.add_argument(
        "--min-security-bits",
        type=int,
        default=DEFAULT_MIN_SECURITY_BITS,
        metavar="BITS",
        help=f"the floor a proof's configuration must reach (default {DEFAULT_MIN_SECURITY_BITS}); "
        "lower it only to check development proofs, e.g. 20 for --preset fast",
    )
    v.add_argument(
        "--max-work",
        type=int,
        default=None,
        metavar="UNITS",
        help=f"the verifier's work budget in units of about 1 us (default: what the files' bytes back, at "
        f"most {MAX_WORK}, about 1 s); name it to check models larger than that (docs/formats.md, 'Verifier work budget')",
    )
    v.add_argument("--input", metavar="INPUT.json", default=None,
                   help="for a proof of committed inputs: also check that its input digest is that of these values "
                        "(rejected, check 'input digest', if not)")
    v.add_argument("--output", metavar="OUTPUT.json", default=None,
                   help='for a proof of committed outputs: also check that its output digest is that of these values '
                        '({"output_data": [[...], ...]}, one list per output; rejected, check \'output digest\', if not)')
    v.add_argument("--json", action="store_true")
    v.set_defaults(fn=cmd_verify)
    i = sub.add_parser(
        "inspect", help="show what a proof.bin or settings.bin contains, or how a model compiles", epilog=LIMITS_HELP
    )
    i.add_argument(
        "file",
        help="proof.bin or settings.bin (a regular file, at most 64 MiB), or a model (.onnx or .py): its "
        "compiled graph, components and cells, and the search compiler's rewrites, without proving",
    )
    i.add_argument("--no-search", action="store_true", help="for a model: compile without the search compiler")
    i.add_argument("--scale-bits", type=int, default=None,
                   help="for an ONNX model: fixed-point fractional bits, as prove takes them (default 10)")
    i.add_argument("--json", action="store_true")
    i.set_defaults(fn=cmd_inspect)
    from .train import add_parsers  # (numpy only for the training commands: verify and inspect start light)

    add_parsers(sub)  # train-step, verify-chain
    return ap


_SCALE_REMEDY = re.compile(r"Graph\(scale_bits=(\d+)\)")


def _onnx_node(op: str, name: str, ins: list[tuple[str, Any]]) -> str:
    shapes = ", ".join(f"{i} {'?' if s is None else s}" for i, s in ins) or "none"
    return f"{op} node {name!r} (inputs: {shapes})"


def error_lines(e: BaseException) -> list[str]:
    """What the CLI prints (on stderr, each line escaped) for an error a command raised."""
    if isinstance(e, UsageError):
        return [f"error: {e}"]
    from luminair.verifier.numeric import NumericError

    onnx_errors = sys.modules.get("luminair.prover.onnx.errors")  # loaded whenever an ONNX model was
    if onnx_errors is not None and isinstance(e, onnx_errors.UnsupportedOnnxError):
        from luminair.prover.onnx import SUPPORTED_OPS

        nodes = "; ".join(_onnx_node(op, name, ins) for op, name, ins in e.nodes)
        return [
            f"error (unsupported ONNX op): the model has {len(e.nodes)} unsupported node(s): {nodes}",
            f"supported ONNX ops: {', '.join(sorted(SUPPORTED_OPS))}",
        ]
    if isinstance(e, NumericError):
        # The graph's remedy names the Python API; a CLI user sets the same thing with a flag.
        message = _SCALE_REMEDY.sub(r"--scale-bits \1", str(e))
        return [f"error (numeric range): {message}"]
    return [f"error ({type(e).__name__}): {e}"]


def _silence_stdout() -> None:
    """After a reader closed our stdout: send the rest to /dev/null so that the interpreter's final
    flush does not print a BrokenPipeError."""
    if sys.stdout is not sys.__stdout__:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def main(argv: list[str] | None = None) -> int:
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:  # argparse already printed the usage message (or --help, --version)
            sys.stdout.flush()
            return EXIT_USAGE if e.code else EXIT_OK
        try:
            code = args.fn(args)
        except KeyboardInterrupt:
            say("interrupted", err=True)
            return EXIT_INTERRUPTED
        except BrokenPipeError:
            raise
        except Exception as e:  # noqa: BLE001 - the CLI reports errors in one line, never a traceback
            for line in error_lines(e):
                say(line, err=True)
            return EXIT_USAGE
        sys.stdout.flush()
        return code
    except BrokenPipeError:  # `luminair inspect ... | head`: the reader has all it wants
        _silence_stdout()
        return EXIT_BROKEN_PIPE


def console() -> None:
    """The `luminair` command: main(), then, once its files are written and the streams flushed,
    an exit without the interpreter's teardown (which frees a proof's arrays and the compiled
    kernels' modules one by one: 0.25-0.3 s after the transformer example's proof). A process that
    started Ray exits normally: Ray's exit hook stops the cluster it started."""
    code = main()
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed reader or stream: nothing more can be said
            pass
    os._exit(code)
