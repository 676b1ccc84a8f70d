"""Serve public/ on 127.0.0.1 for scripts/demo.sh and print the URL of each demo page.

    python scripts/serve_demo.py [--port N]     # N defaults to 8000

When port N is taken, it says so and serves on a free port instead (never a traceback).
"""

from __future__ import annotations

import argparse
import errno
import sys
import threading
from pathlib import Path

PUBLIC = Path(__file__).resolve().parent.parent / "public"

# (path under public/, the file that must exist for it, what the page shows)
PAGES = [
    ("", "index.html", "the <luminair-verify> element on a demo site"),
    ("pyscript.html", "pyscript.html", "the verifier called from Python in the page (PyScript)"),
    ("react/", "react/index.html", "the React components (VerifyButton, VerifyBadge)"),
]


def page_lines(base_url: str, public: Path = PUBLIC) -> list[str]:
    """One line per demo page: its URL and what it shows (or why it is not there yet)."""
    width = max(len(base_url + path) for path, _, _ in PAGES)
    lines = []
    for path, needs, what in PAGES:
        url = base_url + path
        note = (
            what if (public / needs).is_file() else f"not built yet: run `bash web/scripts/setup.sh` ({what})"
        )
        lines.append(f"  {url:<{width}}  {note}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/serve_demo.py", description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=8000, help="the port to try first (default 8000)")
    args = ap.parse_args(argv)
    if not 0 <= args.port <= 65535:
        print(f"demo: --port {args.port} is not a port number (0..65535)", file=sys.stderr)
        return 2
    from luminair.prover.demo import serve

    try:
        server, url = serve(PUBLIC, args.port)
    except OSError as e:
        if e.errno not in (errno.EADDRINUSE, errno.EACCES):
            print(f"demo: cannot listen on 127.0.0.1:{args.port}: {e.strerror or e}", file=sys.stderr)
            return 2
        reason = "taken" if e.errno == errno.EADDRINUSE else "not allowed for this user"
        server, url = serve(PUBLIC, 0)
        print(
            f"demo: port {args.port} on 127.0.0.1 is {reason}; serving on port {server.server_address[1]} instead"
        )
    if not (PUBLIC / "luminair").is_dir():
        print("demo: public/luminair/ is not built yet; run `bash web/scripts/setup.sh` for the web assets")
    print(f"demo: serving {PUBLIC} at {url}  (Ctrl-C to stop)")
    print("\n".join(page_lines(url)), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
