"""The framework's challenge-dependent pieces on a toy AIR (a Freivalds check with one column):
challenges, geometric aux columns, periodic columns the verifier evaluates itself, and plain
terms in the running sum. X holds a[g, t] (4 rows a group), Y holds s[g] = sum_t a[g, t] w_t; the
terms mu^g lam w_t a[g, t] (X) and -mu^g lam s[g] (Y) cancel iff every s[g] is right. Every term
is written as a multiple of the challenge lam (the framework's plain-term rule)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from luminair.prover.stark.aux_columns import geometric_rows, periodic_trace
from luminair.prover.stark.prove import prove_stark
from luminair.verifier.air.framework import Air, Component, GeometricColumn, constrain_geometric
from luminair.verifier.air.point import double_point, periodic_at
from luminair.verifier.circle import qpoint_from_t
from luminair.verifier.config import PcsConfig
from luminair.verifier.errors import LogUpError, OodsMismatch
from luminair.verifier.fields import P, q_pow
from luminair.verifier.verify import verify_stark

FAST = PcsConfig(pow_bits=0, log_blowup=1, n_queries=8, log_last_layer=2)
W = [3, -1, 4, 1]


class _X(Component):
    name = "x"
    main_columns = ("a",)
    challenges = ("mu", "lam")
    aux_columns = {"u": GeometricColumn("start", "mu", False)}

    def __init__(self, log_size: int) -> None:
        self.log_size = log_size
        self.sparse_columns = {"start": {r: 1 for r in range(0, 1 << log_size, 4)}}

    def periodic_values(self, challenges: dict) -> dict:
        return {"w": (2, [(w % P, 0, 0, 0) for w in W])}

    def evaluate(self, ev: Any) -> None:
        constrain_geometric(ev, "u", self.aux_columns["u"])
        ev.add_to_sum(ev.challenge("lam") * ev.aux("u") * ev.main("a") * ev.periodic("w"))


class _Y(Component):
    name = "y"
    main_columns = ("s",)
    challenges = ("mu", "lam")
    aux_columns = {"u": GeometricColumn("start", "mu", False)}

    def __init__(self, log_size: int) -> None:
        self.log_size = log_size
        self.sparse_columns = {"start": {r: 1 for r in range(1 << log_size)}}

    def evaluate(self, ev: Any) -> None:
        constrain_geometric(ev, "u", self.aux_columns["u"])
        ev.add_to_sum(-(ev.aux("u") * ev.challenge("lam") * ev.main("s")))


def _air_and_trace(n_groups_log: int = 4, seed: int = 0):  # noqa: ANN202
    rng = np.random.default_rng(seed)
    a = rng.integers(-100, 100, (1 << n_groups_log, 4))
    s = a @ np.array(W)
    air = Air([_X(n_groups_log + 2), _Y(n_groups_log)])
    return air, [{"a": a.reshape(-1) % P}, {"s": s % P}]


def test_honest_proof_verifies() -> None:
    air, main = _air_and_trace()
    proof = prove_stark(air, FAST, b"plain", main)
    verify_stark(air, FAST, b"plain", proof)


def test_a_wrong_sum_is_rejected_by_the_claimed_sums() -> None:
    air, main = _air_and_trace()
    main[1]["s"] = main[1]["s"].copy()
    main[1]["s"][5] = (main[1]["s"][5] + 1) % P
    proof = prove_stark(air, FAST, b"plain", main)
    with pytest.raises(LogUpError):
        verify_stark(air, FAST, b"plain", proof)


def test_a_forged_aux_column_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    """A prover that writes u = 0 everywhere makes every term vanish (any s would pass) but breaks
    the aux column's own constraints."""
    import luminair.prover.stark.prove as prove_mod

    air, main = _air_and_trace()
    main[1]["s"] = (main[1]["s"] + 7) % P
    real = prove_mod.aux_trace

    def zero_aux(comp, challenges, *rest):  # noqa: ANN001, ANN202
        return {k: tuple(np.zeros_like(c) for c in v) for k, v in real(comp, challenges, *rest).items()}

    monkeypatch.setattr(prove_mod, "aux_trace", zero_aux)
    proof = prove_stark(air, FAST, b"plain", main)
    with pytest.raises(OodsMismatch):
        verify_stark(air, FAST, b"plain", proof)


def test_geometric_rows() -> None:
    f = (5, 0, 0, 0)
    counter = geometric_rows({0: 1, 3: 1, 5: 1}, 8, f, reset=False)
    assert [int(r[0]) for r in counter] == [1, 1, 1, 5, 5, 25, 25, 25]
    run = geometric_rows({0: 1, 3: 1, 5: 1}, 8, f, reset=True)
    assert [int(r[0]) for r in run] == [1, 5, 25, 1, 5, 1, 5, 25]


@pytest.mark.parametrize("count", [1, 2, 3, 8, 9, 4097, 70001])
def test_powers_by_doubling_match_the_scalar_products(count: int) -> None:
    """aux_columns._powers (vector products by doubling) against count - 1 scalar products."""
    from luminair.prover.stark.aux_columns import _powers
    from luminair.verifier.fields import P, q_mul

    f, cur, want = (123456789, P - 2, 5, 2**30 + 7), (1, 0, 0, 0), []
    for _ in range(count):
        want.append(cur)
        cur = q_mul(cur, f)
    assert _powers(f, count).tolist() == [list(r) for r in want]


@pytest.mark.parametrize("p", [0, 1, 3])
def test_periodic_column_twin(p: int) -> None:
    """The verifier's closed form of a periodic column at a point equals the prover's tiled column
    interpolated and evaluated there."""
    from luminair.prover.stark import circle_fft as cf
    from luminair.prover.stark.pcs_prover import eval_at_point

    n = 5
    values = [(7 * i + 1, i, 3, i * i) for i in range(1 << p)]

    class _C(Component):
        log_size = n

        def periodic_values(self, challenges: dict) -> dict:
            return {"v": (p, values)}

    comp = _C()
    point = qpoint_from_t((11, 22, 33, 44))
    got = periodic_at(point, comp.periodic_values({}), n)["v"]
    cols = periodic_trace(comp, {"z": (1, 2, 3, 4)})["v"]
    coords = eval_at_point([cf.circle_interpolate(c) for c in cols], point)
    from luminair.verifier.fields import from_partial_evals

    assert from_partial_evals(coords) == got
    assert double_point(point, 0) == point
    assert q_pow((2, 0, 0, 0), 3) == (8, 0, 0, 0)


# --- the framework's plain-term rule (air/framework.py): no constant monomial, no drawn values in LogUp


class _Constant(_Y):
    """Y's term without its challenge factor: -u s has the constant monomial -s[0] on row 0 (u = 1),
    which another instance's constant could cancel."""

    def evaluate(self, ev: Any) -> None:
        constrain_geometric(ev, "u", self.aux_columns["u"])
        ev.add_to_sum(-(ev.aux("u") * ev.main("s")))


class _SumOfMultiples(_Y):
    """A sum whose every summand is a multiple of a challenge, but not of one common challenge:
    still no constant monomial, yet the syntactic rule asks for one factor of the whole term."""

    def evaluate(self, ev: Any) -> None:
        constrain_geometric(ev, "u", self.aux_columns["u"])
        ev.add_to_sum(ev.challenge("lam") * ev.main("s") + ev.challenge("mu") * ev.main("s"))


class _ForeignChallenge(_Y):
    challenges = ("mu", "lam", "other")

    def evaluate(self, ev: Any) -> None:
        constrain_geometric(ev, "u", self.aux_columns["u"])
        ev.add_to_sum(ev.challenge("other") * ev.aux("u") * ev.main("s"))


class _DrawnEntry(_Y):
    """A LogUp entry that reads a challenge: the fractions would no longer be free of the plain
    terms' challenges."""

    def evaluate(self, ev: Any) -> None:
        constrain_geometric(ev, "u", self.aux_columns["u"])
        ev.add_to_sum(-(ev.challenge("lam") * ev.aux("u") * ev.main("s")))
        ev.add_to_relation("r", 1, [ev.main("s") * ev.challenge("lam")])


@pytest.mark.parametrize("component", [_Constant, _SumOfMultiples])
def test_a_plain_term_free_of_the_components_challenges_is_refused(component) -> None:
    from luminair.verifier.air.framework import AirDefinitionError

    with pytest.raises(AirDefinitionError, match="not a multiple of one of the component's challenges"):
        Air([_X(6), component(4)])


def test_a_plain_term_that_is_a_multiple_of_the_components_own_challenge_is_accepted() -> None:
    Air([_X(6), _ForeignChallenge(4)])  # "other" is the component's own: the rule holds


def test_a_logup_entry_that_reads_a_challenge_is_refused() -> None:
    from luminair.verifier.air.framework import AirDefinitionError

    with pytest.raises(AirDefinitionError, match="reads a challenge, aux or periodic column"):
        Air([_X(6), _DrawnEntry(4)])



# --- LogUp multiplicities below P (air/framework.check_entry_bound) ------------------------------


class _Reads(Component):
    """2^24 rows, each reading the one tuple (1) `n` times: n 2^24 reads of one tuple."""

    name = "reads"
    main_columns = ("a",)

    def __init__(self, n: int) -> None:
        self.log_size = 24
        self.n = n

    def evaluate(self, ev: Any) -> None:
        ev.add_constraint(ev.main("a"))
        for _ in range(self.n):
            ev.add_to_relation("r", -1, [ev.main("a") + 1])


def test_a_tuple_read_p_times_is_refused_when_the_statement_is_built() -> None:
    """LogUp's lemma needs fewer than P entries: 128 reads a row over 2^24 rows are 2^31 > P reads
    of one tuple, whose multiplicities sum to -2^31 = -1 mod P: a statement that should never be
    admitted. 127 a row stay below P, until the public terms make up the rest."""
    from luminair.verifier.air.framework import check_entry_bound
    from luminair.verifier.errors import EntryBoundError

    with pytest.raises(EntryBoundError, match="relation 'r' takes 2147483648 entries"):
        check_entry_bound(Air([_Reads(128)]), 0)
    check_entry_bound(Air([_Reads(127)]), P - 1 - 127 * (1 << 24))
    with pytest.raises(EntryBoundError) as e:
        check_entry_bound(Air([_Reads(127)]), P - 127 * (1 << 24))
    assert e.value.check == "LogUp entry bound"
