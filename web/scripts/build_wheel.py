"""Build the verifier-only wheel `luminair_verifier-<version>-py3-none-any.whl` from the repository
folders, with no network and no build backend: `luminair/__init__.py` plus `verifier/**` mapped to
`luminair/verifier/**`, and a `.dist-info` (METADATA, WHEEL, RECORD).

The bytes are reproducible: entries are sorted, timestamps fixed, permissions fixed, compression
level fixed. Prints one JSON line: {"file", "sha256", "version", "size", "files", "format_version"}.

    python web/scripts/build_wheel.py OUT_DIR
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DIST = "luminair_verifier"
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def verifier_version() -> str:
    text = (REPO / "verifier" / "__init__.py").read_text(encoding="utf-8")
    m = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', text, re.M)
    if not m:
        raise SystemExit("verifier/__init__.py has no __version__")
    return m.group(1)


def format_version() -> int:
    """The proof/settings format version the verifier reads (the JS header checks use it too)."""
    text = (REPO / "verifier" / "formats.py").read_text(encoding="utf-8")
    m = re.search(r"^FORMAT_VERSION\s*=\s*(\d+)", text, re.M)
    if not m:
        raise SystemExit("verifier/formats.py has no FORMAT_VERSION")
    return int(m.group(1))


def source_files() -> list[tuple[str, bytes]]:
    """(archive name, bytes) of every file that goes into the wheel, sorted by name."""
    out = [("luminair/__init__.py", (REPO / "luminair" / "__init__.py").read_bytes())]
    root = REPO / "verifier"
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if not path.is_file() or "__pycache__" in rel.parts or path.suffix in (".pyc", ".pyo"):
            continue
        if any(part.startswith(".") for part in rel.parts):
            continue
        out.append(("luminair/verifier/" + rel.as_posix(), path.read_bytes()))
    return sorted(out)


def record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def build(out_dir: Path) -> dict:
    version = verifier_version()
    info = f"{DIST}-{version}.dist-info"
    metadata = "\n".join([
        "Metadata-Version: 2.1",
        "Name: luminair-verifier",
        f"Version: {version}",
        "Summary: Pure-Python verifier for luminair Circle-STARK proofs of ML graph runs "
        "(the luminair.verifier package only).",
        "License: MIT",
        "Requires-Python: >=3.11",
        "",
        "",
    ]).encode()
    wheel_meta = "\n".join([
        "Wheel-Version: 1.0",
        "Generator: luminair-web build_wheel.py",
        "Root-Is-Purelib: true",
        "Tag: py3-none-any",
        "",
    ]).encode()
    files = source_files()
    files += [(f"{info}/METADATA", metadata), (f"{info}/WHEEL", wheel_meta)]
    files.sort()
    record_lines = [f"{name},{record_hash(data)},{len(data)}" for name, data in files]
    record_lines.append(f"{info}/RECORD,,")
    files.append((f"{info}/RECORD", ("\n".join(record_lines) + "\n").encode()))

    out_dir.mkdir(parents=True, exist_ok=True)
    name = f"{DIST}-{version}-py3-none-any.whl"
    target = out_dir / name
    tmp = target.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w") as zf:
        for arcname, data in files:
            zi = zipfile.ZipInfo(arcname, date_time=FIXED_TIME)
            zi.external_attr = 0o100644 << 16
            zi.create_system = 3
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    tmp.replace(target)
    data = target.read_bytes()
    return {
        "file": name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "version": version,
        "size": len(data),
        "files": len(files),
        "format_version": format_version(),
    }


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python web/scripts/build_wheel.py OUT_DIR")
    print(json.dumps(build(Path(sys.argv[1]))))
