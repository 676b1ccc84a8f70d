"""The README's demo: prove the bundled example model (an MLP 64-64-10 given as ONNX, with its
input.json), write public/proof.bin + public/settings.bin, and serve public/ on 127.0.0.1.

    python -m luminair.prover.demo            # prove, then serve and print the URL
    python -m luminair.prover.demo --no-serve # only (re)write the sample files
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import sys
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PUBLIC = REPO / "public"

MIME_TYPES = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".json": "application/json",
    ".bin": "application/octet-stream",
    ".css": "text/css",
    ".html": "text/html",
    ".svg": "image/svg+xml",
}


DEMO_MODEL = REPO / "examples" / "mlp_64_64_10"


def make_demo_files(out_dir: Path = PUBLIC, preset: str = "default", model_dir: Path = DEMO_MODEL) -> tuple[Path, Path]:
    """Prove the demo model on its input.json and write proof.bin and settings.bin into out_dir."""
    from . import GenericCompiler, StwoCompiler
    from .graph.model_file import load_model, read_input_json
    from .proving import gen_settings, gen_trace, prove

    graph = load_model(model_dir / "network.onnx")
    graph.compile(GenericCompiler(), StwoCompiler())
    dims = model_dir.name.removeprefix("mlp_").replace("_", "-")
    settings = gen_settings(graph, preset=preset, title=f"MLP {dims}",
                            description=f"A {dims} multilayer perceptron with ReLU, imported from ONNX.")
    proof = prove(graph, gen_trace(graph, read_input_json(model_dir / "input.json", graph)), settings)
    return proof.write(out_dir / "proof.bin"), settings.write(out_dir / "settings.bin")


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Static files; a file's precompressed sibling (`f.br`, `f.gz`, written by the web build) is
    sent instead when the browser accepts that encoding, as nginx's gzip_static/brotli_static and
    Caddy's `precompressed` do."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}

    def send_head(self):  # type: ignore[no-untyped-def]
        path = self.translate_path(self.path)
        accepted = {t.split(";")[0].strip() for t in self.headers.get("Accept-Encoding", "").split(",")}
        if os.path.isfile(path):
            for token, ext in (("br", ".br"), ("gzip", ".gz")):
                if token in accepted and os.path.isfile(path + ext):
                    f = open(path + ext, "rb")  # noqa: SIM115 - the base class closes it after copying
                    size = os.fstat(f.fileno()).st_size
                    self.send_response(200)
                    self.send_header("Content-Type", self.guess_type(path))
                    self.send_header("Content-Encoding", token)
                    self.send_header("Content-Length", str(size))
                    self.send_header("Vary", "Accept-Encoding")
                    self.send_header("Last-Modified", self.date_time_string(int(os.path.getmtime(path))))
                    self.end_headers()
                    return f
        return super().send_head()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


def serve(directory: Path = PUBLIC, port: int = 0) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve `directory` on 127.0.0.1 (port 0 = any free port) in a background thread."""
    handler = functools.partial(_Handler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m luminair.prover.demo")
    ap.add_argument("--no-serve", action="store_true", help="only write the sample files")
    ap.add_argument("--serve-only", action="store_true", help="serve public/ without proving again")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--preset", default="default", choices=["fast", "default", "secure"])
    args = ap.parse_args(argv)
    if not args.serve_only:
        proof, settings = make_demo_files(PUBLIC, args.preset)
        print(f"wrote {proof} ({proof.stat().st_size} bytes) and {settings} ({settings.stat().st_size} bytes)")
    if args.no_serve:
        return 0
    if not (PUBLIC / "luminair").is_dir():
        print("note: public/luminair/ is not built yet; run `bash web/scripts/setup.sh` for the web assets")
    server, url = serve(PUBLIC, args.port)
    print(f"serving {PUBLIC} at {url}  (Ctrl-C to stop)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
