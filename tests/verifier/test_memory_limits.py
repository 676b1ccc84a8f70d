"""verify() never raises, whatever the memory limit (issue 32).

Each decoder at its cap is verified in a fresh python under address-space limits (RLIMIT_AS) from
just above what the interpreter and the verifier hold after import to more than the pair needs,
with the work budget lifted so that every decoder runs to the end. Every call must return a typed
verdict: the out-of-memory one where the limit is too tight, the pair's own verdict where it is
not, never an exception and never an internal error."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import hostile_bench as hb
from luminair.verifier.budget import MAX_SETTINGS_BYTES
from luminair.verifier.formats import MAX_PUBLIC_TOTAL, PUBLIC_I16, PUBLIC_M31

OUT_OF_MEMORY = "malformed file: the files need more memory than this verifier has"
EXTRA_MIB = (1, 8, 16, 32, 160)  # above the child's address space once the verifier is imported

DECODERS: dict[str, Callable[[], hb.Pair]] = {
    "settings: weights at the cap": lambda: hb._pair(hb.weights_graph(hb._fit(MAX_SETTINGS_BYTES, 4, 300))),
    "settings: a symbolic template (the symbol bomb)": lambda: hb._pair(hb.symbol_bomb_graph()),
    "proof: public M31 values at the cap": lambda: hb.public_at_cap(PUBLIC_M31),
    "proof: public i16 values at the cap": lambda: hb.public_at_cap(PUBLIC_I16),
    "proof: a deflated public tensor at its bound": lambda: hb._pair_raw(
        hb.public_input_graph(1)[0], struct.pack("<I", 1) + hb.deflated_tensor(hb.deflate_bomb_values(MAX_PUBLIC_TOTAL))),
    **{f"proof: {fill} at the cap": (lambda fill=fill: hb._filled((fill,))) for fill in hb.FILLS},
    # format 11: the ids of an index input, deflated at their bound, become integers for the statement
    "proof: deflated token ids at their bound": lambda: hb._pair_raw(
        hb.gather_graph(MAX_PUBLIC_TOTAL - 1, 1, 1)[0],
        struct.pack("<I", 2) + hb.deflated_tensor([0] * (MAX_PUBLIC_TOTAL - 1)) + hb.word_tensor(1, PUBLIC_M31)),
}

CHILD = r"""
import json, resource, sys
from luminair.verifier import verify
proof, settings = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
base = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize:")) << 10
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
out = []
for extra in json.loads(sys.argv[3]):
    resource.setrlimit(resource.RLIMIT_AS, (base + (extra << 20), hard))
    try:
        r = verify(proof, settings, max_work=10**12)
        verdict = [extra, r.check, r.error_message]
    except BaseException as e:  # what the test forbids
        verdict = [extra, "raised", type(e).__name__]
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    out.append(verdict)
print(json.dumps(out))
"""


@pytest.mark.parametrize("name", list(DECODERS))
def test_verify_returns_a_typed_verdict_under_any_memory_limit(name: str, tmp_path: Path) -> None:
    proof, settings = DECODERS[name]()
    (tmp_path / "p.bin").write_bytes(proof)
    (tmp_path / "s.bin").write_bytes(settings)
    run = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path / "p.bin"), str(tmp_path / "s.bin"), json.dumps(EXTRA_MIB)],
        capture_output=True, text=True, check=False, timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    verdicts = json.loads(run.stdout.strip().splitlines()[-1])
    for extra, check, message in verdicts:
        assert check not in ("raised", "internal error"), f"{extra} MiB: {check}: {message}"
    # the tightest limit fails for want of memory; the loosest decodes everything and gives the
    # pair's own verdict (so the limits in between did exercise the decoders)
    assert verdicts[0][2] == OUT_OF_MEMORY, verdicts[0]
    assert verdicts[-1][2] != OUT_OF_MEMORY and verdicts[-1][1] in ("malformed file", "statement mismatch"), verdicts[-1]
