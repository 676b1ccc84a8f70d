"""Compact decoded lists (verifier/packed.py): they behave like the lists they replace, a decoded
proof encodes back to the same bytes, and decoding stays within a few bytes of memory per byte of
the file, at each decoder's cap (issue 32: up to 13 bytes of objects a byte, and a deflated tensor's
values backed by no bytes at all)."""

from __future__ import annotations

import random
import struct
import subprocess
import sys
from array import array
from pathlib import Path

import pytest
from luminair.verifier.fields import P
from luminair.verifier.formats import (
    MAX_FRI_LAYERS,
    MAX_PUBLIC_TOTAL,
    PUBLIC_I16,
    PUBLIC_M31,
    read_proof_file,
)
from luminair.verifier.merkle import DIGEST_BYTES
from luminair.verifier.packed import Digests, QM31s, field_from_i16

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import hostile_bench as hb


@pytest.mark.parametrize("make, items", [
    (QM31s, [(1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12)]),
    (Digests, [bytes([i]) * DIGEST_BYTES for i in range(3)]),
])
def test_compact_lists_behave_like_lists(make: type, items: list) -> None:
    xs, ys = make(items), list(items)
    assert xs == ys and ys == xs and len(xs) == 3 and list(xs) == ys and xs[-1] == ys[-1]
    assert xs[1:] == ys[1:] and isinstance(xs[1:], make) and xs[::2] == ys[::2]
    for edit in (lambda s: s.append(items[0]), lambda s: s.pop(), lambda s: s.pop(0), lambda s: s.insert(1, items[2]),
                 lambda s: s.__setitem__(0, items[1]), lambda s: s.__delitem__(-1), lambda s: s.extend(items)):
        edit(xs)
        edit(ys)
        assert xs == ys, (xs, ys)
    assert xs != ys[:-1] and make(items) == make(items)
    with pytest.raises(IndexError):
        xs[len(xs)]
    with pytest.raises(ValueError):
        xs.append(items[0][:-1])  # an item of the wrong width


def test_i16_values_become_the_field_elements_value_by_value() -> None:
    """field_from_i16 (big-integer lanes, a chunk at a time) against v % P, one value at a time."""
    rng = random.Random(32)
    for n in (0, 1, 7, (1 << 16) - 1, 1 << 16, (1 << 17) + 3):
        vals = [rng.choice((-(1 << 15), -1, 0, 1, (1 << 15) - 1, rng.randint(-(1 << 15), (1 << 15) - 1))) for _ in range(n)]
        got = field_from_i16(struct.pack(f"<{n}h", *vals))
        assert got.typecode == "I" and got.tolist() == [v % P for v in vals], n


def test_a_decoded_proof_is_compact_and_encodes_back_to_the_same_bytes() -> None:
    proof, _ = hb._demo_pair()
    pf = read_proof_file(proof)
    assert pf.to_bytes() == proof and pf.stark_bytes < len(proof)
    s = pf.stark
    assert all(isinstance(t, array) and t.typecode == "I" for t in pf.public_values)
    assert isinstance(s.claimed_sums, QM31s) and isinstance(s.sampled_values[0][0], QM31s)
    assert isinstance(s.queried_values[0][0], array) and isinstance(s.decommitments[0].hash_witness, Digests)
    assert isinstance(s.fri.first_layer.siblings, QM31s) and isinstance(s.fri.last_layer, QM31s)


def test_forty_minimal_fri_layers_are_read() -> None:
    """The reader's lower bound of a FRI layer is its root and three empty lists (38 bytes; it asked
    for 40, refusing a well-formed file)."""
    settings, _ = hb.public_input_graph(1)
    pf = read_proof_file(hb.filled_proof(settings, ("FRI siblings",), size=4000))
    assert len(pf.stark.fri.inner_layers) == MAX_FRI_LAYERS


CAPPED = {
    "public M31 values": lambda: hb.public_at_cap(PUBLIC_M31),
    "public i16 values": lambda: hb.public_at_cap(PUBLIC_I16),
    **{fill: (lambda fill=fill: hb._filled((fill,))) for fill in hb.FILLS},
    "a deflated tensor at its bound": lambda: hb._pair_raw(hb.public_input_graph(1)[0], struct.pack("<I", 1) + hb.deflated_tensor(
        hb.deflate_bomb_values(MAX_PUBLIC_TOTAL))),
    "weights at the settings cap": lambda: hb._pair(hb.weights_graph(hb._fit(4 << 20, 4, 300))),
}
# Peak memory of decoding, in bytes a byte of the file it reads: the decoded values take 4 bytes a
# value (an i16 value: 4 bytes from 2; a deflated value: 2 bytes inflated in blocks, then 4), sampled and
# queried values 65,536 columns of a few objects each whatever their length. The settings file is
# read and its model digest computed (the graph encoded again: the weights once more as bytes).
BOUND = {"public i16 values": 3, "sampled values": 2.5, "queried values": 2.5, "weights at the settings cap": 3}

DECODE = r"""
import sys
from luminair.verifier.formats import read_proof_file
from luminair.verifier.statement import read_settings
data = open(sys.argv[1], "rb").read()
status = lambda key: next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith(key)) << 10
before = status("VmRSS:")
if sys.argv[2] == "settings":
    decoded = read_settings(data)
    assert decoded.model_digest
else:
    decoded = read_proof_file(data)
print(status("VmHWM:") - before)
"""


@pytest.mark.parametrize("name", list(CAPPED))
def test_decoding_a_file_at_its_cap_takes_a_few_bytes_of_memory_a_byte(name: str, tmp_path: Path) -> None:
    proof, settings = CAPPED[name]()
    which, data = ("settings", settings) if name.startswith("weights") else ("proof", proof)
    (tmp_path / "f.bin").write_bytes(data)
    out = subprocess.run([sys.executable, "-c", DECODE, str(tmp_path / "f.bin"), which], capture_output=True, text=True,
                         check=True, timeout=60)
    peak = int(out.stdout.split()[-1])
    if name.startswith("a deflated"):  # 2^21 values from 24 KB: per value, not per byte
        assert peak <= 7.5 * MAX_PUBLIC_TOTAL, f"{peak / MAX_PUBLIC_TOTAL:.2f} bytes a value"
    else:
        assert peak <= BOUND.get(name, 1.5) * len(data), f"{peak / len(data):.2f} bytes a byte"
