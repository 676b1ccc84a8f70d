"""The one module that imports the array library. STARK kernels use `xp` from here, so a GPU array
library with the numpy API can stand in later without touching protocol code."""

from __future__ import annotations

import numpy as xp  # noqa: F401  (re-exported)

U32 = xp.uint32
U64 = xp.uint64
I64 = xp.int64

Array = xp.ndarray


def _libc() -> object | None:
    try:
        import ctypes

        lib = ctypes.CDLL("libc.so.6")
        return lib if hasattr(lib, "mallopt") and hasattr(lib, "malloc_trim") else None
    except OSError:  # not glibc
        return None


def steady_heap() -> None:
    """Arrays of 128 KiB and more mapped on their own, so that each goes back to the system when
    freed (glibc raises its mmap threshold after the first large free; a proof's many chunk-sized
    temporaries then stayed in the heap: 170 MB of the transformer's peak)."""
    lib = _libc()
    if lib is not None:
        lib.mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD (fixed: no dynamic adjustment)


def trim_heap() -> None:
    """Give the heap's freed memory back to the system."""
    lib = _libc()
    if lib is not None:
        lib.malloc_trim(0)
