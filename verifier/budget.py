"""The verifier's work budget (docs/formats.md "Verifier work budget"): what a pair of files may cost, checked
before anything heavy runs. Target: any pair is refused or verified within 2 s and 256 MiB in
CPython (bench/hostile_bench.py measures it; tests/verifier/test_hostile_files.py asserts it).

`verify` checks, in this order:
1. the file sizes, before decoding anything: at most MAX_PROOF_BYTES and MAX_SETTINGS_BYTES. They
   bound memory: every decoder below is bounded by the bytes it reads (counts are checked against
   the bytes left before anything is allocated) and decodes large lists into compact arrays
   (verifier/packed.py: a few bytes of memory per byte of the file); a deflated public tensor,
   whose values no file bytes back, is charged to the budget before it is inflated;
2. the codecs' own bounds while decoding (verifier/formats.py: trees, columns, masks, openings;
   verifier/graph/settings.py: nodes, view steps, output index maps), the settings digest and the
   configuration's floor;
3. the declared work (this module), charged to a WorkMeter part by part before it is paid: the
   view checks of settings.bin and the public values as they are decoded, a symbolic graph's
   substitution before it is instantiated (these refuse past max(budget, MAX_WORK): WorkMeter),
   then every step whose cost grows with a declared size, estimated from the parsed graph, the
   proof's public values and the size of its STARK part, before the statement is built. Units are
   about one microsecond of CPython; the total must fit the budget of these files,
   min(max_work, BASE_WORK + WORK_PER_BYTE * (proof bytes + settings bytes)): any pair may cost
   BASE_WORK, larger files a little more per byte they hold, never more than max_work (MAX_WORK by
   default, about 1 s);
4. the proof's shape against the statement (verifier/verify.py check_shape), before the LogUp
   terms, the out-of-domain evaluation, the Merkle openings and FRI.

Each estimate is an upper bound of what the current code does, calibrated on CPython:
* public values: decoding every element of proof.bin's public tensors (charged before decoding);
* view checks: each view step of settings.bin checked while it is decoded (its shape, its affine
  form over its source), per step and per integer, charged before the node's checks; and each
  output's index map, per element and affine piece, charged before it is built;
* symbol substitution (a symbolic settings.bin): each expression term evaluated once a proof and
  each reference substituted, and the view checks of the instantiated graph (which has the
  template's steps), charged before instantiating;
* LogUp public terms: one per row of the known component (4 weights or public inputs) and one per
  output element, each a QM31 combination and a share of one batch inversion;
* topology: the boundary rows of every view (where an address run starts or a padding mask
  changes; verifier/graph/topology.py topology_cost, the bound build_components also checks
  against MAX_SPARSE_ENTRIES), each derived and evaluated at the out-of-domain point;
* nodes: a fixed cost per node and per view step of its inputs; output maps: one pass over each
  output's source node;
* openings: Merkle paths, DEEP quotients and FRI folds, which work on what the STARK part of
  proof.bin holds (opened values, hash witnesses, fold siblings), so a cost per byte of it;
* tables: the rows of each function table the graph looks up, generated and evaluated at the
  out-of-domain point (the range tables' values are topology columns of 2 boundary rows each).
"""

from __future__ import annotations

import math
from typing import Any

from .errors import VerificationError
from .graph.components import make_component
from .graph.planner import GraphPlan, plan_graph
from .graph.tables import LOG2_MANTISSA_BITS, table_log_size
from .numeric import nonzero_start, table_domain

MAX_PROOF_BYTES = 8 << 20
MAX_SETTINGS_BYTES = 4 << 20
MAX_WORK = 1_000_000  # work units (about 1 us of CPython each): about 1 s, half the 2 s target
BASE_WORK = 500_000  # what any pair of files may cost
WORK_PER_BYTE = 8  # plus this much per byte the two files hold (every backed element costs < 6)

# Unit costs, measured (bench/hostile_bench.py --calibrate prints estimate against time).
PUBLIC_VALUE_UNITS = 1
EXPRESSION_TERM_UNITS = 3  # a term of a symbolic expression, evaluated once a proof (up to 4 powers)
REFERENCE_UNITS = 1  # an expression reference: substituted, written and decoded again once instantiated
# A view step checked while settings.bin is decoded (its shape and affine form over its source):
# a cost a step and a cost an integer of it (an 8-axis slice, 24 integers: ~20 us measured)
VIEW_STEP_UNITS = 6
VIEW_INT_UNITS = 1
# An output's index map, built while settings.bin is decoded: an element (0.07 us measured), and an
# element again for each further affine piece it is mapped back through (0.35 us)
INDEX_MAP_UNITS = 0.1
MAP_BACK_UNITS = 0.5
KNOWN_ROW_UNITS = 9  # a known or direct-weight row: its values combined in one pass, two QM31 products of the running fraction
OUTPUT_TERM_UNITS = 9  # an output element: 2 values combined, two QM31 products of the running fraction
BOUNDARY_UNITS = 8  # a boundary row: its values, its selector at the out-of-domain point (~7 us measured)
NODE_UNITS = 40
STEP_UNITS = 10  # a view step of a node's input (its affine form is derived a few times)
OUTPUT_SOURCE_UNITS = 0.05  # per element of an output's source node
# Merkle paths, DEEP quotients and FRI folds work on what the proof holds (opened values, hash
# witnesses, fold siblings): 0.15 to 0.25 us per byte of the STARK proof in CPython.
OPENING_UNITS_PER_BYTE = 0.3
MATMUL_PRODUCT_UNITS = 0.15  # a weight of a Freivalds-checked product: one big-integer multiply-add of v = W rho
MATMUL_PERIOD_UNITS = 3  # a value of v at the out-of-domain point: 4 coordinates of a sparse column
VECTOR_UNITS = 4  # a value of a committed product's v: decoded, mixed, one Horner step of its public term
TABLE_ROW_UNITS = 3  # a function table's rows, generated with integer arithmetic
ERF_ROW_UNITS = 10  # an erf row: an integer series each (8.3 us measured at scale 14)
TABLE_EVAL_UNITS = 2  # a padded table row, its two columns evaluated at the out-of-domain point


class BudgetError(VerificationError):
    """The files declare more work than this verifier spends on one pair: they were not checked.
    `needed` is the max_work that admits them (None when no budget does: files over every cap), or
    a lower bound of it when they were refused before all their work was counted (the message
    says "at least")."""

    check = "work budget"

    def __init__(self, detail: str, needed: int | None = None) -> None:
        super().__init__(detail)
        self.needed = needed


def budget_for(proof_size: int, settings_size: int, max_work: int | None = None) -> int:
    """The work units a pair of files of these sizes may cost: by default what their bytes back,
    up to MAX_WORK; a caller that names `max_work` sets the budget itself (a model whose topology
    or outputs cost more than its bytes, a large convolution say, needs that)."""
    if max_work is not None:
        return max_work
    return min(MAX_WORK, BASE_WORK + WORK_PER_BYTE * (proof_size + settings_size))


MAX_FILE_SCALE = 16  # a caller's max_work raises the file caps at most this much


def file_caps(max_work: int | None = None) -> tuple[int, int]:
    """(proof, settings) byte caps: the defaults, or, for a caller who names a max_work above
    MAX_WORK, larger in proportion (it accepts the work, and the memory, of a larger model), up to
    MAX_FILE_SCALE times."""
    scale = 1 if max_work is None else min(MAX_FILE_SCALE, max(1, -(-max_work // MAX_WORK)))
    return MAX_PROOF_BYTES * scale, MAX_SETTINGS_BYTES * scale


def check_file_sizes(proof_size: int, settings_size: int, max_work: int | None = None) -> None:
    proof_cap, settings_cap = file_caps(max_work)
    # the budget whose caps admit both files: MAX_WORK per multiple of the default caps
    scale = max(-(-proof_size // MAX_PROOF_BYTES), -(-settings_size // MAX_SETTINGS_BYTES), 1)
    needed = scale * MAX_WORK if scale <= MAX_FILE_SCALE else None
    for name, size, cap in (("proof.bin", proof_size, proof_cap), ("settings.bin", settings_size, settings_cap)):
        if size > cap:
            hint = (f"; a budget of max_work={needed} raises the caps far enough" if needed is not None
                    else f"; no budget raises the caps that far (at most {MAX_FILE_SCALE} times)")
            raise BudgetError(f"{name} is {size} bytes, more than this verifier reads ({cap} bytes{hint})", needed)


def check_work(work: dict[str, float], budget: float, complete: bool = True, limit: float | None = None) -> None:
    """Refuse the pair if the estimated work exceeds the budget (or `limit`, when given), naming the
    largest part. Unless `complete`, the files declare more than `work` (decoding stopped at this
    charge), so the max_work named is a lower bound."""
    total = sum(work.values())
    if total > (budget if limit is None else limit):  # the same float sum as bench/hostile_bench.py's bisection
        part = max(work, key=lambda k: work[k])
        needed = work_needed(work)
        grant = (f"a budget of max_work={needed} checks them" if complete else
                 f"a budget of at least max_work={needed} is needed (they were refused before all their work was counted)")
        raise BudgetError(
            f"these files declare about {int(total)} units of verifier work ({part}: {int(work[part])}), "
            f"more than the {budget} this verifier spends on a pair of files of their size; {grant}",
            needed,
        )


class WorkMeter:
    """The work a pair of files declares, by part, charged before it is paid: a charge that takes the
    total past the budget refuses the pair (BudgetError naming the largest part). A charge made
    while the files are decoded refuses only past max(budget, MAX_WORK): decoding may spend up to
    MAX_WORK whatever the budget (about 1 s), so that files over a small budget are refused once all
    their work is counted, naming the max_work they need. Without a budget it only counts
    (api.declared_work)."""

    __slots__ = ("budget", "parts", "decode_limit")

    def __init__(self, budget: float = math.inf) -> None:
        self.budget = budget
        self.parts: dict[str, float] = {}
        self.decode_limit = max(budget, MAX_WORK)

    @property
    def total(self) -> float:
        return sum(self.parts.values())

    def charge(self, part: str, units: float) -> None:
        """A cost met while decoding."""
        self.parts[part] = self.parts.get(part, 0.0) + units
        check_work(self.parts, self.budget, complete=False, limit=self.decode_limit)

    def charge_all(self, work: dict[str, float], complete: bool = False) -> None:
        """Several costs at once; `complete`: the last of the pair's, checked against the budget
        itself (a refusal then names the max_work the files need)."""
        for part, units in work.items():
            self.parts[part] = self.parts.get(part, 0.0) + units
        check_work(self.parts, self.budget, complete, limit=None if complete else self.decode_limit)

    def charge_public_values(self, n: int) -> None:
        self.charge("public values", float(PUBLIC_VALUE_UNITS * n))


def work_needed(work: dict[str, float]) -> int:
    """The smallest max_work that admits this estimate (check_work's sum, rounded up)."""
    return math.ceil(sum(work.values()))


def substitution_work(n_terms: int, n_references: int) -> float:
    """Instantiating a symbolic graph (graph/settings.py instantiate): the expressions' terms and the
    references (and the concrete graph's view checks, view_work of the template's steps)."""
    return EXPRESSION_TERM_UNITS * n_terms + REFERENCE_UNITS * n_references


def index_map_work(n_elements: int, n_pieces: int) -> float:
    """Building an output's index map (graph/settings.py pieces_indices) through n_pieces pieces."""
    return INDEX_MAP_UNITS * n_elements + MAP_BACK_UNITS * n_elements * (n_pieces - 1)


def view_work(steps: Any) -> float:
    """Checking views of these (kind, arg) steps while decoding (graph/settings.py read_graph)."""
    ints = sum(len(arg) * (3 if kind == "slice" else 2 if kind == "pad" else 1) for kind, arg in steps)
    return VIEW_STEP_UNITS * len(steps) + VIEW_INT_UNITS * ints


def statement_work(settings: Any, stark_bytes: int) -> dict[str, float]:
    """Estimated work units of checking a pair once its files are decoded (the public values were
    charged while decoding), by part: the statement (from the parsed settings) and the openings
    (from the size of the proof's STARK part, ProofFile.stark_bytes)."""
    work = {"openings": OPENING_UNITS_PER_BYTE * stark_bytes}
    plan = plan_graph(settings.body)
    work.update(graph_work(plan))
    work["tables"] = float(graph_table_work(plan))
    return work


def graph_table_work(plan: GraphPlan) -> int:
    """Tables: every function table the graph looks up, generated with integer arithmetic and
    evaluated at the out-of-domain point over all its padded rows (poly.dense_columns_at); the
    range tables' values are topology columns of 2 boundary rows each (range8, range16)."""
    spec = plan.spec
    kinds = {inst.kind for inst in plan.instances} - {"Known", "GatherTable", "PrivateInput", "PrivateIndex", "MatIn", "MatPair", "MatOut", "MatW", "CommittedOutput", "BoundaryInput", "BoundaryOutput"}
    components = [make_component(kind, 4, spec.scale_bits) for kind in kinds]
    needed = {t for c in components for t in c.tables}
    units = 0
    if plan.matmuls or plan.pairs or any(c.range_tables() for c in components):
        units += 2 * 3 * BOUNDARY_UNITS  # range8, range16 and a committed value's range<b> at most
    for table in needed:
        rows = 1 << 4 if table == "pow2" else _function_table_rows(table, spec.scale_bits)
        per_row = ERF_ROW_UNITS if table == "erf" else TABLE_ROW_UNITS
        units += per_row * rows + (TABLE_EVAL_UNITS << table_log_size(table, spec.scale_bits))
    return units


def _function_table_rows(name: str, scale_bits: int) -> int:
    """Rows of a function table before padding (verifier/graph/tables.py table_rows), from its
    domain alone."""
    if name in ("exp2", "exp"):
        return len(range(nonzero_start(name, scale_bits), table_domain(name, scale_bits).stop))
    if name == "erf":
        return len(table_domain(name, scale_bits))
    if name == "log2":
        return 1 << LOG2_MANTISSA_BITS
    return 1 << 15  # sin: |x| in [0, 2^15)


def graph_work(plan: GraphPlan) -> dict[str, float]:
    """Work units of a graph statement, from its plan (the shapes alone: nothing is enumerated)."""
    spec = plan.spec
    # a product of known weights computes v = W rho (K N products); of committed weights, it reads v
    # from the proof and adds sum_k gamma^(k+1) v_k (one QM31 product a value)
    matmul = sum((VECTOR_UNITS if mp.w_committed else MATMUL_PRODUCT_UNITS * mp.n) * mp.k + MATMUL_PERIOD_UNITS * mp.k
                 for mp in plan.matmuls.values())
    steps = sum(len(steps) for node in spec.nodes for _, _, steps in node.srcs)
    # a known row, or a Dot row that takes its weights from the verifier's terms: one term each (the
    # two QM31 products of the running fraction dominate; its values are combined in one pass)
    outputs = sum(len(o.src_indices) for o in spec.outputs if not o.committed)  # (committed: the AIR's rows)
    return {
        "LogUp public terms": float(KNOWN_ROW_UNITS * plan.public_rows() + OUTPUT_TERM_UNITS * outputs),
        "topology": float(BOUNDARY_UNITS * plan.boundary_bound),
        "matrix product weights": matmul,
        "nodes": float(NODE_UNITS * len(spec.nodes) + STEP_UNITS * steps),
        "output maps": OUTPUT_SOURCE_UNITS * sum(spec.nodes[o.node].numel for o in spec.outputs),
    }
