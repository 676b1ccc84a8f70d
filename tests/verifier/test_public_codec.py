"""proof.bin's public tensors: M31 words, or 16-bit values raw or deflated (formats.PUBLIC_*),
decoded to the same field elements, and every malformed encoding refused with a named error."""

import struct
import zlib
from array import array

import pytest

from luminair.verifier.errors import FormatError
from luminair.verifier.fields import P
from luminair.verifier.formats import PUBLIC_I16, PUBLIC_I16_DEFLATE, PUBLIC_M31, Reader, Writer


def _round_trip(vals):
    w = Writer()
    w.public_tensor(vals)
    data = w.bytes()
    r = Reader(data, "proof.bin")
    decoded = r.public_tensor("public_values[0]", 1 << 22)
    assert isinstance(decoded, array) and decoded.typecode == "I"  # compact: 4 bytes a value
    assert decoded.tolist() == vals
    r.finish()
    return data


def test_each_codec_round_trips_and_the_smallest_is_chosen():
    one_hot = [1024 if i % 256 == 7 else 0 for i in range(8192)]
    assert _round_trip(one_hot)[0] == PUBLIC_I16_DEFLATE and len(_round_trip(one_hot)) < 200
    noisy = [(i * 7919) % 65536 - 32768 for i in range(64)]
    assert _round_trip([v % P for v in noisy])[0] == PUBLIC_I16  # deflate would not help
    wide = [5, P - 1, 1 << 20]  # 2^20 is not a 16-bit value
    assert _round_trip(wide)[0] == PUBLIC_M31
    assert _round_trip([])[0] in (PUBLIC_I16, PUBLIC_I16_DEFLATE)


def _tensor(codec, count, body):
    return bytes([codec]) + struct.pack("<I", count) + body


@pytest.mark.parametrize("data, why", [
    (_tensor(3, 1, b"\0\0"), "unknown codec 3"),
    (_tensor(PUBLIC_I16, 4, b"\0\0"), "truncated"),
    (_tensor(PUBLIC_I16_DEFLATE, 4, struct.pack("<I", 5) + b"hello"), "not a valid deflate stream"),
    # a bomb: 2^20 zero bytes declared as 8 values
    (_tensor(PUBLIC_I16_DEFLATE, 8, struct.pack("<I", len(zlib.compress(bytes(1 << 20)))) + zlib.compress(bytes(1 << 20))),
     "does not hold exactly 8"),
    # too few values, and a stream cut short
    (_tensor(PUBLIC_I16_DEFLATE, 8, struct.pack("<I", len(zlib.compress(bytes(10)))) + zlib.compress(bytes(10))),
     "does not hold exactly 8"),
    (_tensor(PUBLIC_I16_DEFLATE, 8, struct.pack("<I", len(zlib.compress(bytes(16))) - 3) + zlib.compress(bytes(16))[:-3]),
     "does not hold exactly 8"),
    (_tensor(PUBLIC_I16_DEFLATE, 8, struct.pack("<I", len(zlib.compress(bytes(16))) + 2) + zlib.compress(bytes(16)) + b"xx"),
     "does not hold exactly 8"),  # bytes after the stream's end
    (_tensor(PUBLIC_I16_DEFLATE, 2, struct.pack("<I", 1 << 20)), "out of bounds|exceeds|truncated"),
])
def test_malformed_public_tensors_are_refused(data, why):
    import re

    r = Reader(data, "proof.bin")
    with pytest.raises(FormatError) as e:
        r.public_tensor("public_values[0]", 1 << 22)
    assert "public_values[0]" in str(e.value) and re.search(why, str(e.value)), str(e.value)


def test_deflated_public_tensors_are_bounded_in_total():
    """Two deflated tensors of 2^20 + 1 and 2^20 values: a few KB of file, more values than the
    verifier decodes in all (MAX_PUBLIC_TOTAL): refused by name before the second is inflated."""
    from luminair.verifier.formats import FORMAT_VERSION, MAX_PUBLIC_TOTAL, read_proof_file

    def deflated(n):
        packed = zlib.compress(bytes(2 * n), 9)
        return _tensor(PUBLIC_I16_DEFLATE, n, struct.pack("<I", len(packed)) + packed)

    head = b"LMNRPROF" + struct.pack("<H", FORMAT_VERSION) + bytes(32) + struct.pack("<I", 2)
    data = head + deflated(MAX_PUBLIC_TOTAL // 2 + 1) + deflated(MAX_PUBLIC_TOTAL // 2)
    assert len(data) < 10_000
    with pytest.raises(FormatError) as e:
        read_proof_file(data)
    assert "public_values[1]" in str(e.value) and "exceeds the maximum" in str(e.value), str(e.value)
