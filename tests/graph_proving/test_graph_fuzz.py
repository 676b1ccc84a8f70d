"""Seeded, time-bounded mutation fuzzer over both files of several models (issue 10).

Each model (a sum of squares at the default preset, a graph of table lookups, an MLP, a graph with
views, private inputs, reductions and several outputs) gets its share of LUMINAIR_FUZZ_SECONDS (default 6 s in all; set it higher to fuzz
longer) and a random stream seeded by LUMINAIR_FUZZ_SEED (default 10) and the model's name, so a
failure names the seed and iteration that reproduce it. A mutation is a few byte-level edits
(flips, overwrites, interesting u32 words, swaps, cuts, insertions, deletions, duplicated runs),
half of them aimed inside one region of proof.bin, applied to

* proof.bin alone;
* settings.bin alone (the proof still names the old settings digest);
* settings.bin with proof.bin re-bound to the new digest, as an attacker holding both files would;
* both files, re-bound.

Every call must return (verify never raises), never with an internal error, never accept a changed
pair, and take at most 2 s. tests/stark/test_fuzz.py keeps the hypothesis property tests of the
first two (shrinking to minimal failing mutations)."""

from __future__ import annotations

import hashlib
import os
import random
import time
from collections import Counter

import numpy as np
import pytest
from luminair.prover import Graph
from luminair.verifier import verify
from luminair.verifier.formats import read_proof_file
from fixture_graphs import views_graph
from proving_helpers import prove_graph

FUZZ_SECONDS = float(os.environ.get("LUMINAIR_FUZZ_SECONDS", "6"))
FUZZ_SEED = int(os.environ.get("LUMINAIR_FUZZ_SEED", "10"))
PER_CALL_S = 2.0
DIGEST = slice(10, 42)  # proof.bin: magic (8 bytes), version (2), settings digest (32)
MODES = ("proof", "settings", "settings, proof re-bound", "both, re-bound")
WORDS = (0, 1, 2, 0xFF, 0x100, 0xFFFF, 1 << 16, 1 << 20, 1 << 24, (1 << 31) - 2, (1 << 31) - 1, 1 << 31, 0xFFFFFFFF)
MODELS = ("sum of squares", "table lookups", "MLP", "views graph")


@pytest.fixture(scope="module")
def views_case() -> tuple[bytes, bytes]:
    """(settings, proof) of a graph with a private input, a broadcast, a transposed weight, a pad
    and a slice, Sqrt / Recip / Mod, both reductions, and a transposed output."""
    rng = np.random.default_rng(5)
    rng.uniform(0.2, 0.9, (4, 3))  # the draws views_graph makes for its weight
    cx = Graph()
    views_graph(cx)
    settings, _, proof = prove_graph(cx, {"x": rng.uniform(0.1, 0.9, (3, 4)), "k": rng.uniform(0.1, 0.5, (4,))})
    return settings.data, proof.data


@pytest.fixture
def model_files(request: pytest.FixtureRequest) -> tuple[bytes, bytes]:
    name = request.param
    if name == "sum of squares":
        return request.getfixturevalue("stark_files")
    if name == "table lookups":
        return request.getfixturevalue("lookup_files")
    if name == "MLP":
        _, settings, _, proof = request.getfixturevalue("mlp_fused_case")
        return settings.data, proof.data
    return request.getfixturevalue("views_case")


def _regions(proof: bytes) -> list[tuple[int, int]]:
    return [span for span in read_proof_file(proof).encode().regions().values() if span[1] > span[0]]


def mutate(rng: random.Random, data: bytes, regions: list[tuple[int, int]]) -> tuple[bytes, list[str]]:
    """A few byte-level edits; half of the positions fall inside one of `regions` when given."""
    out = bytearray(data)
    edits = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        if not out:
            out.append(rng.randrange(256))
            edits.append("insert into empty")
            continue
        if regions and rng.random() < 0.5:
            lo, hi = rng.choice(regions)
            pos = rng.randrange(lo, hi) if hi <= len(out) else rng.randrange(len(out))
        else:
            pos = rng.randrange(len(out))
        op = rng.choice(("flip", "set", "word", "swap", "cut", "insert", "delete", "dup"))
        if op == "flip":
            out[pos] ^= rng.randrange(1, 256)
        elif op == "set":
            out[pos] = rng.randrange(256)
        elif op == "word":
            out[pos : pos + 4] = rng.choice(WORDS).to_bytes(4, "little")
        elif op == "swap":
            other = rng.randrange(len(out))
            a, b = bytes(out[pos : pos + 4]), bytes(out[other : other + 4])
            out[other : other + len(b)] = a[: len(b)]
            out[pos : pos + len(a)] = b[: len(a)]
        elif op == "cut":
            del out[pos:]
        elif op == "insert":
            out[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.choice((1, 4, 16))))
        elif op == "delete":
            del out[pos : pos + rng.choice((1, 4, 16))]
        else:
            out[pos:pos] = out[pos : pos + rng.choice((4, 16, 64))]
        edits.append(f"{op}@{pos}")
    return bytes(out), edits


def rebind(proof: bytes, settings: bytes) -> bytes:
    """proof.bin naming `settings` (what an attacker who holds both files does)."""
    if len(proof) < DIGEST.stop:
        return proof
    return proof[: DIGEST.start] + hashlib.blake2s(settings).digest() + proof[DIGEST.stop :]


@pytest.mark.parametrize("model_files", MODELS, indirect=True)
def test_mutated_files_never_verify_never_crash_and_stay_fast(model_files: tuple[bytes, bytes], request: pytest.FixtureRequest) -> None:
    settings, proof = model_files
    name = request.node.callspec.params["model_files"]
    assert verify(proof, settings, min_security_bits=0).success
    regions = _regions(proof)
    rng = random.Random(f"{FUZZ_SEED}:{name}")
    deadline = time.perf_counter() + FUZZ_SECONDS / len(MODELS)
    calls = changed = 0
    checks: Counter[str] = Counter()
    while time.perf_counter() < deadline or calls < 20:
        mode = rng.choice(MODES)
        p, s = proof, settings
        p_edits: list[str] = []
        s_edits: list[str] = []
        if mode in ("proof", "both, re-bound"):
            p, p_edits = mutate(rng, p, regions)
        if mode != "proof":
            s, s_edits = mutate(rng, s, [])
        if "re-bound" in mode:
            p = rebind(p, s)
        where = f"{name}, seed {FUZZ_SEED}, call {calls}, {mode}: proof {p_edits}, settings {s_edits}"
        t = time.perf_counter()
        try:
            r = verify(p, s, min_security_bits=0)
        except BaseException as e:  # noqa: BLE001 - verify must never raise
            pytest.fail(f"verify raised {type(e).__name__}: {e} ({where})")
        elapsed = time.perf_counter() - t
        calls += 1
        assert elapsed <= PER_CALL_S, f"{elapsed:.2f} s ({where})"
        assert r.check != "internal error", f"{r.error_message} ({where})"
        if (p, s) == (proof, settings):
            assert r.success, f"{r.error_message} ({where})"
        else:
            changed += 1
            assert not r.success, f"a changed pair verified ({where})"
        checks[r.check or "verified"] += 1
    print(f"{name}: {calls} calls, {changed} changed pairs, checks {dict(checks.most_common())}")  # shown with -s
    assert changed >= calls // 2, (changed, calls)
