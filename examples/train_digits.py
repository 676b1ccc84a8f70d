"""Twenty proven TD-CLM steps of an MLP on scikit-learn's digits; every step verifies as one chain.

    python examples/train_digits.py [--sizes 64-64-10] [--batch 32] [--steps 20] [--preset fast] [--out DIR] [--max-work UNITS]

Prints JSON: the held-out loss before and after, each step's loss, prove time and proof size, the
chain verification, and the largest difference between the proven weights and a float64 run of the
same steps (each step restarted from the proven weights)."""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from luminair.prover.train import TDCLM, init_mlp, mlp_program, save_npz
from luminair.prover.train.data import digits_batches, eval_loss
from luminair.verifier.training_chain import verify_chain


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="64-64-10")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--preset", default="fast")
    ap.add_argument("--out", default=None, help="write the final weights (.npz) here")
    ap.add_argument("--max-work", type=int, default=None, help="the verifier's work budget, for steps larger than the default's")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split("-")]
    prog = mlp_program(sizes, args.batch, TDCLM(lr=args.lr), preset=args.preset)
    train, held_out = digits_batches(args.batch, args.steps, seed=1)
    params, state = prog.quantize(init_mlp(sizes, 0)), prog.init_state()
    before = eval_loss(prog, params, held_out)
    t = time.perf_counter()
    prog.settings()
    settings_s = time.perf_counter() - t
    max_err = 0.0

    def on_step(r):
        print(f"step {r.step}: loss {r.loss:.4f}, {r.prove_s:.1f} s, {len(r.proof)} bytes", flush=True)

    steps = prog.prove_chain(params, state, train, 0, args.seed, on_step=on_step)
    p, s = params, state
    for i, r in enumerate(steps):
        ref = prog.reference_step(p, s, train[i])
        max_err = max(
            max_err, max(float(np.abs(r.new_params[k] - ref.new_params[k]).max()) for k in prog.param_shapes)
        )
        p, s = r.new_params, r.new_state
    t = time.perf_counter()
    chain = verify_chain(
        [(r.proof, r.settings) for r in steps],
        min_security_bits=0,
        max_work=args.max_work,  # None: the default budget (a 64-64-10 step at batch 32 declares ~507,000 units)
        start_state_digest=prog.digest(params, state),
    )
    verify_s = time.perf_counter() - t
    after = eval_loss(prog, steps[-1].new_params, held_out)
    if args.out:
        save_npz(args.out, steps[-1].new_params, steps[-1].new_state)
    print(
        json.dumps(
            {
                "model": f"MLP {args.sizes}",
                "batch": args.batch,
                "optimizer": prog.optimizer.hparams(),
                "noise_bits": prog.bits,
                "preset": args.preset,
                "held_out_loss_before": round(before, 4),
                "held_out_loss_after": round(after, 4),
                "step_losses": [round(r.loss, 4) for r in steps],
                "chain_valid": chain.success,
                "chain_error": chain.error_message,
                "settings_s": round(settings_s, 2),
                "prove_s_median": round(float(np.median([r.prove_s for r in steps])), 2),
                "verify_chain_s": round(verify_s, 2),
                "proof_bytes_median": int(np.median([len(r.proof) for r in steps])),
                "max_abs_error_vs_float64": max_err,
                "max_error_raw_units": max_err * prog.one,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
