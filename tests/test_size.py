"""A line budget for the verifier and the prover (docs/architecture.md): code lines, not counting
blank lines, comments and docstrings. The verifier ships to every browser and is what an auditor
reads; it must not grow past its budget without something else leaving. A feature that needs more
room raises the budget in the same commit, saying why."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# prover 11050 -> 11400: index inputs and Gather (+70, format 11); layers past the format's caps
# split while importing (hl_conv, ops_nn), the cells of a graph past the topology bound (costs.py),
# inspect's topology line (+150, issue 26 round two); prove's fallback to the input's shapes for a
# model with no one symbolic settings.bin (+30); the chunked composition, the egglog loader and the
# compiled out-of-domain dot product (+100, issue 29 round two)
# verifier 5850 -> 5913, prover 11400 -> 11440: Gathers at private ids (the gather, private_index and
# known_table components, their topology and witness), integer ONNX inputs read as values and
# index inputs no Gather reads refused (issue 26)
# verifier 5913 -> 5915: the out-of-memory verdict built after gc.collect(); prover 11440 -> 11505:
# ONNX inputs read as shapes given at import (importer, CLI), view-only graphs' outputs copied;
# -> 11535: prove's accuracy report against onnxruntime with top-1 agreement (cli/accuracy.py);
# -> 11615: the global scale calibrated from samples (graph/calibrate.py, prove --calibrate);
# -> 11655: Merkle layers rebuilt on demand and the heap helpers (issue 29 round three)
# -> 11665: gen_settings builds the AIR once, on the verifier's reading of the body;
# verifier 5915 -> 5934 (issue 32 round three): verify_stark's argument checks, the summaries under
# verify's caps and budget (the web's inspect reads files from anywhere), an instantiated template's
# output index maps charged; prover +2 for inspect reading the user's own files at the largest caps;
# -> 11857: the first-order error bound (graph/first_order.py, prove --error-bound; issue 26);
# -> 11880: the accuracy over the calibration set (cli/accuracy.py samples_report; issue 27)
# -> 11940: the configuration a proof from another preset was made with, found by its digest
# (cli/mismatch.py), and help texts for train-step --preset and verify-chain's flags (issue 31)
# verifier 5934 -> 5992 (issue 28, the CNN's verify time): topology addresses run by run (ViewRuns, one
# closed form a run, and ColumnPattern._interior's differences at the run starts, with the per-row
# reading kept for overlapping parts) instead of a digit loop a row; the sparse selectors' hot loops
# (poly._row_points, _inverse_terms) written out; a weight row read as one slice (matmul.weight_rows)
# prover 11940 -> 11942: `luminair verify` without numpy (luminair.prover's names loaded on first
# use, numpy imported where prove and train-step use it)
# -> 11955: the first-order bound refused before any pass past its cell limit (said by prove, not raised)
# verifier -> 6090, prover -> 12240 (issue 27): a scale per node (numeric.node_constant, the reader's
# rule check, components by (kind, constant)) and per-tensor calibration (calibrate_tensors)
# -> 6130, 12250: a kind's nodes at several constants in one component (GraphComponent.vary: the
# derived `pow` column, the remainder's complement check, plan.vary_constants, its witness)
# prover -> 12350 (issue 29, round four; the calibration refusal naming element and sample): the
# executors' kept runs and their reuse after a rewrite or
# new scales (Graph.run_nodes, execute.Reuse), powers by doubling, compose kept onto identity views
# verifier -> 6480, prover -> 12750 (issue 28, committed weights, inputs and outputs): the model
# tree as a statement tree, the committed and MatW components, proof vectors and late challenges,
# the settings' model section, the input and output trees, luminair audit and the digest checks
# prover -> 13020 (issue 29, round five): the LogUp batches by compiled kernels (jit/logup.py: the
# batch fraction, its quotient and its constraint in one pass each; logup_batches.py; finalize_logup)
# verifier -> 6840, prover -> 13360 (issue 30, segmented proofs): the cut, the boundary components'
# fingerprints, the bundle and its verifier (segments.py, graph/segments.py, result.py); the
# prover's two phases, the segment graphs, the scheduler (in-process or Ray; its errors in one line),
# prove_many, prove_shards, --max-memory
# -> 6845, 13470 (issue 30, models too large for one trace): cuts within the per-trace bounds
# (prover/cuts.py fit_cuts), settings sized on segments, pooling in bands, a Dot in blocks, a
# boundary output's range topology
# prover -> 13520 (issue 29, round six): the FFT's three lowest layers in one vectorized pass
# (jit/m31._low3), transforms in place range by range (L2, then L1 blocks), flat twiddles apart
# from the twins' uint64 tuples
# -> 13535: the Merkle leaves gathered by address (jit/blake2s.gather_rows), DEEP sums two columns a
# pass, the vanishing inverses, the command's exit without teardown (cli.console)
BUDGET = {"verifier": 6845, "prover": 13535}


def code_lines(source: str) -> int:
    """Lines holding code: tokens other than comments, and not inside a docstring."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in skip:
            lines.update(line for line in range(tok.start[0], tok.end[0] + 1) if line not in docstrings)
    return len(lines)


def part_size(part: str) -> int:
    return sum(code_lines(p.read_text()) for p in (ROOT / part).rglob("*.py"))


def test_the_counter_skips_comments_blank_lines_and_docstrings():
    src = '"""Doc."""\n\n# a comment\ndef f(x):\n    """Doc\n    more."""\n    return (x +\n            1)  # tail\n'
    assert code_lines(src) == 3


def test_the_verifier_and_the_prover_stay_within_their_line_budgets():
    sizes = {part: part_size(part) for part in BUDGET}
    over = {part: f"{n} > {BUDGET[part]}" for part, n in sizes.items() if n > BUDGET[part]}
    assert not over, f"code lines over budget (docs/architecture.md): {over}"
