"""The CLI reads regular files only, at most a documented size, and never blocks (issue 10)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

import luminair.prover.cli as cli_module
from cli_helpers import EXAMPLES, TINY, one_line
from luminair.prover.cli import main as cli


def run_bounded(args: list[str], seconds: float = 10.0) -> int:
    """cli(args) in a thread: fails the test (instead of hanging it) if the command blocks."""
    result: list[int] = []
    t = threading.Thread(target=lambda: result.append(cli(args)), daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"luminair {' '.join(args)} blocked for {seconds} s"
    return result[0]


@pytest.fixture
def hostile_paths(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """name -> (path, the reason the CLI must give)."""
    fifo = tmp_path / "pipe.bin"
    os.mkfifo(fifo)
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(100_000_000)  # sparse: 100 MB that take no disk space
    return {
        "fifo": (str(fifo), "is a named pipe (FIFO), not a regular file"),
        "dev_zero": ("/dev/zero", "is a character device, not a regular file"),
        "directory": (str(tmp_path), "is a directory, not a regular file"),
        "missing": (str(tmp_path / "missing.bin"), "does not exist"),
        "100MB": (str(big), "is 100000000 bytes, over the 64 MiB maximum"),
    }


CASES = ["fifo", "dev_zero", "directory", "missing", "100MB"]


@pytest.mark.parametrize("case", CASES)
def test_verify_and_inspect_refuse_non_regular_or_oversized_files(case, hostile_paths, dev_pair, capsys):
    path, reason = hostile_paths[case]
    proof, settings = str(dev_pair / "proof.bin"), str(dev_pair / "settings.bin")
    for args, what in [
        (["verify", path, settings], "proof"),
        (["verify", proof, path], "settings"),
        (["verify", proof, path, "--json"], "settings"),
        (["inspect", path], "proof or settings"),
    ]:
        assert run_bounded(args) == 2, args
        out, err = capsys.readouterr()
        assert out == ""
        assert one_line(err) == f"error: {what} file {path!r} {reason}", args


@pytest.mark.parametrize("case", CASES)
def test_prove_refuses_them_for_the_model_and_the_input(case, hostile_paths, tmp_path, monkeypatch, capsys):
    import luminair.prover.proving

    monkeypatch.setattr(luminair.prover.proving, "prove", lambda *a, **k: pytest.fail("proved anyway"))
    path, reason = hostile_paths[case]
    out_dir = str(tmp_path / "out")
    runs = [(["prove", TINY[0], "--input", path, "--out", out_dir], "input")]
    if case != "100MB":  # a model may be up to 256 MiB (tested below)
        runs.append((["prove", path, "--input", TINY[2], "--out", out_dir], "model"))
    for args, what in runs:
        assert run_bounded(args) == 2, args
        out, err = capsys.readouterr()
        assert out == ""
        assert one_line(err) == f"error: {what} file {path!r} {reason}", args
    assert not (tmp_path / "out").exists()


def test_a_model_over_its_maximum_is_refused_unread(tmp_path, monkeypatch, capsys):
    big = tmp_path / "net.onnx"
    with open(big, "wb") as f:
        f.truncate(300 * (1 << 20))
    assert cli(["prove", str(big), "--input", TINY[2], "--out", str(tmp_path / "o")]) == 2
    assert one_line(capsys.readouterr().err) == (
        f"error: model file {str(big)!r} is {300 * (1 << 20)} bytes, over the 256 MiB maximum"
    )


def test_reads_stop_one_byte_past_the_maximum_whatever_the_size_says(dev_pair, monkeypatch, capsys):
    """A regular file whose size says 0 (procfs) or that grows after the stat is still read only up
    to the maximum plus one byte."""
    proc = Path("/proc/self/maps")
    if not proc.is_file() or os.stat(proc).st_size != 0:
        pytest.skip("needs Linux procfs (a regular file that reports size 0)")
    limit = 200
    monkeypatch.setitem(cli_module.MAX_BYTES, "proof", limit)
    reads: list[int] = []
    real_read = os.read

    def counting_read(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        reads.append(len(data))
        return data

    monkeypatch.setattr(os, "read", counting_read)
    assert cli(["verify", str(proc), str(dev_pair / "settings.bin")]) == 2
    assert sum(reads) == limit + 1
    assert (
        one_line(capsys.readouterr().err)
        == f"error: proof file {str(proc)!r} is over the {limit}-byte maximum"
    )


def test_a_file_at_the_maximum_is_read_and_one_byte_more_is_refused(dev_pair, tmp_path, monkeypatch, capsys):
    data = (dev_pair / "proof.bin").read_bytes()
    monkeypatch.setitem(cli_module.MAX_BYTES, "proof", len(data))
    exact, over = tmp_path / "exact.bin", tmp_path / "over.bin"
    exact.write_bytes(data)
    over.write_bytes(data + b"\0")
    settings = str(dev_pair / "settings.bin")
    assert cli(["verify", str(exact), settings, "--min-security-bits", "20"]) == 0
    assert cli(["verify", str(over), settings, "--min-security-bits", "20"]) == 2
    assert f"is {len(data) + 1} bytes, over the" in one_line(capsys.readouterr().err)


def test_help_documents_the_limits(capsys):
    for args in (["--help"], ["verify", "--help"], ["prove", "--help"]):
        assert cli(args) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert "regular files" in text and "64 MiB" in text, args
    assert cli(["prove", "--help"]) == 0
    assert "256 MiB" in " ".join(capsys.readouterr().out.split())


def test_input_json_that_is_not_an_object_is_one_line(tmp_path, capsys):
    for text, needle in [
        ("[1, 2]", "must hold a JSON object"),
        ("{nope", "is not valid JSON"),
        ("[" * 100_000, "is not valid JSON"),
    ]:
        bad = tmp_path / "in.json"
        bad.write_text(text)
        assert (
            cli(["prove", str(EXAMPLES / "tiny_mlp.py"), "--input", str(bad), "--out", str(tmp_path / "o")])
            == 2
        )
        err = one_line(capsys.readouterr().err)
        assert err.startswith(f"error: input file {str(bad)!r} ") and needle in err
