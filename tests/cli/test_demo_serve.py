"""scripts/demo.sh serves through scripts/serve_demo.py: a taken port is named and a free one used,
and the URL of each page is printed (issue 11)."""

from __future__ import annotations

import socket
import subprocess
import sys
import urllib.request

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
