"""Weights in and out: numpy .npz files and PyTorch state dicts (torch is imported only when asked)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np

STATE_PREFIX = "state/"  # optimizer state in an .npz: "state/<param>/<slot>"


def save_npz(
    path: str | Path, params: Mapping[str, Any], state: Mapping[str, Mapping[str, Any]] | None = None
) -> Path:
    """Parameters under their own names, optimizer state under state/<param>/<slot>."""
    arrays = {k: np.asarray(v, dtype=np.float64) for k, v in params.items()}
    for k, slots in (state or {}).items():
        for slot, v in slots.items():
            arrays[f"{STATE_PREFIX}{k}/{slot}"] = np.asarray(v, dtype=np.float64)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return path


def load_npz(path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, dict[str, np.ndarray]]]:
    """(params, state) from save_npz's file (no pickle)."""
    params: dict[str, np.ndarray] = {}
    state: dict[str, dict[str, np.ndarray]] = {}
    with np.load(path, allow_pickle=False) as z:
        for key in z.files:
            if key.startswith(STATE_PREFIX):
                name, _, slot = key[len(STATE_PREFIX) :].rpartition("/")
                state.setdefault(name, {})[slot] = np.array(z[key], dtype=np.float64)
            else:
                params[key] = np.array(z[key], dtype=np.float64)
    return params, state


def to_state_dict(params: Mapping[str, Any]) -> dict[str, Any]:
    """A PyTorch state dict (float32 tensors): model.load_state_dict(to_state_dict(params))."""
    import torch

    return {k: torch.tensor(np.asarray(v, dtype=np.float32)) for k, v in params.items()}


def from_state_dict(state_dict: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """float64 numpy arrays from a PyTorch state dict (or any mapping of array-likes)."""
    out = {}
    for k, v in state_dict.items():
        if hasattr(v, "detach"):
            v = v.detach().cpu().numpy()
        out[k] = np.asarray(v, dtype=np.float64)
    return out
