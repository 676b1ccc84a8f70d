"""VerifyResult.kind: "verified", "rejected", or "not checked" (over the work budget or the size
caps), with the budget that admits the files."""

from __future__ import annotations

from pathlib import Path

from luminair.verifier import verify
from luminair.verifier.budget import MAX_PROOF_BYTES, MAX_WORK

PUBLIC = Path(__file__).resolve().parents[2] / "public"
PROOF = (PUBLIC / "proof.bin").read_bytes()
SETTINGS = (PUBLIC / "settings.bin").read_bytes()


def test_verified_and_rejected_kinds():
    assert verify(PROOF, SETTINGS).kind == "verified"
    bad = bytearray(PROOF)
    bad[len(bad) // 2] ^= 1
    r = verify(bytes(bad), SETTINGS)
    assert r.kind == "rejected" and r.work_needed is None and not r.success


def test_over_the_declared_work_budget_is_not_checked_with_the_budget_needed():
    r = verify(PROOF, SETTINGS, max_work=1000)
    assert not r.success and r.kind == "not checked" and r.check == "work budget"
    assert r.work_needed > 1000 and f"max_work={r.work_needed}" in r.error_message
    assert verify(PROOF, SETTINGS, max_work=r.work_needed).kind == "verified"
    assert verify(PROOF, SETTINGS, max_work=r.work_needed - 1).kind == "not checked"
    assert r.to_dict()["kind"] == "not checked"


def test_over_the_size_caps_is_not_checked_with_the_budget_that_raises_them():
    big = PROOF + bytes(MAX_PROOF_BYTES)  # over the default cap, under twice it
    r = verify(big, SETTINGS)
    assert r.kind == "not checked" and r.work_needed == 2 * MAX_WORK, r
    assert f"max_work={2 * MAX_WORK}" in r.error_message
    r2 = verify(big, SETTINGS, max_work=r.work_needed)  # read now, and refused for its trailing bytes
    assert r2.kind == "rejected" and r2.check == "malformed file"


def test_files_over_every_cap_have_no_budget_to_grant():
    r = verify(bytes(17 * MAX_PROOF_BYTES), SETTINGS)
    assert r.kind == "not checked" and r.work_needed is None and "no budget raises the caps" in r.error_message
