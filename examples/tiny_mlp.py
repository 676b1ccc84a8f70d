"""A model written in Python: the format `luminair prove MODEL.py` accepts.

A Python model file defines ``build() -> Graph``. The graph's inputs are fed, in the order they
were created, from the lists of an EZKL-style ``input.json`` (``{"input_data": [[...floats...]]}``,
one flat row-major list per input); its outputs are the values marked with ``.output(name)``.
Keep the file deterministic (seeded weights) so that one file always means one model.

    luminair prove examples/tiny_mlp.py --input examples/tiny_mlp.input.json --out proof/
"""

import numpy as np

from luminair.prover import Graph


def build() -> Graph:
    rng = np.random.default_rng(7)
    cx = Graph()  # default numeric format: fixed point with scale 2^10, values within +-32
    x = cx.input("x", (1, 8))
    w1 = cx.constant(rng.uniform(-0.35, 0.35, (8, 8)), "fc1.weight")
    b1 = cx.constant(rng.uniform(-0.35, 0.35, (8,)), "fc1.bias")
    w2 = cx.constant(rng.uniform(-0.35, 0.35, (8, 2)), "fc2.weight")
    b2 = cx.constant(rng.uniform(-0.35, 0.35, (2,)), "fc2.bias")
    h = (x @ w1 + b1).relu()
    (h @ w2 + b2).output("y")
    return cx


if __name__ == "__main__":
    graph = build()
    print(graph.summary())
    print(graph.run({"x": np.linspace(0.0, 1.0, 8).reshape(1, 8)}, exact=True))
