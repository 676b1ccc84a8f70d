"""Readable summaries of settings.bin and proof.bin without verifying (for `luminair inspect` and
the web widget's graph view). They use the same codecs as the verifier and raise FormatError on
malformed input."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from .config import preset_label
from .formats import read_proof_file
from .graph.summary import graph_summary
from .numeric import from_field
from .statement import KIND_NAMES, read_settings


def settings_summary(data: bytes) -> dict[str, Any]:
    s = read_settings(data)
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
    out.update(graph_summary(s.body))
    return out


def proof_summary(data: bytes) -> dict[str, Any]:
    p = read_proof_file(data)
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
