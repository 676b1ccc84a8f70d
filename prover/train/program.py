"""A provable training step: one graph that computes the loss on a batch, its gradients (autograd)
and the optimizer's update with deterministic stochastic rounding, with its public values in the
roles of verifier/graph/training.py (old weights and state in, new weights and state and the loss
out, seed, step and noise in). One program (one settings.bin) serves every step: the step number
and the seed are public inputs and the noise is recomputed by the verifier.

    prog = TrainProgram(loss_fn, {"w": (4, 2)}, {"x": (8, 4), "y": (8, 2)}, TDCLM(lr=0.01))
    res = prog.prove_step(params, prog.init_state(), batch, step=0, seed=7)
    verify(res.proof, res.settings).extra["training"]   # step, digests, loss
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ...verifier.graph.training import (
    SEED_LIMBS,
    STEP_LIMBS,
    sr_noise,
    to_limbs,
    weights_digest,
)
from ..compile import GenericCompiler, StwoCompiler
from ..graph import GraphError, GraphTensor
from ..proving import Graph
from .optim import Optimizer
from .rounding import effective_lr

LossFn = Callable[[dict[str, GraphTensor], dict[str, GraphTensor]], GraphTensor]
Params = dict[str, np.ndarray]
State = dict[str, dict[str, np.ndarray]]


@dataclass
class StepResult:
    """One proven step: the proof and its settings, and the values it attests."""

    step: int
    seed: int
    proof: bytes
    settings: bytes
    new_params: Params
    new_state: State
    loss: float
    old_digest: str
    new_digest: str
    prove_s: float = 0.0
    stats: Any = None


@dataclass
class StepValues:
    new_params: Params
    new_state: State
    loss: float
    extra: dict[str, np.ndarray] = field(default_factory=dict)


class TrainProgram:
    """The training-step graph of a model (``loss_fn(params, batch) -> scalar loss``) and optimizer."""

    def __init__(
        self,
        loss_fn: LossFn,
        params: Mapping[str, Sequence[int]],
        batch: Mapping[str, Sequence[int]],
        optimizer: Optimizer,
        *,
        private_batch: bool = False,
        scale_bits: int = 10,
        loss_scale: float = 1.0,
        preset: str = "fast",
        config: Any = None,
        title: str = "",
        description: str = "",
    ) -> None:
        if not params:
            raise GraphError("a training program needs at least one parameter")
        self.loss_fn = loss_fn
        self.param_shapes = {k: tuple(int(d) for d in v) for k, v in params.items()}
        self.batch_shapes = {k: tuple(int(d) for d in v) for k, v in batch.items()}
        self.optimizer = optimizer
        self.private_batch = private_batch
        self.scale_bits = scale_bits
        self.loss_scale = float(loss_scale)
        self.preset, self.config, self.title, self.description = preset, config, title, description
        optimizer.check(scale_bits)
        self.bits = optimizer.bits(scale_bits)
        self.effective_lr = effective_lr(
            optimizer.lr, self.bits, scale_bits
        )  # lr as the fixed point applies it
        self.graph, self.grad_handles = self._build(compiled=True)
        self._reference: Graph | None = None
        self._settings: Any = None

    # -- the graph -------------------------------------------------------------------------------

    def param_input(self, i: int, name: str) -> str:
        return f"train/param/{i}/{name}"

    def _build(self, compiled: bool) -> tuple[Graph, list[GraphTensor]]:
        cx = Graph(scale_bits=self.scale_bits)
        cx.input("train/seed", (SEED_LIMBS,))
        cx.input("train/step", (STEP_LIMBS,))
        params = {
            k: cx.input(self.param_input(i, k), s) for i, (k, s) in enumerate(self.param_shapes.items())
        }
        slots = self.optimizer.state_slots()
        state = {
            k: {slot: cx.input(f"train/state/{i}/{slot}", s) for slot in slots}
            for i, (k, s) in enumerate(self.param_shapes.items())
        }
        noise = {
            k: cx.input(f"train/noise/{i}/{self.bits}", s)
            for i, (k, s) in enumerate(self.param_shapes.items())
        }
        batch = {k: cx.input(k, s, private=self.private_batch) for k, s in self.batch_shapes.items()}
        loss = self.loss_fn(params, batch)
        if loss.numel != 1:
            raise GraphError(f"the loss must have one element, got shape {loss.shape}")
        loss.reshape(()).output("train/loss")
        grads = cx.grad(loss, list(params.values()), grad_output=self.loss_scale)
        for i, ((k, p), g) in enumerate(zip(params.items(), grads)):
            if not compiled:
                g.output(f"grad/{k}")
                continue
            new_p, new_state = self.optimizer.update(p, g, state[k], noise[k], self.bits)
            new_p.output(f"train/new_param/{i}/{k}")
            for slot in slots:
                new_state[slot].output(f"train/new_state/{i}/{slot}")
        if compiled:
            cx.compile(GenericCompiler(), StwoCompiler())
        return cx, grads

    @property
    def reference_graph(self) -> Graph:
        """The same loss and gradients, uncompiled, with the gradients as outputs (float64 runs)."""
        if self._reference is None:
            self._reference, _ = self._build(compiled=False)
        return self._reference

    def settings(self) -> Any:
        """settings.bin of this program (made once)."""
        if self._settings is None:
            self._settings = self.graph.gen_settings(
                preset=self.preset, config=self.config, title=self.title, description=self.description
            )
        return self._settings

    # -- values ----------------------------------------------------------------------------------

    @property
    def one(self) -> int:
        return 1 << self.scale_bits

    def quantize(self, params: Mapping[str, Any]) -> Params:
        """Values on the fixed-point grid (what the graph reads), as float64 arrays."""
        out = {}
        for k, shape in self.param_shapes.items():
            if k not in params:
                raise GraphError(f"missing parameter {k!r}")
            arr = np.asarray(_numpy(params[k]), dtype=np.float64)
            if arr.shape != shape:
                raise GraphError(f"parameter {k!r} has shape {arr.shape}, expected {shape}")
            out[k] = np.floor(arr * self.one + 0.5) / self.one
        return out

    def init_state(self) -> State:
        """The optimizer state before the first step: zeros."""
        return {
            k: {slot: np.zeros(s) for slot in self.optimizer.state_slots()}
            for k, s in self.param_shapes.items()
        }

    def feed(
        self, params: Mapping[str, Any], state: State, batch: Mapping[str, Any], step: int, seed: int
    ) -> dict:
        one = float(self.one)
        feed: dict[str, Any] = {
            "train/seed": np.array(to_limbs(seed, SEED_LIMBS)) / one,
            "train/step": np.array(to_limbs(step, STEP_LIMBS)) / one,
        }
        for i, (k, shape) in enumerate(self.param_shapes.items()):
            feed[self.param_input(i, k)] = np.asarray(_numpy(params[k]), dtype=np.float64)
            for slot in self.optimizer.state_slots():
                feed[f"train/state/{i}/{slot}"] = np.asarray(state[k][slot], dtype=np.float64)
            n = int(np.prod(shape))
            feed[f"train/noise/{i}/{self.bits}"] = (
                np.array(sr_noise(seed, step, i, n, self.bits), dtype=np.float64).reshape(shape) / one
            )
        for k in self.batch_shapes:
            if k not in batch:
                raise GraphError(f"missing batch input {k!r}")
            feed[k] = np.asarray(_numpy(batch[k]), dtype=np.float64)
        return feed

    def _split(self, outs: Mapping[str, np.ndarray]) -> StepValues:
        new_params, new_state = {}, {}
        for i, k in enumerate(self.param_shapes):
            new_params[k] = np.asarray(outs[f"train/new_param/{i}/{k}"], dtype=np.float64)
            new_state[k] = {
                slot: np.asarray(outs[f"train/new_state/{i}/{slot}"], dtype=np.float64)
                for slot in self.optimizer.state_slots()
            }
        return StepValues(new_params, new_state, float(np.asarray(outs["train/loss"]).reshape(-1)[0]))

    def run_exact(
        self, params: Mapping[str, Any], state: State, batch: Mapping[str, Any], step: int, seed: int
    ) -> StepValues:
        """The fixed-point step (what a proof attests), without proving."""
        return self._split(self.graph.run(self.feed(params, state, batch, step, seed), exact=True))

    def reference_step(self, params: Mapping[str, Any], state: State, batch: Mapping[str, Any]) -> StepValues:
        """float64: the real loss and gradients of the same graph, then the optimizer's update
        without rounding (``Optimizer.reference``). Gradients are in ``extra``."""
        cx = self.reference_graph
        feed = self.feed(params, state, batch, 0, 0)
        outs = cx.run(feed)
        new_params, new_state, grads = {}, {}, {}
        for i, k in enumerate(self.param_shapes):
            grads[k] = outs[f"grad/{k}"]
            new_params[k], new_state[k] = self.optimizer.reference(
                feed[self.param_input(i, k)], grads[k], state[k]
            )
        return StepValues(new_params, new_state, float(outs["train/loss"].reshape(-1)[0]), grads)

    def digest(self, params: Mapping[str, Any], state: State | None = None) -> str:
        """The verifier's weights digest of these values (with ``state``: the state digest that
        chains link on)."""
        entries = [(k, s, _raws(params[k], self.one)) for k, s in self.param_shapes.items()]
        if state is not None:
            for k, s in self.param_shapes.items():
                for slot in sorted(self.optimizer.state_slots()):
                    entries.append((f"{k}/{slot}", s, _raws(state[k][slot], self.one)))
        return weights_digest(entries)

    # -- proving ---------------------------------------------------------------------------------

    def prove_step(
        self, params: Mapping[str, Any], state: State, batch: Mapping[str, Any], step: int, seed: int
    ) -> StepResult:
        """Prove one step; returns the proof, settings and the new parameters and state."""
        settings = self.settings()
        t = time.perf_counter()
        trace = self.graph.gen_trace(self.feed(params, state, batch, step, seed))
        proof = self.graph.prove(trace, settings)
        dt = time.perf_counter() - t
        vals = self._split(trace.outputs)
        return StepResult(
            step,
            seed,
            proof.data,
            settings.data,
            vals.new_params,
            vals.new_state,
            vals.loss,
            self.digest(params),
            self.digest(vals.new_params),
            dt,
            proof.stats,
        )

    def prove_chain(
        self,
        params: Mapping[str, Any],
        state: State,
        batches: Sequence[Mapping[str, Any]],
        start_step: int,
        seed: int,
        on_step: Callable[[StepResult], None] | None = None,
    ) -> list[StepResult]:
        """Prove ``len(batches)`` consecutive steps, each starting from the previous step's result."""
        out = []
        p, s = dict(params), state
        for i, batch in enumerate(batches):
            r = self.prove_step(p, s, batch, start_step + i, seed)
            out.append(r)
            if on_step:
                on_step(r)
            p, s = r.new_params, r.new_state
        return out


def _numpy(value: Any) -> Any:
    if hasattr(value, "detach") and hasattr(value, "cpu") and hasattr(value, "numpy"):
        return value.detach().cpu().numpy()
    return value


def _raws(values: Any, one: int) -> list[int]:
    arr = np.asarray(_numpy(values), dtype=np.float64).reshape(-1) * one
    raw = np.floor(arr + 0.5)
    return [int(v) for v in raw]
