"""Readable summaries of settings.bin and proof.bin without verifying (for `luminair inspect` and
the web widget's graph view, which reads files from anywhere). They use the same codecs as the
verifier and raise FormatError on malformed input, and spend what `verify` would on one file: its
size cap and the work budget its bytes back (verifier/budget.py), charged as `verify` charges
them, or a BudgetError (check "work budget"); `max_work` raises both as it does for `verify`."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from .budget import WorkMeter, budget_for, check_file_sizes
from .config import preset_label
from .formats import is_bundle, read_proof_file
from .graph.summary import graph_summary
from .numeric import from_field
from .statement import KIND_NAMES, read_settings


def _meter(proof_size: int, settings_size: int, max_work: int | None) -> WorkMeter:
    check_file_sizes(proof_size, settings_size, max_work)
    return WorkMeter(budget_for(proof_size, settings_size, max_work))


def settings_summary(data: bytes, max_work: int | None = None) -> dict[str, Any]:
    meter = _meter(0, len(data), max_work)
    s = read_settings(data, meter)
    out: dict[str, Any] = {
        "file": "settings",
        "kind": KIND_NAMES[s.kind],
        "model_digest": s.digest.hex(),
        "size_bytes": len(data),
        "config": {
            **asdict(s.config),  # pow_bits, log_blowup, n_queries, log_last_layer, interaction_pow_bits
            "security_bits": s.config.security_bits,
            "label": preset_label(s.config).strip(" []"),
        },
    }
    out.update(graph_summary(s.body, meter))
    return out


def proof_summary(data: bytes, max_work: int | None = None) -> dict[str, Any]:
    if is_bundle(data):
        return bundle_summary(data)
    p = read_proof_file(data, _meter(len(data), 0, max_work))
    st = p.stark
    regions = p.encode().regions()
    return {
        "file": "proof",
        "size_bytes": len(data),
        "settings_digest": p.settings_digest.hex(),
        "public_tensors": [len(v) for v in p.public_values],
        # raw fixed-point integers (a graph statement's scale is in its settings.bin)
        "public_values_raw": [[from_field(v) for v in vals[:16]] + (["..."] if len(vals) > 16 else []) for vals in p.public_values],
        "bytes_per_region": {name: end - start for name, (start, end) in regions.items()},
        "commitments": len(st.commitments),
        "sampled_columns": sum(len(t) for t in st.sampled_values),
        "fri_inner_layers": len(st.fri.inner_layers),
        "last_layer_coefficients": len(st.fri.last_layer),
        "pow_nonce": st.pow_nonce,
    }


def bundle_summary(data: bytes) -> dict[str, Any]:
    """A segmented proof's bundle: its statement's settings digest, cut points and segment sizes."""
    # (verifier/segments.py imports the verifier itself; a summary reads bundles rarely)
    from .segments import read_bundle

    digest, seed, queries, cuts, proofs = read_bundle(data)
    return {"file": "proof", "segmented": True, "size_bytes": len(data), "settings_digest": digest.hex(),
            "seed": seed.hex(), "queries": queries, "cut_points": cuts, "segment_bytes": [len(p) for p in proofs]}
