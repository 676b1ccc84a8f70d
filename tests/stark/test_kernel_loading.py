"""Loading the compiled kernels skips numba's BLAS probe (scipy.linalg, 0.14 s of a proof's start)
without taking linear algebra from numba code that asks for it later."""

import subprocess
import sys

import pytest

pytest.importorskip("numba")
pytest.importorskip("scipy")

SCRIPT = """
import sys
import numpy as np
from luminair.prover.stark import kernels
for name in ("blake2s", "m31", "deep", "logup"):
    kernels._load(name)
from luminair.prover.stark import circle_fft as cf
cf._batched_compiled([np.arange(1 << 10, dtype=np.uint64)], "circle", 12, False, 2)
print("linalg after the kernels:", "scipy.linalg" in sys.modules)
from numba import njit
dot = njit(lambda a, b: np.dot(a, b))
print("dot:", dot(np.arange(3.0), np.arange(3.0)))
"""


def test_the_kernels_load_without_scipy_linalg_and_numba_keeps_its_blas():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "linalg after the kernels: False" in out.stdout
    assert "dot: 5.0" in out.stdout
