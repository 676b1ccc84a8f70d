"""The STARK prover, step for step the mirror of verifier/verify.py."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Mapping

from ...verifier.air.framework import COMPOSITION_SPLIT, LOG_EXPAND, LOGUP_BATCH, Air, Component, PreprocessedTree, batch_fraction
from ...verifier.air.point import shifted_point
from ...verifier.channel import Channel
from ...verifier.circle import qpoint_from_t
from ...verifier.config import PcsConfig
from ...verifier.fields import P, QM31, q_mul, q_pow
from ...verifier.formats import StarkProof
from ...verifier.pcs import Sample
from ...verifier.verify import (check_sample_points, draw_challenges, draw_elements, draw_late_challenges, mix_statement,
                               mix_statement_roots)
from . import circle_fft as cf
from . import field_vec as fv
from . import kernels, logup_batches
from .backend import U32, U64, Array, steady_heap, xp
from .aux_columns import aux_trace, periodic_trace
from .constraints import SV, DomainEvaluator, as_secure, combine_values
from .fri_prover import FriProver, grind
from .merkle_tree import MerkleTree
from .pcs_prover import CommittedTree, commit_coeffs, commit_columns, eval_at_point, quotient_column


class ProverError(ValueError):
    """The inputs cannot be proven as given (missing column, wrong length, statement mismatch)."""


StageHook = Callable[[str], None]


@dataclass
class ProveStats:
    """Wall time per stage (seconds), filled while proving."""

    stages: dict[str, float] = field(default_factory=dict)


def to_storage(values: Any, log_size: int, what: str) -> Array:
    """Row-order integer values (any sign) -> canonical uint64 in storage order."""
    arr = fv.as_base(values)
    n = 1 << log_size
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ProverError(f"{what}: expected {n} rows, got shape {arr.shape}")
    out = xp.empty(n, dtype=U64)
    out[cf.row_to_storage(log_size)] = arr
    return out


def commit_preprocessed(tree: PreprocessedTree, columns: Mapping[str, Any], log_blowup: int) -> CommittedTree:
    """Coefficients and extensions of a preprocessed tree's columns, made once per model (settings).
    A preprocessed tree is committed inside the main tree (no Merkle tree of its own), but for a
    statement's tree (the model tree of committed weights), whose Merkle root settings.bin holds."""
    kernels.expect_work(sum(1 << (c.log_size + log_blowup) for c in tree.columns) * TWIN_NS_PER_LDE_CELL * 1e-9)
    cols = [to_storage(columns[c.key], c.log_size, f"preprocessed {c.key}") for c in tree.columns]
    committed = commit_columns(cols, log_blowup, merkle=tree.statement)
    for c, (col, spec) in enumerate(zip(cols, tree.columns)):  # the trace-domain values, kept (uint32)
        _tree_extensions(committed)[(c, spec.log_size)] = col.astype(U32)
    return committed


def _selector_column(log_size: int, row: int) -> Array:
    col = xp.zeros(1 << log_size, dtype=U64)
    col[cf.row_to_storage(log_size)[row]] = 1
    return col


def sparse_column(log_size: int, values: Mapping[int, int]) -> Array:
    """A sparse column (row -> value) as a dense storage-order column."""
    col = xp.zeros(1 << log_size, dtype=U64)
    if values:
        order = cf.row_to_storage(log_size)
        rows = xp.asarray(list(values.keys()), dtype=xp.int64)
        col[order[rows]] = xp.asarray([v % P for v in values.values()], dtype=U64)
    return col


_SPARSE_EXTENSIONS: "OrderedDict[tuple, Array]" = OrderedDict()
_SPARSE_KEEP = 256  # extended sparse columns kept (least recently used dropped first)
_CACHE_LOCK = threading.Lock()  # components are evaluated in parallel threads


def _extended_sparse(n: int, m: int, within: int, values: Mapping[int, int]) -> Array:
    """A sparse column's evaluations on the composition domain (cached: they depend on the model
    only, so every proof of a model reuses them)."""
    key = (n, m, within, tuple(sorted(values.items())))
    with _CACHE_LOCK:
        got = _SPARSE_EXTENSIONS.get(key)
        if got is not None:
            _SPARSE_EXTENSIONS.move_to_end(key)
            return got
    got = cf.extend(cf.circle_interpolate(sparse_column(n, values)), m, within, dtype=U32)  # widened by chunks
    with _CACHE_LOCK:
        _SPARSE_EXTENSIONS[key] = got
        while len(_SPARSE_EXTENSIONS) > _SPARSE_KEEP:
            _SPARSE_EXTENSIONS.popitem(last=False)
    return got


def _composition_domain(n: int, log_blowup: int) -> tuple[int, int]:
    """(m, within): a component of log size n is composed on 2^m = 2^(n + LOG_EXPAND) points, the
    first ones of its committed domain (log size within) where the blowup allows."""
    m = n + LOG_EXPAND
    return m, (n + log_blowup if log_blowup >= LOG_EXPAND else m)


def prepare_sparse_columns(air: Air, log_blowup: int) -> None:
    """Extend every component's sparse columns (its boundary rows: model topology, no witness) onto
    its composition domain now, once per model with its settings, as the topology columns are;
    each proof's composition then finds them in _SPARSE_EXTENSIONS (the transformer: 78 columns,
    about 1 s of a first proof)."""
    jobs = []
    for comp in air.components:
        m, within = _composition_domain(comp.log_size, log_blowup)
        jobs += [(comp.log_size, m, within, values) for values in comp.sparse_columns.values()]
    with ThreadPoolExecutor(max_workers=_worker_threads(), thread_name_prefix="luminair-sparse") as pool:
        list(pool.map(lambda job: _extended_sparse(*job), jobs[:_SPARSE_KEEP]))


def _tree_extensions(tree: CommittedTree) -> dict[tuple[int, ...], Array]:
    """Per committed tree: (column, domain log size) -> extended evaluations, kept with the tree
    (preprocessed trees live as long as their model's Settings)."""
    with _CACHE_LOCK:
        ext = getattr(tree, "_extensions", None)
        if ext is None:
            ext = {}
            object.__setattr__(tree, "_extensions", ext)
        return ext


def _secure_columns(cols: list[Array], base: int) -> tuple[Array, Array, Array, Array]:
    return (cols[base], cols[base + 1], cols[base + 2], cols[base + 3])


class _Timer:
    def __init__(self, stats: ProveStats, hook: StageHook | None) -> None:
        self.stats = stats
        self.hook = hook
        self.t = time.perf_counter()

    def stage(self, name: str) -> None:
        now = time.perf_counter()
        self.stats.stages[name] = self.stats.stages.get(name, 0.0) + now - self.t
        self.t = now
        if self.hook:
            self.hook(name)


def prove_stark(
    air: Air,
    config: PcsConfig,
    statement: bytes,
    main: list[Mapping[str, Any]],
    preprocessed: list[CommittedTree] = (),  # type: ignore[assignment]
    stats: ProveStats | None = None,
    on_stage: StageHook | None = None,
    consume_main: bool = False,
    vectors: Callable[[dict[str, QM31]], list[list[QM31]]] | None = None,
    seed: bytes | None = None,
) -> StarkProof:
    """Prove that `main` (per component: column name -> row-order values) satisfies `air`.

    The prover does not check the constraints: a trace that breaks them still yields a complete
    proof, which the verifier rejects (that is how forgery tests are built). With `consume_main`, each component's column dict is emptied once it is copied (less memory)."""
    stats = stats if stats is not None else ProveStats()
    steady_heap()
    timer = _Timer(stats, on_stage)
    lay = air.layout
    b = config.log_blowup
    if len(main) != len(air.components):
        raise ProverError(f"{len(main)} main traces for {len(air.components)} components")
    if len(preprocessed) != len(air.preprocessed):
        raise ProverError("preprocessed commitments do not match the statement's preprocessed trees")

    # The compiled kernels, where the twins' work would be long enough to pay for loading them.
    kernels.expect_work(lde_cells(air, b) * TWIN_NS_PER_LDE_CELL * 1e-9)

    # 1. Statement.
    channel = Channel()
    mix_statement(channel, config, statement, air)

    # 2. Main trace, opened by the prover-committed preprocessed columns (the model's topology, whose
    #    extensions were computed once, with its commitment: only their leaves are hashed again).
    main_cols: list[Array] = []
    for comp, cols in zip(air.components, main):
        for name in comp.main_columns:
            if name not in cols:
                raise ProverError(f"{comp.name}: main column {name!r} missing from the trace")
            main_cols.append(to_storage(cols[name], comp.log_size, f"{comp.name}.{name}"))
        if consume_main:  # the caller hands the row-order trace over: free it as soon as it is copied
            cols.clear()  # type: ignore[attr-defined]
    main_only = commit_columns(main_cols, b, merkle=False)  # hashed once, inside the main tree below
    inside = [ct for ct, tree in zip(preprocessed, air.preprocessed) if not tree.statement]
    coeffs = [c for ct in inside for c in ct.coeffs] + main_only.coeffs
    evals = [e for ct in inside for e in ct.evals] + main_only.evals
    main_tree = CommittedTree(coeffs, evals, MerkleTree(evals))
    # the statement's trees (the model tree): settings.bin's roots, opened before the main tree
    statement_trees = [ct for ct, tree in zip(preprocessed, air.preprocessed) if tree.statement]
    own_roots = []  # (the input tree's: proof.bin's first commitments, mixed before the main root)
    for ct, tree in zip(statement_trees, [t for t in air.preprocessed if t.statement]):
        if tree.proof_root:
            own_roots.append(ct.root)
        elif ct.root != tree.root:
            raise ProverError(f"the {tree.name} tree's root is not the one settings.bin holds")
    mix_statement_roots(channel, air, [ct.root for ct in statement_trees], seed)
    channel.mix_root(main_tree.root)
    timer.stage("commit main trace")

    # 3. Interaction trace (LogUp), after grinding (more bits for the LogUp challenges).
    interaction_nonce = grind(channel, config.interaction_pow_bits)
    channel.mix_u64(interaction_nonce)
    elements = draw_elements(channel, air)
    challenges = draw_challenges(channel, air, seed)
    sent: list[list[QM31]] = []
    if air.vector_components:  # the prover's vectors (v = W rho of committed weights), then their challenges
        if vectors is None:
            raise ProverError("the AIR needs the prover's vectors (committed weights) and none were given")
        sent = vectors(challenges)
        challenges |= draw_late_challenges(channel, air, sent)
    # preprocessed key -> (its committed tree, column): extensions are cached on that tree
    pre_lookup = {col.key: (ct, c) for ct, tree in zip(preprocessed, air.preprocessed) for c, col in enumerate(tree.columns)}

    pre_on_trace: dict[str, Array] = {}  # preprocessed columns back on their trace domains

    def trace_source(ci: int) -> Callable[[str, str, int], Array]:
        comp = air.components[ci]
        n = comp.log_size
        # main_cols holds the main trace alone; the main tree opens with the topology columns
        first = lay.main_offset[ci] - (len(main_tree.evals) - len(main_cols))
        names = {name: first + i for i, name in enumerate(comp.main_columns)}

        def source(kind: str, key: str, offset: int) -> Array:
            if kind == "main":
                col = main_cols[names[key]]
            elif kind == "pre":
                col = pre_on_trace.get(key)
                if col is None:
                    ct, c = pre_lookup[key]
                    kept = _tree_extensions(ct).get((c, n))
                    col = cf.circle_evaluate(ct.coeffs[c]) if kept is None else kept.astype(U64)
                    pre_on_trace[key] = col
            elif kind == "sparse":
                col = sparse_column(n, comp.sparse_columns[key])
            else:
                col = _selector_column(n, int(key))
            return col if offset == 0 else col[cf.mask_permutation(n, n, offset)]

        return source

    inter_cols: list[Array] = []
    claimed: list[QM31] = []
    shifts: dict[int, QM31] = {}

    def interaction_columns(ci: int) -> tuple[list[Array], QM31, QM31]:
        """One component's aux and batch columns (row order), its claimed sum and shift."""
        comp, info = air.components[ci], air.infos[ci]
        n = comp.log_size
        size = 1 << n
        aux = aux_trace(comp, challenges, trace_source(ci))
        cols: list[Array] = [c for name in comp.aux_columns for c in aux[name]]
        periodic = periodic_trace(comp, challenges)

        def aux_at(name: str, offset: int) -> tuple[Array, Array, Array, Array]:
            if offset == 0:
                return aux[name]
            perm = cf.mask_permutation(n, n, offset)
            return tuple(c[perm] for c in aux[name])  # type: ignore[return-value]

        ev = DomainEvaluator(comp, size, trace_source(ci), challenges=challenges, aux=aux_at,
                             periodic=periodic.__getitem__)
        comp.evaluate(ev)
        prev = None
        for bi in range(info.n_batches):
            if bi >= info.n_fraction_batches:  # a plain term: added as it is
                frac = as_secure(ev.terms[bi - info.n_fraction_batches], size)
            else:
                batch = ev.entries[LOGUP_BATCH * bi : LOGUP_BATCH * (bi + 1)]
                got = logup_batches.quotient(batch, elements, size)  # compiled, or None: the generic path
                if got is None:
                    nums, dens = batch_fraction([m for _, m, _ in batch],
                                                [SV(combine_values(values, elements[rel], size)) for rel, _, values in batch])
                    got = fv.q_mul(as_secure(nums, size), fv.q_inv(dens.c))
                frac = got
            s = frac if prev is None else fv.q_add(prev, frac)
            if bi < info.n_batches - 1:
                cols.extend(s)
            prev = s
        assert prev is not None
        # the last batch column: a running sum over rows, less claimed / N a row so that it wraps to 0
        total = fv.q_sum(prev)
        shift = q_mul(total, (pow(size, P - 2, P), 0, 0, 0))
        order = cf.row_to_storage(n)
        rows = fv.q_sub(tuple(c[order] for c in prev), tuple(xp.asarray(v, dtype=U64) for v in shift))  # type: ignore[arg-type]
        cum_rows = fv.q_cumsum(rows)
        cum = tuple(xp.empty(size, dtype=U64) for _ in range(4))
        for k in range(4):
            cum[k][order] = cum_rows[k]
        return cols + list(cum), total, shift

    summed = [ci for ci, info in enumerate(air.infos) if info.n_batches]
    for comp, info in zip(air.components, air.infos):
        if not info.n_batches and comp.aux_columns:
            raise ProverError(f"{comp.name}: aux columns without a running sum")
    largest_first = sorted(summed, key=lambda ci: -air.components[ci].log_size)
    with ThreadPoolExecutor(max_workers=_worker_threads(), thread_name_prefix="luminair-logup") as pool:
        results = dict(zip(largest_first, pool.map(interaction_columns, largest_first)))
    for ci in summed:
        cols, total, shift = results.pop(ci)
        inter_cols.extend(cols)
        claimed.append(total)
        shifts[ci] = shift
    channel.mix_felts(claimed)
    inter_tree: CommittedTree | None = None
    if lay.interaction_tree is not None:
        inter_tree = commit_columns(inter_cols, b)
        channel.mix_root(inter_tree.root)
    # The row-order columns are no longer read (the trees hold coefficients and extensions): free
    # them before the composition, the step that needs the most memory.
    inter_cols.clear()
    main_cols.clear()
    pre_on_trace.clear()
    timer.stage("interaction trace")

    # 4. Composition polynomial.
    alpha = channel.draw_felt()
    bound = air.max_log_size + LOG_EXPAND
    total = tuple(xp.zeros(1 << bound, dtype=U64) for _ in range(4))
    # Components evaluate in parallel threads (numpy releases the GIL in every large operation),
    # largest first; each share is weighted by alpha^(constraints of the components after it).
    later = 0
    weights = [(1, 0, 0, 0)] * len(air.components)
    for ci in reversed(range(len(air.components))):
        weights[ci] = q_pow(alpha, later)
        later += air.infos[ci].n_constraints
    order = sorted(range(len(air.components)), key=lambda ci: -air.components[ci].log_size)
    with ThreadPoolExecutor(max_workers=_worker_threads(), thread_name_prefix="luminair-composition") as pool:
        shares = {ci: pool.submit(_component_composition, air, ci, air.components[ci], pre_lookup, main_tree,
                                  inter_tree, elements, alpha, shifts.get(ci), challenges, b) for ci in order}
        for ci in order:
            contrib = fv.q_mul(shares.pop(ci).result(), tuple(xp.asarray(c, dtype=U64) for c in weights[ci]))  # type: ignore[arg-type]
            size = contrib[0].shape[0]
            for t, c in zip(total, contrib):  # in place: total's arrays are this function's own
                t[:size] = fv.add(t[:size], c)
    # COMPOSITION_SPLIT parts by the top bits of the coefficient index (air/point.composition_from_samples)
    part = 1 << (bound - LOG_EXPAND)
    comp_coeffs = [c[j * part : (j + 1) * part].copy() for j in range(COMPOSITION_SPLIT) for c in total]
    comp_tree = commit_coeffs(comp_coeffs, b)
    channel.mix_root(comp_tree.root)
    timer.stage("composition")

    # 5. Out-of-domain sampling.
    oods = qpoint_from_t(channel.draw_felt())
    check_sample_points(oods, lay)  # fails with probability ~2^-60: the verifier would refuse it too
    trees: list[CommittedTree] = [*statement_trees, main_tree]
    if inter_tree is not None:
        trees.append(inter_tree)
    trees.append(comp_tree)
    sampled: list[list[list[QM31]]] = []
    for t, cols in enumerate(lay.columns):
        requests: dict[tuple[int, Any], list[int]] = {}
        for c, slot in enumerate(cols):
            for o in slot.masks:
                requests.setdefault((slot.log_size, o), []).append(c)
        values: dict[tuple[int, int], QM31] = {}
        for (log, o), idx in requests.items():
            point = shifted_point(oods, o, log)
            for c, v in zip(idx, eval_at_point([trees[t].coeffs[c] for c in idx], point)):
                values[(c, o)] = v
        sampled.append([[values[(c, o)] for o in slot.masks] for c, slot in enumerate(cols)])
    channel.mix_felts([v for tree in sampled for col in tree for v in col])
    deep_alpha = channel.draw_felt()
    # The DEEP quotients, FRI and the openings read evaluations only: drop this proof's coefficients
    # (not the preprocessed trees', which the settings keep for the next proof).
    for tree in (main_tree, inter_tree, comp_tree):
        if tree is not None:
            tree.coeffs = []
    del total, comp_coeffs
    timer.stage("out-of-domain sampling")

    # 6. DEEP quotients and FRI.
    sizes = sorted({slot.log_size + b for cols in lay.columns for slot in cols}, reverse=True)
    samples: dict[int, list[Sample]] = {s: [] for s in sizes}
    evals: dict[tuple[int, int], Array] = {}
    for t, cols in enumerate(lay.columns):
        for c, slot in enumerate(cols):
            s = slot.log_size + b
            evals[(t, c)] = trees[t].evals[c]
            for k, o in enumerate(slot.masks):
                samples[s].append(Sample(t, c, shifted_point(oods, o, slot.log_size), sampled[t][c][k]))
    with ThreadPoolExecutor(max_workers=_worker_threads(), thread_name_prefix="luminair-deep") as pool:
        quotients = dict(zip(sizes, pool.map(lambda s: quotient_column(s, samples[s], evals, deep_alpha), sizes)))
    timer.stage("DEEP quotients")
    fri = FriProver(config, quotients)
    fri.commit(channel)
    timer.stage("FRI commit")

    # 7. Proof of work, queries, openings.
    nonce = grind(channel, config.pow_bits)
    channel.mix_u64(nonce)
    timer.stage("proof of work")
    max_log = sizes[0]
    queries = channel.draw_queries(config.n_queries, max_log)
    positions = {s: sorted({q >> (max_log - s) for q in queries}) for s in sizes}
    queried = []
    decs = []
    for t, cols in enumerate(lay.columns):
        vals, dec = trees[t].decommit(positions)
        queried.append(vals)
        decs.append(dec)
    fri_proof = fri.decommit(queries)
    timer.stage("openings")
    commitments = own_roots + [main_tree.root] + ([inter_tree.root] if inter_tree else []) + [comp_tree.root]
    return StarkProof(commitments, claimed, sampled, queried, decs, fri_proof, nonce, interaction_nonce, sent)


TWIN_NS_PER_LDE_CELL = 250  # the numpy twins' proving time per committed cell of the extended trace, measured


def lde_cells(air: Air, log_blowup: int) -> int:
    """Committed cells of the extended trace (every tree)."""
    return sum(1 << (slot.log_size + log_blowup) for cols in air.layout.columns for slot in cols)


def _worker_threads() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def _component_composition(
    air: Air,
    ci: int,
    comp: Component,
    pre_lookup: Mapping[str, tuple[CommittedTree, int]],
    main_tree: CommittedTree,
    inter_tree: CommittedTree | None,
    elements: Any,
    alpha: QM31,
    shift: QM31 | None,
    challenges: dict[str, QM31],
    log_blowup: int,
) -> tuple[Array, Array, Array, Array]:
    """One component's share of the composition: sum_i alpha^(m-1-i) C_i / Z on a circle domain of
    2^m = 2^(n + LOG_EXPAND) points, returned as coefficients (4 coordinates, 2^m each).

    The domain is the first 2^m storage positions of the committed one (log size n + log_blowup;
    circle_fft.prefix_twiddles), so every committed column is read, not extended; only with a
    blowup below 2^LOG_EXPAND are the columns extended onto CanonicCoset(m)."""
    lay = air.layout
    info = air.infos[ci]
    n = comp.log_size
    m, within = _composition_domain(n, log_blowup)
    size = 1 << m
    # Every column on the composition domain as it is kept (committed columns: the tree's uint32
    # evaluations, not copied); the constraints are then evaluated chunk by chunk of the domain
    # (they are pointwise), so only a chunk of each column is ever widened to uint64.
    full: dict[tuple[str, str], Array] = {}
    names = {name: lay.main_offset[ci] + i for i, name in enumerate(comp.main_columns)}

    def extended(kind: str, key: str) -> Array:
        got = full.get((kind, key))
        if got is None:
            values = comp.sparse_columns[key] if kind == "sparse" else {int(key): 1}  # or a selector
            got = full[(kind, key)] = _extended_sparse(n, m, within, values)
        return got

    # Columns not committed on `within` (blowup 1) are extended in one batched FFT (parallel
    # threads); preprocessed trees keep their extensions, so a model's topology is extended once.
    wanted: list[tuple[str, str, Array]] = []

    def want(kind: str, key: str, tree: CommittedTree, idx: int) -> None:
        if tree.evals[idx].shape[0] == 1 << within:
            full[(kind, key)] = tree.evals[idx]  # stored as uint32; its first 2^m values are read
        else:
            wanted.append((kind, key, tree.coeffs[idx]))

    for name in comp.main_columns:
        want("main", name, main_tree, names[name])
    for key in info.pre_masks:
        ct, c = pre_lookup[key]
        kept = _tree_extensions(ct).get((c, m, within))
        if kept is not None:
            full[("pre", key)] = kept
        else:
            want("pre", key, ct, c)
    if inter_tree is not None and info.n_batches:
        base = lay.aux_offset[ci]
        for k in range(4 * (len(comp.aux_columns) + info.n_batches)):
            want("inter", str(base + k), inter_tree, base + k)
    periodic = periodic_trace(comp, challenges)
    for key, cols in periodic.items():  # known to the verifier: extended like a committed column
        for k, col in enumerate(cols):
            wanted.append(("periodic", f"{key}#{k}", cf.circle_interpolate(col)))
    if wanted:
        ext = cf.extend([w[2] for w in wanted], m, within, dtype=U32)  # kept narrow, widened by chunks
        for (kind, key, _), col in zip(wanted, ext):
            full[(kind, key)] = col
            if kind == "pre":
                ct, c = pre_lookup[key]
                _tree_extensions(ct)[(c, m, within)] = col

    z_inv = vanishing_inverses(n, m, within)
    quotient = tuple(xp.empty(size, dtype=U64) for _ in range(4))
    step = min(size, COMPOSITION_CHUNK)
    for lo in range(0, size, step):
        acc = _composition_chunk(comp, info, lay, ci, full, extended, lo, lo + step, within, m, alpha, challenges,
                                 elements, shift)
        for q, v in zip(quotient, fv.q_mul_base(acc, z_inv[lo : lo + step])):
            q[lo : lo + step] = v
    return tuple(cf.circle_interpolate(list(quotient), within))  # type: ignore[return-value]


def vanishing_inverses(n: int, m: int, within: int) -> Array:
    """1 / Z at each of the first 2^m storage positions of the domain of log size `within` (the
    composition domain), Z the vanishing polynomial of the canonic coset of log size n (x ->
    2x^2 - 1, n - 1 times, of x). On that domain Z is constant on each run of 2^n storage positions
    (tests/stark/test_composition_vanishing.py, against Z at every point), so its 2^(m-n) values
    are computed and inverted once, and repeated."""
    z = cf.half_coset(within)[0][xp.arange(0, 1 << m, 1 << n) >> 1]  # x at storage position i: half coset x at i / 2
    for _ in range(n - 1):
        z = fv.sub(fv.mul(fv.add(z, z), z), xp.ones_like(z))
    return xp.repeat(fv.batch_inverse(z), 1 << n)


COMPOSITION_CHUNK = 1 << 16  # composition-domain points evaluated at once (the memory of a chunk, not a domain)


def _composition_chunk(comp: Component, info: Any, lay: Any, ci: int, full: dict[tuple[str, str], Array],
                       extended: Callable[[str, str], Array], lo: int, hi: int, within: int, m: int, alpha: QM31,
                       challenges: dict[str, QM31], elements: Any, shift: QM31 | None) -> tuple[Array, Array, Array, Array]:
    """The random combination of one component's constraints on composition-domain points lo..hi-1."""
    n = comp.log_size
    here: dict[tuple[str, str], Array] = {}  # offset-0 chunks, widened once

    def source(kind: str, key: str, offset: int) -> Array:
        col = full.get((kind, key))
        if col is None:  # a sparse column or a selector, extended on first use
            col = extended(kind, key)
        if offset:
            return col[_sub_mask_permutation(within, m, n, offset)[lo:hi]].astype(U64, copy=False)
        got = here.get((kind, key))
        if got is None:
            got = here[(kind, key)] = col[lo:hi].astype(U64, copy=False)
        return got

    def interaction(batch: int, offset: int) -> tuple[Array, Array, Array, Array]:
        base = lay.interaction_offset[ci] + 4 * batch
        return tuple(source("inter", str(base + k), offset) for k in range(4))  # type: ignore[return-value]

    def aux(name: str, offset: int) -> tuple[Array, Array, Array, Array]:
        base = lay.aux_offset[ci] + 4 * list(comp.aux_columns).index(name)
        return tuple(source("inter", str(base + k), offset) for k in range(4))  # type: ignore[return-value]

    def periodic_ext(key: str) -> tuple[Array, Array, Array, Array]:
        return tuple(source("periodic", f"{key}#{k}", 0) for k in range(4))  # type: ignore[return-value]

    ev = DomainEvaluator(comp, hi - lo, source, interaction, alpha, info.n_constraints, challenges=challenges,
                         aux=aux, periodic=periodic_ext)
    comp.evaluate(ev)
    ev.finalize_logup(elements, info.n_batches, shift if shift is not None else (0, 0, 0, 0))
    return ev.acc if ev.acc is not None else fv.secure_zeros(hi - lo)


@lru_cache(maxsize=128)
def _sub_mask_permutation(within: int, m: int, n: int, offset: int) -> Array:
    """The mask `offset` rows away on the first 2^m positions of the domain of log size `within`:
    a shift by trace rows keeps those positions among themselves (prefix_twiddles)."""
    perm = cf.mask_permutation(within, n, offset)[: 1 << m]
    assert int(perm.max()) < 1 << m
    return perm

