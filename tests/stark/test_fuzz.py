"""Property: random mutations of a valid proof never verify, and verify() never fails with
anything but a typed rejection (an internal error would be a bug)."""

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from luminair.verifier import verify

MUTATION = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 1 << 30), st.integers(1, 255)),
    st.tuples(st.just("cut"), st.integers(0, 1 << 30), st.just(0)),
    st.tuples(st.just("insert"), st.integers(0, 1 << 30), st.integers(0, 255)),
    st.tuples(st.just("delete"), st.integers(0, 1 << 30), st.just(0)),
)


def mutate(data: bytes, mutations) -> bytes:
    for kind, pos, val in mutations:
        if not data:
            data = bytes([val]) if kind == "insert" else data
            continue
        pos %= len(data)
        if kind == "flip":
            data = data[:pos] + bytes([data[pos] ^ val]) + data[pos + 1 :]
        elif kind == "cut":
            data = data[:pos]
        elif kind == "insert":
            data = data[:pos] + bytes([val]) + data[pos:]
        elif len(data) > 1:
            data = data[:pos] + data[pos + 1 :]
    return data


def assert_typed_rejection(proof: bytes, settings: bytes, unchanged: bool) -> None:
    """An unchanged pair verifies; any change is rejected by a typed check, never a crash."""
    r = verify(proof, settings)
    if unchanged:
        assert r.success
        return
    assert not r.success
    assert r.check != "internal error", r.error_message


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(MUTATION, min_size=1, max_size=3))
def test_mutated_proofs_never_verify_and_never_crash(lookup_files, mutations):
    settings, proof = lookup_files
    bad = mutate(proof, mutations)
    assert_typed_rejection(bad, settings, bad == proof)


@hsettings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(MUTATION, min_size=1, max_size=2))
def test_mutated_settings_never_verify_and_never_crash(stark_files, mutations):
    settings, proof = stark_files
    bad = mutate(settings, mutations)
    assert_typed_rejection(proof, bad, bad == settings)
