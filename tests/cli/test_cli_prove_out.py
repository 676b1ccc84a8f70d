"""`prove` checks --out before proving and replaces the pair atomically, settings first (issue 10)."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

import luminair.prover.proving as proving
from cli_helpers import TINY, one_line
from luminair.prover.cli import main as cli
from luminair.verifier import verify

OTHER_INPUT = {"input_data": [[0.5, -0.25, 0.125, 1.0, -1.0, 0.75, 0.0, 0.3]]}


def never_prove(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proving, "prove", lambda *a, **k: pytest.fail("proved before checking --out"))


def pair_state(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def assert_verifies(folder: Path) -> None:
    r = verify(
        (folder / "proof.bin").read_bytes(), (folder / "settings.bin").read_bytes(), min_security_bits=20
    )
    assert r.success, r.error_message


@pytest.fixture
def old_pair(dev_pair: Path, tmp_path: Path) -> Path:
    """A folder holding a verifying pair, and an input that proves to a different proof."""
    folder = tmp_path / "out"
    shutil.copytree(dev_pair, folder)
    (tmp_path / "other.json").write_text(json.dumps(OTHER_INPUT))
    return folder


def prove_other(folder: Path) -> int:
    return cli(
        [
            "prove",
            TINY[0],
            "--input",
            str(folder.parent / "other.json"),
            "--out",
            str(folder),
            "--preset",
            "fast",
            "--quiet",
        ]
    )


def test_out_at_an_existing_file_is_refused_before_proving(tmp_path, monkeypatch, capsys):
    never_prove(monkeypatch)
    f = tmp_path / "taken"
    f.write_text("not a folder")
    assert cli(["prove", *TINY, "--out", str(f), "--quiet"]) == 2
    assert one_line(capsys.readouterr().err) == f"error: --out {str(f)!r} exists and is not a directory"
    assert cli(["prove", *TINY, "--out", str(f / "sub"), "--quiet"]) == 2
    assert (
        one_line(capsys.readouterr().err)
        == f"error: --out {str(f / 'sub')!r} cannot be created: {str(f)!r} is not a directory"
    )
    (tmp_path / "d" / "proof.bin").mkdir(parents=True)
    assert cli(["prove", *TINY, "--out", str(tmp_path / "d"), "--quiet"]) == 2
    assert "proof.bin there is not a regular file" in one_line(capsys.readouterr().err)
    assert f.read_text() == "not a folder"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root may write anywhere")
def test_out_in_a_read_only_folder_is_refused_before_proving(tmp_path, monkeypatch, capsys):
    never_prove(monkeypatch)
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        assert cli(["prove", *TINY, "--out", str(ro / "new" / "deeper"), "--quiet"]) == 2
        assert (
            one_line(capsys.readouterr().err)
            == f"error: --out {str(ro / 'new' / 'deeper')!r}: the directory {str(ro)!r} is not writable"
        )
    finally:
        ro.chmod(0o755)


def test_a_missing_out_folder_is_created_and_the_files_are_readable(tmp_path, capsys):
    out = tmp_path / "a" / "b"
    old_umask = os.umask(0o022)
    try:
        assert cli(["prove", *TINY, "--out", str(out), "--preset", "fast", "--quiet"]) == 0
    finally:
        os.umask(old_umask)
    assert sorted(p.name for p in out.iterdir()) == ["proof.bin", "settings.bin"]  # no temporary files left
    for name in ("proof.bin", "settings.bin"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o644  # not mkstemp's 0600
    assert_verifies(out)
    assert (
        capsys.readouterr().out.splitlines()[-1]
        == f"wrote          {out / 'proof.bin'}, {out / 'settings.bin'}"
    )


def test_a_new_pair_replaces_the_old_one(old_pair, capsys):
    before = pair_state(old_pair)
    assert prove_other(old_pair) == 0
    after = pair_state(old_pair)
    assert sorted(after) == ["proof.bin", "settings.bin"]
    assert after["proof.bin"] != before["proof.bin"] and after["settings.bin"] == before["settings.bin"]
    assert_verifies(old_pair)


def test_a_write_failing_after_the_first_file_leaves_the_old_pair(old_pair, monkeypatch, capsys):
    before = pair_state(old_pair)
    real = proving._write_temp
    written: list[str] = []

    def second_write_fails(path: Path, data: bytes) -> Path:
        if written:
            raise OSError(28, "No space left on device")
        written.append(path.name)
        return real(path, data)

    monkeypatch.setattr(proving, "_write_temp", second_write_fails)
    assert prove_other(old_pair) == 2
    assert written == ["settings.bin"]  # settings first
    err = one_line(capsys.readouterr().err)
    assert err == (
        f"error: cannot write the proof files into {str(old_pair)!r}: No space left on device "
        "(any previous pair there is unchanged)"
    )
    assert pair_state(old_pair) == before  # untouched, and no temporary file left behind
    assert_verifies(old_pair)


def test_a_failing_second_rename_restores_the_old_settings(old_pair, monkeypatch, capsys):
    """Make the proof differ in its settings too (another scale), so a half-replaced pair would show."""
    before = pair_state(old_pair)
    real = os.replace
    renamed: list[str] = []

    def proof_rename_fails(src, dst, **kw):
        if Path(dst).name == "proof.bin" and Path(src).name.endswith(".tmp"):
            raise OSError(5, "Input/output error")
        renamed.append(Path(dst).name)
        return real(src, dst, **kw)

    monkeypatch.setattr(os, "replace", proof_rename_fails)
    code = cli(["prove", *TINY, "--out", str(old_pair), "--preset", "fast", "--quiet", "--scale-bits", "9"])
    assert code == 2
    assert renamed == ["settings.bin", "settings.bin"]  # the new settings, then the old one put back
    assert "Input/output error" in one_line(capsys.readouterr().err)
    assert pair_state(old_pair) == before
    assert_verifies(old_pair)


def test_a_failing_second_rename_without_an_old_pair_leaves_nothing(tmp_path, monkeypatch, capsys):
    real = os.replace

    def proof_rename_fails(src, dst, **kw):
        if Path(dst).name == "proof.bin":
            raise OSError(5, "Input/output error")
        return real(src, dst, **kw)

    monkeypatch.setattr(os, "replace", proof_rename_fails)
    out = tmp_path / "new"
    assert cli(["prove", *TINY, "--out", str(out), "--preset", "fast", "--quiet"]) == 2
    capsys.readouterr()
    assert list(out.iterdir()) == []


def test_single_file_writes_are_atomic_too(dev_pair, tmp_path, monkeypatch):
    """Settings.write / Proof.write: a failure before the rename leaves the old file."""
    target = tmp_path / "settings.bin"
    target.write_bytes(b"old")
    new = (dev_pair / "settings.bin").read_bytes()

    def fails(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", fails)
    with pytest.raises(OSError):
        proving._write(target, new)
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["settings.bin"]
    monkeypatch.undo()
    assert proving._write(target, new) == target and target.read_bytes() == new
