"""The search compiler's language and rewrite rules, as egglog text (rules are data).

A graph goes into the e-graph node by node (``(Of i)`` is node i's e-class): every tensor is an e-class of sort ``T``, and every
edge ``(V t w)`` reads tensor ``t`` through view number ``w`` (0 is the identity; the others index
a table of ShapeTrackers kept in Python). Side conditions that need numbers (is a constant all
zeros? does a view pad? what is a composed view?) are facts computed in Python from the graph
(search_facts.py) and asserted as relations before the rules run.

Every rule below is exact in the fixed-point semantics of verifier/numeric.py, except the fusions
into Dot and Exp, which are the fused components' own definitions (the same rewrites the
hand-written FuseOpCompiler makes: one rounding per dot product, one correctly rounded e^x lookup).
tests/compile/test_search_rules.py checks each exact rule bit for bit on the fixed-point executor.
"""

from __future__ import annotations

from dataclasses import dataclass

SCHEMA = """
(datatype T)
(datatype E (V T i64))
(constructor Of (i64) T)  ; the tensor of graph node i
(constructor Leaf (i64) T)
(constructor Un (String E) T)
(constructor Bin (String E E) T)
(constructor Red (String E i64) T)
(constructor Dot (E E i64) T)
(constructor DotB (E E E i64) T)
(constructor View (T i64) T)
(relation Zero (T))
(relation Log2eM1 (T))
(relation PadFree (i64))
(relation ViewId (i64))
(relation Composed (i64 i64 i64))
(relation BiasView (i64 i64 i64))
(relation MaskScale (T T i64))
(relation Elementwise (String))
(relation ZeroToZero (String))
(relation Monotone (String))
(relation CommutesWithCopy (String i64))
(ruleset search)
"""

# Ops a rule may move: elementwise maps of one value; those with f(0) = 0 (so reading padding
# first or last gives the same 0); those that never decrease (so max(f(a), f(b)) = f(max(a, b))).
ELEMENTWISE = ("Relu", "Exp", "Exp2", "Log2", "Sin", "Sqrt", "Recip")
ZERO_TO_ZERO = ("Relu", "Sqrt", "Sin")
# exp, exp2, sqrt tables/relations are non-decreasing in the raw input (rounded increasing
# functions), and relu is max(x, 0).
MONOTONE = ("Relu", "Exp", "Exp2", "Sqrt")


@dataclass(frozen=True)
class Rule:
    """One rewrite: its name (reports), why it holds exactly, and its egglog text."""

    name: str
    why: str
    text: str


RULES: tuple[Rule, ...] = (
    Rule(
        "commute",
        "a + b = b + a and round(a b) = round(b a): integer addition and products commute.",
        """
(rewrite (Bin "Add" a b) (Bin "Add" b a) :ruleset search)
(rewrite (Bin "Mul" a b) (Bin "Mul" b a) :ruleset search)
""",
    ),
    Rule(
        "dot",
        "sum over an axis of a product, read through any view w, is a Dot of the operands read "
        "through their views composed with w (the same products, summed exactly and rounded once: "
        "the Dot component's definition, verifier/numeric.op_dot, as the hand-written fusion).",
        """
(rule ((= t (Red "Sum" (V m 0) ax)) (= m (Bin "Mul" ea eb)))
      ((union t (Dot ea eb ax))) :ruleset search :name "dot")
(rule ((= t (Red "Sum" (V m w) ax)) (!= w 0) (= m (Bin "Mul" (V a u1) (V b u2)))
       (Composed u1 w r1) (Composed u2 w r2))
      ((union t (Dot (V a r1) (V b r2) ax))) :ruleset search :name "dot through a view")
""",
    ),
    Rule(
        "dot+bias",
        "Dot + c adds c to each rounded sum: the same integer Add, done on the Dot's last row.",
        """
(rule ((= t (Bin "Add" (V d w) (V c vc))) (= d (Dot ea eb ax)) (BiasView w vc vb))
      ((union t (View (DotB ea eb (V c vb) ax) w))) :ruleset search :name "dot+bias")
""",
    ),
    Rule(
        "relu",
        "x * (0 < x) multiplies by raw 2^s or 0, both exact ((x 2^s + 2^(s-1)) >> s = x): max(x, 0).",
        """
(rule ((= t (Bin "Mul" (V x vx) (V l 0))) (= l (Bin "LessThan" (V z vz) (V x vx))) (Zero z))
      ((union t (Un "Relu" (V x vx)))) :ruleset search :name "relu")
""",
    ),
    Rule(
        "exp",
        "exp2(x) * exp2(x (log2 e - 1)) is e^x: one lookup in the correctly rounded e^x table "
        "(the fused Exp component's definition, verifier/numeric.exp_entry, as the hand-written fusion).",
        """
(rule ((= t (Bin "Mul" (V e1 0) (V e2 0))) (= e1 (Un "Exp2" (V x vx))) (= e2 (Un "Exp2" (V m 0)))
       (= m (Bin "Mul" (V x vx) (V c vc))) (Log2eM1 c) (PadFree vc))
      ((union t (Un "Exp" (V x vx)))) :ruleset search :name "exp")
""",
    ),
    Rule(
        "mask fold",
        "(x * c) * m with m all 0 or 1.0 (raw 0 or 2^s) and c one value k: where m is 1.0 the outer "
        "product is exact and gives x * k; where m is 0 both sides give (0 + 2^(s-1)) >> s = 0. So it "
        "is x * (k m), one product instead of two (wherever the left side is defined; under a 0 of "
        "the mask it also gives 0 when x k would have left the range).",
        """
(rule ((= t (Bin "Mul" (V p 0) (V m vm))) (= p (Bin "Mul" (V x vx) (V c vc))) (PadFree vc)
       (MaskScale c m k))
      ((union t (Bin "Mul" (V x vx) (V (Leaf k) vm)))) :ruleset search :name "mask fold")
""",
    ),
    Rule(
        "max reassociate",
        "max over axis a of a max over axis b is the max over both axes, in either order: every value "
        "each side compares is one of the inputs (no rounding, nothing leaves the range). Reducing the "
        "longer axis first leaves fewer rows for the second reduction.",
        """
(rule ((= t (Red "Max" (V y 0) a)) (= y (Red "Max" (V x w) b)) (< a b))
      ((union t (Red "Max" (V (Red "Max" (V x w) a) 0) (- b 1)))) :ruleset search :name "max reassociate")
(rule ((= t (Red "Max" (V y 0) a)) (= y (Red "Max" (V x w) b)) (>= a b))
      ((union t (Red "Max" (V (Red "Max" (V x w) (+ a 1)) 0) b))) :ruleset search :name "max reassociate 2")
""",
    ),
    Rule(
        "copy after op",
        "copying f(x) through a view w is f of the copy of x through w: the same values moved; where "
        "w reads padding, both give 0 when f(0) = 0 (else w must not pad).",
        """
(rule ((= t (Un "Contiguous" (V y w))) (= y (Un op (V x 0))) (CommutesWithCopy op w))
      ((union t (Un op (V (Un "Contiguous" (V x w)) 0)))) :ruleset search :name "copy after op")
""",
    ),
    Rule(
        "max before op",
        "max_i f(x_i) = f(max_i x_i) for a non-decreasing f; padding reads 0 on both sides when "
        "f(0) = 0 (else w must not pad). relu after a max-pool: one comparison per pooled value.",
        """
(rule ((= t (Red "Max" (V y w) ax)) (= y (Un op (V x 0))) (Monotone op) (CommutesWithCopy op w))
      ((union t (Un op (V (Red "Max" (V x w) ax) 0)))) :ruleset search :name "max before op")
""",
    ),
)


def program() -> str:
    """The schema, the op classes the rules ask about, and every rule."""
    facts = [f'(Elementwise "{op}")' for op in ELEMENTWISE]
    facts += [f'(ZeroToZero "{op}")' for op in ZERO_TO_ZERO]
    facts += [f'(Monotone "{op}")' for op in MONOTONE]
    derived = """
(rule ((Elementwise op) (ZeroToZero op) (ViewId w)) ((CommutesWithCopy op w)) :ruleset search)
(rule ((Elementwise op) (PadFree w)) ((CommutesWithCopy op w)) :ruleset search)
"""
    return SCHEMA + "\n".join(facts) + derived + "".join(r.text for r in RULES)
