"""The STARK verifier, step by step (docs/protocol.md). `verify_stark` raises a typed
VerificationError naming the failed check; the file-level `verify` (verifier/api.py) wraps it.

Transcript order (the prover mirrors it in prover/stark/prove.py):
  1. protocol tag, config, statement (settings digest + public values), component list
  2. the proof's own statement roots (input, output trees), a segment's bundle seed; main root (the main trace, the topology columns, which the constraints pin, and the function
     tables, pinned in step 4); a model tree of committed weights is settings.bin's, opened in step 6
  3. interaction proof of work; LogUp relation elements and challenges; the prover's vectors (v = W rho
     of committed weights), then the challenges drawn against them; claimed sums (checked against the
     public terms); interaction root
  4. composition alpha; composition root; OODS point; sampled values (the columns the verifier
     knows, the function tables, must match its own evaluation); DEEP alpha
  5. FRI roots with their folding randomness; last layer; proof of work; query positions
  6. Merkle openings of every tree, DEEP quotients at the queries, FRI folds to the last layer
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Callable

from .air.framework import Air, RelationElements
from .air.point import composition_at_oods, composition_from_samples, shifted_point
from .channel import Channel, check_pow
from .circle import QPoint, qpoint_from_t
from .config import PcsConfig
from .errors import FormatError, LogUpError, MerkleError, OodsMismatch, PowError
from .fields import QM31, QZERO, q_add, q_conj
from .formats import StarkProof
from .fri import FriVerifier
from .pcs import Sample, open_trace_tree, quotient_values
from .poly import dense_columns_at
from .usage import check_bytes, check_callable, check_type

PROTOCOL_TAG = b"luminair circle-stark v1"

Progress = Callable[[int, int, str], None]

STEPS = (
    "Read proof and settings",
    "Bind statement, config and public values",
    "Check trace commitments and LogUp sums",
    "Check constraints at the out-of-domain point",
    "Check FRI commitments and proof of work",
    "Open queries: Merkle paths, DEEP quotients, FRI folds",
)


def report(progress: Progress | None, step: int) -> None:
    if progress is not None:
        progress(step, len(STEPS), STEPS[step - 1])


def air_digest(air: Air) -> bytes:
    """Names and log sizes of every component, in order: the shape of the statement."""
    h = hashlib.blake2s()
    for comp in air.components:
        name = comp.name.encode()
        h.update(len(name).to_bytes(4, "little") + name + comp.log_size.to_bytes(4, "little"))
    return h.digest()


def mix_statement(channel: Channel, config: PcsConfig, statement: bytes, air: Air) -> None:
    channel.mix(PROTOCOL_TAG)
    channel.mix_u32s(config.words())
    channel.mix(hashlib.blake2s(statement).digest())
    channel.mix(air_digest(air))


def draw_elements(channel: Channel, air: Air) -> dict[str, RelationElements]:
    out = {}
    for rel in air.relations:
        z, alpha = channel.draw_felts(2)
        out[rel] = RelationElements(z, alpha)
    return out


SHARED_PREFIX = "bundle."  # challenges a segmented proof's segments share (verifier/segments.py)


def shared_challenge(seed: bytes, name: str) -> QM31:
    """A challenge common to every segment of a segmented proof: drawn from the bundle's seed alone
    (which binds every segment's boundary roots), not from one segment's channel."""
    channel = Channel()
    channel.mix(b"luminair shared challenge " + seed)
    channel.mix(name.encode())
    return channel.draw_felt()


def draw_challenges(channel: Channel, air: Air, seed: bytes | None = None) -> dict[str, QM31]:
    """The components' own challenges (air.challenges, in sorted order), drawn right after the
    relation elements; a shared one (SHARED_PREFIX) comes from the bundle's `seed`."""
    out = {}
    for name in air.challenges:
        if name.startswith(SHARED_PREFIX):
            if seed is None:
                raise FormatError(f"challenge {name!r} is a segmented proof's: this proof is checked without its bundle")
            out[name] = shared_challenge(seed, name)
        else:
            out[name] = channel.draw_felt()
    return out


def mix_statement_roots(channel: Channel, air: Air, roots: Sequence[bytes], seed: bytes | None) -> None:
    """The roots of the proof's own statement trees (the input and output trees), then a segment's
    bundle seed: everything a segment's challenges depend on beyond the statement."""
    for tree, root in zip([t for t in air.preprocessed if t.statement], roots):
        if tree.proof_root:
            channel.mix_root(root)
    if seed is not None:
        channel.mix(b"luminair bundle seed " + seed)


def statement_roots(air: Air, proof: StarkProof) -> list[bytes]:
    """Every tree's root in layout order: the statement trees' (settings.bin's, or the first of
    proof.bin's commitments for a proof_root tree), then the rest of proof.bin's."""
    own = list(proof.commitments)
    roots = []
    for tree in air.preprocessed:
        if tree.statement:
            roots.append(own.pop(0) if tree.proof_root else tree.root)
    return roots + own


def draw_late_challenges(channel: Channel, air: Air, vectors: Sequence[Sequence[QM31]]) -> dict[str, QM31]:
    """The challenges drawn after the prover's vectors (air.late_challenges, in sorted order): the
    vectors are mixed first, so each late challenge is random against them."""
    if not air.late_challenges:
        return {}
    channel.mix_felts([x for vec in vectors for x in vec])
    return {name: channel.draw_felt() for name in air.late_challenges}


def _expect(cond: bool, what: str) -> None:
    if not cond:
        raise FormatError(f"proof.bin: {what}")


def check_shape(air: Air, proof: StarkProof) -> None:
    """The proof's lists must have exactly the sizes the statement implies."""
    lay = air.layout
    # a statement tree's root is settings.bin's (the model tree) or leads proof.bin's (the input tree)
    n_commit = 2 + (lay.interaction_tree is not None) + sum(t.proof_root for t in air.preprocessed if t.statement)
    _expect(len(proof.commitments) == n_commit, f"{len(proof.commitments)} commitments, expected {n_commit}")
    lengths = [air.components[ci].vector_length for ci in air.vector_components]
    _expect(len(proof.vectors) == len(lengths), f"{len(proof.vectors)} vectors, expected {len(lengths)}")
    for i, (vec, n) in enumerate(zip(proof.vectors, lengths)):
        _expect(len(vec) == n, f"vector {i} ({air.components[air.vector_components[i]].name}): {len(vec)} values, expected {n}")
    n_sums = sum(1 for info in air.infos if info.n_batches)
    _expect(len(proof.claimed_sums) == n_sums, f"{len(proof.claimed_sums)} claimed sums, expected {n_sums}")
    n_trees = len(lay.columns)
    _expect(len(proof.sampled_values) == n_trees, f"sampled values for {len(proof.sampled_values)} trees, expected {n_trees}")
    _expect(len(proof.queried_values) == n_trees, f"queried values for {len(proof.queried_values)} trees, expected {n_trees}")
    _expect(len(proof.decommitments) == n_trees, f"{len(proof.decommitments)} decommitments, expected {n_trees}")
    for t, cols in enumerate(lay.columns):
        name = lay.tree_names[t]
        _expect(len(proof.sampled_values[t]) == len(cols), f"{name} tree: {len(proof.sampled_values[t])} sampled columns, expected {len(cols)}")
        _expect(len(proof.queried_values[t]) == len(cols), f"{name} tree: {len(proof.queried_values[t])} queried columns, expected {len(cols)}")
        for c, slot in enumerate(cols):
            got = len(proof.sampled_values[t][c])
            _expect(got == len(slot.masks), f"{name} tree column {c}: {got} sampled values, expected {len(slot.masks)}")


def degenerate(point: QPoint) -> bool:
    """A DEEP sample point whose y equals its conjugate: the quotient's line through the point and
    its conjugate would divide by zero (and the sample would not bind the polynomial)."""
    return q_conj(point[1]) == point[1]


def check_known_columns(air: Air, sampled: Sequence[Sequence[Sequence[QM31]]], oods: QPoint) -> None:
    """Preprocessed columns the verifier knows (`known_values`, committed in the main tree by the
    prover): each sample must be the verifier's own evaluation of the column at that point. With
    the DEEP quotient binding the committed polynomial to its sample, a committed column that
    differs from the known one agrees at the random point only with the OODS error's probability."""
    lay = air.layout
    for tree in air.preprocessed:
        if tree.known_values is None:
            continue
        values = tree.known_values()
        by_size: dict[int, list[str]] = {}
        for col in tree.columns:
            by_size.setdefault(col.log_size, []).append(col.key)
        for log_size, keys in by_size.items():
            slots = [lay.pre_index[key] for key in keys]
            for offset in sorted({o for t, c in slots for o in lay.columns[t][c].masks}):
                point = shifted_point(oods, offset, log_size)
                try:
                    own = dense_columns_at(point, [values[key] for key in keys], log_size)
                except ZeroDivisionError:
                    raise OodsMismatch("degenerate out-of-domain point (on a preprocessed column's domain)") from None
                for key, (t, c), v in zip(keys, slots, own):
                    slot = lay.columns[t][c]
                    if offset in slot.masks and sampled[t][c][slot.masks.index(offset)] != v:
                        raise OodsMismatch(
                            f"preprocessed column {key!r}: the sample at the out-of-domain point is not the "
                            f"{tree.name} the statement names"
                        )


def check_sample_points(oods: QPoint, lay) -> None:  # noqa: ANN001 - Layout
    """Refuse an OODS point for which any sampled point (every mask shift included) is degenerate."""
    shifts = {(slot.log_size, o) for cols in lay.columns for slot in cols for o in slot.masks}
    for log_size, offset in sorted(shifts):
        if degenerate(shifted_point(oods, offset, log_size)):
            raise OodsMismatch(f"degenerate sample point (y = conj(y)) at mask offset {offset}, log size {log_size}")


def verify_stark(
    air: Air,
    config: PcsConfig,
    statement: bytes,
    proof: StarkProof,
    public_sum: Callable[[dict[str, RelationElements]], QM31] | None = None,
    progress: Progress | None = None,
    seed: bytes | None = None,
) -> None:
    """Check `proof` of `air` under `config` for `statement` (bytes that identify the statement:
    settings digest and public values); `seed`: a segment's bundle seed (verifier/segments.py).
    Raises a VerificationError subclass on rejection (an argument of the wrong type: UsageError,
    check "usage")."""
    for name, value, kind in (("air", air, Air), ("config", config, PcsConfig), ("proof", proof, StarkProof)):
        check_type("verify_stark", name, value, kind)
    check_bytes("verify_stark", "statement", statement)
    check_callable("verify_stark", "public_sum", public_sum)
    check_callable("verify_stark", "progress", progress)
    lay = air.layout
    blowup = config.log_blowup
    check_shape(air, proof)

    # 1. Statement: everything the challenges depend on is mixed before any draw.
    report(progress, 2)
    channel = Channel()
    mix_statement(channel, config, statement, air)

    # 2. The main commitment: the trace, and the preprocessed columns (the topology, which the
    #    constraints pin; the function tables, which step 4 pins).
    report(progress, 3)
    # the statement trees' roots (the model tree's: settings.bin's, bound by the statement digest; the
    # input tree's: proof.bin's, mixed here), then main (with the preprocessed columns), [interaction],
    # composition
    roots = statement_roots(air, proof)
    mix_statement_roots(channel, air, roots, seed)
    channel.mix_root(roots[lay.main_tree])

    # 3. LogUp: grinding, then the relation elements; bind the claimed sums, check they cancel the
    #    public terms.
    if not check_pow(channel, config.interaction_pow_bits, proof.interaction_nonce):
        raise PowError(
            f"interaction nonce {proof.interaction_nonce} does not give {config.interaction_pow_bits} trailing zero "
            "bits: the statement, public values or main commitment differ from what the prover ground against"
        )
    channel.mix_u64(proof.interaction_nonce)
    elements = draw_elements(channel, air)
    challenges = draw_challenges(channel, air, seed)
    challenges |= draw_late_challenges(channel, air, proof.vectors)
    # the claimed sums of the components with LogUp entries, in order (check_shape counted them)
    claimed = dict(zip([ci for ci, info in enumerate(air.infos) if info.n_batches], proof.claimed_sums))
    channel.mix_felts(proof.claimed_sums)
    total = public_sum(elements) if public_sum is not None else air.public_logup_sum(elements)
    for ci, vec in zip(air.vector_components, proof.vectors):  # the vectors' own terms (MatW's check)
        total = q_add(total, air.components[ci].public_term(challenges, list(vec)))
    for s in proof.claimed_sums:
        total = q_add(total, s)
    if total != QZERO:
        raise LogUpError(
            "the claimed sums and the public terms do not add up to zero (a lookup, the data flow or a "
            "matrix product's Freivalds check fails)"
        )
    if lay.interaction_tree is not None:
        channel.mix_root(roots[lay.interaction_tree])

    # 4. Composition: random combination of all constraints, checked at a random point.
    report(progress, 4)
    alpha = channel.draw_felt()
    channel.mix_root(roots[lay.composition_tree])
    oods = qpoint_from_t(channel.draw_felt())
    check_sample_points(oods, lay)
    channel.mix_felts([v for tree in proof.sampled_values for col in tree for v in col])
    check_known_columns(air, proof.sampled_values, oods)
    try:
        expected = composition_at_oods(air, proof.sampled_values, oods, alpha, elements, claimed, challenges)
    except ZeroDivisionError:
        raise OodsMismatch("degenerate out-of-domain point") from None
    if expected != composition_from_samples(air, proof.sampled_values, oods):
        raise OodsMismatch("the composition polynomial does not match the constraints at the OODS point")
    deep_alpha = channel.draw_felt()

    # 5. FRI commitments, then proof of work, then the query positions.
    report(progress, 5)
    sizes = sorted({slot.log_size + blowup for cols in lay.columns for slot in cols}, reverse=True)
    fri = FriVerifier(config, sizes, proof.fri)
    fri.commit(channel)
    if not check_pow(channel, config.pow_bits, proof.pow_nonce):
        raise PowError(f"nonce {proof.pow_nonce} does not give {config.pow_bits} trailing zero bits")
    channel.mix_u64(proof.pow_nonce)
    max_log = sizes[0]
    queries = channel.draw_queries(config.n_queries, max_log)

    # 6. Openings: Merkle paths of every trace tree, then DEEP quotients, then FRI.
    report(progress, 6)
    positions = {s: sorted({q >> (max_log - s) for q in queries}) for s in sizes}
    opened: dict[tuple[int, int], dict[int, int]] = {}
    samples: dict[int, list[Sample]] = {s: [] for s in sizes}
    for t, cols in enumerate(lay.columns):
        log_sizes = [slot.log_size + blowup for slot in cols]
        tree_opened = open_trace_tree(
            lay.tree_names[t], roots[t], log_sizes, positions, proof.queried_values[t], proof.decommitments[t]
        )
        for c, slot in enumerate(cols):
            opened[(t, c)] = tree_opened[c]
            for k, offset in enumerate(slot.masks):
                point = shifted_point(oods, offset, slot.log_size)
                samples[slot.log_size + blowup].append(Sample(t, c, point, proof.sampled_values[t][c][k]))
    try:
        quotients = {s: quotient_values(s, positions[s], samples[s], opened, deep_alpha) for s in sizes}
    except ZeroDivisionError:
        raise MerkleError("degenerate DEEP quotient denominator") from None
    fri.decommit(queries, quotients)
