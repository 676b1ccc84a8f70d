"""The verifier's sparse topology columns in closed form (ViewRuns, ColumnPattern.sparse) against
the per-row reference (tests/verifier/reference_topology.py): random views and layouts, and every
topology column of the AIRs of many settings files, entry by entry."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from luminair.verifier.graph.statement import build_graph_air
from luminair.verifier.graph.topology import AffineView, ColumnPattern, ViewRuns, _mask_changes, _valid
from luminair.verifier.statement import read_settings
from fixture_graphs import views_graph
from reference_topology import address, dense_difference, reference_sparse

ROOT = Path(__file__).resolve().parents[2]


def _random_view(rng: random.Random) -> AffineView:
    n = rng.randrange(0, 5)
    sizes = [rng.choice((1, 1, 2, 3, 4, 5)) for _ in range(n)]
    strides, acc = [0] * n, rng.choice((1, 1, 2, 3))
    for j in reversed(range(n)):  # often contiguous (runs merge), sometimes not, sometimes broadcast or reversed
        strides[j] = rng.choice((acc, acc, acc, 0, rng.randrange(-7, 9)))
        acc = abs(strides[j] or 1) * sizes[j]
    masks = []
    for d in sizes:
        lo = rng.randrange(0, d + 1) if rng.random() < 0.3 else 0
        masks.append((lo, rng.randrange(lo, d + 1)) if rng.random() < 0.3 else (0, d))
    return AffineView(sizes, strides, rng.randrange(-20, 20), masks)


def _numel(v: AffineView) -> int:
    return int(np.prod(v.sizes)) if v.sizes else 1


@pytest.mark.parametrize("seed", range(4))
def test_view_runs_give_every_rows_address_as_the_digit_loop(seed):
    rng = random.Random(seed)
    for _ in range(400):
        v = _random_view(rng)
        base, group = rng.randrange(0, 100), rng.choice((None, None, 1, 2, 3))
        runs = ViewRuns(v, base, group)
        rows = 2 * (group or 1) * _numel(v) + 3  # past the view: the digits wrap
        assert [runs(l) for l in range(rows)] == [address(v, base, l // (group or 1)) for l in range(rows)], (v, base, group)


def _random_pattern(rng: random.Random, kind: str, overlap: bool = False) -> ColumnPattern:
    pat = ColumnPattern(kind, 1 << rng.randrange(3, 8))
    r = rng.randrange(0, 3)
    while True:
        v = _random_view(rng)
        group = rng.choice((None, None, 1, 2)) if kind == "affine" else rng.choice((None, 1, 1, 2, 3))
        rows = (group or 1) * _numel(v) * rng.choice((1, 1, 2)) - rng.choice((0, 0, 1))  # sometimes wrapped or cut short
        if rows <= 0:
            continue
        if r + rows > pat.n_rows:
            return pat
        choice = rng.random()
        if choice < 0.6:
            pat.add(r, rows, ViewRuns(v, rng.randrange(0, 50), group))
        elif choice < 0.8:  # a validity column's part
            pat.add(r, rows, lambda l, v=v: _valid(v, l), _mask_changes(v) if rows == _numel(v) else range(rows))
        else:
            pat.add(r, rows, lambda _l, c=rng.randrange(-3, 4): c, [0])
        r += rows + rng.randrange(0, 3) - (rng.randrange(0, rows + 1) if overlap else 0)
        r = max(r, 0)


@pytest.mark.parametrize("kind", ["affine", "step"])
@pytest.mark.parametrize("seed", range(3))
def test_sparse_columns_equal_the_per_row_reference_and_the_dense_difference(kind, seed):
    rng = random.Random(100 * seed + len(kind))
    for _ in range(300):
        pat = _random_pattern(rng, kind)
        got = pat.sparse()
        assert got == reference_sparse(pat)
        assert got[0] == dense_difference(pat)


@pytest.mark.parametrize("kind", ["affine", "step"])
def test_overlapping_parts_fall_back_to_the_per_row_reading(kind):
    rng = random.Random(7)
    for _ in range(300):
        pat = _random_pattern(rng, kind, overlap=True)
        assert pat.sparse() == reference_sparse(pat)


# --- every topology column of real settings files ----------------------------------------------------


def _onnx_settings(name: str) -> bytes:
    from luminair.prover.graph.model_file import load_model

    path = ROOT / "examples" / name
    return load_model(path if path.suffix == ".onnx" else path / "network.onnx").gen_settings().data


def _graph_settings(build) -> bytes:  # noqa: ANN001
    from luminair.prover import Graph

    cx = Graph()
    build(cx)
    return cx.gen_settings(preset="fast").data


def _sum_of_squares(cx) -> None:  # noqa: ANN001 - tests/conftest.py's stark_files graph
    x = cx.input("x", (64, 64), private=True)
    (x * x).sum_reduce(1).output("y")


def _tiny_mlp() -> bytes:
    import sys

    sys.path.insert(0, str(ROOT / "examples"))
    from tiny_mlp import build

    return build().gen_settings(preset="fast").data


CASES = {
    "cnn_cifar": lambda: _onnx_settings("cnn_cifar"),
    "transformer_tiny": lambda: _onnx_settings("transformer_tiny"),
    "mlp_64_64_10": lambda: _onnx_settings("mlp_64_64_10"),
    "mlp_784_128_10": lambda: _onnx_settings("mlp_784_128_10"),
    "gpt_opset13": lambda: _onnx_settings("gpt_torch/gpt_opset13.onnx"),
    "public/settings.bin": lambda: (ROOT / "public" / "settings.bin").read_bytes(),
    "views graph": lambda: _graph_settings(views_graph),
    "sum of squares": lambda: _graph_settings(_sum_of_squares),
    "tiny_mlp.py": _tiny_mlp,
}


def _check_every_column(name: str, data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = read_settings(data)
    spec = settings.body
    assert not spec.is_template  # (a template's AIR is built per symbol values)
    fast = ColumnPattern.sparse
    seen = {"patterns": 0, "runs": 0, "dense": 0}

    def checked(self: ColumnPattern) -> tuple[dict[int, int], int]:
        got = fast(self)
        assert got == reference_sparse(self), (name, self.kind, self.n_rows)
        if self.n_rows <= 1 << 12:  # and every row's difference, where that is cheap
            assert got[0] == dense_difference(self), (name, self.kind, self.n_rows)
            seen["dense"] += 1
        seen["patterns"] += 1
        seen["runs"] += len(self.runs)
        return got

    monkeypatch.setattr(ColumnPattern, "sparse", checked)
    spec.__dict__.pop("_air", None)
    build_graph_air(spec, settings.config.log_blowup)
    assert seen["patterns"] > 0 and seen["runs"] > 0


@pytest.mark.parametrize("name", list(CASES))
def test_every_topology_column_of_a_settings_file_equals_the_per_row_reference(name, monkeypatch):
    _check_every_column(name, CASES[name](), monkeypatch)


def _padded_dot(cx) -> None:  # noqa: ANN001 - tests/graph_proving/test_fused_forgery.py's padded Dot
    x = cx.input("x", (3, 16))
    (x.pad(((0, 1), (0, 0))) @ cx.constant(np.linspace(-0.5, 0.5, 16 * 8).reshape(16, 8), "w")).output("y")


@pytest.mark.parametrize("build", [_padded_dot, views_graph])
def test_dot_components_without_the_freivalds_check_equal_the_per_row_reference(build, monkeypatch):
    """Dots proven by the Dot component (the check switched off, as test_fused_forgery does): one
    row a group where the lanes cover the reduced axis, so the output address steps every row."""
    from luminair.prover import GenericCompiler, Graph, StwoCompiler
    from luminair.prover.compile import fuse
    from luminair.verifier.graph import matmul

    monkeypatch.setattr(matmul, "mat_plan", lambda spec, index, lanes: None)
    monkeypatch.setattr(fuse, "_freivalds_serves", lambda graph, dot, k: False)
    cx = Graph()
    build(cx)
    cx.compile(GenericCompiler(), StwoCompiler())
    _check_every_column(build.__name__, cx.gen_settings(preset="fast").data, monkeypatch)
