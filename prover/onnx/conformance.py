"""ONNX's own backend test cases, run through the importer: the installed onnx wheel ships them
(onnx/backend/test/data/{pytorch-converted, pytorch-operator, simple}: a model.onnx, its inputs
and its reference outputs each).

A case either matches (the float64 run equals the reference to float32 precision, and the exact
fixed-point run of the compiled graph, the values a proof attests, is within the derived error
bound of it), or is refused for a reason that belongs to the model: a value outside the numeric
range (the bounds pass names node, element, value and remedy), a non-tensor type (sequences,
strings), a shape given at run time that is not in the case's inputs (an integer input that sets
a static graph's shape: its value is taken at import, as `luminair prove` takes it from the input
file), or a tensor or view larger than the proof format holds (StwoCompiler names the node). Anything else is a failure of the importer. ``python -m luminair.prover.onnx.conformance`` prints the counts as JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from luminair.prover.compile.stwo import FormatCapError
from luminair.verifier.numeric import NumericError

from .errors import OnnxImportError, UnsupportedOnnxError
from .importer import NON_TENSOR_REASON, load_onnx, shape_inputs

SUITES = ("pytorch-converted", "pytorch-operator", "simple")
RTOL, ATOL = 1e-4, 1e-5  # float64 against the float32 reference

MATCHED = "matched"
OUT_OF_RANGE = "value outside the numeric range"
NON_TENSOR = "non-tensor type"
RUNTIME_SHAPE = "a shape given at run time (a static graph's shapes are constants)"
FORMAT_CAP = "larger than the proof format's caps"
REFUSALS = (OUT_OF_RANGE, NON_TENSOR, RUNTIME_SHAPE, FORMAT_CAP)


def data_dir() -> Path:
    return Path(onnx.__file__).parent / "backend" / "test" / "data"


@dataclass(frozen=True)
class Case:
    suite: str
    name: str
    path: Path

    def model(self) -> onnx.ModelProto:
        return onnx.load(str(self.path / "model.onnx"))

    def tensors(self, kind: str) -> list[np.ndarray]:
        out = []
        for f in sorted((self.path / "test_data_set_0").glob(f"{kind}_*.pb"), key=lambda p: int(p.stem.split("_")[1])):
            t = onnx.TensorProto()
            t.ParseFromString(f.read_bytes())
            out.append(numpy_helper.to_array(t))
        return out


def backend_cases() -> list[Case]:
    """Every case of the three suites in the installed onnx wheel, in name order."""
    base = data_dir()
    cases = [Case(s, p.name, p) for s in SUITES for p in sorted((base / s).iterdir()) if (p / "model.onnx").is_file()]
    if not cases:
        raise FileNotFoundError(f"no ONNX backend test cases under {base}")
    return cases


@dataclass
class Result:
    case: Case
    status: str  # MATCHED, one of REFUSALS, or "failure"
    detail: str = ""
    ops: list[str] = field(default_factory=list)
    max_error: float = 0.0  # max |exact - reference| over the outputs (matched cases)
    max_bound: float = 0.0  # the largest derived bound of an output element

    @property
    def ok(self) -> bool:
        return self.status == MATCHED or self.status in REFUSALS


def _refusal(e: Exception) -> str | None:
    """The category of an import or run error that belongs to the model (None: the importer's)."""
    if isinstance(e, NumericError):
        return OUT_OF_RANGE
    if isinstance(e, FormatCapError):
        return FORMAT_CAP
    if isinstance(e, UnsupportedOnnxError):
        return NON_TENSOR if set(e.reasons) == {NON_TENSOR_REASON} else None
    text = str(e)
    if isinstance(e, OnnxImportError) and "is an integer graph input" in text:
        return RUNTIME_SHAPE
    if isinstance(e, OnnxImportError) and ("not a tensor" in text or "element type STRING" in text):
        return NON_TENSOR
    return None


def feeds(case: Case, model: onnx.ModelProto) -> dict[str, np.ndarray]:
    inits = {i.name for i in model.graph.initializer}
    names = [vi.name for vi in model.graph.input if vi.name not in inits]
    return {n: a.astype(np.float64) if a.dtype.kind in "fb" else a for n, a in zip(names, case.tensors("input"))}  # ids stay integers


def imported(case: Case, model: onnx.ModelProto):  # noqa: ANN201 - (a compiled Graph, its inputs)
    """The case's model compiled as `luminair prove` compiles it, with the values of its inputs read
    as shapes taken at import (constants of the model, as the CLI takes them from the input file),
    and the feeds of the graph's inputs."""
    inputs = feeds(case, model)
    shapes = {name: inputs.pop(name) for name in shape_inputs(model)}
    return compiled(load_onnx(model, shape_values=shapes)), inputs


def compiled(graph):  # noqa: ANN001, ANN201 - a Graph, compiled as `luminair prove --no-search` compiles it
    from luminair.prover import GenericCompiler, StwoCompiler

    return graph.compile(GenericCompiler(), StwoCompiler(search=False))


def run_case(case: Case) -> Result:
    """Import, compile, run exactly and in float64, compare with the reference outputs."""
    from luminair.prover.graph.error_bound import error_bound

    model = case.model()
    ops = sorted({n.op_type for n in model.graph.node})
    try:
        graph, inputs = imported(case, model)
        exact = graph.run(inputs, exact=True)
    except Exception as e:  # noqa: BLE001 - every error is classified, the unexpected ones as failures
        why = _refusal(e)
        return Result(case, why or "failure", f"{type(e).__name__}: {e}", ops)
    floats = graph.run(inputs)
    bounds = error_bound(graph, inputs)
    refs = dict(zip([o.name for o in model.graph.output], case.tensors("output")))
    worst = worst_bound = 0.0
    for name, ref in refs.items():
        ref = ref.astype(np.float64)
        if floats[name].shape != ref.shape:
            return Result(case, "failure", f"output {name!r}: shape {floats[name].shape}, reference {ref.shape}", ops)
        if not np.allclose(floats[name], ref, rtol=RTOL, atol=ATOL):
            diff = float(np.max(np.abs(floats[name] - ref)))
            return Result(case, "failure", f"output {name!r}: the float64 run differs from the reference by {diff:g}",
                          ops)
        err = np.abs(exact[name] - floats[name])
        if not np.all(err <= bounds[name]):
            return Result(case, "failure", f"output {name!r}: fixed-point error {err.max():g} beyond its bound", ops)
        worst = max(worst, float(np.max(np.abs(exact[name] - ref), initial=0.0)))
        worst_bound = max(worst_bound, float(np.max(bounds[name], initial=0.0)))
    return Result(case, MATCHED, "", ops, worst, worst_bound)


def run_suite() -> list[Result]:
    return [run_case(c) for c in backend_cases()]


def counts(results: list[Result]) -> dict[str, int]:
    """{"cases", "imported", "matched", each refusal reason, "failure"}."""
    out = {"cases": len(results), "imported": 0, MATCHED: 0, **{r: 0 for r in REFUSALS}, "failure": 0}
    for r in results:
        out[r.status] += 1
        out["imported"] += r.status in (MATCHED, OUT_OF_RANGE, FORMAT_CAP)
    return out


def summary_line(results: list[Result]) -> str:
    """One sentence with the counts (docs/onnx.md's op table section quotes it)."""
    c = counts(results)
    refused = ", ".join(f"{c[r]} {r}" for r in REFUSALS if c[r])
    return (f"ONNX {onnx.__version__} backend cases ({', '.join(SUITES)}): {c['cases']} cases, {c['imported']} import, "
            f"{c[MATCHED]} match their reference outputs within the fixed-point bound; refused: {refused}; "
            f"failures: {c['failure']}.")


def main() -> None:
    results = run_suite()
    report = {
        "onnx": onnx.__version__,
        "counts": counts(results),
        "cases": {f"{r.case.suite}/{r.case.name}": {"status": r.status, "detail": r.detail.splitlines()[0][:300]
                                                    if r.detail else "", "max_error": r.max_error,
                                                    "max_bound": r.max_bound} for r in results},
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
