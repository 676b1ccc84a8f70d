"""luminair.verifier: a pure standard-library verifier for luminair proofs.

    from luminair.verifier import verify
    r = verify(proof_bytes, settings_bytes)   # never raises on bad bytes
    r.success, r.error_message, r.outputs, r.security_bits, r.model_digest

Runs unchanged in CPython and in Pyodide. Nothing here imports numpy or the prover.
"""

from .api import VerifyResult, verify
from .errors import VerificationError
from .verify import STEPS, verify_stark

__all__ = ["verify", "VerifyResult", "VerificationError", "verify_stark", "STEPS"]
__version__ = "0.1.0"
