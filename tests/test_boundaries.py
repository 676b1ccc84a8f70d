"""The verifier is pure standard library (it runs in Pyodide) and never imports the prover."""

import ast
import subprocess
import sys
from pathlib import Path

VERIFIER = Path(__file__).resolve().parent.parent / "verifier"


def test_verifier_imports_only_the_standard_library_and_itself():
    """Absolute and relative imports alike: a relative import is resolved against the module's
    package (luminair.verifier...), so `from ...prover import x` in verifier/graph/ is caught."""
    bad = []
    for path in VERIFIER.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        package = ["luminair", "verifier", *path.parent.relative_to(VERIFIER).parts]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    if node.level > len(package):
                        bad.append(f"{path.name}: a relative import above the top package")
                        continue
                    base = package[: len(package) - node.level + 1]
                    names = [".".join(base + ([node.module] if node.module else []))]
                else:
                    names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and not name.startswith("luminair.verifier"):
                    bad.append(f"{path.name}: {name}")
    assert not bad, bad


def test_verifier_works_with_numpy_and_the_prover_blocked(stark_files, tmp_path):
    settings, proof = stark_files
    (tmp_path / "p.bin").write_bytes(proof)
    (tmp_path / "s.bin").write_bytes(settings)
    code = f"""
import sys
sys.modules['numpy'] = None
sys.modules['luminair.prover'] = None
from luminair.verifier import verify
r = verify(open({str(tmp_path / 'p.bin')!r}, 'rb').read(), open({str(tmp_path / 's.bin')!r}, 'rb').read())
assert r.success, r.error_message
assert 'numpy' not in [m for m in sys.modules if sys.modules[m] is not None]
print('ok')
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_no_unused_or_undefined_names():
    """pyflakes-level lint of every Python source (ruff's F rules)."""
    root = VERIFIER.parent
    out = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "F", "--output-format", "concise", "--no-cache",
         "verifier", "prover", "bench", "scripts", "tests", "e2e", "examples"],
        cwd=root, capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_verifier_type_checks():
    root = VERIFIER.parent
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "verifier", "--cache-dir", "/dev/null"], cwd=root, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr
