"""A kind whose padding would waste many rows is split into several component instances, by the
verifier's own rule (plan.split_parts); proofs of split graphs verify and are checked as
strictly as any other."""

import numpy as np

from luminair.prover import GenericCompiler, Graph, StwoCompiler
from luminair.verifier.graph import plan as statement
from luminair.verifier.graph.plan import split_parts

from proving_helpers import check, forge, prove_graph


def test_split_parts_only_splits_when_it_saves_padding():
    assert split_parts([100] * 5) == [5]  # little padding: one instance
    assert split_parts([31924] * 17) == [16, 1]  # 2^19 + 2^15 rows instead of 2^20
    assert split_parts([600000, 10]) == [2]  # splitting would not save anything
    assert sum(split_parts([3000] * 300)) == 300
    # the transformer's multiplies: 2^17 + 2^16 rows in two instances, not 2^17 + 2^15 + 2 x 2^14
    # in four (the same cells, twice the columns): a rest that pads cheaply stays one instance
    assert split_parts([127552, 28864, 16384, 14368]) == [1, 3]


def test_the_search_cost_model_pads_as_split_parts():
    from luminair.prover.compile.search_cost import padded_rows
    from luminair.verifier.graph.plan import log_size_of

    for rows in ([127552, 28864, 16384, 14368], [31924] * 17, [100] * 5, [3000] * 300):
        parts, done, padded = split_parts(rows), 0, 0
        for n in parts:
            padded += 1 << log_size_of(sum(rows[done : done + n]))
            done += n
        assert padded_rows(sum(rows)) <= padded, rows


def test_a_split_kind_proves_and_a_forged_instance_is_rejected(monkeypatch):
    monkeypatch.setattr(statement, "SPLIT_MIN_WASTE", 8)
    monkeypatch.setattr(statement, "SPLIT_MIN_PART", 4)
    cx = Graph()
    x = cx.input("x", (1, 40))
    y = x.exp2()  # three Exp2 nodes of 40, 24 and 20 rows: 84 rows, 128 padded as one instance
    z = x[:, :24].exp2()
    w = x[:, :20].exp2()
    (y[:, :20] + z[:, :20] + w).output("out")
    cx.compile(GenericCompiler(), StwoCompiler())
    settings, trace, proof = prove_graph(cx, {"x": np.linspace(-1, 1, 40).reshape(1, 40)})
    names = [p.component.name for p in settings.plans]
    assert "exp2" in names and "exp2.1" in names, names
    assert check(settings, proof).success
    k = names.index("exp2.1")

    def tamper(main):
        main[k]["y"][0] += 1  # the second instance's first result, every reader left as it was

    r = check(settings, forge(cx, trace, settings, tamper))
    assert not r.success and r.check in ("LogUp sum", "OODS mismatch"), r.error_message
