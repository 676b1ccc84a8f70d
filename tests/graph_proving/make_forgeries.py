"""The models of the publisher forgeries (test_statement_forgery.py uses them), and a writer of the
forgeries as file pairs, for checking them in
other verifiers (the Pyodide worker's test in web/test/forgery.test.mjs):

    python tests/graph_proving/make_forgeries.py OUT_DIR

OUT_DIR/<name>.proof.bin, OUT_DIR/<name>.settings.bin and OUT_DIR/expected.json ({name: check})."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from proving_helpers import forge, forge_as, forge_instance_constants, matout_instances, prove_graph  # noqa: E402

from luminair.prover import Graph  # noqa: E402

X = {"x": np.array([[1.0, 2.0, 3.0, 4.0]])}


def _mlp(w: np.ndarray) -> Graph:
    cx = Graph()
    x = cx.input("x", (1, 4))
    (x @ cx.constant(w, "w")).output("y")
    return cx


def _two(read_second: bool) -> Graph:
    cx = Graph()
    x = cx.input("x", (1, 4))
    c1 = cx.constant(np.array([[0.5, 0.5, 0.5, 0.5]]), "c1")
    c2 = cx.constant(np.array([[1.5, -1.0, 0.25, 2.0]]), "c2")
    ((x * (c2 if read_second else c1)) + (c1 if read_second else c2)).output("y")
    return cx


def _reads(reads_x: bool) -> Graph:
    cx = Graph()
    x = cx.input("x", (1, 4))
    z = cx.input("z", (1, 4))
    (x * z if reads_x else z * z).output("y")
    return cx


def _maps(transposed: bool) -> Graph:
    cx = Graph()
    x = cx.input("x", (2, 2))
    p = x * cx.constant(np.array([[1.0, 2.0], [3.0, 4.0]]), "w")
    (p.permute((1, 0)) if transposed else p).output("y")
    return cx


def instance_forgery() -> tuple[bytes, bytes]:
    """(proof, settings): attention's q k^T (a MatPair instance) beside a dense layer (a MatIn
    instance), +1 on the first row of one and -1 on the other's (format 9 accepted that pair)."""
    rng = np.random.default_rng(24)
    cx = Graph()
    q = cx.input("q", (2, 16, 8), private=True)
    k = cx.input("k", (2, 16, 8), private=True)
    (q @ k.permute((0, 2, 1))).output("s")
    x = cx.input("x", (64, 16))
    (x @ cx.constant(rng.uniform(-1, 1, (16, 512)), "w") + cx.constant(rng.uniform(-1, 1, 512), "b")).output("y")
    feed = {"q": rng.uniform(-1, 1, (2, 16, 8)), "k": rng.uniform(-1, 1, (2, 16, 8)), "x": rng.uniform(-1, 1, (64, 16))}
    settings, trace, _ = prove_graph(cx, feed, preset="default")
    a, b = matout_instances(settings)
    return forge_instance_constants(cx, trace, settings, {a: 1, b: -1}), settings.data


def forgeries() -> dict[str, tuple[bytes, bytes, str]]:
    out = {}
    shown = np.array([[0.5], [0.25], [-1.0], [2.0]])
    proven = shown.copy()
    proven[0, 0] = 0.75
    displayed, _, _ = prove_graph(_mlp(shown), X, preset="default")
    out["changed weight"] = (forge_as(displayed, _mlp(proven), X), displayed.data, "LogUp sum")
    displayed, _, _ = prove_graph(_two(False), X, preset="default")
    out["rewired edge"] = (forge_as(displayed, _two(True), X), displayed.data, "OODS mismatch")
    feed = {"x": X["x"], "z": np.array([[0.5, -0.5, 1.0, 2.0]])}
    displayed, _, _ = prove_graph(_reads(True), feed, preset="default")
    out["input never read"] = (forge_as(displayed, _reads(False), feed), displayed.data, "OODS mismatch")
    feed = {"x": np.array([[0.5, 1.0], [1.5, 2.0]])}
    displayed, _, _ = prove_graph(_maps(True), feed, preset="default")
    out["permuted output map"] = (forge_as(displayed, _maps(False), feed), displayed.data, "LogUp sum")
    cx = _mlp(shown)
    settings, trace, _ = prove_graph(cx, X, preset="default")

    def more_reads(topology: dict) -> None:
        topology["known.m0"][0] += 1

    out["changed fan-out"] = (forge(cx, trace, settings, tamper_topology=more_reads), settings.data, "LogUp sum")
    out["errors cancelling across instances"] = (*instance_forgery(), "LogUp sum")
    return out


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    expected = {}
    for name, (proof, settings, check) in forgeries().items():
        slug = name.replace(" ", "_")
        (out_dir / f"{slug}.proof.bin").write_bytes(proof)
        (out_dir / f"{slug}.settings.bin").write_bytes(settings)
        expected[slug] = check
    (out_dir / "expected.json").write_text(json.dumps(expected, indent=1))


if __name__ == "__main__":
    main()
