"""What every luminair command shares: exit codes, file limits and safe reads, and output that a
model's author cannot spoof (every human-readable line goes through `printable`)."""

from __future__ import annotations

import json
import os
import re
import stat
import sys
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
        return {"input_data": [arr if arr.dtype.kind in "iu" else arr.astype(np.float64)]}  # ids stay integers
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise UsageError(f"input file {path!r} is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise UsageError(
            f'input file {path!r} must hold a JSON object {{"input_data": [[...floats...], ...]}}'
        )
    return data


_OP_COMPONENTS = {
    "add": "Add", "mul": "Mul", "less_than": "LessThan", "mod": "Mod", "recip": "Recip", "sqrt": "Sqrt",
    "recipsqrt": "Recip of Sqrt", "exp2": "Exp2", "exp": "Exp", "erf": "Erf", "experf": "Exp and Erf",
    "log2": "Log2", "sin": "Sin", "relu": "ReLU", "contiguous": "Contiguous (materialised views)",
    "sum_reduce": "SumReduce", "max_reduce": "MaxReduce", "sum_max_reduce": "SumReduce and MaxReduce",
    "known": "known values (weights, public inputs, embedding rows)", "private_input": "private inputs",
    "known_table": "embedding tables read at private ids", "private_index": "private token ids",
    "gather": "embedding rows at private ids", "committed": "committed weights (the model tree's values)",
    "committed_input": "committed inputs (the input tree's values)",
    "boundary_input": "a segment's boundary inputs (earlier segments' tensors)",
    "boundary_output": "a segment's boundary outputs (tensors later segments read)",
}  # fmt: skip


def component_title(name: str) -> str:
    """A component's name in words ("matin1.n3+1" -> "matrix product inputs (nodes 3 and 1 more)");
    --json keeps the internal name."""
    m = re.fullmatch(r"(matin|matpair)(\d+)(?:x(\d+))?\.n(\d+)(?:\+(\d+))?", name)
    if m:
        what = "matrix product inputs" if m[1] == "matin" else "products of two computed matrices"
        more = f" and {m[5]} more" if m[5] else ""
        return f"{what} (node {m[4]}{more})"
    m = re.fullmatch(r"matw(\d+)\.n(\d+)", name)
    if m:
        return f"committed weights of a checked product (node {m[2]}, {m[1]} a row)"
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
    m = re.fullmatch(r"([a-z_0-9]+)\.(\d+)", name)  # a component split in parts (planner: "<name>", "<name>.1", ...)
    if m and component_title(m[1]) != m[1]:
        base = component_title(m[1])
        return f"{base[:-1]}, part {m[2]})" if base.endswith(")") else f"{base} (part {m[2]})"
    return _OP_COMPONENTS.get(name, name)
