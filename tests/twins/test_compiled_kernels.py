"""Every compiled kernel (prover/stark/jit) bit for bit against its numpy / hashlib twin and the
verifier's reference function."""

import hashlib
import random

import numpy as np
import pytest

from luminair.prover.stark import circle_fft as cf
from luminair.prover.stark import merkle_tree as mt
from luminair.prover.stark import pcs_prover as pp
from luminair.prover.stark import pow_grind
from luminair.prover.stark.jit import blake2s as jb
import reference_fft as rf
from luminair.verifier.channel import Channel, pow_hash, trailing_zeros
from luminair.verifier.fields import P
from luminair.verifier.merkle import DIGEST_BYTES, LEAF_PREFIX, NODE_PREFIX, leaf_hash, node_hash, verify_decommitment
from luminair.verifier.pcs import Sample, quotient_values

RNG = np.random.default_rng(29)


def _both(monkeypatch, fn):
    """fn() with the compiled kernels and with the twins; both results."""
    monkeypatch.setenv("LUMINAIR_KERNELS", "numba")
    a = fn()
    monkeypatch.setenv("LUMINAIR_KERNELS", "numpy")
    return a, fn()


# --- BLAKE2s ------------------------------------------------------------------------------------


def test_one_block_matches_hashlib():
    for msg in (b"", b"abc", bytes(range(64))):
        h = jb.compress_block(jb.initial_state(32), msg.ljust(64, b"\0"), len(msg), True)
        assert h.astype("<u4").tobytes() == hashlib.blake2s(msg).digest()


@pytest.mark.parametrize("width", [1, 2, 3, 13, 15, 16, 17, 31, 32, 33, 40])
def test_leaves_match_the_verifier(width):
    rows = 37  # two full lane groups and a partial one
    values = RNG.integers(0, 1 << 32, size=(width, rows), dtype=np.uint64).astype(np.uint32)
    out = np.empty((rows, DIGEST_BYTES), dtype=np.uint8)
    jb.hash_rows(mt._prefix_state(LEAF_PREFIX), 64, np.empty(0, np.uint32), 0, values, out, DIGEST_BYTES)
    for i in range(rows):
        assert bytes(out[i]) == leaf_hash(values[:, i].astype("<u4").tobytes())


@pytest.mark.parametrize("width", [0, 1, 3, 4, 19, 20, 35])  # 13 + width words: 1, 2 and 3 blocks
def test_nodes_match_the_verifier(width):
    rows = 21
    children = RNG.integers(0, 256, size=2 * rows * DIGEST_BYTES, dtype=np.uint8)
    values = RNG.integers(0, P, size=(width, rows), dtype=np.uint64).astype(np.uint32)
    out = np.empty((rows, DIGEST_BYTES), dtype=np.uint8)
    jb.hash_rows(mt._prefix_state(NODE_PREFIX), 64, children.view("<u4"), 13, values, out, DIGEST_BYTES)
    for i in range(rows):
        pair = children[2 * DIGEST_BYTES * i : 2 * DIGEST_BYTES * (i + 1)].tobytes()
        assert bytes(out[i]) == node_hash(pair[:DIGEST_BYTES], pair[DIGEST_BYTES:], values[:, i].astype("<u4").tobytes())


def _serial_nonce(prefix: bytes, bits: int, lo: int, hi: int) -> int:
    return next((n for n in range(lo, hi) if trailing_zeros(pow_hash(prefix, n)) >= bits), -1)


@pytest.mark.parametrize("bits", [0, 1, 4, 9])
def test_pow_nonce_matches_the_verifier(bits):
    for seed in range(6):
        prefix = hashlib.blake2s(bytes([seed, bits])).digest()
        words = np.frombuffer(prefix, dtype="<u4").copy()
        lo = 3 * seed  # ranges that do not start or end on a lane group
        hi = lo + 700 + seed
        assert jb.first_pow_nonce(words, bits, lo, hi) == _serial_nonce(prefix, bits, lo, hi)
    assert jb.first_pow_nonce(words, 64, 0, 50) == -1


def test_grinding_paths_agree(monkeypatch):
    monkeypatch.setattr(pow_grind, "_COMPILED_CHUNK", 64)  # many rounds, hits in either thread
    for seed in range(8):
        ch = Channel()
        ch.mix_u64(seed)
        bits = 6 + seed % 5
        prefix = ch.pow_prefix(bits)
        compiled, twin = _both(monkeypatch, lambda: pow_grind.grind(ch, bits))
        assert compiled == twin == _serial_nonce(prefix, bits, 0, 1 << 20)


# --- Merkle trees -------------------------------------------------------------------------------


@pytest.mark.parametrize("log_sizes", [[0], [3], [5, 5, 3, 0], [9, 7, 7, 2, 2, 1], [11] * 3 + [10, 4]])
def test_merkle_trees_agree_and_open(monkeypatch, log_sizes):
    cols = [RNG.integers(0, P, size=1 << k, dtype=np.uint64).astype(np.uint32 if i % 2 else np.uint64)
            for i, k in enumerate(log_sizes)]
    compiled, twin = _both(monkeypatch, lambda: mt.MerkleTree(cols))
    assert [bytes(layer) for layer in compiled.layers] == [bytes(layer) for layer in twin.layers]
    h = max(log_sizes)
    queries = {k: sorted(random.Random(k).sample(range(1 << k), min(3, 1 << k))) for k in set(log_sizes)}
    values, dec = compiled.decommit(queries)
    verify_decommitment("t", compiled.root, log_sizes, queries, values, dec.hash_witness, dec.column_witness)
    assert len(compiled.root) == DIGEST_BYTES and h == compiled.height


# --- FFT ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("log_size", [1, 2, 3, 6, 9])
def test_fft_matches_the_reference(monkeypatch, log_size):
    data = RNG.integers(0, P, size=(3, 1 << log_size), dtype=np.uint64)
    for fn, ref in ((cf.circle_evaluate, rf.circle_evaluate), (cf.circle_interpolate, rf.circle_interpolate),
                    (cf.line_evaluate, rf.line_evaluate), (cf.line_interpolate, rf.line_interpolate)):
        compiled, twin = _both(monkeypatch, lambda: fn(data))
        assert compiled.dtype == twin.dtype == np.uint64
        assert np.array_equal(compiled, twin)
        assert compiled[1].tolist() == ref(data[1].tolist())


@pytest.mark.parametrize("log_size", [4, 12, 14, 17])  # 14, 17: past the cache block (single and paired layers)
def test_fft_layouts_agree(monkeypatch, log_size):
    data = RNG.integers(0, P, size=(2, 1 << log_size), dtype=np.uint64)
    cases = [
        lambda: cf.circle_evaluate(data), lambda: cf.circle_interpolate(data),
        lambda: cf.circle_interpolate(data.astype(np.uint32)), lambda: cf.circle_evaluate(data[:, ::1][::-1]),
        lambda: cf.extend([data[0], data[1]], log_size + 2), lambda: cf.extend(data, log_size + 1, within=log_size + 3),
        lambda: cf.circle_interpolate(data, within=log_size + 2), lambda: cf.line_interpolate(data),
        lambda: cf.circle_evaluate([data[0][::2], data[1][1::2]]),  # strided columns
    ]
    for case in cases:
        compiled, twin = _both(monkeypatch, case)
        assert np.array_equal(compiled, twin)


# --- DEEP quotients -----------------------------------------------------------------------------


def _qm31(rng: random.Random):
    return tuple(rng.randrange(P) for _ in range(4))


def test_deep_quotients_agree_with_the_verifier(monkeypatch):
    from luminair.verifier.circle import qpoint_from_t

    rng = random.Random(7)
    log_size = 11  # two blocks of the kernel over two threads
    evals = {(t, c): RNG.integers(0, P, size=1 << log_size, dtype=np.uint64).astype(np.uint32)
             for t in range(2) for c in range(5)}
    points = [qpoint_from_t(_qm31(rng)) for _ in range(3)]
    samples = [Sample(t, c, points[(t + c) % 3], _qm31(rng)) for (t, c) in evals]
    alpha = _qm31(rng)
    compiled, twin = _both(monkeypatch, lambda: pp.quotient_column(log_size + 0, samples, evals, alpha))
    for a, b in zip(compiled, twin):
        assert a.dtype == b.dtype == np.uint64 and np.array_equal(a, b)
    positions = [0, 1, 1023, 1024, 2047]
    opened = {key: {p: int(col[p]) for p in positions} for key, col in evals.items()}
    ref = quotient_values(log_size, positions, samples, opened, alpha)
    for p in positions:
        assert tuple(int(c[p]) for c in compiled) == ref[p]


# --- field arithmetic ---------------------------------------------------------------------------


def test_field_vectors_agree_with_numpy_and_the_verifier(monkeypatch):
    from luminair.prover.stark import field_vec as fv
    from luminair.prover.stark import kernels
    from luminair.verifier.fields import q_mul

    monkeypatch.setenv("LUMINAIR_KERNELS", "numba")
    kernels.expect_work(1e9)
    n = fv._COMPILED_MIN + 5
    x = tuple(RNG.integers(0, P, size=n, dtype=np.uint64) for _ in range(4))
    y = tuple(RNG.integers(0, P, size=n, dtype=np.uint64) for _ in range(4))
    x[0][:3] = [0, P - 1, 1]  # the edges
    y[0][:3] = [P - 1, P - 1, 0]
    wide = RNG.integers(0, 1 << 64, size=n, dtype=np.uint64)  # not canonical: still numpy's result
    compiled, twin = _both(monkeypatch, lambda: (fv.q_mul(x, y), fv.mul(x[0], y[0]), fv.mul(wide, y[1])))
    for a, b in zip((*compiled[0], *compiled[1:]), (*twin[0], *twin[1:])):
        assert a.dtype == b.dtype == np.uint64 and np.array_equal(a, b)
    for i in (0, 1, 2, n - 1):
        assert tuple(int(c[i]) for c in compiled[0]) == q_mul(tuple(int(c[i]) for c in x), tuple(int(c[i]) for c in y))


def test_field_vector_sums_and_constants_agree(monkeypatch):
    from luminair.prover.stark import field_vec as fv
    from luminair.prover.stark import kernels

    monkeypatch.setenv("LUMINAIR_KERNELS", "numba")
    kernels.expect_work(1e9)
    n = fv._COMPILED_MIN + 3
    a, b = (RNG.integers(0, P, size=n, dtype=np.uint64) for _ in range(2))
    wide = RNG.integers(0, 1 << 64, size=n, dtype=np.uint64)  # the same formulas, so the same values
    k = np.uint64(P - 2)
    q = (P - 1, 5, 0, 123456789)
    x = tuple(RNG.integers(0, P, size=n, dtype=np.uint64) for _ in range(4))
    cases = [lambda: fv.add(a, b), lambda: fv.sub(a, b), lambda: fv.add(wide, b), lambda: fv.sub(a, wide),
             lambda: fv.add(a, k), lambda: fv.sub(a, k), lambda: fv.neg(a), lambda: fv.neg(wide),
             lambda: fv.mul(a, k), lambda: fv.mul_scalar(a, -7), lambda: fv.q_mul_const(x, q),
             lambda: fv.q_mul(x, tuple(np.asarray(c, dtype=np.uint64) for c in q)), lambda: fv.q_inv(x),
             # a constant before a column (compiled with the operands swapped, or as -b + k)
             lambda: fv.mul(k, a), lambda: fv.add(k, a), lambda: fv.sub(k, a), lambda: fv.sub(np.uint64(0), a),
             lambda: fv.cm_mul(*x), lambda: fv.cm_inv(x[0], x[1])]
    for case in cases:
        compiled, twin = _both(monkeypatch, case)
        for u, v in zip(compiled if isinstance(compiled, tuple) else (compiled,), twin if isinstance(twin, tuple) else (twin,)):
            assert u.dtype == v.dtype == np.uint64 and np.array_equal(u, v)


@pytest.mark.parametrize("log_size", [2, 5, 13])
def test_fri_folds_agree_with_the_verifier(monkeypatch, log_size):
    from luminair.prover.stark import fri_prover as fp
    from luminair.prover.stark import kernels
    from luminair.verifier.circle import domain_point, line_domain_x
    from luminair.verifier.poly import fold_circle_pair, fold_line_pair

    monkeypatch.setenv("LUMINAIR_KERNELS", "numba")
    kernels.expect_work(1e9)
    col = tuple(RNG.integers(0, P, size=1 << log_size, dtype=np.uint64) for _ in range(4))
    alpha = (11, P - 3, 7, 1 << 30)
    for fold, ref, twiddle in ((fp.fold_circle, fold_circle_pair, lambda i: domain_point(2 * i, log_size)[1]),
                               (fp.fold_line, fold_line_pair, lambda i: line_domain_x(2 * i, log_size))):
        compiled, twin = _both(monkeypatch, lambda: fold(col, log_size, alpha))
        for u, v in zip(compiled, twin):
            assert np.array_equal(u, v)
        for i in (0, (1 << (log_size - 1)) - 1):
            e = tuple(int(c[2 * i]) for c in col)
            o = tuple(int(c[2 * i + 1]) for c in col)
            assert tuple(int(c[i]) for c in compiled) == ref(e, o, twiddle(i), alpha)


def test_lifted_and_constant_products_and_lincombs_agree(monkeypatch):
    from luminair.prover.stark import field_vec as fv
    from luminair.prover.stark import kernels

    monkeypatch.setenv("LUMINAIR_KERNELS", "numba")
    kernels.expect_work(1e9)
    n = fv._COMPILED_MIN * 2 + 1
    a = RNG.integers(0, P, size=n, dtype=np.uint64)
    z = np.zeros((), dtype=np.uint64)
    x = tuple(RNG.integers(0, P, size=n, dtype=np.uint64) for _ in range(4))
    q = tuple(np.asarray(v, dtype=np.uint64) for v in (3, P - 1, 0, 77))
    cols = [RNG.integers(0, P, size=n, dtype=np.uint64) for _ in range(20)]
    coefs = [tuple(int(v) for v in RNG.integers(0, P, size=4)) for _ in range(20)]
    cases = [lambda: fv.q_mul((a, z, z, z), x), lambda: fv.q_mul(x, (a, z, z, z)), lambda: fv.q_mul(q, x),
             lambda: pp.secure_lincomb(coefs, cols), lambda: pp.secure_lincomb(coefs[:1], [cols[0][::2]])]
    for case in cases:
        compiled, twin = _both(monkeypatch, case)
        for u, v in zip(compiled, twin):
            assert u.shape == v.shape and np.array_equal(u, v)


def test_batch_inverse_agrees_with_numpy_and_the_verifier(monkeypatch):
    from luminair.prover.stark import field_vec as fv
    from luminair.prover.stark import kernels
    from luminair.verifier.fields import batch_inverse

    monkeypatch.setenv("LUMINAIR_KERNELS", "numba")
    kernels.expect_work(1e9)
    a = RNG.integers(1, P, size=fv._COMPILED_MIN + 9, dtype=np.uint64)
    a[:2] = [1, P - 1]
    compiled, twin = _both(monkeypatch, lambda: fv.batch_inverse(a))
    assert np.array_equal(compiled, twin)
    assert compiled[:50].tolist() == batch_inverse(a[:50].tolist())
    with_zero = a.copy()
    with_zero[7] = 0  # the twin decides what a zero gives: both paths give its answer
    compiled, twin = _both(monkeypatch, lambda: fv.batch_inverse(with_zero))
    assert np.array_equal(compiled, twin)


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_out_of_domain_evaluations_agree_with_numpy_and_the_verifier(monkeypatch, dtype):
    """eval_at_point: the compiled four-coordinate dot product (jit/m31.dot_rows) against dot_mod
    and the verifier's evaluation of the same polynomials."""
    from luminair.prover.stark import kernels
    from luminair.verifier.circle import qpoint_from_t
    from luminair.verifier.poly import eval_circle_poly_m31

    monkeypatch.setenv("LUMINAIR_KERNELS", "numba")
    kernels.expect_work(1e9)
    coeffs = [RNG.integers(0, P, size=1 << 12, dtype=np.uint64).astype(dtype) for _ in range(5)]
    coeffs[0][:] = P - 1  # the largest products and sums
    z = qpoint_from_t((P - 1, 3, 123456789, 5))
    compiled, twin = _both(monkeypatch, lambda: pp.eval_at_point(coeffs, z))
    assert compiled == twin
    assert compiled[:2] == [eval_circle_poly_m31([int(v) for v in c], z) for c in coeffs[:2]]


@pytest.mark.parametrize("log_sizes", [[12, 12, 11, 9, 3], [13, 10, 10, 0]])
def test_a_large_tree_drops_its_lowest_layers_and_still_opens(monkeypatch, log_sizes):
    """Trees of height >= merkle_tree._DROP_MIN_HEIGHT keep no digests in their lowest layers:
    decommit hashes the nodes it needs there again, and the witnesses are those of a tree that
    kept every layer (the twin, rebuilt with the drop disabled)."""
    cols = [RNG.integers(0, P, size=1 << k, dtype=np.uint64).astype(np.uint32) for k in log_sizes]
    tree = mt.MerkleTree(cols)
    h = tree.height
    assert all(tree.layers[k] is None for k in range(h - mt._DROP_LAYERS + 1, h + 1))
    monkeypatch.setattr(mt, "_DROP_MIN_HEIGHT", 99)
    full = mt.MerkleTree(cols)
    assert full.root == tree.root and all(layer is not None for layer in full.layers)
    queries = {k: sorted(random.Random(k).sample(range(1 << k), min(5, 1 << k))) for k in set(log_sizes)}
    values, dec = tree.decommit(queries)
    assert (values, dec) == full.decommit(queries)
    verify_decommitment("t", tree.root, log_sizes, queries, values, dec.hash_witness, dec.column_witness)
    dec.hash_witness[0] = bytes(DIGEST_BYTES)
    with pytest.raises(Exception):
        verify_decommitment("t", tree.root, log_sizes, queries, values, dec.hash_witness, dec.column_witness)
