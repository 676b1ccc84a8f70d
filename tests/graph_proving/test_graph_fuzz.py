"""Random mutations of a graph proof or its settings never verify, and verify() never fails with
anything but a typed rejection."""

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from luminair.verifier import verify

MUT = st.lists(st.tuples(st.integers(0, 1 << 30), st.integers(1, 255), st.booleans()), min_size=1, max_size=3)


def mutate(data: bytes, muts) -> bytes:
    for pos, val, cut in muts:
        if not data:
            break
        pos %= len(data)
        data = data[:pos] if cut and pos > len(data) // 2 else data[:pos] + bytes([data[pos] ^ val]) + data[pos + 1 :]
    return data


@hsettings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(MUT, st.booleans())
def test_mutated_graph_files_never_verify_and_never_crash(mlp_case, muts, in_settings):
    _, settings, _, proof = mlp_case
    p, s = proof.data, settings.data
    if in_settings:
        s = mutate(s, muts)
    else:
        p = mutate(p, muts)
    r = verify(p, s, min_security_bits=0)
    if (p, s) == (proof.data, settings.data):
        assert r.success
        return
    assert not r.success
    assert r.check != "internal error", r.error_message
