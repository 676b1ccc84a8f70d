"""Provable training: autograd on the graph (prover/graph/autograd.py), optimizers as graph
builders with deterministic stochastic rounding, and training-step programs whose proofs the
verifier checks as training statements (verifier/graph/training.py)."""

from .from_graph import graph_program, onnx_program
from .models import cross_entropy, init_mlp, mlp_loss, mlp_param_shapes, mlp_program, onehot
from .optim import CLM, OPTIMIZERS, SGD, TDCLM, Adam, Optimizer, min_eps
from .program import StepResult, StepValues, TrainProgram
from .weights import from_state_dict, load_npz, save_npz, to_state_dict

__all__ = [
    "Adam",
    "CLM",
    "OPTIMIZERS",
    "Optimizer",
    "SGD",
    "StepResult",
    "StepValues",
    "TDCLM",
    "TrainProgram",
    "cross_entropy",
    "from_state_dict",
    "graph_program",
    "onnx_program",
    "init_mlp",
    "load_npz",
    "min_eps",
    "mlp_loss",
    "mlp_param_shapes",
    "mlp_program",
    "onehot",
    "save_npz",
    "to_state_dict",
]
