"""Playwright e2e fixtures: Debian's Chromium (never a Playwright-managed build), the demo site
served on 127.0.0.1, an offline guard that fails a test on any request leaving that origin, and
screenshots kept under test-artifacts/.

The site is a temporary folder that links every entry of public/ (built by web/scripts/setup.sh)
and adds fixtures/: test pages and bad files (tampered, garbage, wrong version, fast preset), the
proofs of a batched (symbolic) model and a committed-weights proof."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from luminair.verifier.formats import FORMAT_VERSION

REPO = Path(__file__).resolve().parent.parent
PUBLIC = REPO / "public"
ARTIFACTS = REPO / "test-artifacts" / "e2e"
CHROMIUM = os.environ.get("LUMINAIR_CHROMIUM", "/usr/bin/chromium")
PYODIDE_TIMEOUT_MS = 120_000
BATCH_FIXTURES = REPO / "web" / "test" / "fixtures" / "batches.py"
BATCHES = (7, 100)
COMMITTED_FIXTURE = REPO / "web" / "test" / "fixtures" / "committed.py"
SEGMENTED_FIXTURE = REPO / "web" / "test" / "fixtures" / "segmented.py"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "pyodide: the test starts Pyodide in the browser")
    # pytest-playwright 0.10.0's session-scoped base_url fixture trips a pytest 9 deprecation.
    config.addinivalue_line(
        "filterwarnings", "ignore:Session-scoped fixtures defined as instance methods:pytest.PytestRemovedIn10Warning"
    )


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `bash web/scripts/setup.sh` (apt-get install -y chromium)")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "accept_downloads": True, "viewport": {"width": 1280, "height": 900}}


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def _flip(data: bytes, at: int) -> bytes:
    b = bytearray(data)
    b[at] ^= 0x01
    return bytes(b)


def _version(data: bytes, version: int) -> bytes:
    b = bytearray(data)
    b[8:10] = version.to_bytes(2, "little")
    return bytes(b)


HOSTILE_TITLE = '<img src=x onerror="window.__pwned=1">'
HOSTILE_OUTPUT = "<script>window.__pwned=4</script>"


def _hostile_names(folder: Path) -> None:
    """A valid development proof whose publisher's labels and output name are HTML (printable text,
    so the codec takes it): the element must show it as text, never as markup."""
    import numpy as np

    from luminair.prover import Graph

    cx = Graph()
    x = cx.input("x", (1, 4))
    (x * cx.constant(np.array([[0.5, -1.0, 0.25, 2.0]]), "w")).output(HOSTILE_OUTPUT)
    settings = cx.gen_settings(preset="fast", title=HOSTILE_TITLE, description="<b>bold</b> & <i>more</i>")
    proof = cx.prove(cx.gen_trace({"x": np.array([[1.0, 2.0, 3.0, 4.0]])}), settings)
    folder.mkdir()
    proof.write(folder / "proof.bin")
    settings.write(folder / "settings.bin")


def _training_step(folder: Path) -> None:
    """One proven TD-CLM step of a tiny MLP (fast preset): the modal shows its training statement."""
    import numpy as np

    from luminair.prover.train import TDCLM, init_mlp, mlp_program, onehot

    prog = mlp_program([4, 4, 2], 4, TDCLM(lr=0.02), preset="fast")
    rng = np.random.default_rng(0)
    batch = {"x": rng.uniform(0, 1, (4, 4)), "y": onehot(np.array([0, 1, 1, 0]), 2)}
    step = prog.prove_step(prog.quantize(init_mlp([4, 4, 2])), prog.init_state(), batch, 3, 5)
    folder.mkdir()
    (folder / "proof.bin").write_bytes(step.proof)
    (folder / "settings.bin").write_bytes(step.settings)


EXAMPLE_MODELS = {"cnn": "cnn_cifar", "transformer": "transformer_tiny"}


def _prove_example(folder: str, out: Path) -> None:
    """An example model proven as a user would (`luminair prove`, default preset)."""
    from luminair.prover.cli import main as cli

    model = REPO / "examples" / folder
    code = cli(["prove", str(model / "network.onnx"), "--input", str(model / "input.json"), "--out", str(out), "--quiet", "--json"])
    assert code == 0, f"proving {folder} failed"


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory) -> Path:
    """public/ (linked, not copied) plus fixtures/ with test pages and bad files."""
    if not (PUBLIC / "luminair" / "manifest.js").exists():
        pytest.fail("public/luminair is not built: run `bash web/scripts/setup.sh`")
    site = tmp_path_factory.mktemp("site")
    for entry in PUBLIC.iterdir():
        (site / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    fx = site / "fixtures"
    fx.mkdir()
    proof = (PUBLIC / "proof.bin").read_bytes()
    (fx / "tampered-proof.bin").write_bytes(_flip(proof, len(proof) // 2))
    (fx / "garbage.bin").write_bytes(bytes((i * 37 + 11) & 0xFF for i in range(700)))
    (fx / "newer-proof.bin").write_bytes(_version(proof, FORMAT_VERSION + 1))
    from luminair.prover.demo import make_demo_files

    make_demo_files(fx / "fast", "fast")
    for name, folder in EXAMPLE_MODELS.items():  # the repository's CNN and transformer
        _prove_example(folder, fx / name)
    _training_step(fx / "train")
    _hostile_names(fx / "hostile")
    # a symbolic MLP (batch 1 to 256): one settings.bin, proofs for batch 7 and 100 (more rows than shown)
    subprocess.run([sys.executable, str(BATCH_FIXTURES), "--write", str(fx / "batch"), *map(str, BATCHES)], check=True, cwd=REPO)
    # an MLP proven with committed weights (settings.bin holds the model root), a private input beside x
    subprocess.run([sys.executable, str(COMMITTED_FIXTURE), "--write", str(fx / "committed")], check=True, cwd=REPO)
    # a residual MLP proven in three segments: proof.bin is a bundle of their proofs
    subprocess.run([sys.executable, str(SEGMENTED_FIXTURE), "--write", str(fx / "segmented")], check=True, cwd=REPO)
    for page in (Path(__file__).parent / "pages").iterdir():
        shutil.copy(page, fx / page.name)
    return site


@pytest.fixture(scope="session")
def site_url(site_dir):
    from luminair.prover.demo import serve

    server, url = serve(site_dir, 0)
    yield url
    server.shutdown()


def guard_context(context, site_url: str) -> list[str]:
    """Abort (and record) every request that leaves the test server's origin."""
    leaks: list[str] = []

    def guard(route):
        url = route.request.url
        if url.startswith(site_url) or url.startswith("blob:") or url.startswith("data:"):
            route.continue_()
        else:
            leaks.append(url)
            route.abort()

    context.route("**/*", guard)
    return leaks


@pytest.fixture
def offline_page(page, site_url):
    leaks = guard_context(page.context, site_url)
    yield page
    assert not leaks, f"requests left 127.0.0.1: {leaks}"


@pytest.fixture(scope="module")
def module_context(browser, site_url):
    """One browser context + page per test module, so Pyodide starts once per module."""
    context = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 900})
    leaks = guard_context(context, site_url)
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield {"context": context, "page": page, "leaks": leaks, "errors": errors}
    context.close()
    assert not leaks, f"requests left 127.0.0.1: {leaks}"
