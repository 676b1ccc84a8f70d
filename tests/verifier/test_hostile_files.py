"""Hostile file pairs (issues 10, 32): the verifier bounds its work before any heavy step.

The fast subset of bench/hostile_bench.py runs here: each pair is verified in a fresh python whose
address space is limited to 256 MiB, and must be refused by the expected check (or verified)
within 2 s and 256 MiB. The rest checks the pieces: the budget refuses before the statement is
built, `max_work` raises it, the codec's own bounds, the output index maps, MemoryError /
RecursionError as typed rejections, the charges made before a cost is paid (deflated values, symbol
substitution), and the usage errors of verify() and verify_chain() (test_memory_limits.py runs each
decoder at its cap under address-space limits)."""

from __future__ import annotations

import gc
import math
import random
import struct
import sys
import weakref
from pathlib import Path

import pytest
from luminair.verifier import api as verifier_api
from luminair.verifier import result as verifier_result
from luminair.verifier import verify
from luminair.verifier.budget import BASE_WORK, MAX_WORK, OPENING_UNITS_PER_BYTE, WORK_PER_BYTE, budget_for
from luminair.verifier.formats import MAX_PUBLIC_TOTAL, read_proof_file
from luminair.verifier.graph.settings import MAX_GRAPH_STEPS, affine_pieces, pieces_indices
from luminair.verifier.graph.spec import NodeSpec, view_shape

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import hostile_bench as hb
from reference_views import view_indices

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

    monkeypatch.setattr(verifier_result, "build_statement", never)
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
    """settings.pieces_indices (affine pieces, no materialized source) == the step-by-step replay
    (tests/reference_views.py)."""
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

        monkeypatch.setattr(verifier_result, "build_statement", boom)
        r = verify(proof, settings)
        assert not r.success and r.check == "malformed file" and needle in r.error_message, r.error_message
        assert r.model_digest is not None


def _watch_decoded_proofs(monkeypatch: pytest.MonkeyPatch) -> list[weakref.ref]:
    """Weak references to every proof file verify decodes, appended as it decodes them."""
    decoded: list[weakref.ref] = []
    real_read = verifier_api.read_proof_file

    def read(*a: object, **k: object) -> object:
        pf = real_read(*a, **k)
        decoded.append(weakref.ref(pf))
        return pf

    monkeypatch.setattr(verifier_api, "read_proof_file", read)
    return decoded


def test_the_out_of_memory_verdict_is_built_once_the_decoded_data_is_released(monkeypatch: pytest.MonkeyPatch) -> None:
    """A MemoryError deep in the checks: the decoded proof (held by verify's frame) and what the
    failed frames held are released before the verdict is built (issue 32: it was built while the
    traceback still held them, and under about 250 MiB a second MemoryError escaped)."""
    proof, settings = hb._demo_pair()
    decoded = _watch_decoded_proofs(monkeypatch)

    class Held:
        pass

    def failing(*_a: object, **_k: object) -> None:
        held = Held()  # a local of the frame that fails
        decoded.append(weakref.ref(held))
        raise MemoryError

    alive_when_built: list[bool] = []
    real_result = verifier_api.VerifyResult

    def result(*a: object, **k: object) -> verifier_api.VerifyResult:
        alive_when_built.append(any(ref() is not None for ref in decoded))
        return real_result(*a, **k)

    monkeypatch.setattr(verifier_result, "build_statement", failing)
    monkeypatch.setattr(verifier_api, "VerifyResult", result)
    r = verify(proof, settings)
    assert r.check == "malformed file" and r.error_message == verifier_api.OUT_OF_MEMORY
    assert r.model_digest is not None and len(decoded) == 2 and alive_when_built == [False]


def test_a_memory_error_while_a_verdict_is_built_is_still_a_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    proof, settings = hb._demo_pair()
    real_result = verifier_api.VerifyResult
    calls = []

    def result(*a: object, **k: object) -> verifier_api.VerifyResult:
        calls.append(a)
        if len(calls) == 1:
            raise MemoryError  # building the first verdict fails
        return real_result(*a, **k)

    monkeypatch.setattr(verifier_api, "VerifyResult", result)
    for bad in ({"max_work": "1"}, {}):  # a usage error's verdict, and a success's
        calls.clear()
        r = verify(proof, settings, **bad)
        assert not r.success and r.error_message == verifier_api.OUT_OF_MEMORY and len(calls) == 2


def test_an_out_of_memory_handler_that_fails_is_answered_once_its_cycle_is_collected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The MemoryError handler fails before it has released the failed frames (clearing them needs
    a frame of its own): its frame keeps the exception chain, whose tracebacks hold that frame, a
    cycle over the decoded files that only gc frees. The verdict is built once it is collected (a
    CI run at 16 MiB above import: the MemoryError escaped verify())."""
    proof, settings = hb._demo_pair()
    decoded = _watch_decoded_proofs(monkeypatch)

    def failing(*_a: object, **_k: object) -> None:
        raise MemoryError

    def clear_frames(_tb: object) -> None:
        raise MemoryError

    alive_when_built: list[bool] = []
    real_result = verifier_api.VerifyResult

    def result(*a: object, **k: object) -> verifier_api.VerifyResult:
        alive_when_built.append(decoded[0]() is not None)
        return real_result(*a, **k)

    monkeypatch.setattr(verifier_result, "build_statement", failing)
    monkeypatch.setattr(verifier_api.traceback, "clear_frames", clear_frames)
    monkeypatch.setattr(verifier_api, "VerifyResult", result)
    gc.disable()  # only the verifier's own collection may free the cycle
    try:
        r = verify(proof, settings)
    finally:
        gc.enable()
    assert r.error_message == verifier_api.OUT_OF_MEMORY and alive_when_built == [False]


def test_a_deflated_tensor_is_charged_before_it_is_inflated(monkeypatch: pytest.MonkeyPatch) -> None:
    """2^21 - 2 values in 24 KB: refused by the budget, naming the public values, and zlib never runs."""
    import zlib

    proof, settings = hb._pair_raw(hb.public_input_graph(1)[0], struct.pack("<I", 1) + hb.deflated_tensor(
        hb.deflate_bomb_values(MAX_PUBLIC_TOTAL - 2)))
    assert len(proof) < 32_000  # 4 MiB of values in 24 KB

    def never() -> None:
        raise AssertionError("inflated before the budget was charged")

    monkeypatch.setattr(zlib, "decompressobj", never)
    r = verify(proof, settings)
    assert r.check == "work budget" and "(public values: 2097150)" in r.error_message, r.error_message
    # refused before all its work was counted: the max_work it names is a lower bound, said so
    assert r.kind == "not checked" and r.work_needed >= 2_097_150 and "at least max_work=" in r.error_message


def test_files_over_a_small_budget_are_refused_with_the_budget_they_need() -> None:
    """Decoding may spend up to MAX_WORK whatever the budget, so a refusal under a small max_work
    counts all the files' work and names the max_work that checks them."""
    proof, settings = hb._pair(hb.non_affine_output_graph(512))  # 157,000 units of index maps
    r = verify(proof, settings, max_work=1000)
    assert r.kind == "not checked" and f"a budget of max_work={r.work_needed} checks them" in r.error_message
    assert r.work_needed == math.ceil(hb.estimate(proof, settings)[0])
    assert verify(proof, settings, max_work=r.work_needed).check == "malformed file"  # checked: no STARK part


def test_openings_are_charged_for_the_stark_part_whatever_the_public_values_declare() -> None:
    """A deflated tensor no longer lowers the openings' charge (it was the proof's size less 4 bytes
    a public value): ProofFile.stark_bytes is what the STARK part holds."""
    settings, _ = hb.public_input_graph(1)
    public = struct.pack("<I", 1) + hb.deflated_tensor([0] * 500_000)
    proof = hb.filled_proof(settings, ("queried values",), size=1 << 20, public=public)
    head = len(proof) - read_proof_file(proof).stark_bytes
    assert head == len(hb.PROOF_MAGIC) + 2 + 32 + len(public)
    work, _ = hb.estimate(proof, settings)
    assert work >= OPENING_UNITS_PER_BYTE * (len(proof) - head) + 500_000


def _index_maps_charged_first(monkeypatch: pytest.MonkeyPatch, read) -> str:  # noqa: ANN001 - read(meter)
    """read(meter) under a 100,000-unit budget refuses a 2^18-element output index map before building
    it (pieces_indices would raise); the BudgetError's message, which names its charge."""
    from luminair.verifier.budget import INDEX_MAP_UNITS, MAP_BACK_UNITS, BudgetError, WorkMeter
    from luminair.verifier.graph import settings as graph_settings

    def never(*_a: object) -> None:
        raise AssertionError("built before the budget was charged")

    monkeypatch.setattr(graph_settings, "pieces_indices", never)
    meter = WorkMeter(100_000)
    meter.decode_limit = 100_000  # (decoding may otherwise spend MAX_WORK whatever the budget)
    with pytest.raises(BudgetError) as e:
        read(meter)
    units = int((INDEX_MAP_UNITS + MAP_BACK_UNITS) * (1 << 18))
    assert f"(output index maps: {units})" in e.value.message, e.value.message
    return e.value.message


def test_an_output_index_map_is_charged_before_it_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """2^18 elements of a transposed node, flattened: mapped through 2 affine pieces."""
    from luminair.verifier.statement import read_settings

    proof, settings = hb._pair(hb.non_affine_output_graph(512))
    assert "at least max_work=" in _index_maps_charged_first(monkeypatch, lambda meter: read_settings(settings, meter))


def test_a_templates_output_index_map_is_charged_before_it_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """A symbolic side: the 2^18-element map's size is known only once instantiated, and the graph read
    back was read with no meter (its index maps were built uncharged: 0.2 s and ~20 MiB from 204 bytes)."""
    from luminair.verifier.statement import bind_symbols, read_settings

    settings, public = hb.symbolic_non_affine_output_graph(512)
    assert len(settings) < 256
    _index_maps_charged_first(monkeypatch, lambda meter: bind_symbols(read_settings(settings, meter), public, meter))
    monkeypatch.undo()
    r = verify(hb.proof_file(settings, public), settings)  # the map counted once, with the view checks
    assert r.check == "work budget" and r.work_needed == math.ceil(hb.estimate(hb.proof_file(settings, public), settings)[0])


def test_symbol_substitution_is_charged_before_the_template_is_instantiated(monkeypatch: pytest.MonkeyPatch) -> None:
    from luminair.verifier.budget import (
        EXPRESSION_TERM_UNITS,
        REFERENCE_UNITS,
        VIEW_INT_UNITS,
        VIEW_STEP_UNITS,
        WorkMeter,
    )
    from luminair.verifier.errors import FormatError
    from luminair.verifier.graph import settings as graph_settings
    from luminair.verifier.statement import bind_symbols, read_settings

    proof, settings = hb._pair(hb.symbol_bomb_graph())

    def never(*_a: object) -> None:
        raise AssertionError("instantiated before the budget was charged")

    meter = WorkMeter()  # counting only
    with pytest.raises(FormatError, match="changes the element count"):
        bind_symbols(read_settings(settings), [[1 << 20] * 4], meter)
    assert meter.parts == {"symbol substitution": 2 * 16 * EXPRESSION_TERM_UNITS + 783_360 * REFERENCE_UNITS,
                           "view checks": 255 * 2 * 64 * (VIEW_STEP_UNITS + 24 * VIEW_INT_UNITS)}
    monkeypatch.setattr(graph_settings, "instantiate", never)
    r = verify(proof, settings)  # the substitution, then the concrete graph's view checks, are charged
    assert r.check == "work budget" and "(view checks: 979200)" in r.error_message, r.error_message


def test_each_expression_is_evaluated_once_a_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    """The symbol bomb's 783,360 references to 16-term expressions: one evaluation each (issue 32: one
    a reference, 12.6 s)."""
    from luminair.verifier.graph import symbols

    calls = []
    real = symbols.evaluate
    monkeypatch.setattr(symbols, "evaluate", lambda poly, values: calls.append(poly) or real(poly, values))
    proof, settings = hb._pair(hb.symbol_bomb_graph())
    r = verify(proof, settings, max_work=10**8)  # past the budget's refusal: instantiated
    assert r.check == "malformed file" and "changes the element count" in r.error_message, r.error_message
    assert len(calls) == 2  # its two expressions


USAGE = [
    ({"max_work": "1000000"}, "max_work must be an int in [1, 10^15] or None, not str '1000000'"),
    ({"max_work": True}, "max_work must be an int in [1, 10^15] or None, not bool True"),
    ({"max_work": 0}, "not int 0"),
    ({"max_work": 1e8}, "not float 100000000.0"),
    ({"min_security_bits": "96"}, "min_security_bits must be an int in [0, 1024], not str '96'"),
    ({"min_security_bits": False}, "not bool False"),
    ({"min_security_bits": -1}, "not int -1"),
    ({"progress": 5}, "progress must be a function or None, not int 5"),
]


@pytest.mark.parametrize("kwargs, needle", USAGE, ids=[str(k) for k, _ in USAGE])
def test_an_argument_of_the_wrong_type_is_a_one_line_usage_error(kwargs: dict, needle: str) -> None:
    proof, settings = hb._demo_pair()
    r = verify(proof, settings, **kwargs)
    assert not r.success and r.check == "usage" and r.error_message.startswith("usage: verify(): "), r.error_message
    assert needle in r.error_message and "\n" not in r.error_message, r.error_message
    assert verify(proof, settings, max_work=MAX_WORK, min_security_bits=96, progress=lambda *_: None).success


CHAIN_USAGE = [
    ({"pairs": "x"}, "pairs must be a list of (proof bytes, settings bytes), not str 'x'"),
    ({"pairs": [(b"", b"", b"")]}, "pairs[0] must be a (proof bytes, settings bytes) pair, not tuple"),
    ({"pairs": [(b"", "s")]}, "pairs[0][1] (settings) must be bytes, not str 's'"),
    ({"seed": True}, "seed must be an int in [0, 2^60 - 1] or None, not bool True"),
    ({"start_step": -1}, "start_step must be an int in [0, 2^30 - 1] or None, not int -1"),
    ({"program_digest": "ab"}, "program_digest must be 64 hex digits or None, not str 'ab'"),
    ({"start_state_digest": 7}, "start_state_digest must be 64 hex digits or None, not int 7"),
    ({"max_work": "10"}, "max_work must be an int in [1, 10^15] or None, not str '10'"),
    ({"min_security_bits": 2.0}, "min_security_bits must be an int in [0, 1024], not float 2.0"),
]


@pytest.mark.parametrize("kwargs, needle", CHAIN_USAGE, ids=[str(k) for k, _ in CHAIN_USAGE])
def test_verify_chain_checks_its_arguments(kwargs: dict, needle: str) -> None:
    from luminair.verifier.training_chain import verify_chain

    args = {"pairs": [hb._demo_pair()], **kwargs}
    r = verify_chain(args.pop("pairs"), **args)
    assert not r.success and r.check == "usage" and r.failed_step is None, r.error_message
    assert r.error_message == f"usage: verify_chain(): {needle}"


def test_training_role_indices_are_ascii_decimal() -> None:
    """train/param/\u0660/w (an Arabic-Indic zero) was read as parameter 0; 01 is not a second name
    for parameter 1."""
    from luminair.verifier.graph.training import TrainingStatementError, training_statement
    from luminair.verifier.statement import read_settings

    def roles_error(name: str) -> str:
        nodes = [NodeSpec("Input", (1,), name="p"), NodeSpec("Add", (1,), [(0, (1,), ()), (0, (1,), ())])]
        spec = read_settings(hb.graph_settings(nodes, [(name, 0)], [("y", 1, ())])).body
        with pytest.raises(TrainingStatementError) as e:
            training_statement(spec, {}, {})
        return str(e.value)

    for name in ("train/param/\u0660/w", "train/param/01/w", "train/param/\uff11/w", "train/noise/0/\u0661"):
        assert roles_error(name) == f"input {name!r} is not a known training role"
    assert "needs a public input 'train/seed'" in roles_error("train/param/0/w")  # an ASCII index passes


def test_a_settings_file_of_another_statement_kind_is_malformed() -> None:
    """Kind 1 (the example AIRs of format 9 and earlier) is no statement this verifier checks."""
    settings = hb.example_air_settings()
    r = verify(hb.proof_file(settings, [[0]]), settings)
    assert r.check == "malformed file" and "unknown kind 1" in r.error_message, r.error_message


def test_the_file_caps_grow_only_with_a_callers_max_work() -> None:
    """A settings.bin above 4 MiB is refused by default, naming the remedy; a caller who names a
    larger max_work accepts proportionally larger files (a 2M-weight model), never beyond 16x."""
    from luminair.verifier.budget import (
        MAX_SETTINGS_BYTES,
        MAX_WORK,
        BudgetError,
        check_file_sizes,
        file_caps,
    )

    big = MAX_SETTINGS_BYTES + 1
    with pytest.raises(BudgetError, match=f"a budget of max_work={2 * MAX_WORK} raises the caps"):
        check_file_sizes(1000, big)
    check_file_sizes(1000, big, max_work=2 * MAX_WORK)
    with pytest.raises(BudgetError, match="settings.bin"):
        check_file_sizes(1000, 2 * MAX_SETTINGS_BYTES + 1, max_work=2 * MAX_WORK)
    assert file_caps(10**12) == file_caps(16 * MAX_WORK)
    assert file_caps(1) == file_caps(None)  # a lower budget never lowers the caps below the defaults


STARK_USAGE = [
    ("air", "x", "air must be of type Air, not str 'x'"),
    ("config", None, "config must be of type PcsConfig, not NoneType"),
    ("statement", "s", "statement must be bytes, not str 's'"),
    ("proof", b"", "proof must be of type StarkProof, not bytes"),
    ("public_sum", 3, "public_sum must be a function or None, not int 3"),
    ("progress", "p", "progress must be a function or None, not str 'p'"),
]


@pytest.mark.parametrize("name, value, needle", STARK_USAGE, ids=[n for n, _, _ in STARK_USAGE])
def test_verify_stark_checks_its_arguments(name: str, value: object, needle: str) -> None:
    """The protocol's entry point (docs/protocol.md): a wrong-type argument is a one-line usage error
    (check "usage"), not an AttributeError from deep inside."""
    from luminair.verifier.formats import read_proof_file
    from luminair.verifier.statement import build_statement, read_settings
    from luminair.verifier.usage import UsageError
    from luminair.verifier.verify import verify_stark

    proof, settings = hb._demo_pair()
    s, p = read_settings(settings), read_proof_file(proof)
    st = build_statement(s, p.public_values)
    args = {"air": st.air, "config": s.config, "statement": st.statement_bytes, "proof": p.stark,
            "public_sum": st.public_sum, "progress": None}
    verify_stark(**args)  # the honest call passes
    with pytest.raises(UsageError) as e:
        verify_stark(**{**args, name: value})
    assert e.value.check == "usage" and e.value.message == f"usage: verify_stark(): {needle}", e.value.message


def test_the_summaries_spend_what_verify_would_on_one_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """settings_summary / proof_summary read files from anywhere (the web widget's inspect and
    readSettingsSummary): the symbol bomb was instantiated with no budget (2.3 s, 111 MiB in CPython),
    a deflate bomb inflated, any size read. Now: verify's caps and budget, charged before each cost."""
    import zlib

    from luminair.verifier.budget import MAX_SETTINGS_BYTES, BudgetError
    from luminair.verifier.graph import summary as graph_summary
    from luminair.verifier.summary import proof_summary, settings_summary

    def never(*_a: object, **_k: object) -> None:
        raise AssertionError("paid before the budget was charged")

    _, bomb = hb._pair(hb.symbol_bomb_graph(True))
    monkeypatch.setattr(graph_summary, "instantiate", never)
    with pytest.raises(BudgetError, match=r"\(view checks: 979200\)"):
        settings_summary(bomb)
    deflated, _ = hb._pair_raw(hb.public_input_graph(1)[0], struct.pack("<I", 1) + hb.deflated_tensor(
        hb.deflate_bomb_values(MAX_PUBLIC_TOTAL - 2)))
    monkeypatch.setattr(zlib, "decompressobj", never)
    with pytest.raises(BudgetError, match=r"\(public values: 2097150\)"):
        proof_summary(deflated)
    with pytest.raises(BudgetError, match="settings.bin is 4194305 bytes"):
        settings_summary(b"\0" * (MAX_SETTINGS_BYTES + 1))
    monkeypatch.undo()
    # an honest pair reads as before; a caller's max_work lifts the budget as it does verify's
    proof, settings = hb._demo_pair()
    assert settings_summary(settings)["graph"]["nodes"] and proof_summary(proof)["public_tensors"]
    assert proof_summary(deflated, max_work=10 * MAX_WORK)["public_tensors"] == [MAX_PUBLIC_TOTAL - 2]
