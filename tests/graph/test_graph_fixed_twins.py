"""The vectorized fixed-point kernels agree bit for bit with verifier/numeric.py's scalar ops."""

import numpy as np
import pytest

from luminair.prover.graph.fixed import (
    DomainViolation, fx_add, fx_dot, fx_less_than, fx_mod, fx_mul, fx_recip, fx_sqrt, fx_table, lookup_table,
    quantize_floor,
)
from luminair.verifier import numeric as num
from luminair.verifier.numeric import VALUE_MAX, VALUE_MIN, NumericFormat, NumericError

SCALES = [4, 7, 10, 14]


def values(rng, n=3000):
    """Random raw values plus the edges: 0, +-1, the 16-bit limits, powers of two and neighbours."""
    edges = [0, 1, -1, 2, -2, VALUE_MIN, VALUE_MAX, VALUE_MIN + 1, VALUE_MAX - 1]
    for k in range(15):
        edges += [1 << k, -(1 << k), (1 << k) + 1, -(1 << k) - 1, (1 << k) - 1]
    v = np.concatenate([np.array(edges), rng.integers(VALUE_MIN, VALUE_MAX + 1, n)])
    return np.clip(v, VALUE_MIN, VALUE_MAX).astype(np.int64)


def pairs(rng, n=3000):
    a = values(rng, n)
    b = np.concatenate([values(rng, n)[: len(a) // 2], rng.integers(-40, 41, len(a) - len(a) // 2)])
    rng.shuffle(b)
    return a, b


@pytest.mark.parametrize("s", SCALES)
def test_add_mul_less_than_match_scalar_ops(rng, s):
    a, b = pairs(rng)
    assert fx_add(a, b).tolist() == [num.op_add(int(x), int(y)) for x, y in zip(a, b)]
    assert fx_mul(a, b, s).tolist() == [num.op_mul(int(x), int(y), s) for x, y in zip(a, b)]
    assert fx_less_than(a, b, s).tolist() == [num.op_less_than(int(x), int(y), s) for x, y in zip(a, b)]
    assert fx_less_than(a, a, s).tolist() == [0] * len(a)


@pytest.mark.parametrize("s", SCALES)
def test_recip_matches_scalar_op_including_negative_operands(rng, s):
    x = values(rng)
    x = x[x != 0]
    assert (x < 0).any()
    assert fx_recip(x, s).tolist() == [num.op_recip(int(v), s) for v in x]


@pytest.mark.parametrize("s", SCALES)
def test_sqrt_matches_scalar_op(rng, s):
    x = np.abs(values(rng))
    x = x[x >= 0]
    assert fx_sqrt(x, s).tolist() == [num.op_sqrt(int(v), s) for v in x]
    exhaustive = np.arange(0, VALUE_MAX + 1, dtype=np.int64)  # every non-negative raw value
    assert fx_sqrt(exhaustive, s).tolist() == [num.op_sqrt(int(v), s) for v in exhaustive]


def test_mod_matches_floor_modulo_for_every_sign_combination(rng):
    a, b = pairs(rng)
    keep = b != 0
    a, b = a[keep], b[keep]
    assert ((a < 0) & (b < 0)).any() and ((a < 0) & (b > 0)).any() and ((a > 0) & (b < 0)).any()
    assert fx_mod(a, b).tolist() == [num.op_mod(int(x), int(y)) for x, y in zip(a, b)]


@pytest.mark.parametrize("name", ["exp2", "log2", "sin", "exp"])
@pytest.mark.parametrize("s", SCALES)
def test_tables_match_op_table_on_random_and_edge_values(rng, name, s):
    dom = num.table_domain(name, s)
    x = values(rng, 1500)
    x = np.concatenate([x, [dom.start, dom.start + 1, dom.stop - 1, dom.stop - 2]])
    x = x[(x >= dom.start) & (x < dom.stop)]
    # op_table(name, v, s) is TABLE_FUNCTIONS[name](v, s) inside the domain (it recomputes the
    # domain on every call, so only a sample goes through it)
    assert fx_table(name, x, s).tolist() == [num.TABLE_FUNCTIONS[name](int(v), s) for v in x]
    assert fx_table(name, x[:20], s).tolist() == [num.op_table(name, int(v), s) for v in x[:20]]


@pytest.mark.parametrize("name", ["exp2", "log2", "sin", "exp"])
def test_table_is_the_full_domain_in_order(name):
    t = lookup_table(name, 10)
    dom = num.table_domain(name, 10)
    assert (t.lo, t.hi, len(t.values)) == (dom.start, dom.stop - 1, len(dom))
    probe = list(range(dom.start, dom.stop, 97))
    assert [int(t.values[x - t.lo]) for x in probe] == [num.TABLE_FUNCTIONS[name](x, 10) for x in probe]
    assert lookup_table(name, 10) is t  # cached per (name, scale)


@pytest.mark.parametrize("name,s", [("exp2", 10), ("exp", 10), ("erf", 10), ("exp", 6), ("erf", 12)])
def test_tables_taken_from_the_verifiers_rows_are_every_entry_of_the_function(name, s):
    """exp, exp2 and erf reuse the verifier's table rows (zeros below an exponential's first
    non-zero entry): every entry of the domain against the function itself."""
    t = lookup_table(name, s)
    dom = num.table_domain(name, s)
    assert (t.lo, t.hi) == (dom.start, dom.stop - 1)
    assert t.values.tolist() == [num.TABLE_FUNCTIONS[name](x, s) for x in dom]


@pytest.mark.parametrize("name", ["exp2", "log2"])
def test_table_inputs_outside_the_domain_are_domain_errors_like_op_table(name):
    dom = num.table_domain(name, 10)
    for bad in ([dom.stop] if name == "exp2" else [dom.start - 1, 0, -5]):
        with pytest.raises(NumericError):
            num.op_table(name, bad, 10)
        with pytest.raises(DomainViolation) as e:
            fx_table(name, np.array([dom.start, bad], dtype=np.int64), 10)
        assert e.value.index == 1 and e.value.raw == bad


def test_zero_divisors_and_negative_roots_are_domain_errors_like_the_scalar_ops():
    for fn, scalar, bad in (
        (lambda v: fx_recip(v, 10), lambda v: num.op_recip(v, 10), 0),
        (lambda v: fx_sqrt(v, 10), lambda v: num.op_sqrt(v, 10), -3),
        (lambda v: fx_mod(np.array([5, 5, 5]), v), lambda v: num.op_mod(5, v), 0),
    ):
        with pytest.raises(NumericError):
            scalar(bad)
        with pytest.raises(DomainViolation) as e:
            fn(np.array([7, 9, bad], dtype=np.int64))
        assert e.value.index == 2


@pytest.mark.parametrize("s", SCALES)
def test_quantize_matches_numeric_format_including_ties(rng, s):
    fmt = NumericFormat(s)
    ties = (np.arange(-200, 200) + 0.5) / (1 << s)  # exactly half a raw unit: rounds up
    rnd = rng.uniform(fmt.min_real, fmt.max_real, 2000)
    x = np.concatenate([ties, rnd, [0.0, -0.0, fmt.max_real, fmt.min_real]])
    assert quantize_floor(x, s).astype(np.int64).tolist() == [fmt.quantize(float(v)) for v in x]


@pytest.mark.parametrize("s", SCALES)
def test_dot_matches_scalar_op_including_large_sums_and_the_accumulator_edge(rng, s):
    shape = (7, 5, 40)
    a = rng.integers(VALUE_MIN, VALUE_MAX + 1, shape).astype(np.int64) // 64
    b = rng.integers(VALUE_MIN, VALUE_MAX + 1, shape).astype(np.int64) // 64
    a[0, 0], b[0, 0] = 4000, 1600  # a prefix of 40 * 6.4M = 2^28 - ... near the edge, still in range
    got = fx_dot(a.reshape(-1), b.reshape(-1), shape, 2, s)
    want = [num.op_dot(a[i, j].tolist(), b[i, j].tolist(), s) for i in range(7) for j in range(5)]
    assert got.tolist() == want
    # the reduced axis may be any axis
    got1 = fx_dot(a.reshape(-1), b.reshape(-1), shape, 1, s)
    want1 = [num.op_dot(a[i, :, k].tolist(), b[i, :, k].tolist(), s) for i in range(7) for k in range(40)]
    assert got1.tolist() == want1


def test_dot_refuses_a_prefix_sum_outside_the_accumulator_like_the_scalar_op():
    a = np.full(16, VALUE_MAX, dtype=np.int64)
    b = np.full(16, VALUE_MAX, dtype=np.int64)  # every product ~2^30: the first prefix is already out
    with pytest.raises(DomainViolation, match="accumulator range"):
        fx_dot(a, b, (16,), 0, 10)
    with pytest.raises(NumericError, match="accumulator range"):
        num.op_dot(a.tolist(), b.tolist(), 10)
    # a sum whose prefixes stay in range while single products are large
    a2, b2 = np.array([VALUE_MAX, VALUE_MAX // 2]), np.array([4096, -8192])
    assert fx_dot(a2, b2, (2,), 0, 10).tolist() == [num.op_dot(a2.tolist(), b2.tolist(), 10)]


def test_relu_matches_scalar_op_and_the_primitive_pattern(rng):
    from luminair.prover.graph.fixed import fx_relu

    x = values(rng)
    assert fx_relu(x).tolist() == [num.op_relu(int(v)) for v in x]
    for s in SCALES:  # x * (0 < x) of the primitives, exactly
        assert fx_relu(x).tolist() == fx_mul(x, fx_less_than(np.zeros_like(x), x, s), s).tolist()
