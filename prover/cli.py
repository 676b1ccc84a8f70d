"""The `luminair` command: prove | verify | inspect | train-step | verify-chain.

    luminair prove MODEL --input INPUT.json --out DIR [--preset fast|default|secure] [--security BITS]
                         [--scale-bits S] [--title TEXT] [--description TEXT]
    luminair verify PROOF SETTINGS            exit 0 valid, 1 rejected (one-line reason), 2 usage/IO error,
                                              3 not checked (over the work budget: --max-work N grants it)
    luminair inspect FILE [--json]            readable dump of proof.bin or settings.bin
    luminair train-step ... / verify-chain DIR   prove / verify training steps (prover/train_cli.py)
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
import json
import os
import re
import shlex
import stat
import sys
import time
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2
EXIT_NOT_CHECKED = 3  # over the verifier's work budget or size caps: nothing was checked
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a writer whose reader went away
EXIT_INTERRUPTED = 130  # 128 + SIGINT

MIB = 1 << 20
# The most bytes the CLI reads from each kind of file (documented in README.md and in --help).
MAX_BYTES = {
    "proof": 64 * MIB,
    "settings": 64 * MIB,
    "proof or settings": 64 * MIB,
    "input": 64 * MIB,
    "model": 256 * MIB,
}
LIMITS_HELP = (
    "Files must be regular files (not pipes, devices or directories): proof.bin, settings.bin and "
    "INPUT.json at most 64 MiB each, MODEL at most 256 MiB."
)


def _limit_text(limit: int) -> str:
    return f"{limit // MIB} MiB" if limit % MIB == 0 else f"{limit}-byte"


class UsageError(Exception):
    """Bad arguments or unreadable files: exit code 2 with a one-line message."""


# --- output that a model's author cannot spoof ----------------------------------------------------


_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(c: str) -> str:
    if c in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[c]
    o = ord(c)
    if o < 0x100:
        return f"\\x{o:02x}"
    if o < 0x10000:
        return f"\\u{o:04x}"
    return f"\\U{o:08x}"


def printable(text: object) -> str:
    """`text` with every character that is not printable escaped as \\n, \\r, \\t, \\xNN, \\uNNNN or \\UNNNNNNNN.

    Escaped: control characters (ESC, CR, LF, TAB, DEL...), C1 controls, format characters such as
    the bidi overrides U+202A..U+202E and U+2066..U+2069, zero-width characters, line and paragraph
    separators, non-space separators and lone surrogates (everything `str.isprintable` rejects).
    The result is one line that shows as exactly the characters it contains."""
    s = str(text)
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() else _escape_char(c) for c in s)


def say(line: object = "", *, err: bool = False) -> None:
    """Print one human-readable line, escaped with `printable`."""
    print(printable(line), file=sys.stderr if err else sys.stdout)


# --- the model's identity and the publisher's labels ---------------------------------------------

IDENTITY_NOTE = "the model's identity: graph, views, weights, numeric format, output maps"
LABEL_NOTE = "publisher's label"
INDEX_MAP_SHOWN = 8  # indices shown before "..." in a non-identity index map


def label_text(value: object) -> str:
    """A publisher's label as shown: the text itself, or "(none)" when empty or absent."""
    return "(none)" if value in (None, "") else str(value)


def source_text(node: object, op: object, name: object) -> str:
    """An output's source node: `node 13 (Add 'hidden')`; the name is the publisher's label."""
    op_text = "?" if op in (None, "") else str(op)
    if name in (None, ""):
        return f"node {node} ({op_text})"
    return f"node {node} ({op_text} {str(name)!r})"


def index_map_text(index_map: object, limit: int = INDEX_MAP_SHOWN) -> str:
    """An output's index map in a few words: "identity", or its length and first `limit` source
    indices (-1 reads the constant 0), e.g. "6 elements [0, 3, 1, 4, 2, 5]"."""
    if index_map is None:
        return "(not given)"
    if isinstance(index_map, str):
        return index_map
    if not isinstance(index_map, (list, tuple)):
        return str(index_map)
    n = len(index_map)
    shown = ", ".join(str(i) for i in index_map[:limit]) + (", ..." if n > limit else "")
    text = f"{n} element{'s' if n != 1 else ''} [{shown}]"
    zeros = sum(1 for i in index_map if isinstance(i, int) and i < 0)
    if zeros:
        text += f", {zeros} read the constant 0 (-1)"
    return text


# --- reading files: regular files only, bounded --------------------------------------------------


def _not_regular(mode: int) -> str | None:
    """What a non-regular file is ("a named pipe (FIFO)", ...), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _check_stat(path: str, what: str, st: os.stat_result) -> None:
    kind = _not_regular(st.st_mode)
    if kind is not None:
        raise UsageError(f"{what} file {path!r} is {kind}, not a regular file")
    limit = MAX_BYTES[what]
    if st.st_size > limit:
        raise UsageError(f"{what} file {path!r} is {st.st_size} bytes, over the {_limit_text(limit)} maximum")


def check_regular_file(path: str, what: str) -> None:
    """Refuse (UsageError) a missing path, anything but a regular file, or one over MAX_BYTES[what]."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UsageError(f"{what} file {path!r} does not exist") from None
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        raise UsageError(f"cannot read {what} file {path!r}: {getattr(e, 'strerror', None) or e}") from None
    _check_stat(path, what, st)


def read_file(path: str, what: str) -> bytes:
    """The bytes of a regular file of at most MAX_BYTES[what] bytes; never blocks and never reads
    more than that maximum plus one byte (UsageError otherwise)."""
    check_regular_file(path, what)
    limit = MAX_BYTES[what]
    flags = (
        os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    )
    try:
        fd = os.open(path, flags)  # O_NONBLOCK: a FIFO swapped in since the stat cannot block here
    except OSError as e:
        raise UsageError(f"cannot read {what} file {path!r}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        _check_stat(path, what, st)  # the file actually opened
        # One read of the announced size plus one byte (no copy, peak memory about the file's size);
        # more reads only if the file grew or its size is not announced (procfs), never past limit+1.
        chunks: list[bytes] = []
        total = 0
        want = min(st.st_size, limit) + 1
        while total <= limit:
            chunk = os.read(fd, min(want, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            want = 4 * MIB
        if total > limit:
            raise UsageError(f"{what} file {path!r} is over the {_limit_text(limit)} maximum")
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    except OSError as e:
        raise UsageError(f"cannot read {what} file {path!r}: {e.strerror or e}") from None
    finally:
        os.close(fd)


def check_out_dir(path: str) -> Path:
    """Refuse (UsageError) an --out that is not a directory and cannot be created as one, before
    anything is proven."""
    out = Path(path)
    if out.exists() or out.is_symlink():
        if not out.is_dir():
            raise UsageError(f"--out {path!r} exists and is not a directory")
        for name in ("settings.bin", "proof.bin"):
            target = out / name
            if (target.exists() or target.is_symlink()) and not target.is_file():
                raise UsageError(
                    f"--out {path!r}: {name} there is not a regular file, so it cannot be replaced"
                )
        folder = out
    else:
        folder = out.absolute().parent
        while not (folder.exists() or folder.is_symlink()) and folder != folder.parent:
            folder = folder.parent
        if not folder.is_dir():
            raise UsageError(f"--out {path!r} cannot be created: {str(folder)!r} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"--out {path!r}: the directory {str(folder)!r} is not writable")
    return out


def read_input_file(path: str) -> dict[str, Any]:
    """INPUT.json as a dict (bounded read; UsageError for anything that is not a JSON object). A
    `.npy` file is one array for a model's single input: {"input_data": [array]}."""
    raw = read_file(path, "input")
    if path.lower().endswith(".npy"):
        import io

        import numpy as np

        try:
            arr = np.load(io.BytesIO(raw), allow_pickle=False)
        except (ValueError, OSError, EOFError) as e:
            raise UsageError(f"input file {path!r} is not a readable .npy array: {e}") from None
        if arr.dtype.kind not in "biuf":
            raise UsageError(f"input file {path!r} holds {arr.dtype} values, not numbers")
        return {"input_data": [arr.astype(np.float64)]}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise UsageError(f"input file {path!r} is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise UsageError(
            f'input file {path!r} must hold a JSON object {{"input_data": [[...floats...], ...]}}'
        )
    return data


# --- prove ----------------------------------------------------------------------------------------


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


def quantization_report(float_out: dict[str, Any], exact_out: dict[str, Any]) -> dict[str, dict[str, float]]:
    import numpy as np

    out = {}
    for name, ref in float_out.items():
        err = np.abs(np.asarray(exact_out[name], dtype=np.float64) - np.asarray(ref, dtype=np.float64))
        out[name] = {
            "max_abs_error": float(err.max(initial=0.0)),
            "mean_abs_error": float(err.mean()) if err.size else 0.0,
        }
    return out


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


def cmd_prove(args: argparse.Namespace) -> int:
    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.graph.model_file import load_model, read_input_json
    from luminair.prover.proving import gen_settings, gen_trace, prove, write_files
    from luminair.verifier.graph.summary import plan_cells

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
    if not symbols and model_bytes is not None:
        from luminair.prover.symbolic import onnx_dynamic_axes

        dynamic = onnx_dynamic_axes(_read_onnx(model_bytes, args.model))  # dim_params become symbols
    else:
        dynamic = []
    if symbols or dynamic:
        graph, settings, inputs, float_out, load_s, settings_s, search = _symbolic_instance(
            args, symbols or None, model_bytes, input_data, options, title, description
        )
        t = time.perf_counter()
        trace = gen_trace(graph, inputs)
        trace_s = time.perf_counter() - t
    else:
        if model_bytes is not None:
            graph = _load_onnx_bytes(model_bytes, args.model, options)
        else:
            graph = load_model(args.model)
            if args.scale_bits is not None:
                from luminair.verifier.numeric import NumericFormat

                graph.numeric_format = NumericFormat(args.scale_bits)
        stwo = StwoCompiler(search=not args.no_search)
        graph.compile(GenericCompiler(), stwo)
        search = stwo.search_report
        inputs = read_input_json(input_data, graph)
        load_s = time.perf_counter() - t0
        t = time.perf_counter()
        settings = gen_settings(
            graph, preset=args.preset, security_bits=args.security, title=title, description=description
        )
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
        "symbols": dict(settings.spec.bound) or None,
        "title": title,
        "description": description,
        "security": settings.describe_security(),
        "security_bits": settings.security_bits,
        "numeric_format": graph.numeric_format.describe(),
        "components": [
            {
                "component": p.component.name,
                "nodes": len(p.nodes),
                "rows": p.rows,
                "trace_rows": 1 << p.component.log_size,
                **plan_cells(settings.spec, p, settings.plans),
            }
            for p in settings.plans
        ],
        "time_s": {
            "load_and_compile": round(load_s, 3),
            "settings": round(settings_s, 3),
            "execution": round(trace_s, 3),
            **{k: round(v, 3) for k, v in proof.stats.stages.items()},
        },
        "search": search.as_dict() if search is not None else None,
        "proof_bytes": len(proof.data),
        "settings_bytes": len(settings.data),
        "verifier_work": work,
        "outputs": {k: v.tolist() for k, v in trace.outputs.items()},
        "quantization_error": quantization_report(float_out, trace.outputs),
        "files": [str(proof_path), str(settings_path)],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_prove_summary(summary)
    if not work["within_default"]:
        say(budget_warning(work["needed"], work["default_budget"], proof_path, settings_path), err=True)
    return EXIT_OK


def verifier_work(proof: bytes, settings: bytes) -> dict[str, Any]:
    """The work budget a verifier needs for this pair (the verifier's own estimate, as `verify`
    makes it) beside the default budget for files of their size."""
    from luminair.verifier.budget import MAX_PROOF_BYTES, MAX_SETTINGS_BYTES, MAX_WORK, budget_for
    from luminair.verifier.budget import declared_work, work_needed

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


_OP_COMPONENTS = {
    "add": "Add", "mul": "Mul", "less_than": "LessThan", "mod": "Mod", "recip": "Recip", "sqrt": "Sqrt",
    "recipsqrt": "Recip of Sqrt", "exp2": "Exp2", "exp": "Exp", "erf": "Erf", "experf": "Exp and Erf",
    "log2": "Log2", "sin": "Sin", "relu": "ReLU", "contiguous": "Contiguous (materialised views)",
    "sum_reduce": "SumReduce", "max_reduce": "MaxReduce", "sum_max_reduce": "SumReduce and MaxReduce",
    "known": "known values (weights, public inputs)", "private_input": "private inputs",
}  # fmt: skip


def component_title(name: str) -> str:
    """A component's name in words ("matin1.n3+1" -> "matrix product inputs (nodes 3 and 1 more)");
    --json keeps the internal name."""
    m = re.fullmatch(r"(matin|matpair)(\d+)(?:x(\d+))?\.n(\d+)(?:\+(\d+))?", name)
    if m:
        what = "matrix product inputs" if m[1] == "matin" else "products of two computed matrices"
        more = f" and {m[5]} more" if m[5] else ""
        return f"{what} (node {m[4]}{more})"
    m = re.fullmatch(r"matout(b?)(w?)(?:\.(\d+))?", name)
    if m:
        notes = [t for t, on in (("with bias", m[1]), ("split weights", m[2]), (f"part {m[3]}", m[3])) if on]
        return "matrix products, checked by Freivalds" + (f" ({', '.join(notes)})" if notes else "")
    m = re.fullmatch(r"(dotw?)(\d+)(b?)(c?)(d?)", name)
    if m:
        notes = [t for t, on in (("weights read directly", m[1] == "dotw"), ("bias", m[3]), ("chunked reads", m[4] or m[5])) if on]
        return f"Dot products ({m[2]} lane{'s' if m[2] != '1' else ''}{''.join(', ' + t for t in notes)})"
    if name.startswith("table."):
        return f"lookup table {name[6:]}"
    return _OP_COMPONENTS.get(name, name)


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
    say(f"title          {LABEL_NOTE}: {label_text(s.get('title'))}")
    say(f"description    {LABEL_NOTE}: {label_text(s.get('description'))}")
    if s.get("symbols"):
        say("symbols        " + ", ".join(f"{printable(k)}={v}" for k, v in s["symbols"].items())
            + " (fixed by this proof; the settings.bin serves every value in the model's ranges)")
    say(f"security       {s['security']}")
    say(f"numbers        {s['numeric_format']}")
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
    say("wrote          " + ", ".join(s["files"]))


# --- verify / inspect -------------------------------------------------------------------


def _floor_hint(args: argparse.Namespace, settings: bytes) -> str | None:
    """For a proof refused only for its security floor: the command that checks it anyway."""
    from luminair.verifier.statement import read_settings

    try:
        bits = read_settings(settings).config.security_bits
    except Exception:  # noqa: BLE001 - no hint for a settings file that does not parse
        return None
    if bits >= args.min_security_bits:
        return None
    cmd = shlex.join(["luminair", "verify", args.proof, args.settings, "--min-security-bits", str(bits)])
    return (
        f"this is a development proof ({bits} bits, e.g. from --preset fast); "
        f"to check it anyway, lower the floor: {cmd}"
    )


BATCH_ROWS_SHOWN = 8


def print_verify_result(r: Any, hint: str | None = None) -> None:
    """The human-readable verdict of a VerifyResult (every line escaped)."""
    if r.success:
        say(
            f"valid: {r.statement}; {r.security_bits} bits ({r.security_label or 'custom config'}); "
            f"{r.verification_time_ms:.1f} ms"
        )
        say(f"  model digest ({IDENTITY_NOTE}): {r.model_digest}")
        say(f"  title ({LABEL_NOTE}): {label_text(r.model_title)}")
        say(f"  description ({LABEL_NOTE}): {label_text(r.model_description)}")
        if r.symbols:
            say("  symbols (fixed by this proof): " + ", ".join(f"{printable(k)}={v}" for k, v in r.symbols.items()))
        training = (r.extra or {}).get("training")
        if training:
            say(f"  training step {training['step']} (seed {training['seed']}): loss {training['loss']:g}")
            say(f"    weights before {training['old_weights_digest']}")
            say(f"    weights after  {training['new_weights_digest']}")
        batch_sizes = set((r.symbols or {}).values())
        for name, o in (r.outputs or {}).items():
            vals = o["values"]
            shown = ", ".join(f"{v:g}" for v in vals[:8]) + (", ..." if len(vals) > 8 else "")
            say(f"  output {printable(name)} {o['shape']}: [{shown}]")
            shape = o["shape"]
            if len(shape) > 1 and shape[0] in batch_sizes and shape[0] > 1:  # one line per batch element
                width = len(vals) // shape[0]
                for b in range(min(shape[0], BATCH_ROWS_SHOWN)):
                    row = vals[b * width : (b + 1) * width]
                    say(f"    [{b}] " + ", ".join(f"{v:g}" for v in row[:8]) + (", ..." if len(row) > 8 else ""))
                if shape[0] > BATCH_ROWS_SHOWN:
                    say(f"    ... {shape[0] - BATCH_ROWS_SHOWN} more rows (--json has them all)")
            src = o.get("source")
            if isinstance(src, dict):
                source = source_text(src.get("node"), src.get("op"), src.get("name"))
                say(f"    source {source}; index map: {index_map_text(o.get('index_map'))}")
    else:
        say(f"{'not checked' if r.kind == 'not checked' else 'rejected'}: {r.error_message}")
        if hint:
            say(f"hint: {hint}")


def check_not_swapped(args: argparse.Namespace, proof: bytes, settings: bytes) -> None:
    """Refuse (UsageError) a settings file given as PROOF and a proof file as SETTINGS."""
    from luminair.verifier.formats import PROOF_MAGIC, SETTINGS_MAGIC

    if proof.startswith(SETTINGS_MAGIC) and settings.startswith(PROOF_MAGIC):
        cmd = shlex.join(["luminair", "verify", args.settings, args.proof])
        raise UsageError(
            f"the arguments are swapped: {args.proof!r} is a settings file and {args.settings!r} a proof file "
            f"(the proof comes first: {cmd})"
        )


def _mismatch_hint(proof: bytes, settings: bytes) -> str | None:
    """For a proof made for other settings: whether its public inputs and outputs fit this model
    (then it is most likely a proof of the same model under another settings.bin)."""
    from luminair.verifier.formats import read_proof_file
    from luminair.verifier.statement import bind_symbols, build_statement, read_settings

    try:
        pf = read_proof_file(proof)
        parsed = read_settings(settings)
        build_statement(bind_symbols(parsed, pf.public_values), pf.public_values)
    except Exception:  # noqa: BLE001 - another model: the message already says so
        return None
    opened = max((len(col) for tree in pf.stark.queried_values for col in tree), default=0)
    config = (f"; it opens {opened} query positions where these settings ask for at most {parsed.config.n_queries}, "
              "so it was made with another configuration" if opened > parsed.config.n_queries else "")
    return (
        "the proof's public inputs and outputs fit this model: it is most likely a proof of the same model made "
        f"with another settings.bin (another --preset or --security, other --title/--description labels){config}. "
        "Verify it with the settings.bin written next to it"
    )


def cmd_verify(args: argparse.Namespace) -> int:
    from luminair import verifier

    proof = read_file(args.proof, "proof")
    settings = read_file(args.settings, "settings")
    check_not_swapped(args, proof, settings)
    r = verifier.verify(proof, settings, min_security_bits=args.min_security_bits, max_work=args.max_work)
    hint = None
    if r.check == "config below floor":
        hint = _floor_hint(args, settings)
    elif r.kind == "not checked":
        hint = _budget_hint(args, r.work_needed)
    elif r.check == "statement mismatch" and "wrong model or tampered settings" in (r.error_message or ""):
        hint = _mismatch_hint(proof, settings)
    if args.json:
        if hint:
            r.extra["hint"] = hint
        print(json.dumps(r.to_dict(), indent=2))
    else:
        print_verify_result(r, hint)
    if r.kind == "not checked":
        return EXIT_NOT_CHECKED
    return EXIT_OK if r.success else EXIT_REJECTED


def _budget_hint(args: argparse.Namespace, needed: int | None) -> str:
    if needed is None:
        return "no work budget admits files this large"
    cmd = shlex.join(["luminair", "verify", args.proof, args.settings, "--max-work", str(needed)])
    return f"the files were not checked; to check them, grant the budget they need: {cmd}"


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


def inspect_model(args: argparse.Namespace) -> dict[str, Any]:
    """A model file compiled as `prove` would compile it, without proving: its graph, components and
    committed cells (each fused one beside its primitive decomposition) and what the search compiler
    rewrote (or, with --no-search, that it did not run)."""
    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.air.graph_trace import build_spec
    from luminair.prover.graph.model_file import load_model
    from luminair.verifier.graph.summary import graph_summary

    if Path(args.file).suffix.lower() == ".onnx":
        graph = _load_onnx_bytes(read_file(args.file, "model"), args.file, {})
    else:
        check_regular_file(args.file, "model")
        graph = load_model(args.file)
    t = time.perf_counter()
    stwo = StwoCompiler(search=not args.no_search)
    graph.compile(GenericCompiler(), stwo)
    compile_s = time.perf_counter() - t
    info: dict[str, Any] = {"file": "model", "model": str(args.file)}
    info.update(graph_summary(build_spec(graph)))
    info["compile_s"] = round(compile_s, 3)
    info["fused"] = dict(stwo.fused)
    info["search"] = stwo.search_report.as_dict() if stwo.search_report is not None else None
    return info


def cmd_inspect(args: argparse.Namespace) -> int:
    from luminair.verifier import summary
    from luminair.verifier.errors import FormatError
    from luminair.verifier.formats import sniff

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
        info = summary.settings_summary(data) if kind == "settings" else summary.proof_summary(data)
    except FormatError as e:
        say(f"not readable: {e.detail}")
        return EXIT_REJECTED
    if kind == "settings" and "title" in info:
        info = with_identity_and_labels(info, data)
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        print_inspect(info)
    return EXIT_OK


# --- arguments and errors -------------------------------------------------------------------------


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
    p.add_argument("--scale-bits", type=int, default=None, help="fixed-point fractional bits (default 10)")
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
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(fn=cmd_prove)
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
        f"most {MAX_WORK}, about 1 s); name it to check models larger than that (README, 'Verifier work budget')",
    )
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
    i.add_argument("--json", action="store_true")
    i.set_defaults(fn=cmd_inspect)
    from .train_cli import add_parsers

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


if __name__ == "__main__":
    sys.exit(main())
