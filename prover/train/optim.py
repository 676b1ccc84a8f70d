"""Optimizers as graph builders: each adds to the graph the nodes of one update of one parameter,
from the parameter p, its gradient g (the gradient the graph computes: of ``loss_scale * loss``),
its state tensors and its rounding noise, and returns the new parameter and the new state.

Every update ends in the same stochastic rounding (prover/train/rounding.py): new = p - SR(lr * u)
with u the optimizer's direction below. ``reference`` is the same update in float64 numpy without
any rounding (what the fixed-point update is compared with).

Fixed-point limits: a division u = a / E is a * recip(E); recip needs E >= 2^(s - 15) (+ one raw
unit) to stay in the 16-bit range, so eps may not be smaller than that (1/32 at scale 10). The
gradients the optimizers see are those of loss_scale * loss: choose loss_scale so that they are
well above eps (scale-free optimizers such as TD-CLM and Adam give the same step for any
loss_scale once eps is scaled with it).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

import numpy as np

from ..graph import GraphError, GraphTensor
from ..graph.hl_math import mul_const
from .rounding import noise_bits, sr_step


def min_eps(scale_bits: int) -> float:
    """The smallest eps whose reciprocal fits the value range: (2^(2s - 15) + 1) raw units."""
    return ((1 << max(0, 2 * scale_bits - 15)) + 1) / (1 << scale_bits)


def _check_eps(eps: float, scale_bits: int, name: str) -> None:
    if eps < min_eps(scale_bits):
        raise GraphError(
            f"{name}: eps {eps:g} is below {min_eps(scale_bits):g}, the smallest value whose reciprocal fits "
            f"the 16-bit range at scale 2^{scale_bits}; raise eps (and loss_scale with it) or lower the scale"
        )


@dataclass(frozen=True)
class Optimizer:
    """Base: ``slots`` names the state tensors (each of the parameter's shape, zero at the start)."""

    lr: float

    slots: ClassVar[tuple[str, ...]] = ()
    name: ClassVar[str] = "optimizer"

    @property
    def u_bound(self) -> float:
        """A bound on |u|, used to size the rounding noise."""
        return 1.0

    def state_slots(self) -> tuple[str, ...]:
        """Names of the state tensors of each parameter."""
        return self.slots

    def bits(self, scale_bits: int) -> int:
        return noise_bits(self.lr, self.u_bound, scale_bits)

    def check(self, scale_bits: int) -> None:
        self.bits(scale_bits)

    def direction(
        self, g: GraphTensor, state: dict[str, GraphTensor]
    ) -> tuple[GraphTensor, dict[str, GraphTensor]]:
        raise NotImplementedError

    def update(
        self, p: GraphTensor, g: GraphTensor, state: dict[str, GraphTensor], noise: GraphTensor, bits: int
    ) -> tuple[GraphTensor, dict[str, GraphTensor]]:
        u, new_state = self.direction(g, state)
        return sr_step(p, u, self.lr, bits, noise), new_state

    def reference_direction(
        self, g: np.ndarray, state: dict[str, np.ndarray]
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        raise NotImplementedError

    def reference(
        self, p: np.ndarray, g: np.ndarray, state: dict[str, np.ndarray]
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The update in float64 without rounding: p - lr * u."""
        u, new_state = self.reference_direction(
            np.asarray(g, float), {k: np.asarray(v, float) for k, v in state.items()}
        )
        return np.asarray(p, float) - self.lr * u, new_state

    def hparams(self) -> dict[str, Any]:
        return {
            "optimizer": self.name,
            **{f.name: getattr(self, f.name) for f in fields(self) if f.name != "u_bound"},
        }


@dataclass(frozen=True)
class SGD(Optimizer):
    """SGD with momentum (PyTorch's, dampening 0): m_t = mu m_{t-1} + g_t; u = m_t (u = g_t when
    mu = 0, with no state). ``u_bound`` must bound |m_t| (it sizes the rounding noise; a larger
    value is a BoundsError when proving)."""

    momentum: float = 0.0
    u_bound: float = 4.0  # type: ignore[assignment]
    name: ClassVar[str] = "sgd"

    def state_slots(self) -> tuple[str, ...]:
        return ("m",) if self.momentum else ()

    def direction(self, g, state):
        if not self.momentum:
            return g, {}
        m = mul_const(state["m"], self.momentum) + g
        return m, {"m": m}

    def reference_direction(self, g, state):
        if not self.momentum:
            return g, {}
        m = self.momentum * state["m"] + g
        return m, {"m": m}


@dataclass(frozen=True)
class Adam(Optimizer):
    """Adam without bias correction (so one proven program serves every step):
    m_t = b1 m + (1 - b1) g;  v_t = b2 v + (1 - b2) g^2;  u = m_t / (sqrt(v_t) + eps).
    |u| <= (1 - b1) / sqrt(1 - b2) * ... is bounded by u_bound (3.2 for the defaults at step 1)."""

    b1: float = 0.9
    b2: float = 0.999
    eps: float = 0.04
    u_bound: float = 4.0  # type: ignore[assignment]
    slots: ClassVar[tuple[str, ...]] = ("m", "v")
    name: ClassVar[str] = "adam"

    def check(self, scale_bits: int) -> None:
        super().check(scale_bits)
        _check_eps(self.eps, scale_bits, "Adam")

    def direction(self, g, state):
        m = mul_const(state["m"], self.b1) + mul_const(g, 1.0 - self.b1)
        v = mul_const(state["v"], self.b2) + mul_const(g * g, 1.0 - self.b2)
        u = m * (v.sqrt() + self.eps).recip()
        return u, {"m": m, "v": v}

    def reference_direction(self, g, state):
        m = self.b1 * state["m"] + (1 - self.b1) * g
        v = self.b2 * state["v"] + (1 - self.b2) * g * g
        return m / (np.sqrt(v) + self.eps), {"m": m, "v": v}


@dataclass(frozen=True)
class CLM(Optimizer):
    """CLM, the two-buffer clipped L1-envelope momentum (our reading; issue 14 defines only TD-CLM's
    envelope): m_t = b1 m + (1 - b1) g;  e_t = b2 e + (1 - b2) |g|;
    u = clip(m_t / (e_t + eps), -1, 1)."""

    b1: float = 0.9
    b2: float = 0.99
    eps: float = 0.04
    slots: ClassVar[tuple[str, ...]] = ("m", "e")
    name: ClassVar[str] = "clm"

    def check(self, scale_bits: int) -> None:
        super().check(scale_bits)
        _check_eps(self.eps, scale_bits, "CLM")

    def direction(self, g, state):
        m = mul_const(state["m"], self.b1) + mul_const(g, 1.0 - self.b1)
        e = mul_const(state["e"], self.b2) + mul_const(abs(g), 1.0 - self.b2)
        u = (m * (e + self.eps).recip()).clip(-1.0, 1.0)
        return u, {"m": m, "e": e}

    def reference_direction(self, g, state):
        m = self.b1 * state["m"] + (1 - self.b1) * g
        e = self.b2 * state["e"] + (1 - self.b2) * np.abs(g)
        return np.clip(m / (e + self.eps), -1.0, 1.0), {"m": m, "e": e}


@dataclass(frozen=True)
class TDCLM(Optimizer):
    """TD-CLM, single momentum buffer, no second moment (issue 14):

        E_t = b1^2 |m_{t-1}| + (1 - b1^2) |g_t| + lam |g_t - m_{t-1}| + eps
        m_t = b1 m_{t-1} + (1 - b1) g_t
        u_t = m_t / E_t
        p_t = p_{t-1} - SR(lr * u_t)

    |m_t| <= b1 |m_{t-1}| + (1 - b1) |g_t| <= E_t / b1 (coefficient by coefficient: b1 <= b1^2 / b1
    and 1 - b1 <= (1 - b1^2) / b1), so |u_t| <= 1 / b1: the envelope bounds the step without a
    second moment. u_bound = 1 / b1 + 1/8 (fixed-point rounding of the coefficients)."""

    b1: float = 0.9
    lam: float = 0.5
    eps: float = 0.04
    slots: ClassVar[tuple[str, ...]] = ("m",)
    name: ClassVar[str] = "tdclm"

    @property
    def u_bound(self) -> float:  # type: ignore[override]
        return 1.0 / self.b1 + 0.125

    def check(self, scale_bits: int) -> None:
        if not 0.0 < self.b1 < 1.0 or self.lam < 0:
            raise GraphError(f"TD-CLM needs 0 < b1 < 1 and lam >= 0, got b1={self.b1}, lam={self.lam}")
        super().check(scale_bits)
        _check_eps(self.eps, scale_bits, "TD-CLM")

    def direction(self, g, state):
        m_prev = state["m"]
        b1 = self.b1
        env = mul_const(abs(m_prev), b1 * b1) + mul_const(abs(g), 1.0 - b1 * b1)
        if self.lam:
            env = env + mul_const(abs(g - m_prev), self.lam)
        env = env + self.eps
        m = mul_const(m_prev, b1) + mul_const(g, 1.0 - b1)
        return m * env.recip(), {"m": m}

    def reference_direction(self, g, state):
        m_prev, b1 = state["m"], self.b1
        env = b1 * b1 * np.abs(m_prev) + (1 - b1 * b1) * np.abs(g) + self.lam * np.abs(g - m_prev) + self.eps
        m = b1 * m_prev + (1 - b1) * g
        return m / env, {"m": m}


OPTIMIZERS = {"sgd": SGD, "adam": Adam, "clm": CLM, "tdclm": TDCLM}
