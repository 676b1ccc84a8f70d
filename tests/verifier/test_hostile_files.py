"""Hostile file pairs (issue 10): the verifier bounds its work before any heavy step.

The fast subset of bench/hostile_bench.py runs here: each pair is verified in a fresh python whose
address space is limited to 256 MiB, and must be refused by the expected check (or verified)
within 2 s and 256 MiB. The rest checks the pieces: the budget refuses before the statement is
built, `max_work` raises it, the codec's own bounds, the output index maps, and MemoryError /
RecursionError as typed rejections."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from luminair.verifier import api as verifier_api
from luminair.verifier import verify
from luminair.verifier.budget import BASE_WORK, MAX_WORK, WORK_PER_BYTE, budget_for
from luminair.verifier.graph.settings import MAX_GRAPH_STEPS, affine_pieces, pieces_indices
from luminair.verifier.graph.spec import NodeSpec, view_indices, view_shape

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import hostile_bench as hb

FAST = [case for case in hb.cases() if case.fast]


@pytest.mark.parametrize("case", FAST, ids=[case.name for case in FAST])
def test_a_hostile_pair_is_refused_or_verified_within_2_s_and_256_mib(case: hb.Case) -> None:
    proof, settings = case.build()
    r = hb.run_pair(proof, settings, case.floor, kwargs=case.kwargs)
    assert r["check"] != "crashed", r["message"]
    assert (r["check"] or "") in case.expect, f"{r['check']}: {r['message']}"
    assert r["time_s"] <= hb.TIME_LIMIT_S, r
    assert r["peak_rss_mib"] <= hb.LIMIT_BYTES / 2**20, r


def test_the_budget_grows_with_the_file_sizes_up_to_its_cap() -> None:
    assert budget_for(0, 0) == BASE_WORK
    assert budget_for(1000, 24) == BASE_WORK + WORK_PER_BYTE * 1024
    assert budget_for(1 << 22, 1 << 22) == MAX_WORK
    # a caller that names max_work sets the budget itself, above or below what the bytes back
    assert budget_for(1 << 22, 1 << 22, max_work=10**9) == 10**9
    assert budget_for(0, 0, max_work=10) == 10


def test_the_budget_refuses_before_the_statement_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    proof, settings = hb._pair(hb.output_graph(1 << 17))

    def never(*_a: object, **_k: object) -> None:
        raise AssertionError("the statement was built")

    monkeypatch.setattr(verifier_api, "build_statement", never)
    r = verify(proof, settings)
    assert r.check == "work budget" and "LogUp public terms" in r.error_message, r.error_message


def test_max_work_bounds_an_honest_pair_and_can_be_raised() -> None:
    proof, settings = hb._demo_pair()
    assert verify(proof, settings).success
    r = verify(proof, settings, max_work=10_000)
    assert r.check == "work budget" and "10000" in r.error_message, r.error_message
    # a pair the default budget refuses is checked in full when the caller raises it
    proof, settings = hb._pair(hb.output_graph(1 << 17))
    assert verify(proof, settings).check == "work budget"
    r = verify(proof, settings, max_work=10 * MAX_WORK)
    assert r.check == "malformed file" and "commitments" in r.error_message, r.error_message


def test_the_codec_bounds_the_graph_s_view_steps() -> None:
    settings, public = hb.deep_views_graph(MAX_GRAPH_STEPS // (2 * hb.MAX_STEPS) + 1)
    r = verify(hb.proof_file(settings, public), settings)
    assert r.check == "malformed file" and f"more than {MAX_GRAPH_STEPS} steps" in r.error_message, r.error_message


def test_an_output_of_a_huge_node_is_refused_by_the_codec() -> None:
    proof, settings = hb._pair(hb.huge_output_source_graph())
    r = verify(proof, settings)
    assert r.check == "malformed file" and "an output reads at most" in r.error_message, r.error_message


def test_costly_non_affine_output_maps_are_refused_by_the_codec() -> None:
    # 2^10 x 2^10 transposed then flattened: 2^20 elements mapped in two passes
    n = 1 << 10
    x = (0, (1, 1), (("expand", (n, n)),))
    nodes = [NodeSpec("Input", (1, 1), name="x", private=True), NodeSpec("Add", (n, n), [x, x])]
    settings = hb.graph_settings(nodes, [("x", 0)], [("y", 1, (("permute", (1, 0)), ("reshape", (n * n,))))])
    r = verify(hb.proof_file(settings, [[0]]), settings)
    assert r.check == "malformed file" and "too costly to map" in r.error_message, r.error_message


def _random_view(rng: random.Random, shape: tuple[int, ...]) -> tuple:
    steps: list = []
    for _ in range(rng.randint(0, 6)):
        kind = rng.choice(["reshape", "permute", "expand", "slice", "pad"])
        numel = 1
        for d in shape:
            numel *= d
        if kind == "reshape":
            dims, rest = [], numel
            for p in (2, 3, 2, 5, 2):
                if rest % p == 0 and rng.random() < 0.5:
                    dims.append(p)
                    rest //= p
            dims.append(rest)
            rng.shuffle(dims)
            arg: tuple = tuple(dims)
        elif kind == "permute":
            axes = list(range(len(shape)))
            rng.shuffle(axes)
            arg = tuple(axes)
        elif kind == "expand":
            arg = tuple(rng.choice([1, 2, 3]) if d == 1 else d for d in shape)
        elif kind == "slice":
            cuts = []
            for d in shape:
                a = rng.randint(0, d - 1)
                cuts.append((a, rng.randint(a + 1, d), rng.randint(1, 2)))
            arg = tuple(cuts)
        else:
            arg = tuple((rng.randint(0, 2), rng.randint(0, 2)) for _ in shape)
        new = view_shape(shape, ((kind, arg),))
        size = 1
        for d in new:
            size *= d
        if size <= 4096:
            steps.append((kind, arg))
            shape = new
    return tuple(steps)


def test_output_index_maps_match_the_step_by_step_replay() -> None:
    """settings.pieces_indices (affine pieces, no materialized source) == spec.view_indices."""
    rng = random.Random(10)
    multi = 0
    for _ in range(1500):
        shape = tuple(rng.choice([1, 2, 3, 4]) for _ in range(rng.randint(1, 4)))
        steps = _random_view(rng, shape)
        pieces = affine_pieces(shape, steps)
        multi += len(pieces) > 1
        assert pieces_indices(pieces) == view_indices(shape, steps), (shape, steps)
    assert multi > 50  # reshapes of permuted or padded views were exercised


def test_memory_and_recursion_errors_are_typed_rejections(monkeypatch: pytest.MonkeyPatch) -> None:
    proof, settings = hb._demo_pair()
    for error, needle in ((MemoryError, "more memory"), (RecursionError, "nesting too deep")):
        def boom(*_a: object, _e: type[BaseException] = error, **_k: object) -> None:
            raise _e()

        monkeypatch.setattr(verifier_api, "build_statement", boom)
        r = verify(proof, settings)
        assert not r.success and r.check == "malformed file" and needle in r.error_message, r.error_message
        assert r.model_digest is not None


def test_a_real_memory_error_under_a_small_address_space_is_a_typed_rejection(tmp_path: Path) -> None:
    """1M weights need more than 56 MiB of address space once the caller lifts the work budget."""
    settings, public = hb.weights_graph(1_000_000)
    (tmp_path / "p.bin").write_bytes(hb.proof_file(settings, public))
    (tmp_path / "s.bin").write_bytes(settings)
    code = f"""
import resource
resource.setrlimit(resource.RLIMIT_AS, (56 << 20, 56 << 20))
from luminair.verifier import verify
r = verify(open({str(tmp_path / 'p.bin')!r}, 'rb').read(), open({str(tmp_path / 's.bin')!r}, 'rb').read(), max_work=10**12)
print(r.check, '|', r.error_message)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "malformed file | malformed file: the files need more memory than this verifier has"


def test_an_example_air_with_absurd_parameters_is_a_typed_rejection() -> None:
    """The budget reads the square-lookup table size before statement.py validates it (the fuzzer
    found an OverflowError here)."""
    from luminair.verifier.statement import KIND_AIR, ExampleAirSpec, encode_settings

    for log in (11, 40, (1 << 32) - 1):
        settings = encode_settings(KIND_AIR, hb.HOSTILE, ExampleAirSpec("square_lookup", {"log_size": 20, "table_log_size": log}))
        r = verify(hb.proof_file(settings, [[0]]), settings)
        assert r.check in ("work budget", "malformed file"), r.error_message


def test_the_file_caps_grow_only_with_a_callers_max_work() -> None:
    """A settings.bin above 4 MiB is refused by default, naming the remedy; a caller who names a
    larger max_work accepts proportionally larger files (a 2M-weight model), never beyond 16x."""
    from luminair.verifier.budget import MAX_SETTINGS_BYTES, MAX_WORK, BudgetError, check_file_sizes, file_caps

    big = MAX_SETTINGS_BYTES + 1
    with pytest.raises(BudgetError, match="a larger max_work raises it"):
        check_file_sizes(1000, big)
    check_file_sizes(1000, big, max_work=2 * MAX_WORK)
    with pytest.raises(BudgetError, match="settings.bin"):
        check_file_sizes(1000, 2 * MAX_SETTINGS_BYTES + 1, max_work=2 * MAX_WORK)
    assert file_caps(10**12) == file_caps(16 * MAX_WORK)
    assert file_caps(1) == file_caps(None)  # a lower budget never lowers the caps below the defaults
