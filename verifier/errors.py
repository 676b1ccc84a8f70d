"""Typed verification errors. Each carries the name of the failed check; `verify` turns any of them
into ``success=False`` with the one-line message ``"<check>: <detail>"``."""

from __future__ import annotations


class VerificationError(Exception):
    check = "verification"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail

    @property
    def message(self) -> str:
        return f"{self.check}: {self.detail}"


class FormatError(VerificationError):
    """Malformed bytes: wrong magic, unknown version, truncated, trailing bytes, non-canonical
    field element, size out of bounds. The detail names the file and the field."""

    check = "malformed file"


class VersionError(FormatError):
    check = "unsupported version"


class ConfigError(VerificationError):
    check = "config below floor"


class StatementError(VerificationError):
    """The proof does not match the statement (settings): wrong shapes, components, public values."""

    check = "statement mismatch"


class EntryBoundError(VerificationError):
    """A relation of the statement holds P or more LogUp entries: its multiplicities could wrap
    around the field (air/framework.check_entry_bound)."""

    check = "LogUp entry bound"


class MerkleError(VerificationError):
    check = "Merkle path"


class LogUpError(VerificationError):
    check = "LogUp sum"


class OodsMismatch(VerificationError):
    check = "OODS mismatch"


class FriError(VerificationError):
    check = "FRI"


class PowError(VerificationError):
    check = "proof of work"
