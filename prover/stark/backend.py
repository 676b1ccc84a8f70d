"""The one module that imports the array library. STARK kernels use `xp` from here, so a GPU array
library with the numpy API can stand in later without touching protocol code."""

from __future__ import annotations

import numpy as xp  # noqa: F401  (re-exported)

U32 = xp.uint32
U64 = xp.uint64
I64 = xp.int64

Array = xp.ndarray
