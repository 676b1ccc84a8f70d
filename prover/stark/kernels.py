"""The switch between the prover's two implementations of its hot loops: compiled kernels
(numba, prover/stark/jit/) and their numpy / hashlib twins (merkle_tree.py, pow_grind.py,
circle_fft.py). Both give the same values bit for bit (tests/twins), so a proof's bytes do not
depend on the choice (tests/stark/test_kernel_paths.py).

LUMINAIR_KERNELS chooses:
* "numba": compiled kernels everywhere;
* "numpy": the twins everywhere (numba is never imported);
* "auto" (the default): the compiled kernels for a proof whose work would keep the twins busy much
  longer than loading the compiled kernels takes (importing numba and its on-disk cache: about
  0.6 s in a fresh process), and for any single call that large; the twins otherwise, so small
  proofs never pay for numba. Once loaded, the compiled kernels serve every call. Without numba
  (an install without the prover extra's dependencies) "auto" keeps the twins.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import Callable, Iterable

MODES = ("auto", "numba", "numpy")
LOAD_COST_S = 0.6  # loading numba and the cached kernels in a fresh process
AUTO_MIN_TWIN_S = 2 * LOAD_COST_S  # the twins' estimated work past which "auto" loads them

_lock = threading.Lock()
_modules: dict[str, ModuleType] = {}
_missing: list[str] = []  # why numba could not be imported, once tried
_pool: ThreadPoolExecutor | None = None


class KernelError(RuntimeError):
    """The requested kernels cannot be used (an unknown LUMINAIR_KERNELS value, numba missing)."""


def mode() -> str:
    raw = os.environ.get("LUMINAIR_KERNELS")
    if raw == _mode[0]:  # asked for every vector operation: parsed once per value
        return _mode[1]
    got = (raw or "auto").strip().lower() or "auto"
    if got not in MODES:
        raise KernelError(f"LUMINAIR_KERNELS={got!r}: expected one of {', '.join(MODES)}")
    _mode[:] = [raw, got]
    return got


_mode: list = [None, "auto"]  # (the variable's last value, its mode)


def loaded() -> bool:
    return bool(_modules)


def use_compiled(twin_seconds: float) -> bool:
    """Whether a call whose numpy twin would take about `twin_seconds` runs compiled."""
    m = mode()
    if m != "auto":
        return m == "numba"
    return bool(_modules) or (twin_seconds >= AUTO_MIN_TWIN_S and _numba_available() and _numba_imports())


def can_load() -> bool:
    """Whether "auto" may still load the compiled kernels (numba is there)."""
    return mode() == "auto" and _numba_available()


def _numba_available() -> bool:
    """Whether numba is installed: found, not imported (importing it costs about 0.2 s, which a
    small proof that never loads the kernels should not pay). A numba that is found but fails to
    import is recorded by _load and counts as missing from then on."""
    if not _missing and not _modules and importlib.util.find_spec("numba") is None:
        _missing.append("No module named 'numba'")
    return not _missing


def _numba_imports() -> bool:
    """Import numba ("auto", about to load the kernels); a failure counts as numba missing."""
    try:
        import numba  # noqa: F401
    except ImportError as e:
        _missing.append(str(e))
    return not _missing


def expect_work(twin_seconds: float) -> None:
    """A proof about to ask for about `twin_seconds` of the twins' work: in "auto", load the
    compiled kernels now if that pays (then every call of the proof runs compiled)."""
    if use_compiled(twin_seconds):
        for name in ("blake2s", "m31", "deep", "logup"):
            _load(name)


def _load(name: str) -> ModuleType:
    got = _modules.get(name)
    if got is None:
        with _lock:
            got = _modules.get(name)
            if got is None:
                try:
                    _skip_blas_probe()
                    got = importlib.import_module(f"{__package__}.jit.{name}")
                except ImportError as e:
                    _missing.append(str(e))
                    raise KernelError(f"the compiled kernels need numba (pip install 'luminair[prover]'): {e}") from e
                _modules[name] = got
    return got


class _HideScipyLinalg(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "scipy.linalg" or name.startswith("scipy.linalg."):
            raise ImportError(f"{name}: not imported while numba probes for a BLAS")
        return None


def _skip_blas_probe() -> None:
    """numba's first compile or cache load imports numba.np.arraymath, which probes for scipy's BLAS
    by importing scipy.linalg (0.14 s where scipy is installed) only to choose np.correlate's inner
    product; the kernels call no BLAS. So that module is imported once with scipy.linalg hidden;
    numba's linear algebra still imports scipy.linalg itself when a function uses it."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    finder = _HideScipyLinalg()
    sys.meta_path.insert(0, finder)
    try:
        importlib.import_module("numba.np.arraymath")
    finally:
        sys.meta_path.remove(finder)


def blake2s() -> ModuleType:
    """prover/stark/jit/blake2s.py, imported (and its cached machine code loaded) on first use."""
    return _load("blake2s")


def m31() -> ModuleType:
    """prover/stark/jit/m31.py, imported on first use."""
    return _load("m31")


def deep() -> ModuleType:
    """prover/stark/jit/deep.py, imported on first use."""
    return _load("deep")


def logup() -> ModuleType:
    """prover/stark/jit/logup.py, imported on first use."""
    return _load("logup")


def threads() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def run_parallel(fn: Callable[[int], None], starts: Iterable[int]) -> None:
    """fn(s) for every s, on threads() threads (the kernels release the GIL). Calls from inside a
    task run inline, so nested use cannot deadlock the pool."""
    global _pool
    starts = list(starts)
    if threads() == 1 or len(starts) < 2 or getattr(_inside, "yes", False):
        for s in starts:
            fn(s)
        return
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=threads(), thread_name_prefix="luminair-kernel")

    def task(s: int) -> None:
        _inside.yes = True
        try:
            fn(s)
        finally:
            _inside.yes = False

    list(_pool.map(task, starts))


_inside = threading.local()
