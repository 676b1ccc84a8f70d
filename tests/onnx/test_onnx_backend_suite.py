"""ONNX's own backend test cases from the installed onnx wheel (pytorch-converted, pytorch-operator,
simple): every case matches its reference outputs within the fixed-point bound, or is refused for a
reason that belongs to the model, in a clear message; never "unsupported op" for an op with tensor
semantics. A sample of the matching cases is proven and verified, and docs/onnx.md's op table is
the generated one."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from luminair.prover.onnx import conformance as C
from luminair.prover.onnx import op_table

CASES = C.backend_cases()


@pytest.fixture(scope="module")
def suite() -> dict[str, C.Result]:
    return {r.case.name: r for r in (C.run_case(c) for c in CASES)}


@pytest.mark.parametrize("case", CASES, ids=[f"{c.suite}/{c.name}" for c in CASES])
def test_backend_case_matches_or_is_refused_for_a_reason_of_the_model(suite, case):
    r = suite[case.name]
    assert r.ok, f"{case.suite}/{case.name}: {r.status}: {r.detail}"
    first = r.detail.splitlines()[0] if r.detail else ""
    if r.status == C.OUT_OF_RANGE:  # the bounds pass names the node, the element, the value and a remedy
        assert " node " in first and "element " in first and "raw value" in first and "Remedy:" in first, first
    elif r.status == C.RUNTIME_SHAPE:  # one line naming the node and the integer input
        assert "\n" not in r.detail and "integer graph input" in r.detail, r.detail
    elif r.status == C.NON_TENSOR:
        assert "no tensor semantics" in r.detail or "not a tensor" in r.detail, r.detail
    elif r.status == C.FORMAT_CAP:  # StwoCompiler names the node and the cap
        assert first.startswith("FormatCapError: node ") and "ONNX " in first and "2^2" in first, first
    else:
        assert r.max_error <= r.max_bound + 1e-4


def test_every_refusal_belongs_to_the_model_and_the_counts_are_the_expected_ones(suite):
    counts = C.counts(list(suite.values()))
    assert counts["failure"] == 0
    assert counts["cases"] == len(CASES) >= 140
    # the refused cases, by reason: garbage or out-of-range data, sequences and strings; int64 token
    # ids into an embedding match, int64 inputs read as shapes (Expand to a shape given with the
    # inputs) match with the shape taken at import, and int64 values (an Add and a Mul of integers)
    # run in fixed point, out of range at 2^10 (32)
    refused = {r.case.name: r.status for r in suite.values() if r.status != C.MATCHED}
    assert not {n for n, s in refused.items() if s == C.RUNTIME_SHAPE}
    assert all(suite[f"test_expand_shape_model{i}"].status == C.MATCHED for i in range(1, 5))
    assert refused.get("test_operator_non_float_params") == C.OUT_OF_RANGE
    assert suite["test_Embedding"].status == suite["test_Embedding_sparse"].status == C.MATCHED
    assert refused.get("test_operator_sqrt") == C.OUT_OF_RANGE  # sqrt of a negative (the reference is NaN)
    assert refused.get("test_operator_pow") == C.OUT_OF_RANGE  # a negative base (NaN in the reference)
    assert all(s == C.NON_TENSOR for n, s in refused.items() if "sequence" in n or "strnorm" in n)
    # a 20 x 16 x 50 x 40 input convolved by 13 x 16 x 3 x 3: 68.3M products, past the 2^26-element
    # views, computed in bands of output rows (hl_conv), matches like every other convolution
    assert not {n for n, s in refused.items() if s == C.FORMAT_CAP}
    assert suite["test_operator_conv"].status == C.MATCHED


def test_a_sample_of_matching_cases_is_proven_and_verified(suite):
    from luminair.prover.proving import gen_settings, gen_trace, prove
    from luminair.verifier import verify

    sample = ["test_Conv1d_pad1", "test_ConvTranspose2d_no_bias", "test_MaxPool3d_stride_padding",
              "test_ReflectionPad2d", "test_PReLU_2d_multiparam", "test_shrink", "test_gradient_of_add_and_mul",
              "test_expand_shape_model3"]  # the last only rearranges its input: its copy is proven
    for name in sample:
        assert suite[name].status == C.MATCHED, name
        case = next(c for c in CASES if c.name == name)
        model = case.model()
        graph, inputs = C.imported(case, model)
        settings = gen_settings(graph, preset="fast")
        proof = prove(graph, gen_trace(graph, inputs), settings)
        r = verify(proof.data, settings.data, min_security_bits=0)
        assert r.success, f"{name}: {r.error_message}"
        exact = graph.run(inputs, exact=True)
        for out, arr in exact.items():
            assert np.array_equal(np.asarray(r.outputs[out]["values"], dtype=float), arr.reshape(-1)), (name, out)


def test_the_docs_op_table_is_the_generated_one(suite):
    from luminair.prover.onnx.table import OPS

    doc = op_table.current(op_table.DOC.read_text(encoding="utf-8"))
    fix = "regenerate it: python -m luminair.prover.onnx.op_table --write"
    assert doc, f"docs/onnx.md has no generated ONNX op table section; {fix}"
    for name, entry in OPS.items():  # every op with its meaning and bound, whatever the onnx version
        assert f"| {name} | {op_table.cell(entry.meaning)} | {op_table.cell(entry.bound)} |" in doc, (name, fix)
    if f"ONNX {onnx.__version__} backend cases" in doc:  # the counts are those of the onnx version the doc names
        assert doc == op_table.section(list(suite.values())), fix
