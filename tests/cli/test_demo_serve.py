"""scripts/demo.sh serves through scripts/serve_demo.py: a taken port is named and a free one used,
and the URL of each page is printed (issue 11)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from cli_helpers import REPO


def test_a_taken_port_is_named_and_every_page_is_served():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        p = subprocess.Popen(
            [sys.executable, str(REPO / "scripts" / "serve_demo.py"), "--port", str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert p.stdout is not None
            first = p.stdout.readline()
            assert first.startswith(f"demo: port {port} on 127.0.0.1 is taken; serving on port "), first
            new_port = int(first.split("serving on port ")[1].split()[0])
            assert new_port != port
            urls: list[str] = []
            for _ in range(
                6
            ):  # "serving ..." (and maybe a note that the web assets are not built), then 3 pages
                line = p.stdout.readline()
                if line.startswith("  http"):
                    urls.append(line.split()[0])
                if len(urls) == 3:
                    break
            base = f"http://127.0.0.1:{new_port}/"
            assert urls == [base, base + "pyscript.html", base + "react/"]
            for url in urls[:2]:  # the React page exists once the web assets are built
                with urllib.request.urlopen(url, timeout=10) as r:
                    assert r.status == 200 and "text/html" in r.headers["Content-Type"]
            with urllib.request.urlopen(base + "settings.bin", timeout=10) as r:
                assert r.read()[:8] == b"LMNRSETT"
        finally:
            p.terminate()
            p.wait(timeout=10)
        assert p.stderr is not None and "Traceback" not in p.stderr.read()


def test_a_port_number_out_of_range_is_one_line():
    out = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "serve_demo.py"), "--port", "70000"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 2 and out.stderr == "demo: --port 70000 is not a port number (0..65535)\n"


def fake_demo_tree(tmp_path: Path) -> Path:
    """A copy of demo.sh and serve_demo.py beside stub set-up steps that print raw JSON lines (as
    the real build does) and a warning on stderr; the proving step fails when DEMO_FAIL is set."""
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    (root / "web" / "scripts").mkdir(parents=True)
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / "public").mkdir()
    (root / "fakebin").mkdir()
    for name in ("demo.sh", "serve_demo.py"):
        shutil.copy(REPO / "scripts" / name, root / "scripts" / name)
    (root / "scripts" / "setup.sh").write_text('echo \'{"installed": true}\'\necho "setup: a warning" >&2\n')
    (root / "web" / "scripts" / "setup.sh").write_text('echo \'{"wheel": "luminair.whl", "seconds": 1.5}\'\n')
    (root / ".venv" / "bin" / "activate").write_text(f'export PATH="{root / "fakebin"}:$PATH"\n')
    python = root / "fakebin" / "python"
    python.write_text(
        "#!/usr/bin/env bash\n"
        'if [ "$1 $2" = "-m luminair.prover.demo" ]; then\n'
        '  echo \'{"proof.bin": 147590}\'; exit "${DEMO_FAIL:-0}"\n'
        "fi\n"
        f'exec {sys.executable} "$@"\n'
    )
    python.chmod(0o755)
    for page in ("index.html", "pyscript.html"):
        (root / "public" / page).write_text("<!doctype html><title>demo</title>")
    return root


def test_demo_sh_prints_one_line_per_step_and_its_pages(tmp_path):
    root = fake_demo_tree(tmp_path)
    p = subprocess.Popen(
        ["bash", str(root / "scripts" / "demo.sh"), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert p.stdout is not None
        lines = [p.stdout.readline() for _ in range(8)]
    finally:
        p.terminate()
        p.wait(timeout=10)
    assert p.stderr is not None
    assert p.stderr.read() == "setup: a warning\n"  # stderr of a step still shows
    assert not any(line.lstrip().startswith("{") for line in lines), lines  # no raw JSON build lines
    assert [line.split(":")[0] for line in lines[:5]] == ["demo"] * 5
    assert lines[3].startswith("demo: public/luminair/ is not built yet")
    assert lines[4].startswith("demo: serving ") and "(Ctrl-C to stop)" in lines[4]
    base = lines[4].split(" at ")[1].split()[0]
    assert [line.split()[0] for line in lines[5:]] == [base, base + "pyscript.html", base + "react/"]
    assert "not built yet" in lines[7]


def test_demo_sh_shows_the_output_of_a_failing_step(tmp_path):
    root = fake_demo_tree(tmp_path)
    out = subprocess.run(
        ["bash", str(root / "scripts" / "demo.sh")],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "DEMO_FAIL": "3"},
    )
    assert out.returncode == 3
    assert out.stdout.splitlines()[-1] == "demo: proving the bundled MLP 64-64-10 (ONNX) into public/"
    assert out.stderr.splitlines()[-2:] == [
        "demo: proving the bundled MLP 64-64-10 (ONNX) into public/ failed (exit 3); its output:",
        '{"proof.bin": 147590}',
    ]


def test_the_demo_server_sends_a_files_precompressed_copy_when_the_browser_accepts_it(tmp_path):
    import gzip

    from luminair.prover.demo import serve

    (tmp_path / "a.js").write_text("export const x = 1;\n" * 50)
    (tmp_path / "a.js.gz").write_bytes(gzip.compress((tmp_path / "a.js").read_bytes()))
    (tmp_path / "b.wasm").write_bytes(b"\0asm\1\0\0\0")
    server, url = serve(tmp_path, 0)
    try:
        def get(name, enc, method="GET"):
            req = urllib.request.Request(url + name, headers={"Accept-Encoding": enc}, method=method)
            with urllib.request.urlopen(req) as r:
                return r.headers, r.read()

        headers, body = get("a.js", "gzip, deflate, br")  # no a.js.br: the gzip copy
        assert headers["Content-Encoding"] == "gzip" and headers["Content-Type"] == "text/javascript"
        assert headers["Vary"] == "Accept-Encoding" and gzip.decompress(body) == (tmp_path / "a.js").read_bytes()
        headers, body = get("a.js", "identity")
        assert headers["Content-Encoding"] is None and body == (tmp_path / "a.js").read_bytes()
        headers, _ = get("a.js", "gzip", "HEAD")
        assert headers["Content-Encoding"] == "gzip" and int(headers["Content-Length"]) == (tmp_path / "a.js.gz").stat().st_size
        headers, body = get("b.wasm", "gzip, br")  # no copy: sent as it is
        assert headers["Content-Encoding"] is None and headers["Content-Type"] == "application/wasm"
    finally:
        server.shutdown()
