"""The AIR framework: components write their constraints once, against an evaluator `ev`.

A component's `evaluate(ev)` reads mask values and states constraints:
* ``ev.main(name, offset=0)``      a main-trace column at row r + offset (cyclic)
* ``ev.pre(key, offset=0)``        a preprocessed column (committed in a preprocessed tree)
* ``ev.selector(row, offset=0)``   1 on one trace row, 0 elsewhere; evaluated in closed form, never
                                   committed (verifier/poly.row_selector)
* ``ev.sparse(key)``               a column that is zero except on a few rows whose values the
                                   verifier knows (`component.sparse_columns[key]`: row -> value);
                                   a sum of row selectors, evaluated in closed form, never committed
* ``ev.add_constraint(expr)``      expr must vanish on every row
* ``ev.add_to_relation(rel, multiplicity, values)``  a LogUp entry: adds multiplicity / combine(values)
* ``ev.challenge(name)``           a random QM31 drawn after the main commitment (`component.challenges`;
                                   components that share a name share the value)
* ``ev.aux(name, offset=0)``       a QM31 column the prover fills after the challenges (committed in the
                                   interaction tree, `component.aux_columns`); only its constraints bind it
* ``ev.periodic(key)``             a QM31 column the verifier knows, repeating every 2^p rows
                                   (`component.periodic_values(challenges)`: key -> (p, values));
                                   evaluated in closed form, never committed
* ``ev.add_to_sum(term)``          a term added to the component's running sum as it is (a fraction with
                                   denominator 1): the proven matrix products' checks (Freivalds)

The same code runs under four evaluators: `InfoEvaluator` (masks, counts, degrees), the verifier's
`PointEvaluator` (values at the out-of-domain point), and the prover's domain evaluators (numpy
columns over a whole domain, prover/air/). Values only need + - * with each other and with ints.

LogUp entries are grouped in batches of LOGUP_BATCH (4); each batch owns one QM31 interaction
column (4 base columns). With S_b the batch columns, n/d the batch fraction (n = sum_j n_j
prod_(i != j) d_i, d = prod_j d_j) and shift = claimed_sum / N:
  batch b < last:  (S_b - S_{b-1}) * d - n = 0
  last batch:      (S_last - S_last[row - 1] - S_{last-1} + shift) * d - n = 0
so the last column is a running sum over rows that wraps to zero, and the rows sum to the claimed
sum (docs/protocol.md "7. LogUp"). Entries must have degree <= 1, so a batch's constraint has
degree LOGUP_BATCH + 1 = 5: the composition then needs 2^(n+2) coefficients (LOG_EXPAND), committed
in 4 parts. Every column is opened at every query, and a batch of 4 takes one QM31 column for four
entries; an op's own constraints stay <= 3.
A plain term t (add_to_sum, degree <= 3) is a batch of its own with n = t, d = 1, after the
fraction batches. The challenges are drawn after the LogUp relation elements, with them, so the
claimed sums bind both.

Plain terms: the rule every component must follow (enforced by InfoEvaluator)
* every plain term is a multiple of one of its component's own challenges (the expression is
  `challenge * (...)`, checked syntactically: InfoValue.factors), so it has no monomial free of
  them, and no LogUp entry (multiplicity or value) reads a challenge, an aux or a periodic column;
* components that share a challenge form one instance (joined transitively): instances share none.
Why: the verifier checks one equation, the public terms plus every claimed sum equal zero. With
the main trace fixed before anything is drawn, that sum is G = F(z, alpha) + sum_I Q_I(x_I): F the
LogUp fractions (rational in the relation elements only), Q_I a polynomial in instance I's
challenges x_I alone. If G vanishes identically, setting every challenge to 0 kills every Q_I
(none has a constant monomial), so F vanishes; then setting all but x_I to 0 leaves Q_I = 0: each
instance's terms vanish on their own, and each instance's own argument (graph/matmul.py: every
coefficient of Q_I is one output's error) applies. Without the rule, constants of two instances'
polynomials could cancel each other (an error +e in one instance and -e in another) for every
challenge. If G does not vanish identically, a random draw is a root only with the Schwartz-Zippel
probability (verifier/security.py counts it). docs/soundness.md has the whole argument.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..errors import EntryBoundError
from ..fields import QM31, P, q_mul

MAX_CONSTRAINT_DEGREE = 3  # an op's own constraints and plain sum terms
LOGUP_BATCH = 4  # LogUp entries a batch (one QM31 column): its constraint has degree 5
LOG_EXPAND = 2  # the composition of degree-5 constraints fits 2^(n+2) coefficients
MAX_RELATION_ENTRIES = P  # a relation's entries stay below the field size (check_entry_bound)
MIN_COMPONENT_LOG_SIZE = 4
MAX_COMPONENT_LOG_SIZE = 24
COMPOSITION_SPLIT = 1 << LOG_EXPAND  # composition committed in 4 parts, each a QM31 = 4 base columns

SelectorRow = int | str


class AirDefinitionError(Exception):
    """A component is ill-formed (a programming error, not a property of a proof)."""


class Component:
    """Base class. Subclasses set `name`, `log_size`, `main_columns` and implement `evaluate`."""

    name: str = "component"
    log_size: int = MIN_COMPONENT_LOG_SIZE
    main_columns: tuple[str, ...] = ()
    # key -> {row: value mod P}: columns known to the verifier, non-zero on few rows (ev.sparse)
    sparse_columns: dict[str, dict[int, int]] = {}
    challenges: tuple[str, ...] = ()  # random QM31 values it reads (ev.challenge)
    # challenges drawn only after the proof's vectors are mixed (a component with vector_length > 0
    # has the prover send one vector of that many QM31 values once the other challenges are drawn)
    late_challenges: tuple[str, ...] = ()
    vector_length = 0
    aux_columns: dict[str, "GeometricColumn | RunningColumn"] = {}  # QM31 columns filled after the challenges (ev.aux)

    def periodic_values(self, challenges: dict[str, QM31]) -> dict[str, tuple[int, list[QM31]]]:
        """key -> (p, the 2^p values of one period) of every ev.periodic column."""
        return {}

    def public_term(self, challenges: dict[str, QM31], vector: list[QM31]) -> QM31:
        """What the verifier adds to the running sum for this component's vector (vector_length > 0)."""
        raise AirDefinitionError(f"{self.name}: no public term for its vector")

    def running_term(self, ev: Any, name: str) -> Any:
        """What a RunningColumn adds on each row."""
        raise AirDefinitionError(f"{self.name}: no running term for {name!r}")

    def evaluate(self, ev: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def selector_row(self, row: SelectorRow) -> int:
        n = 1 << self.log_size
        if row == "first":
            return 0
        if row == "last":
            return n - 1
        if isinstance(row, int) and 0 <= row < n:
            return row
        raise AirDefinitionError(f"{self.name}: selector row {row!r} out of range")


@dataclass(frozen=True)
class GeometricColumn:
    """An aux column c of powers of f = challenge^power, pinned by `constrain_geometric`. `starts`
    is a sparse column, 1 on the first row of every group (row 0 included).
    * counter (reset=False): c[0] = h, c = c[row - 1] * f on a group start, else c[row - 1]:
      on group g, c = h f^g;
    * run (reset=True): c = h on a group start, else c[row - 1] * f: on the group's j-th row, h f^j.
    h is 1, or the periodic column `head`. With a `stride` S > 1 the component interleaves S
    sequences (row r belongs to sequence r mod S; "previous" is row r - S), each its own column of
    the kind above; a counter then starts on each of rows 0..S-1 (sparse column HEADS) and `head`
    repeats every S rows (one value a sequence)."""

    starts: str
    factor: str
    reset: bool
    power: int = 1
    stride: int = 1
    head: str = ""


@dataclass(frozen=True)
class RunningColumn:
    """An aux column c = (1 - start) c[row - stride] + t, t the component's `running_term(ev,
    name)` (degree <= 2, over main, challenge and geometric aux values): a sum over each group's
    rows so far, pinned by `constrain_running`. Row 0 (rows 0..stride-1) must start a group."""

    starts: str
    stride: int = 1


HEADS = "heads"  # sparse column: 1 on rows 0..S-1 of an interleaved (stride S) component


def challenge_power(ev: Any, name: str, power: int) -> Any:
    """challenge^power as an evaluator value (square and multiply)."""
    base, acc = ev.challenge(name), None
    while power:
        if power & 1:
            acc = base if acc is None else acc * base
        power >>= 1
        if power:
            base = base * base
    return acc if acc is not None else 1


def constrain_geometric(ev: Any, name: str, col: GeometricColumn) -> None:
    c, prev = ev.aux(name), ev.aux(name, -col.stride)
    start, f = ev.sparse(col.starts), challenge_power(ev, col.factor, col.power)
    head = ev.periodic(col.head) if col.head else 1
    if col.reset:  # rows 0..S-1 start a group, so their wrap-around to the last rows is never read
        ev.add_constraint(c - start * head - (1 - start) * f * prev)
    else:
        first = ev.selector(0) if col.stride == 1 else ev.sparse(HEADS)
        ev.add_constraint(first * (c - head))
        ev.add_constraint((1 - first) * (c - prev - start * (f - 1) * prev))


def constrain_running(ev: Any, component: "Component", name: str, col: RunningColumn) -> None:
    c, prev = ev.aux(name), ev.aux(name, -col.stride)
    start = ev.sparse(col.starts)
    ev.add_constraint(c - (1 - start) * prev - component.running_term(ev, name))


@dataclass(frozen=True)
class PreprocessedColumn:
    key: str
    log_size: int


@dataclass
class PreprocessedTree:
    """Columns fixed before the witness. The prover commits them inside the main tree
    (build_layout: they open it; its root is the proof's first commitment, mixed into the channel
    before any challenge), so no tree of their own is opened, and they are bound in one of two ways:
    * the AIR's own constraints pin every column completely (the graph topology), so the root
      needs no trust; the prover can still reuse that commitment across proofs of one model;
    * `known_values`: the verifier evaluates each column (row order, from `known_values()`) at its
      sample points itself and requires the proof's samples to equal that
      (verify.check_known_columns: a committed column of the right degree that agrees at the random
      out-of-domain point is the column, up to the OODS error). The graph's function tables.
    A `statement` tree is the exception: committed by the statement, not the prover (the model tree
    of committed weights, docs/committed-models.md), it is a tree of its own, opened at every query
    against `root`, which settings.bin holds; its columns are bound by that root alone."""

    name: str
    columns: list[PreprocessedColumn]
    known_values: Callable[[], dict[str, list[int]]] | None = None
    statement: bool = False
    root: bytes = b""
    proof_root: bool = False  # a statement tree whose root proof.bin holds (the input tree), not settings.bin


class Air:
    """A set of components plus the preprocessed trees they read."""

    def __init__(
        self,
        components: Sequence[Component],
        preprocessed: Sequence[PreprocessedTree] = (),
    ) -> None:
        self.components = list(components)
        self.preprocessed = list(preprocessed)
        self.infos = [component_info(c) for c in self.components]
        self._check()
        self.relations = sorted({rel for info in self.infos for rel, _ in info.entries})
        self.challenges = sorted({name for comp in self.components for name in comp.challenges})
        self.late_challenges = sorted({name for comp in self.components for name in comp.late_challenges})
        # the components whose vectors the proof carries (StarkProof.vectors), in AIR order
        self.vector_components = [ci for ci, comp in enumerate(self.components) if comp.vector_length]
        self.layout = build_layout(self)

    def _check(self) -> None:
        keys = {col.key: col for tree in self.preprocessed for col in tree.columns}
        for comp, info in zip(self.components, self.infos):
            unused = [c for c in comp.main_columns if c not in info.main_masks]
            if unused:
                # A committed column no constraint reads is a free witness: refuse to build the AIR.
                raise AirDefinitionError(f"{comp.name}: main columns never constrained: {unused}")
            if not MIN_COMPONENT_LOG_SIZE <= comp.log_size <= MAX_COMPONENT_LOG_SIZE:
                raise AirDefinitionError(f"{comp.name}: log size {comp.log_size} out of range")
            for key in info.pre_masks:
                col = keys.get(key)
                if col is None:
                    raise AirDefinitionError(f"{comp.name}: unknown preprocessed column {key!r}")
                if col.log_size != comp.log_size:
                    raise AirDefinitionError(
                        f"{comp.name}: preprocessed column {key!r} has log size {col.log_size}, "
                        f"the component {comp.log_size}"
                    )

    def public_logup_sum(self, elements: dict[str, "RelationElements"]) -> QM31:
        """Sum of the LogUp terms the verifier computes itself (public inputs/outputs)."""
        return (0, 0, 0, 0)

    @property
    def max_log_size(self) -> int:
        return max(c.log_size for c in self.components)

    def entry_counts(self) -> dict[str, int]:
        """relation -> its LogUp entries over every row of every component."""
        counts: dict[str, int] = {}
        for comp, info in zip(self.components, self.infos):
            for rel, _ in info.entries:
                counts[rel] = counts.get(rel, 0) + (1 << comp.log_size)
        return counts


def check_entry_bound(air: Air, public_terms: int) -> None:
    """LogUp shows that each distinct tuple's multiplicities sum to zero modulo P. A tuple nobody
    yields collects only reads, each of multiplicity 0 or +-1 (pinned by the AIR); their sum is 0
    mod P but not 0 only with P of them. So every relation must hold fewer than P entries, counting
    every row's entries (yields included) and the verifier's own public terms (all of them, for
    any relation): then "0 mod P" means "0"."""
    for rel, n in sorted(air.entry_counts().items()):
        if n + public_terms >= MAX_RELATION_ENTRIES:
            raise EntryBoundError(
                f"relation {rel!r} takes {n} entries of the trace and up to {public_terms} public terms, "
                f"at least P = 2^31 - 1: its multiplicities could wrap around the field"
            )


# --- relation elements --------------------------------------------------------------------------


@dataclass(frozen=True)
class RelationElements:
    """combine(v_0..v_k) = sum_j alpha^j v_j - z for one relation."""

    z: QM31
    alpha: QM31
    max_arity: int = 8

    def powers(self, n: int) -> list[QM31]:
        out = [(1, 0, 0, 0)]
        for _ in range(n - 1):
            out.append(q_mul(out[-1], self.alpha))
        return out


# --- info evaluator -----------------------------------------------------------------------------


ALL_FACTORS = None  # the factors of the constant 0: every challenge divides it


def _meet(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    return b if a is None else a if b is None else a & b


def _join(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    return None if a is None or b is None else a | b


class InfoValue:
    """Tracks the polynomial degree of an expression (in trace columns: challenges have degree 0),
    the challenges that divide every monomial of it (`factors`, None for the constant 0) and whether
    it reads anything drawn after the main commitment (`drawn`: a challenge, an aux or a periodic
    column)."""

    __slots__ = ("deg", "factors", "drawn")

    def __init__(self, deg: int, factors: frozenset[str] | None = frozenset(), drawn: bool = False) -> None:
        self.deg = deg
        self.factors = factors
        self.drawn = drawn

    @staticmethod
    def _of(o: Any) -> "InfoValue":
        if isinstance(o, InfoValue):
            return o
        if isinstance(o, int):
            return InfoValue(0, ALL_FACTORS if o == 0 else frozenset())
        raise AirDefinitionError(f"unsupported operand {o!r} in a constraint expression")

    def __add__(self, o: Any) -> "InfoValue":
        b = self._of(o)
        return InfoValue(max(self.deg, b.deg), _meet(self.factors, b.factors), self.drawn or b.drawn)

    __radd__ = __add__
    __sub__ = __add__
    __rsub__ = __add__

    def __mul__(self, o: Any) -> "InfoValue":
        b = self._of(o)
        return InfoValue(self.deg + b.deg, _join(self.factors, b.factors), self.drawn or b.drawn)

    __rmul__ = __mul__

    def __neg__(self) -> "InfoValue":
        return self


@dataclass
class ComponentInfo:
    main_masks: dict[str, list[int]] = field(default_factory=dict)
    pre_masks: dict[str, list[int]] = field(default_factory=dict)
    n_constraints: int = 0  # including the LogUp constraints
    entries: list[tuple[str, int]] = field(default_factory=list)  # (relation, arity)
    aux_masks: dict[str, list[int]] = field(default_factory=dict)
    n_terms: int = 0  # plain terms (add_to_sum), one batch each after the fraction batches

    @property
    def n_fraction_batches(self) -> int:
        return -(-len(self.entries) // LOGUP_BATCH)

    @property
    def n_batches(self) -> int:
        return self.n_fraction_batches + self.n_terms


class InfoEvaluator:
    def __init__(self, component: Component) -> None:
        self.component = component
        self.info = ComponentInfo()
        self._cols = set(component.main_columns)

    def main(self, name: str, offset: int = 0) -> InfoValue:
        if name not in self._cols:
            raise AirDefinitionError(f"{self.component.name}: unknown main column {name!r}")
        masks = self.info.main_masks.setdefault(name, [])
        if offset not in masks:
            masks.append(offset)
        return InfoValue(1)

    def pre(self, key: str, offset: int = 0) -> InfoValue:
        masks = self.info.pre_masks.setdefault(key, [])
        if offset not in masks:
            masks.append(offset)
        return InfoValue(1)

    def selector(self, row: SelectorRow, offset: int = 0) -> InfoValue:
        self.component.selector_row(row)
        return InfoValue(1)

    def challenge(self, name: str) -> InfoValue:
        if name not in self.component.challenges and name not in self.component.late_challenges:
            raise AirDefinitionError(f"{self.component.name}: undeclared challenge {name!r}")
        return InfoValue(0, frozenset((name,)), True)

    def aux(self, name: str, offset: int = 0) -> InfoValue:
        if name not in self.component.aux_columns:
            raise AirDefinitionError(f"{self.component.name}: unknown aux column {name!r}")
        masks = self.info.aux_masks.setdefault(name, [])
        if offset not in masks:
            masks.append(offset)
        return InfoValue(1, drawn=True)

    def periodic(self, key: str) -> InfoValue:
        return InfoValue(1, drawn=True)

    def add_to_sum(self, term: Any) -> None:
        t = InfoValue._of(term)
        if t.deg > MAX_CONSTRAINT_DEGREE:
            raise AirDefinitionError(f"{self.component.name}: a plain sum term has degree > {MAX_CONSTRAINT_DEGREE}")
        if t.factors is not ALL_FACTORS and not t.factors & {*self.component.challenges, *self.component.late_challenges}:
            # a monomial free of the instance's challenges could cancel another instance's (module docstring)
            raise AirDefinitionError(
                f"{self.component.name}: plain sum term {self.info.n_terms} is not a multiple of one of the "
                "component's challenges"
            )
        self.info.n_terms += 1

    def sparse(self, key: str) -> InfoValue:
        col = self.component.sparse_columns.get(key)
        if col is None:
            raise AirDefinitionError(f"{self.component.name}: unknown sparse column {key!r}")
        n = 1 << self.component.log_size
        if any(not 0 <= r < n for r in col):
            raise AirDefinitionError(f"{self.component.name}: sparse column {key!r} has a row outside the trace")
        return InfoValue(1)

    def add_constraint(self, expr: Any) -> None:
        deg = InfoValue._of(expr).deg
        if deg > MAX_CONSTRAINT_DEGREE:
            raise AirDefinitionError(
                f"{self.component.name}: constraint {self.info.n_constraints} has degree {deg} "
                f"> {MAX_CONSTRAINT_DEGREE}"
            )
        self.info.n_constraints += 1

    def add_to_relation(self, relation: str, multiplicity: Any, values: Sequence[Any]) -> None:
        parts = [InfoValue._of(v) for v in (multiplicity, *values)]
        if any(v.deg > 1 for v in parts):
            raise AirDefinitionError(
                f"{self.component.name}: LogUp entry of {relation!r} must have degree <= 1"
            )
        if any(v.drawn for v in parts):
            raise AirDefinitionError(
                f"{self.component.name}: LogUp entry of {relation!r} reads a challenge, aux or periodic column"
            )
        if not values:
            raise AirDefinitionError(f"{self.component.name}: empty LogUp entry")
        self.info.entries.append((relation, len(values)))


def component_info(component: Component) -> ComponentInfo:
    ev = InfoEvaluator(component)
    component.evaluate(ev)
    unused = [c for c in component.aux_columns if c not in ev.info.aux_masks]
    if unused:
        raise AirDefinitionError(f"{component.name}: aux columns never constrained: {unused}")
    for masks in (*ev.info.main_masks.values(), *ev.info.pre_masks.values(), *ev.info.aux_masks.values()):
        masks.sort()
    ev.info.n_constraints += ev.info.n_batches
    return ev.info


# --- the shared LogUp constraint construction ---------------------------------------------------


def logup_constraints(
    ev: Any,
    entries: list[tuple[str, Any, list[Any]]],
    elements: dict[str, RelationElements],
    n_batches: int,
    shift: QM31,
    terms: Sequence[Any] = (),
) -> None:
    """Adds one constraint per batch (see the module docstring). `ev` supplies
    `interaction(batch, offset)` (a secure value) and `secure(q)` (a QM31 constant)."""

    def combine(rel: str, values: list[Any]) -> Any:
        el = elements[rel]
        powers = el.powers(len(values))
        acc = ev.secure((-el.z[0] % P, -el.z[1] % P, -el.z[2] % P, -el.z[3] % P))
        for j, v in enumerate(values):
            acc = acc + (v * ev.secure(powers[j]) if j else v)
        return acc

    n_fractions = n_batches - len(terms)
    prev = None
    for b in range(n_batches):
        if b < n_fractions:
            batch = entries[LOGUP_BATCH * b : LOGUP_BATCH * (b + 1)]
            num, den = batch_fraction([n for _, n, _ in batch], [combine(rel, values) for rel, _, values in batch])
        else:
            num, den = terms[b - n_fractions], None
        s = ev.interaction(b, 0)
        diff = s if prev is None else s - prev
        if b == n_batches - 1:
            diff = diff - ev.interaction(b, -1) + ev.secure(shift)
        ev.add_constraint((diff if den is None else diff * den) - num)
        prev = s


def batch_fraction(nums: list[Any], dens: list[Any]) -> tuple[Any, Any]:
    """sum_j n_j / d_j as one fraction (sum_j n_j prod_(i != j) d_i, prod_j d_j), summed pairwise
    as a tree: n/d + n'/d' = (n d' + n' d) / (d d'). For 4 entries that is 5 secure products (6
    with secure numerators), where products of all but one denominator take 7."""
    fracs = list(zip(nums, dens))
    while len(fracs) > 1:
        paired = [(n1 * d2 + n2 * d1, d1 * d2) for (n1, d1), (n2, d2) in zip(fracs[::2], fracs[1::2])]
        fracs = paired + fracs[len(paired) * 2 :]
    return fracs[0]


# --- layout of committed columns ----------------------------------------------------------------


@dataclass(frozen=True)
class ColumnSlot:
    """One committed base column: its trace log size and the mask offsets sampled at OODS."""

    log_size: int
    masks: tuple[int, ...]


@dataclass
class Layout:
    """Trees in commitment order: the statement's trees (roots from settings.bin), main (the other
    preprocessed columns, then the components'), [interaction], composition."""

    tree_names: list[str]
    columns: list[list[ColumnSlot]]
    pre_index: dict[str, tuple[int, int]]  # key -> (tree, column)
    main_offset: list[int]  # per component: first column in the main tree
    interaction_offset: list[int]  # per component: first column of its batches in the interaction tree
    aux_offset: list[int]  # per component: first column of its aux columns (4 each, before its batches)
    main_tree: int
    interaction_tree: int | None
    composition_tree: int


def build_layout(air: Air) -> Layout:
    """The preprocessed columns open the main tree (the same root binds them, one set of Merkle
    paths opens both), then the components' main columns."""
    names: list[str] = []
    columns: list[list[ColumnSlot]] = []
    pre_index: dict[str, tuple[int, int]] = {}
    pre_masks: dict[str, set[int]] = {}
    for info in air.infos:
        for key, masks in info.pre_masks.items():
            pre_masks.setdefault(key, set()).update(masks)

    def slot(col: PreprocessedColumn) -> ColumnSlot:
        return ColumnSlot(col.log_size, tuple(sorted(pre_masks.get(col.key, {0}))))

    for tree in air.preprocessed:  # the statement's trees first, each its own
        if tree.statement:
            for c, col in enumerate(tree.columns):
                pre_index[col.key] = (len(columns), c)
            names.append(tree.name)
            columns.append([slot(col) for col in tree.columns])
    main_cols: list[ColumnSlot] = []
    for tree in air.preprocessed:
        if tree.statement:
            continue
        for col in tree.columns:
            pre_index[col.key] = (len(columns), len(main_cols))
            main_cols.append(slot(col))
    main_offset = []
    for comp, info in zip(air.components, air.infos):
        main_offset.append(len(main_cols))
        for name in comp.main_columns:
            main_cols.append(ColumnSlot(comp.log_size, tuple(info.main_masks.get(name, [0]))))
    names.append("main")
    columns.append(main_cols)
    main_tree = len(columns) - 1
    inter_cols: list[ColumnSlot] = []
    inter_offset = []
    aux_offset = []
    for comp, info in zip(air.components, air.infos):
        aux_offset.append(len(inter_cols))
        for name in comp.aux_columns:
            inter_cols.extend(ColumnSlot(comp.log_size, tuple(info.aux_masks[name])) for _ in range(4))
        inter_offset.append(len(inter_cols))
        for b in range(info.n_batches):
            batch_masks: tuple[int, ...] = (-1, 0) if b == info.n_batches - 1 else (0,)
            inter_cols.extend(ColumnSlot(comp.log_size, batch_masks) for _ in range(4))
    interaction_tree = None
    if inter_cols:
        names.append("interaction")
        columns.append(inter_cols)
        interaction_tree = len(columns) - 1
    names.append("composition")
    columns.append([ColumnSlot(air.max_log_size, (0,)) for _ in range(4 * COMPOSITION_SPLIT)])
    return Layout(
        names, columns, pre_index, main_offset, inter_offset, aux_offset, main_tree, interaction_tree, len(columns) - 1
    )
