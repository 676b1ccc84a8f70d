"""The compiled kernels and their numpy twins give byte-identical proofs (same transcript), and
LUMINAIR_KERNELS is checked."""

import os
import sys

import pytest

from example_airs import prove_example
from luminair.prover.stark import kernels
from luminair.verifier.config import PRESETS, PcsConfig
from luminair.verifier.formats import ProofFile
from luminair.verifier.verify import verify_stark


def _prove(monkeypatch, mode: str, name: str, params: dict, config: PcsConfig) -> bytes:
    monkeypatch.setenv("LUMINAIR_KERNELS", mode)
    air, statement, proof = prove_example(name, params, config)
    verify_stark(air, config, statement, proof)
    return ProofFile(bytes(32), [], proof).to_bytes()


@pytest.mark.parametrize("name,params,preset", [
    ("fibonacci", {"log_size": 11, "n_columns": 8}, "default"),  # grinding, FRI folds, several sizes
    ("square_lookup", {"log_size": 10, "table_log_size": 6}, "fast"),  # LogUp, a preprocessed tree
    ("fibonacci", {"log_size": 4, "n_columns": 3}, "fast"),  # trees smaller than a lane group
])
def test_compiled_and_numpy_proofs_are_byte_identical(monkeypatch, name, params, preset):
    compiled = _prove(monkeypatch, "numba", name, params, PRESETS[preset])
    twin = _prove(monkeypatch, "numpy", name, params, PRESETS[preset])
    assert compiled == twin


def test_model_proofs_are_byte_identical(monkeypatch):
    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.graph.model_file import load_model, read_input_json
    from pathlib import Path

    ex = Path(__file__).resolve().parents[2] / "examples" / "mlp_16_16_4"
    cx = load_model(ex / "network.onnx")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = read_input_json(ex / "input.json", cx)
    proofs = []
    for mode in ("numba", "numpy"):
        monkeypatch.setenv("LUMINAIR_KERNELS", mode)
        settings = cx.gen_settings(preset="default")
        proofs.append((settings.data, cx.prove(cx.gen_trace(feed), settings).data))
    assert proofs[0] == proofs[1]


def test_unknown_mode_is_refused(monkeypatch):
    monkeypatch.setenv("LUMINAIR_KERNELS", "gpu")
    with pytest.raises(kernels.KernelError, match="LUMINAIR_KERNELS='gpu'"):
        kernels.use_compiled(1.0)


def test_auto_mode_loads_for_enough_work(monkeypatch):
    monkeypatch.setenv("LUMINAIR_KERNELS", "auto")
    monkeypatch.setattr(kernels, "_modules", {})
    assert not kernels.use_compiled(kernels.AUTO_MIN_TWIN_S / 2)
    kernels.expect_work(kernels.AUTO_MIN_TWIN_S / 2)
    assert not kernels.loaded()
    assert kernels.use_compiled(kernels.AUTO_MIN_TWIN_S)
    kernels.expect_work(kernels.AUTO_MIN_TWIN_S)
    assert kernels.loaded() and kernels.use_compiled(0.0)  # once loaded, every call runs compiled


def test_numpy_mode_never_loads_numba(monkeypatch):
    monkeypatch.setenv("LUMINAIR_KERNELS", "numpy")
    monkeypatch.setattr(kernels, "_modules", {})
    kernels.expect_work(1e9)
    assert not kernels.loaded() and not kernels.use_compiled(1e9)


def test_auto_mode_without_numba_keeps_the_twins(monkeypatch):
    monkeypatch.setenv("LUMINAIR_KERNELS", "auto")
    monkeypatch.setattr(kernels, "_modules", {})
    monkeypatch.setattr(kernels, "_missing", ["No module named 'numba'"])
    assert not kernels.use_compiled(1e9)
    kernels.expect_work(1e9)
    assert not kernels.loaded()
    # asked for explicitly: a clear error, not a fallback (numba made unimportable for the test)
    monkeypatch.setenv("LUMINAIR_KERNELS", "numba")
    monkeypatch.setitem(sys.modules, "numba", None)
    for name in [m for m in sys.modules if m.startswith("luminair.prover.stark.jit.")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(kernels.KernelError, match="the compiled kernels need numba"):
        kernels.expect_work(1.0)


@pytest.mark.parametrize("name,params,preset", [
    ("square_lookup", {"log_size": 10, "table_log_size": 6}, "fast"),  # LogUp: interaction columns at offsets
    ("fibonacci", {"log_size": 11, "n_columns": 8}, "default"),  # masks one and two rows away
])
def test_composition_chunks_do_not_change_the_proof(monkeypatch, name, params, preset):
    """The composition is evaluated chunk by chunk of its domain (prove.COMPOSITION_CHUNK): chunks
    of 64 points give the bytes of one chunk per domain."""
    from luminair.prover.stark import prove as stark_prove

    proofs = []
    for chunk in (1 << 30, 1 << 6):
        monkeypatch.setattr(stark_prove, "COMPOSITION_CHUNK", chunk)
        proofs.append(_prove(monkeypatch, "numpy", name, params, PRESETS[preset]))
    assert proofs[0] == proofs[1]


def test_composition_chunks_do_not_change_a_model_proof(monkeypatch):
    from luminair.prover import GenericCompiler, StwoCompiler
    from luminair.prover.graph.model_file import load_model, read_input_json
    from luminair.prover.stark import prove as stark_prove
    from pathlib import Path

    ex = Path(__file__).resolve().parents[2] / "examples" / "mlp_16_16_4"
    cx = load_model(ex / "network.onnx")
    cx.compile(GenericCompiler(), StwoCompiler())
    feed = read_input_json(ex / "input.json", cx)
    monkeypatch.setenv("LUMINAIR_KERNELS", "numpy")
    settings = cx.gen_settings(preset="fast")
    proofs = []
    for chunk in (1 << 30, 1 << 7):
        monkeypatch.setattr(stark_prove, "COMPOSITION_CHUNK", chunk)
        proofs.append(cx.prove(cx.gen_trace(feed), settings).data)
    assert proofs[0] == proofs[1]


def test_a_small_proof_imports_neither_numba_nor_egglogs_front_end(tmp_path):
    """A small model's `luminair prove` (auto kernels, search compiler on) in a fresh process: numba
    is found, not imported (kernels._numba_available), and egglog's compiled e-graph is loaded
    without its Python front end (search.egglog_bindings); `import egglog` afterwards reuses it."""
    import json
    import subprocess
    from pathlib import Path

    ex = Path(__file__).resolve().parents[2] / "examples" / "mlp_16_16_4"
    code = (
        "import sys, json\n"
        "from luminair.prover.cli import main\n"
        f"code = main(['prove', {str(ex / 'network.onnx')!r}, '--input', {str(ex / 'input.json')!r}, "
        f"'--out', {str(tmp_path / 'out')!r}, '--quiet'])\n"
        "seen = {m: m in sys.modules for m in ('numba', 'egglog', 'egglog.builtins', 'egglog.bindings')}\n"
        "from luminair.prover.compile.search import egglog_bindings\n"
        "import egglog\n"
        "from egglog import bindings\n"
        "print(json.dumps({'code': code, 'seen': seen, 'same': bindings is egglog_bindings()}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "LUMINAIR_KERNELS"}
    got = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                    env=env).stdout.strip().splitlines()[-1])
    assert got == {"code": 0, "seen": {"numba": False, "egglog": False, "egglog.builtins": False, "egglog.bindings": True},
                   "same": True}
