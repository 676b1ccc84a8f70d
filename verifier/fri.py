"""Circle FRI verifier (docs/protocol.md "13. FRI", with group-packed leaves).

Quotient columns Q_l (one per committed log size l, largest L) are proven low-degree together:
* first layer: one tree committing every Q_l; a leaf holds the fold pair (positions 2i, 2i+1) as
  8 base columns of log size l-1 (4 coordinates of the even member, then of the odd member), or,
  where Q_l joins inside a layer's folds, the 2^b positions that fold into one there (4 2^b columns
  of log size l-b, quotient_group_bits);
* cur = circle-fold of Q_L with alpha_0 (a line evaluation of log size L-1);
* inner layers from log size L-1 down to m_last+1 (fri_schedule: of the schedules with m_last at
  most log_last_layer + log_blowup and below the smallest column's log size, each layer folding
  1 to FOLD_STEP = 3 times, the one of fewest estimated bytes): commit cur (a leaf holds the
  2^steps positions that fold into one),
  then for each fold at log size m draw beta_m, cur = line-fold(cur, beta_m), and if some Q_m
  exists, cur = cur * beta_m^2 + circle-fold(Q_m, beta_m). Folding several times a commitment cuts the
  layers' Merkle paths, the largest part of FRI's share of a proof (docs/changelog.md, format 6);
  the folds and their challenges are the same as one a layer;
* last layer: cur must equal a line polynomial with 2^(m_last - log_blowup) coefficients, sent in clear.
Only the group members the verifier cannot compute travel in the proof (`siblings`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .channel import Channel
from .circle import domain_point, line_domain_x
from .config import PcsConfig
from .errors import FriError, MerkleError
from .fields import QM31, q_add, q_mul
from .formats import FriLayerProof, FriProof
from .merkle import DIGEST_BYTES, verify_decommitment
from .poly import eval_line_poly, fold_circle_pair, fold_line_pair

FOLD_STEP = 3  # at most this many line folds per committed inner layer (a leaf holds the 2^steps values that fold into one)


def fri_schedule(sizes: list[int], config: PcsConfig) -> tuple[int, list[tuple[int, int]]]:
    """(m_last, [(m, steps) of each committed inner layer]) for quotients of log sizes `sizes`:
    the inner layers fold the line evaluation of log size max(sizes) - 1 down to m_last, each up
    to FOLD_STEP times, and the last layer (2^(m_last - log_blowup) coefficients) goes in clear.
    Of every schedule with log_blowup <= m_last <= min(log_last_layer + log_blowup,
    min(sizes) - 1), the one whose estimated bytes are fewest (_layer_bytes, integers; ties: the
    first found); prover and verifier both derive it from the config and the AIR's column sizes."""
    sizes = sorted(set(sizes), reverse=True)
    hi = min(config.log_last_layer + config.log_blowup, sizes[-1] - 1)
    lo = config.log_blowup
    top = sizes[0] - 1
    if hi < lo or top < lo:
        return hi, []  # nothing to fold into: FriVerifier.commit names it
    best: dict[int, tuple[int, list[tuple[int, int]], int] | None] = {}
    for m in range(lo, top + 1):  # bottom-up: best[m] = the cheapest way on from log size m
        options: list[tuple[int, list[tuple[int, int]], int]] = []
        if m <= hi:
            options.append((16 << (m - lo), [], m))
        for steps in range(1, min(FOLD_STEP, m - lo) + 1):
            rest = best.get(m - steps)
            if rest is not None:
                cost = _layer_bytes(m, steps, sizes, config) + rest[0]
                options.append((cost, [(m, steps)] + rest[1], rest[2]))
        best[m] = min(options, key=lambda o: o[0]) if options else None
    chosen = best[top]
    if chosen is None:
        return hi, []
    return chosen[2], chosen[1]


def _layer_bytes(m: int, steps: int, sizes: list[int], config: PcsConfig) -> int:
    """Estimated proof bytes of one inner layer (log size m, `steps` folds): its root, per query
    the 2^steps - 1 siblings (QM31) and the Merkle path above the shared part, and the first-layer
    siblings of the quotients that join during its folds (2^(steps - j) - 1 a query for Q_(m-j))."""
    leaves = m - steps
    queries = min(config.n_queries, 1 << leaves)
    shared = queries.bit_length() - 1
    cost = DIGEST_BYTES + queries * (((1 << steps) - 1) * 16 + max(0, leaves - shared) * DIGEST_BYTES)
    for j in range(steps):
        if m - j in sizes:
            cost += config.n_queries * ((1 << (steps - j)) - 1) * 16
    return cost


def last_layer_log_size(config: PcsConfig, sizes: list[int]) -> int:
    return fri_schedule(sizes, config)[0]


def quotient_group_bits(sizes: list[int], config: PcsConfig) -> dict[int, int]:
    """log2 of the values of Q_l a first-layer leaf holds: Q_l joins at fold j of a layer's
    `steps` (at log size l = m - j), where the layer's group has 2^(steps - j) positions, all of
    which the fold needs (the largest Q, folded before any layer: the fold pair)."""
    bits = {size: 1 for size in sizes}
    for m, steps in fri_schedule(sizes, config)[1]:
        for j in range(steps):
            if m - j in bits:
                bits[m - j] = steps - j
    return bits


def n_inner_layers(sizes: list[int], config: PcsConfig) -> int:
    return len(fri_schedule(sizes, config)[1])


class _Siblings:
    def __init__(self, layer: str, values: Sequence[QM31]) -> None:
        self.layer = layer
        self.values = values
        self.i = 0

    def take(self) -> QM31:
        if self.i >= len(self.values):
            raise FriError(f"{self.layer}: too few fold siblings in the proof")
        v = self.values[self.i]
        self.i += 1
        return v

    def done(self) -> None:
        if self.i != len(self.values):
            raise FriError(f"{self.layer}: {len(self.values) - self.i} unused fold siblings")


def _open_groups(known: dict[int, QM31], siblings: _Siblings, bits: int) -> dict[int, list[QM31]]:
    """Group index -> the 2^bits values of positions g 2^bits + t, completing missing members from
    the siblings (in group order, then member order)."""
    groups: dict[int, list[QM31]] = {}
    for g in sorted({p >> bits for p in known}):
        members = range(g << bits, (g + 1) << bits)
        groups[g] = [known[p] if p in known else siblings.take() for p in members]
    return groups


def _group_columns(groups: dict[int, list[QM31]], bits: int) -> list[list[int]]:
    """A leaf's base columns: member by member, each member's 4 coordinates."""
    order = sorted(groups)
    return [[groups[g][t][k] for g in order] for t in range(1 << bits) for k in range(4)]


def _values(groups: dict[int, list[QM31]], bits: int) -> dict[int, QM31]:
    return {(g << bits) + t: v for g, vs in groups.items() for t, v in enumerate(vs)}


class FriVerifier:
    def __init__(self, config: PcsConfig, quotient_log_sizes: list[int], proof: FriProof) -> None:
        self.config = config
        self.sizes = sorted(set(quotient_log_sizes), reverse=True)
        self.max_log = self.sizes[0]
        self.proof = proof
        self.m_last, self.schedule = fri_schedule(self.sizes, config)
        self.alphas: list[QM31] = []

    def commit(self, channel: Channel) -> None:
        """Mix the layer roots and the last layer, drawing the folding randomness in between (one
        challenge a fold: a layer of two folds draws two after its root)."""
        if self.sizes[-1] <= self.m_last or self.m_last < self.config.log_blowup:
            raise FriError(
                f"config: last layer log size {self.m_last} leaves no room to fold a column of log "
                f"size {self.sizes[-1]}"
            )
        if len(self.proof.inner_layers) != len(self.schedule):
            raise FriError(f"proof has {len(self.proof.inner_layers)} inner layers, expected {len(self.schedule)}")
        channel.mix_root(self.proof.first_layer.root)
        self.alphas.append(channel.draw_felt())
        for layer, (_, steps) in zip(self.proof.inner_layers, self.schedule):
            channel.mix_root(layer.root)
            self.alphas.extend(channel.draw_felt() for _ in range(steps))
        coefficients = 1 << (self.m_last - self.config.log_blowup)
        if len(self.proof.last_layer) != coefficients:
            raise FriError(f"last layer has {len(self.proof.last_layer)} coefficients, expected {coefficients}")
        channel.mix_felts(self.proof.last_layer)

    def decommit(self, queries: list[int], quotients: dict[int, dict[int, QM31]]) -> None:
        """Check every layer at the query positions (storage positions on the largest domain)."""
        first = self.proof.first_layer
        sib = _Siblings("layer 0 (first layer)", first.siblings)
        bits = quotient_group_bits(self.sizes, self.config)
        q_vals: dict[int, dict[int, QM31]] = {}
        log_sizes: list[int] = []
        columns: list[list[int]] = []
        leaf_queries: dict[int, list[int]] = {}
        for size in self.sizes:
            groups = _open_groups(quotients[size], sib, bits[size])
            q_vals[size] = _values(groups, bits[size])
            log_sizes += [size - bits[size]] * (4 << bits[size])
            columns += _group_columns(groups, bits[size])
            leaf_queries[size - bits[size]] = sorted(groups)  # q >> (max_log - that log size), for any size
        sib.done()
        self._check_tree(sib.layer, first, log_sizes, leaf_queries, columns)

        cur = self._fold(q_vals[self.max_log], self.max_log, self.alphas[0], circle=True)
        k = 1
        for n, (layer, (m, steps)) in enumerate(zip(self.proof.inner_layers, self.schedule)):
            name = f"layer {n + 1}"
            sib = _Siblings(name, layer.siblings)
            groups = _open_groups(cur, sib, steps)
            sib.done()
            self._check_tree(name, layer, [m - steps] * (4 << steps), {m - steps: sorted(groups)},
                             _group_columns(groups, steps))
            vals = _values(groups, steps)
            for level in range(m, m - steps, -1):
                beta = self.alphas[k]
                k += 1
                vals = self._fold(vals, level, beta)
                if level in q_vals:  # Q_level joins: cur * beta^2 + its circle fold
                    beta2 = q_mul(beta, beta)
                    joined = self._fold(q_vals[level], level, beta, circle=True)
                    vals = {i: q_add(q_mul(v, beta2), joined[i]) for i, v in vals.items()}
            cur = vals
        for pos in sorted(cur):
            expect = eval_line_poly(self.proof.last_layer, _lift(line_domain_x(pos, self.m_last)))
            if expect != cur[pos]:
                raise FriError(f"last layer: folded value at position {pos} does not match the last-layer polynomial")

    @staticmethod
    def _fold(vals: dict[int, QM31], log_size: int, alpha: QM31, circle: bool = False) -> dict[int, QM31]:
        """Every complete pair (2i, 2i + 1) of `vals` folded to position i (circle -> line, or line)."""
        out = {}
        for i in sorted({p >> 1 for p in vals}):
            even, odd = vals[2 * i], vals[2 * i + 1]
            if circle:
                out[i] = fold_circle_pair(even, odd, domain_point(2 * i, log_size)[1], alpha)
            else:
                out[i] = fold_line_pair(even, odd, line_domain_x(2 * i, log_size), alpha)
        return out

    @staticmethod
    def _check_tree(
        name: str,
        layer: FriLayerProof,
        log_sizes: list[int],
        queries: dict[int, list[int]],
        columns: list[list[int]],
    ) -> None:
        try:
            verify_decommitment(
                name,
                layer.root,
                log_sizes,
                queries,
                columns,
                layer.decommitment.hash_witness,
                layer.decommitment.column_witness,
            )
        except MerkleError as e:
            raise FriError(e.detail) from None


def _lift(x: int) -> QM31:
    return (x, 0, 0, 0)
