"""scikit-learn's digits (8x8 images, 10 classes, 1797 samples) as training batches: pixels scaled
to [0, 1], labels one-hot. scikit-learn ships the data set, so nothing is downloaded."""

from __future__ import annotations

import numpy as np

from .models import onehot


def load_digits_xy() -> tuple[np.ndarray, np.ndarray]:
    try:
        from sklearn.datasets import load_digits
    except ImportError:  # pragma: no cover - scikit-learn is in the dev extra
        raise ImportError("the digits data set needs scikit-learn: pip install scikit-learn") from None
    d = load_digits()
    return d.data / 16.0, d.target.astype(int)


def digits_batches(
    batch: int, steps: int, seed: int = 0
) -> tuple[list[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """``steps`` training batches drawn without replacement from the first 1500 samples, and the
    held-out rest (297 samples) as one evaluation set."""
    x, y = load_digits_xy()
    rng = np.random.default_rng(seed)
    order = rng.permutation(1500)
    if batch * steps > len(order):
        order = np.concatenate([rng.permutation(1500) for _ in range(-(-batch * steps // 1500))])
    out = []
    for i in range(steps):
        idx = order[i * batch : (i + 1) * batch]
        out.append({"x": x[idx], "y": onehot(y[idx], 10)})
    return out, {"x": x[1500:], "y": onehot(y[1500:], 10)}


def eval_loss(prog, params, data: dict[str, np.ndarray]) -> float:
    """The float64 mean loss of ``params`` over ``data`` (in chunks of the program's batch)."""
    b = prog.batch_shapes["x"][0]
    n = len(data["x"]) // b * b
    losses = [
        prog.reference_step(params, prog.init_state(), {k: v[i : i + b] for k, v in data.items()}).loss
        for i in range(0, n, b)
    ]
    return float(np.mean(losses))
