"""Small models for training programs: an MLP with ReLU and a softmax cross-entropy loss."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..graph import GraphTensor
from ..graph.hl_math import mul_const
from .optim import Optimizer
from .program import LossFn, TrainProgram


def mlp_param_shapes(sizes: Sequence[int]) -> dict[str, tuple[int, ...]]:
    """PyTorch names and shapes: fc{i}.weight (out, in), fc{i}.bias (out,)."""
    out: dict[str, tuple[int, ...]] = {}
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:]), start=1):
        out[f"fc{i}.weight"] = (b, a)
        out[f"fc{i}.bias"] = (b,)
    return out


def mlp_logits(params: dict[str, GraphTensor], x: GraphTensor, layers: int) -> GraphTensor:
    h = x
    for i in range(1, layers + 1):
        h = h.linear(params[f"fc{i}.weight"], params[f"fc{i}.bias"])
        if i < layers:
            h = h.relu()
    return h


def cross_entropy(logits: GraphTensor, onehot: GraphTensor) -> GraphTensor:
    """mean over the batch of -sum(onehot * log_softmax(logits)); each term is divided by the batch
    size before the sum, so the sum stays in range."""
    batch = logits.shape[0]
    return mul_const(onehot * logits.log_softmax(-1), -1.0 / batch).sum()


def mlp_loss(sizes: Sequence[int]) -> LossFn:
    layers = len(sizes) - 1

    def loss(params: dict[str, GraphTensor], batch: dict[str, GraphTensor]) -> GraphTensor:
        return cross_entropy(mlp_logits(params, batch["x"], layers), batch["y"])

    return loss


def mlp_program(
    sizes: Sequence[int], batch: int, optimizer: Optimizer, *, loss_scale: float | None = None, **kwargs
) -> TrainProgram:
    """The training step of an MLP ``sizes`` (e.g. [64, 64, 10]) on batches x (batch, in), y one-hot
    (batch, out). ``loss_scale`` defaults to min(batch, 16): the optimizer sees the gradient of
    loss_scale * loss, whose per-example terms are then well above the fixed-point resolution
    (16 keeps the scale itself in range at scale 10)."""
    return TrainProgram(
        mlp_loss(sizes),
        mlp_param_shapes(sizes),
        {"x": (batch, sizes[0]), "y": (batch, sizes[-1])},
        optimizer,
        loss_scale=float(min(batch, 16)) if loss_scale is None else loss_scale,
        **kwargs,
    )


def init_mlp(sizes: Sequence[int], seed: int = 0) -> dict[str, np.ndarray]:
    """PyTorch's default Linear initialisation (uniform +-1/sqrt(fan_in)), from a numpy generator."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in mlp_param_shapes(sizes).items():
        bound = 1.0 / np.sqrt(shape[-1] if name.endswith("weight") else sizes[int(name[2]) - 1])
        out[name] = rng.uniform(-bound, bound, size=shape)
    return out


def onehot(labels: np.ndarray, classes: int) -> np.ndarray:
    out = np.zeros((len(labels), classes))
    out[np.arange(len(labels)), np.asarray(labels, dtype=int)] = 1.0
    return out
