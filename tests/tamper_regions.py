"""Which check must catch a flipped byte in each region of proof.bin (shared by the example-AIR and
graph tests). A flip inside a field element can make it non-canonical, and a flip in a region's
length prefix breaks the layout: the decoder rejects both as a malformed file."""

PROOF_REGIONS = {
    "header": {"malformed file", "unsupported version"},
    "settings digest": {"statement mismatch"},
    "public values": {"LogUp sum", "OODS mismatch", "malformed file", "statement mismatch", "proof of work"},
    "commitments": {"OODS mismatch", "LogUp sum", "malformed file", "proof of work"},  # main root: then the interaction grind fails
    "interaction proof of work": {"proof of work", "LogUp sum", "OODS mismatch"},
    "claimed sums": {"LogUp sum", "malformed file"},
    "sampled values": {"OODS mismatch", "malformed file"},
    "queried values": {"Merkle path", "malformed file"},
    "decommitments": {"Merkle path", "malformed file"},
    "FRI first layer": {"proof of work", "FRI", "malformed file"},
    "FRI inner layers": {"proof of work", "FRI", "malformed file"},
    "FRI last layer": {"proof of work", "malformed file"},
    "proof of work": {"proof of work"},
}
