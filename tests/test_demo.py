"""The demo site's sample files are real, current proofs of the bundled model."""

from pathlib import Path

from luminair.prover.demo import PUBLIC, make_demo_files
from luminair.verifier import verify


def test_the_committed_sample_proof_verifies():
    r = verify((PUBLIC / "proof.bin").read_bytes(), (PUBLIC / "settings.bin").read_bytes())
    assert r.success, f"{r.error_message} (regenerate with: python -m luminair.prover.demo --no-serve)"
    assert r.security_bits >= 96 and list(r.outputs) == ["output"]


def test_the_demo_proves_the_bundled_onnx_model(tmp_path: Path):
    proof, settings = make_demo_files(tmp_path, preset="fast")
    r = verify(proof.read_bytes(), settings.read_bytes(), min_security_bits=0)
    assert r.success, r.error_message
    assert r.outputs["output"]["shape"] == [1, 10]
