"""`luminair train-step` and `luminair verify-chain` (registered by prover/cli/__init__.py).

    luminair train-step --mlp 64-64-10 --batch BATCH.npz --out DIR [--weights W.npz | --init SEED]
        [--optimizer tdclm|sgd|adam|clm] [--lr LR] [--b1 B1] [--b2 B2] [--lam LAM] [--eps EPS]
        [--momentum MU] [--step N] [--seed S] [--private-batch] [--preset fast|default|secure]
    luminair train-step --model MODEL.py ...       MODEL.py defines PARAMS, BATCH and loss(params, batch)
    luminair train-step --onnx MODEL.onnx ...      an ONNX classifier, from its own weights (cross entropy)
    luminair verify-chain DIR [--start-digest HEX]  verifies DIR/step_*/ as one run

BATCH.npz holds the batch inputs by name (x, y for an MLP): one batch, or k batches stacked on a
leading axis (k chained steps). Integer labels y of shape (batch,) are one-hot encoded for the MLP.
DIR gets step_<n>/proof.bin + settings.bin per step, weights.npz (the new weights and optimizer state
after the last step, loadable into a PyTorch state dict) and train.json (digests and losses).
"""

from __future__ import annotations

import argparse
import json
import runpy
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from .common import EXIT_OK, EXIT_REJECTED, UsageError, check_out_dir, read_file, say

OPT_FLAGS = {
    "sgd": ("lr", "momentum"),
    "adam": ("lr", "b1", "b2", "eps"),
    "clm": ("lr", "b1", "b2", "eps"),
    "tdclm": ("lr", "b1", "lam", "eps"),
}


def add_parsers(sub: Any) -> None:
    t = sub.add_parser("train-step", help="prove one (or k chained) optimizer steps of a model on a batch")
    model = t.add_mutually_exclusive_group(required=True)
    model.add_argument(
        "--mlp", metavar="SIZES", help="an MLP with ReLU, e.g. 64-64-10 (PyTorch names fc1.weight, ...)"
    )
    model.add_argument(
        "--model", metavar="MODEL.py", help="a Python file defining PARAMS, BATCH and loss(params, batch)"
    )
    model.add_argument(
        "--onnx",
        metavar="MODEL.onnx",
        help="an ONNX classifier (one input, batch first; logits out): "
        "its named weights are trained with a cross-entropy loss, starting from its own weights",
    )
    t.add_argument(
        "--batch", required=True, help="BATCH.npz: the batch inputs by name (a leading axis of k: k steps)"
    )
    t.add_argument("--out", required=True, help="output directory")
    w = t.add_mutually_exclusive_group()
    w.add_argument("--weights", help="W.npz: the weights (and optimizer state) before the step")
    w.add_argument(
        "--init", type=int, default=None, metavar="SEED", help="start from a seeded initialisation"
    )
    t.add_argument("--optimizer", choices=sorted(OPT_FLAGS), default="tdclm")
    for flag in ("lr", "b1", "b2", "lam", "eps", "momentum"):
        t.add_argument(f"--{flag}", type=float, default=None)
    t.add_argument("--step", type=int, default=0, help="the step number of the (first) step")
    t.add_argument("--seed", type=int, default=0, help="the base seed of the stochastic rounding")
    t.add_argument(
        "--loss-scale", type=float, default=None, help="the optimizer sees the gradient of LOSS_SCALE * loss"
    )
    t.add_argument("--private-batch", action="store_true", help="keep the batch out of the proof files")
    t.add_argument("--preset", choices=["fast", "default", "secure"], default="default",
                   help="the step proofs' configuration: default (96 bits, what verifiers accept), secure (more "
                   "queries) or fast (a development proof of about 20 bits, accepted only with --min-security-bits; "
                   "anyone could forge it); default: default")
    t.add_argument("--scale-bits", type=int, default=10)
    t.add_argument("--json", action="store_true")
    t.set_defaults(fn=cmd_train_step)
    v = sub.add_parser("verify-chain", help="verify the training steps in DIR/step_*/ as one chained run")
    v.add_argument("dir")
    v.add_argument("--start-digest", default=None, help="the state digest the chain must start from")
    v.add_argument("--program-digest", default=None, help="the model digest every step must have")
    v.add_argument("--min-security-bits", type=int, default=None, metavar="BITS",
                   help="the floor every step's configuration must reach (default 96; e.g. 20 for --preset fast steps)")
    v.add_argument("--max-work", type=int, default=None, metavar="UNITS",
                   help="each step's verifier work budget (default: what its files' bytes back; docs/formats.md)")
    v.add_argument("--json", action="store_true")
    v.set_defaults(fn=cmd_verify_chain)


def _optimizer(args: argparse.Namespace) -> Any:
    from ..train import OPTIMIZERS

    cls = OPTIMIZERS[args.optimizer]
    kw = {"lr": 0.02 if args.optimizer == "tdclm" else 0.01}
    for flag in ("lr", "b1", "b2", "lam", "eps", "momentum"):
        value = getattr(args, flag)
        if value is None:
            continue
        if flag not in OPT_FLAGS[args.optimizer]:
            raise UsageError(f"--{flag} does not apply to --optimizer {args.optimizer}")
        kw[flag] = value
    return cls(**kw)


def _program(args: argparse.Namespace) -> tuple[Any, Any]:
    from ..train import TrainProgram, init_mlp, mlp_program

    opt = _optimizer(args)
    common = {"private_batch": args.private_batch, "scale_bits": args.scale_bits, "preset": args.preset}
    if args.mlp:
        try:
            sizes = [int(s) for s in args.mlp.split("-")]
        except ValueError:
            raise UsageError(f"--mlp {args.mlp!r}: expected sizes like 64-64-10") from None
        if len(sizes) < 2 or min(sizes) < 1:
            raise UsageError(f"--mlp {args.mlp!r}: expected at least two positive sizes")
        batch_len = _batch_len(args)
        prog = mlp_program(sizes, batch_len, opt, loss_scale=args.loss_scale, **common)
        return prog, (lambda seed: init_mlp(sizes, seed))
    if args.onnx:
        from .train.from_graph import onnx_program

        prog, weights = onnx_program(args.onnx, _batch_len(args), opt, loss_scale=args.loss_scale, **common)
        return prog, (lambda seed: weights)
    ns = runpy.run_path(args.model)
    missing = [k for k in ("PARAMS", "BATCH", "loss") if k not in ns]
    if missing:
        raise UsageError(
            f"--model {args.model!r} must define PARAMS, BATCH and loss(params, batch); missing {missing}"
        )
    prog = TrainProgram(
        ns["loss"], ns["PARAMS"], ns["BATCH"], opt, loss_scale=args.loss_scale or 1.0, **common
    )
    init = ns.get("init")
    return prog, init


def _batch_len(args: argparse.Namespace) -> int:
    import numpy as np  # (numpy only for the training commands: `luminair verify` starts without it)

    with np.load(args.batch, allow_pickle=False) as z:
        x = z["x"] if "x" in z.files else z[z.files[0]]
        return int(x.shape[1] if x.ndim == 3 else x.shape[0])


def _batches(args: argparse.Namespace, prog: Any) -> list[dict[str, np.ndarray]]:
    import numpy as np  # (as in _batch_len)

    with np.load(args.batch, allow_pickle=False) as z:
        arrays = {k: np.array(z[k]) for k in z.files}
    missing = [k for k in prog.batch_shapes if k not in arrays]
    if missing:
        raise UsageError(f"--batch {args.batch!r} has no array {missing[0]!r} (it has {sorted(arrays)})")
    out: list[dict[str, np.ndarray]] = []
    k = None
    for name, shape in prog.batch_shapes.items():
        a = arrays[name]
        if (
            (args.mlp or args.onnx)
            and name == "y"
            and a.ndim in (1, 2)
            and np.issubdtype(a.dtype, np.integer)
            and a.shape[-1] != shape[-1]
        ):
            a = np.eye(shape[-1])[a]  # labels -> one-hot
        if a.shape == shape:
            a = a[None]
        if a.shape[1:] != shape:
            raise UsageError(
                f"--batch: array {name!r} has shape {arrays[name].shape}, expected {shape} or (k,) + {shape}"
            )
        if k is not None and a.shape[0] != k:
            raise UsageError(f"--batch: arrays hold different numbers of steps ({k} and {a.shape[0]})")
        k = a.shape[0]
        for i in range(k):
            if len(out) <= i:
                out.append({})
            out[i][name] = a[i].astype(np.float64)
    return out


def cmd_train_step(args: argparse.Namespace) -> int:
    from ..proving import _write
    from ..train import load_npz, save_npz

    out = check_out_dir(args.out)
    prog, init = _program(args)
    if args.weights:
        params, state = load_npz(args.weights)
        params = prog.quantize(params)
        state = state or prog.init_state()
        for k in prog.param_shapes:
            for slot in prog.optimizer.state_slots():
                if slot not in state.get(k, {}):
                    raise UsageError(
                        f"--weights {args.weights!r} has no optimizer state {k}/{slot} (state/{k}/{slot})"
                    )
    else:
        if init is None:
            raise UsageError("give --weights (the model file defines no init)")
        params, state = prog.quantize(init(args.init or 0)), prog.init_state()
    batches = _batches(args, prog)
    settings = prog.settings()
    start_digest = prog.digest(params, state)
    steps = []

    def done(r: Any) -> None:
        d = out / f"step_{r.step:05d}"
        _write(d / "proof.bin", r.proof)
        _write(d / "settings.bin", r.settings)
        steps.append(
            {
                "step": r.step,
                "loss": r.loss,
                "old_weights_digest": r.old_digest,
                "new_weights_digest": r.new_digest,
                "prove_s": round(r.prove_s, 3),
                "proof_bytes": len(r.proof),
                "dir": str(d),
            }
        )
        if not args.json:
            say(f"step {r.step}: loss {r.loss:.4f}, proved in {r.prove_s:.1f} s, {len(r.proof)} bytes -> {d}")

    results = prog.prove_chain(params, state, batches, args.step, args.seed, on_step=done)
    last = results[-1]
    save_npz(out / "weights.npz", last.new_params, last.new_state)
    summary = {
        "program_digest": settings.model_digest,
        "optimizer": prog.optimizer.hparams(),
        "noise_bits": prog.bits,
        "effective_lr": prog.effective_lr,
        "loss_scale": prog.loss_scale,
        "seed": args.seed,
        "start_state_digest": start_digest,
        "end_state_digest": prog.digest(last.new_params, last.new_state),
        "security": settings.describe_security(),
        "steps": steps,
        "weights": str(out / "weights.npz"),
    }
    (out / "train.json").write_text(json.dumps(summary, indent=2))
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        say(f"program (model digest) {summary['program_digest']}; {summary['security']}")
        say(
            f"state digest (weights + optimizer state) before {start_digest[:16]}..., after "
            f"{summary['end_state_digest'][:16]}... -> {summary['weights']}"
        )
    return EXIT_OK


def cmd_verify_chain(args: argparse.Namespace) -> int:
    from luminair.verifier.config import DEFAULT_MIN_SECURITY_BITS
    from luminair.verifier.training_chain import verify_chain

    dirs = sorted(p for p in Path(args.dir).glob("step_*") if p.is_dir())
    if not dirs:
        raise UsageError(f"{args.dir!r} has no step_*/ folders")
    pairs = [
        (read_file(str(d / "proof.bin"), "proof"), read_file(str(d / "settings.bin"), "settings"))
        for d in dirs
    ]
    floor = DEFAULT_MIN_SECURITY_BITS if args.min_security_bits is None else args.min_security_bits
    r = verify_chain(
        pairs,
        program_digest=args.program_digest,
        start_state_digest=args.start_digest,
        min_security_bits=floor,
        max_work=args.max_work,
    )
    if args.json:
        print(
            json.dumps(
                {
                    "success": r.success,
                    "error_message": r.error_message,
                    "check": r.check,
                    "failed_step": r.failed_step,
                    "program_digest": r.program_digest,
                    "steps": r.steps,
                },
                indent=2,
            )
        )
    elif r.success:
        say(
            f"valid: {len(r.steps)} chained training steps {r.steps[0]['step']}..{r.steps[-1]['step']} "
            f"of program {r.program_digest}"
        )
        for s in r.steps:
            say(
                f"  step {s['step']}: loss {s['loss']:.4f}; weights {s['old_weights_digest'][:16]}... -> "
                f"{s['new_weights_digest'][:16]}..."
            )
    else:
        where = dirs[r.failed_step].name if r.failed_step is not None else args.dir
        say(f"rejected: {r.error_message} ({where})")
    return EXIT_OK if r.success else EXIT_REJECTED
