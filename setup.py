"""Maps the folders verifier/ and prover/ onto the import packages luminair.verifier and
luminair.prover (docs/architecture.md "Folders"). Packages are discovered so new subfolders need no edit here."""
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).parent


def _packages(folder: str, name: str) -> dict[str, str]:
    found = {}
    for init in sorted((ROOT / folder).rglob("__init__.py")):
        rel = init.parent.relative_to(ROOT)
        sub = init.parent.relative_to(ROOT / folder).parts
        found[".".join((name, *sub))] = rel.as_posix()
    return found


PACKAGE_DIR = {**_packages("verifier", "luminair.verifier"), **_packages("prover", "luminair.prover")}

setup(packages=["luminair", *PACKAGE_DIR], package_dir={"luminair": "luminair", **PACKAGE_DIR})
