"""Byte codecs for proof.bin and settings.bin (docs/formats.md).

Every read is bounded: length prefixes are checked against a per-field maximum and against the
bytes that remain *before* anything is allocated; field elements must be canonical (< P); the file
must end exactly where the structure ends. Any violation raises FormatError naming the file and
the field. Large lists are decoded into compact arrays (verifier/packed.py): memory stays within a
few bytes per byte of the file, and what a deflated public tensor declares is charged to the work
budget (`meter`) before it is inflated.

proof.bin  = "LMNRPROF" | u16 version | settings digest (32 B) | public values | STARK proof
settings.bin = "LMNRSETT" | u16 version | u8 statement kind | config | kind-specific body
"""

from __future__ import annotations

import struct
import zlib
from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from .config import PcsConfig
from .errors import FormatError, VersionError
from .fields import P, QM31
from .merkle import DIGEST_BYTES
from .packed import WORD, Digests, QM31s, field_from_i16, from_le, to_le

if TYPE_CHECKING:
    from .budget import WorkMeter

PROOF_MAGIC = b"LMNRPROF"
SETTINGS_MAGIC = b"LMNRSETT"
BUNDLE_MAGIC = b"LMNRSEGS"  # a segmented proof: its segments' proof files (verifier/segments.py)


def is_bundle(data: bytes) -> bool:
    return bytes(data[: len(BUNDLE_MAGIC)]) == BUNDLE_MAGIC
# 2: no model root (the verifier derives the topology), labels apart from identity;
# 3: fused ops (Dot, Relu), the topology columns inside the main tree (one commitment fewer)
# 4: symbolic dimensions (a symbol table in the graph body; a proof fixes the symbols' values)
# 6: shared MatOut components, public tensors as i16, FRI folding three times a commitment
# 7: 26-byte Merkle digests (verifier/merkle.py)
# 8: LogUp batches of four (air/framework.LOGUP_BATCH), the composition in four parts, range
#    tables' values as topology columns, 16-bit range limbs in graphs with a component of 2^16 rows
# 9: a trace-tree leaf per position (one opened value a column a query, not the fold pair); the
#    function tables committed in the main tree, pinned by the verifier's own evaluation at the
#    out-of-domain point instead of a pinned tree of their own
# 10: every Freivalds plain term a multiple of its instance's challenge mu (no constant monomial
#    that another instance's error could cancel: air/framework.py); presets sized for the union of
#    the soundness terms
# 11: index inputs (node flag 2: integers such as token ids) and Gather nodes (rows of a constant
#    table at an index input, computed by the verifier)
# 12: a scale per node (settings.bin: a u8 after the axis; every shift, exponent and table scale is
#    derived from the scales)
# 13: committed weights (node flag 4 on a constant, no values; the body's model bits; settings.bin's
#    model section after the body: the log blowup and the model tree's root, a tree of its own;
#    proof.bin's vectors after the interaction nonce: v = W rho of the products of committed weights)
FORMAT_VERSION = 13
# What a file of each older version (1, 2, ...) lacked, as the "unsupported version" message says it
OLDER_FORMATS = (
    "whose verifier trusted the model commitment in settings.bin",
    "with another proof layout",
    "without symbolic dimensions",
    "whose matrix products were proven without the Freivalds check",
    "whose checked products had an output component each",
    "with 32-byte Merkle digests",
    "with LogUp batches of two, a range table tree and 8-bit limbs only",
    "whose trace trees opened fold pairs and whose function tables had trees of their own",
    "whose Freivalds terms could cancel between two product instances (unsound)",
    "without index inputs and Gather nodes",
    "with one scale for every tensor",
    "without committed weights",
)

MAX_TREES = 16
MAX_COLUMNS = 1 << 12  # a graph AIR's largest tree has a few hundred; example AIRs at most 256
MAX_MASKS = 8
MAX_OPENED = 1 << 12
MAX_WITNESS = 1 << 20
MAX_VECTOR = 1 << 18  # a vector's values (a product's reduced length K)
MAX_FRI_LAYERS = 40
MAX_LAST_LAYER = 1 << 10
MAX_PUBLIC_TENSORS = 1 << 12
MAX_PUBLIC_VALUES = 1 << 22
MAX_PUBLIC_TOTAL = 1 << 21  # all public tensors together (what 8 MiB of M31 words could hold)

# How one public tensor's values are stored (u8 codec | u32 count | ...): as M31 words, or, when
# every value is a 16-bit fixed-point number (v or v - P in [-2^15, 2^15)), as i16 words, raw or
# deflated (a one-hot token input or a model's logits: 4 bytes a value would be most of a proof).
# The reader accepts any of them for any values, and any deflate stream: the encoding is not
# canonical (the statement is the decoded values; README "Files")
PUBLIC_M31, PUBLIC_I16, PUBLIC_I16_DEFLATE = 0, 1, 2


_U8, _U16, _U32, _U64, _I32 = (struct.Struct(f) for f in ("<B", "<H", "<I", "<Q", "<i"))


class Reader:
    """Bounded little-endian reader; `file` names the file in every error message."""

    __slots__ = ("data", "pos", "file")

    def __init__(self, data: bytes, file: str) -> None:
        self.data = bytes(data)
        self.pos = 0
        self.file = file

    def fail(self, what: str, why: str) -> FormatError:
        return FormatError(f"{self.file}: {what}: {why} (at byte {self.pos})")

    def remaining(self) -> int:
        return len(self.data) - self.pos

    def take(self, n: int, what: str) -> bytes:
        return bytes(self.view(n, what))

    def view(self, n: int, what: str) -> memoryview:
        """The next n bytes, without a copy (what a compact array is decoded from)."""
        if n > self.remaining():
            raise self.fail(what, f"truncated: needs {n} bytes, {self.remaining()} left")
        out = memoryview(self.data)[self.pos : self.pos + n]
        self.pos += n
        return out

    def _word(self, fmt: struct.Struct, what: str) -> int:
        if fmt.size > len(self.data) - self.pos:
            raise self.fail(what, f"truncated: needs {fmt.size} bytes, {self.remaining()} left")
        (v,) = fmt.unpack_from(self.data, self.pos)
        self.pos += fmt.size
        return v

    def u8(self, what: str) -> int:
        return self._word(_U8, what)

    def u16(self, what: str) -> int:
        return self._word(_U16, what)

    def u32(self, what: str) -> int:
        return self._word(_U32, what)

    def u64(self, what: str) -> int:
        return self._word(_U64, what)

    def i32(self, what: str) -> int:
        return self._word(_I32, what)

    def count(self, what: str, maximum: int, item_size: int) -> int:
        n = self.u32(f"{what} count")
        if n > maximum:
            raise self.fail(what, f"count {n} exceeds the maximum {maximum}")
        if n * item_size > self.remaining():
            raise self.fail(what, f"truncated: {n} items need {n * item_size} bytes, {self.remaining()} left")
        return n

    def m31s(self, n: int, what: str) -> array:
        """n canonical field elements (array("I"))."""
        vals = from_le(WORD, self.view(4 * n, what))
        if vals and max(vals) >= P:
            bad = next(v for v in vals if v >= P)
            raise self.fail(what, f"non-canonical field element {bad} (>= P)")
        return vals

    def m31(self, what: str) -> int:
        return self.m31s(1, what)[0]

    def qm31(self, what: str) -> QM31:
        a, b, c, d = self.m31s(4, what)
        return (a, b, c, d)

    def qm31_list(self, what: str, maximum: int) -> QM31s:
        n = self.count(what, maximum, 16)
        return QM31s(flat=self.m31s(4 * n, what))

    def m31_list(self, what: str, maximum: int) -> array:
        n = self.count(what, maximum, 4)
        return self.m31s(n, what)

    def public_tensor(self, what: str, maximum: int, meter: WorkMeter | None = None) -> array:
        """One public tensor's values (PUBLIC_* codecs), as canonical field elements; `meter` is
        charged for the values before they are decoded (a deflated tensor: before inflating)."""
        codec = self.u8(f"{what} codec")
        if codec not in (PUBLIC_M31, PUBLIC_I16, PUBLIC_I16_DEFLATE):
            raise self.fail(f"{what} codec", f"unknown codec {codec}")
        n = self.count(what, maximum, {PUBLIC_M31: 4, PUBLIC_I16: 2, PUBLIC_I16_DEFLATE: 0}[codec])
        if meter is not None:
            meter.charge_public_values(n)
        if codec == PUBLIC_M31:
            return self.m31s(n, what)
        if codec == PUBLIC_I16:
            raw: bytes | memoryview = self.view(2 * n, what)
        else:
            packed = self.view(self.count(f"{what} deflated bytes", 2 * n + 1024, 1), what)
            inflate = zlib.decompressobj()
            try:  # at most 2n bytes come out, however the stream was made
                raw = inflate.decompress(packed, 2 * n)
            except zlib.error as e:
                if str(e).startswith("Error -4 "):  # Z_MEM_ERROR
                    raise MemoryError from None  # zlib's own allocation failed: not the stream's fault
                raise self.fail(what, f"not a valid deflate stream ({e})") from None
            if len(raw) != 2 * n or not inflate.eof or inflate.unconsumed_tail or inflate.unused_data:
                raise self.fail(what, f"the deflate stream does not hold exactly {n} 16-bit values")
        return field_from_i16(raw)

    def hashes(self, what: str, maximum: int) -> Digests:
        n = self.count(what, maximum, DIGEST_BYTES)
        return Digests(flat=bytearray(self.view(DIGEST_BYTES * n, what)))

    def string(self, what: str, maximum: int = 1 << 16) -> str:
        n = self.u32(f"{what} length")
        if n > maximum or n > self.remaining():
            raise self.fail(what, f"string length {n} out of bounds")
        try:
            return self.take(n, what).decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail(what, "not valid UTF-8") from None

    def finish(self) -> None:
        if self.remaining():
            raise self.fail("end of file", f"{self.remaining()} unexpected trailing bytes")


class Writer:
    __slots__ = ("parts", "marks")

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.marks: list[tuple[str, int]] = []

    def mark(self, region: str) -> None:
        """Start a named region (for size breakdowns and per-region tamper tests)."""
        self.marks.append((region, sum(len(p) for p in self.parts)))

    def regions(self) -> dict[str, tuple[int, int]]:
        """Region name -> (start, end) byte offsets, in file order."""
        ends = [start for _, start in self.marks[1:]] + [sum(len(p) for p in self.parts)]
        return {name: (start, end) for (name, start), end in zip(self.marks, ends)}

    def raw(self, b: bytes) -> None:
        self.parts.append(bytes(b))

    def u8(self, v: int) -> None:
        self.parts.append(struct.pack("<B", v))

    def u16(self, v: int) -> None:
        self.parts.append(struct.pack("<H", v))

    def u32(self, v: int) -> None:
        self.parts.append(struct.pack("<I", v))

    def u64(self, v: int) -> None:
        self.parts.append(struct.pack("<Q", v))

    def i32(self, v: int) -> None:
        self.parts.append(struct.pack("<i", v))

    def m31s(self, vals: Sequence[int]) -> None:
        self.parts.append(to_le(vals))

    def m31_list(self, vals: Sequence[int]) -> None:
        self.u32(len(vals))
        self.m31s(vals)

    def qm31(self, q: QM31) -> None:
        self.m31s(list(q))

    def qm31_list(self, qs: Sequence[QM31]) -> None:
        self.u32(len(qs))
        self.m31s(qs.flat if isinstance(qs, QM31s) else [c for q in qs for c in q])

    def public_tensor(self, vals: Sequence[int]) -> None:
        """The smallest of the PUBLIC_* codecs that holds `vals` (field elements)."""
        signed = [v if v < P // 2 else v - P for v in vals]
        if any(not -(1 << 15) <= v < (1 << 15) for v in signed):
            self.u8(PUBLIC_M31)
            self.m31_list(vals)
            return
        raw = to_le(signed, "h")
        packed = zlib.compress(raw, 9)
        if len(packed) + 4 < len(raw):
            self.u8(PUBLIC_I16_DEFLATE)
            self.u32(len(signed))
            self.u32(len(packed))
            self.raw(packed)
        else:
            self.u8(PUBLIC_I16)
            self.u32(len(signed))
            self.raw(raw)

    def hashes(self, hs: Sequence[bytes]) -> None:
        self.u32(len(hs))
        self.parts.append(bytes(hs.flat) if isinstance(hs, Digests) else b"".join(hs))

    def string(self, s: str) -> None:
        b = s.encode("utf-8")
        self.u32(len(b))
        self.parts.append(b)

    def bytes(self) -> bytes:
        return b"".join(self.parts)


# --- headers ------------------------------------------------------------------------------------


def read_header(r: Reader, magic: bytes, kind: str) -> int:
    if r.remaining() == 0:
        raise FormatError(f"{r.file}: the file is empty")
    head = r.data[: len(magic)]
    if head != magic:
        other = SETTINGS_MAGIC if magic == PROOF_MAGIC else PROOF_MAGIC
        if head == other:
            raise FormatError(f"{r.file}: this is a luminair {'settings' if kind == 'proof' else 'proof'} file, not a {kind} file")
        raise FormatError(f"{r.file}: not a luminair {kind} file (bad magic bytes)")
    r.take(len(magic), "magic")
    version = r.u16("format version")
    if version != FORMAT_VERSION:
        if version > FORMAT_VERSION:
            remedy = " (made by a newer luminair; upgrade the verifier)"
        else:
            why = OLDER_FORMATS[version - 1] if 1 <= version <= len(OLDER_FORMATS) else "of an unknown kind"
            remedy = (f" (made by an older luminair {why}; "
                      "prove the model again with this version to get a new proof.bin and settings.bin)")
        raise VersionError(
            f"{r.file}: format version {version} is not supported, this verifier reads version {FORMAT_VERSION}{remedy}"
        )
    return version


def sniff(data: bytes) -> dict[str, object]:
    """Identify a luminair file without decoding it: {"kind": "proof"|"settings", "version": n}
    (a segmented proof's bundle: a proof, "segmented": True).
    Raises FormatError for anything else."""
    data = bytes(data)
    for magic, kind in ((PROOF_MAGIC, "proof"), (SETTINGS_MAGIC, "settings"), (BUNDLE_MAGIC, "proof")):
        if data.startswith(magic):
            if len(data) < len(magic) + 2:
                raise FormatError(f"{kind} file: truncated header")
            version = struct.unpack_from("<H", data, len(magic))[0]
            head = {"kind": kind, "version": version, "supported": version == FORMAT_VERSION, "size": len(data)}
            return head | {"segmented": True} if magic == BUNDLE_MAGIC else head
    raise FormatError("not a luminair file (bad magic bytes)")


# --- config -------------------------------------------------------------------------------------


def write_config(w: Writer, c: PcsConfig) -> None:
    w.u8(c.pow_bits)
    w.u8(c.log_blowup)
    w.u16(c.n_queries)
    w.u8(c.log_last_layer)
    w.u8(c.interaction_pow_bits)


def read_config(r: Reader) -> PcsConfig:
    return PcsConfig(
        pow_bits=r.u8("config.pow_bits"),
        log_blowup=r.u8("config.log_blowup"),
        n_queries=r.u16("config.n_queries"),
        log_last_layer=r.u8("config.log_last_layer"),
        interaction_pow_bits=r.u8("config.interaction_pow_bits"),
    )


# --- the STARK proof ----------------------------------------------------------------------------


# Decoded proofs hold their lists compact (Digests, QM31s, array("I")); the prover's are lists.
@dataclass
class Decommitment:
    hash_witness: Sequence[bytes] = field(default_factory=list)
    column_witness: Sequence[int] = field(default_factory=list)


@dataclass
class FriLayerProof:
    root: bytes
    siblings: Sequence[QM31]  # fold partners the verifier cannot compute, in query order
    decommitment: Decommitment


@dataclass
class FriProof:
    first_layer: FriLayerProof
    inner_layers: list[FriLayerProof]
    last_layer: Sequence[QM31]


@dataclass
class StarkProof:
    commitments: Sequence[bytes]  # main, [interaction], composition
    claimed_sums: Sequence[QM31]  # one per component with LogUp entries
    sampled_values: Sequence[Sequence[Sequence[QM31]]]  # tree -> column -> mask
    queried_values: Sequence[Sequence[Sequence[int]]]  # tree -> column -> opened values
    decommitments: list[Decommitment]  # per tree
    fri: FriProof
    pow_nonce: int
    interaction_nonce: int = 0  # grinding before the LogUp challenges
    # the prover's vectors, sent once the challenges are drawn (v = W rho of each product with
    # committed weights, graph/components.MatWComponent), one per Air.vector_components
    vectors: Sequence[Sequence[QM31]] = ()


def _write_decommitment(w: Writer, d: Decommitment) -> None:
    w.hashes(d.hash_witness)
    w.m31_list(d.column_witness)


def _read_decommitment(r: Reader, what: str) -> Decommitment:
    return Decommitment(
        hash_witness=r.hashes(f"{what}.hash_witness", MAX_WITNESS),
        column_witness=r.m31_list(f"{what}.column_witness", MAX_WITNESS),
    )


def _write_fri_layer(w: Writer, layer: FriLayerProof) -> None:
    w.raw(layer.root)
    w.qm31_list(layer.siblings)
    _write_decommitment(w, layer.decommitment)


def _read_fri_layer(r: Reader, what: str) -> FriLayerProof:
    return FriLayerProof(
        root=r.take(DIGEST_BYTES, f"{what}.root"),
        siblings=r.qm31_list(f"{what}.siblings", MAX_OPENED * 8),
        decommitment=_read_decommitment(r, what),
    )


def write_stark_proof(w: Writer, p: StarkProof) -> None:
    w.mark("commitments")
    w.hashes(p.commitments)
    w.mark("interaction proof of work")
    w.u64(p.interaction_nonce)
    w.mark("vectors")
    w.u32(len(p.vectors))
    for vec in p.vectors:
        w.qm31_list(vec)
    w.mark("claimed sums")
    w.qm31_list(p.claimed_sums)
    w.mark("sampled values")
    w.u32(len(p.sampled_values))
    for tree in p.sampled_values:
        w.u32(len(tree))
        for col in tree:
            w.qm31_list(col)
    w.mark("queried values")
    w.u32(len(p.queried_values))
    for opened in p.queried_values:
        w.u32(len(opened))
        for values in opened:
            w.m31_list(values)
    w.mark("decommitments")
    w.u32(len(p.decommitments))
    for d in p.decommitments:
        _write_decommitment(w, d)
    w.mark("FRI first layer")
    _write_fri_layer(w, p.fri.first_layer)
    w.mark("FRI inner layers")
    w.u32(len(p.fri.inner_layers))
    for layer in p.fri.inner_layers:
        _write_fri_layer(w, layer)
    w.mark("FRI last layer")
    w.qm31_list(p.fri.last_layer)
    w.mark("proof of work")
    w.u64(p.pow_nonce)


def read_stark_proof(r: Reader) -> StarkProof:
    commitments = r.hashes("commitments", MAX_TREES)
    interaction_nonce = r.u64("interaction_nonce")
    vectors = [r.qm31_list(f"vectors[{i}]", MAX_VECTOR) for i in range(r.count("vectors", MAX_COLUMNS, 4))]
    claimed = r.qm31_list("claimed_sums", MAX_COLUMNS)
    sampled = [
        [r.qm31_list(f"sampled_values[{t}][{c}]", MAX_MASKS)
         for c in range(r.count(f"sampled_values[{t}] columns", MAX_COLUMNS, 4))]
        for t in range(r.count("sampled_values trees", MAX_TREES, 4))
    ]
    queried = [
        [r.m31_list(f"queried_values[{t}][{c}]", MAX_OPENED)
         for c in range(r.count(f"queried_values[{t}] columns", MAX_COLUMNS, 4))]
        for t in range(r.count("queried_values trees", MAX_TREES, 4))
    ]
    decs = [
        _read_decommitment(r, f"decommitments[{t}]")
        for t in range(r.count("decommitments", MAX_TREES, 8))
    ]
    first = _read_fri_layer(r, "fri.first_layer")
    inner = [
        _read_fri_layer(r, f"fri.inner_layers[{k}]")
        for k in range(r.count("fri.inner_layers", MAX_FRI_LAYERS, DIGEST_BYTES + 12))  # root, 3 empty lists
    ]
    last = r.qm31_list("fri.last_layer", MAX_LAST_LAYER)
    nonce = r.u64("pow_nonce")
    return StarkProof(commitments, claimed, sampled, queried, decs, FriProof(first, inner, last), nonce, interaction_nonce,
                      vectors)


# --- proof.bin ----------------------------------------------------------------------------------


@dataclass
class ProofFile:
    settings_digest: bytes
    public_values: list[Sequence[int]]  # per public tensor of the statement, M31 values in order
    stark: StarkProof
    stark_bytes: int = field(default=0, compare=False)  # the STARK part's size in the file read (work budget)

    def to_bytes(self) -> bytes:
        return self.encode().bytes()

    def encode(self) -> Writer:
        """The encoded file with its regions marked (see Writer.regions)."""
        w = Writer()
        w.mark("header")
        w.raw(PROOF_MAGIC)
        w.u16(FORMAT_VERSION)
        w.mark("settings digest")
        w.raw(self.settings_digest)
        w.mark("public values")
        w.u32(len(self.public_values))
        for vals in self.public_values:
            w.public_tensor(vals)
        write_stark_proof(w, self.stark)
        return w


def read_proof_file(data: bytes, meter: WorkMeter | None = None) -> ProofFile:
    """proof.bin decoded; `meter` (verify's work budget) is charged for the public values before
    they are decoded."""
    r = Reader(data, "proof.bin")
    read_header(r, PROOF_MAGIC, "proof")
    digest = r.take(32, "settings digest")
    public: list[Sequence[int]] = []
    left = MAX_PUBLIC_TOTAL  # deflated tensors are not bounded by the file's size: their sum is
    for i in range(r.count("public_values", MAX_PUBLIC_TENSORS, 5)):
        public.append(r.public_tensor(f"public_values[{i}]", min(MAX_PUBLIC_VALUES, left), meter))
        left -= len(public[-1])
    start = r.pos
    stark = read_stark_proof(r)
    r.finish()
    return ProofFile(digest, public, stark, r.pos - start)
