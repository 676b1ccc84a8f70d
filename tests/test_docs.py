"""The documents stay true to the repository: the soundness argument (docs/soundness.md) names, for
each claim, the tests that violate it, and every test it names exists; every document a comment or
another document cites (`docs/protocol.md "4. The channel"`, `[x](formats.md#verifier-work-budget)`)
exists, with the section it names; README.md stays a front door."""

import functools
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _defined_tests() -> set[str]:
    names = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        names.update(re.findall(r"^def (test_\w+)", path.read_text(), re.M))
    return names


def test_every_test_the_soundness_argument_names_exists():
    text = (ROOT / "docs" / "soundness.md").read_text()
    named = set(re.findall(r"\b(test_\w+)\b", text)) - {"test_"}
    files = {n for n in named if (n + ".py") in {p.name for p in (ROOT / "tests").rglob("test_*.py")}}
    missing = sorted(named - files - _defined_tests())
    assert not missing, f"docs/soundness.md names tests that do not exist: {missing}"
    assert len(named - files) >= 40  # the argument cites its tests claim by claim


# --- citations of documents ------------------------------------------------------------------------

SCANNED = {".py", ".md", ".js", ".mjs", ".ts", ".jsx", ".tsx", ".sh", ".toml", ".html", ".c"}
SKIPPED_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache",
                ".mypy_cache", "build", "dist", ".cache", "test-artifacts", "luminair.egg-info"}
# Mentions of a .md name that are not documents of this repository
NOT_CITATIONS = {
    "package/README.md",  # a member of the packed npm tarball (e2e/test_package.py reads it there)
}
# path.md, then optionally #anchor, or (after a link's closing parenthesis) a quoted section title
CITATION = re.compile(r"(?<![\w/.-])((?:\.\.?/)*[\w-][\w./-]*\.md)\b(?:#([\w-]+)|\)?,?\s+\"([^\"\n]{2,80})\")?")


@functools.cache
def _scanned_files() -> tuple[Path, ...]:
    out = []
    for folder, dirs, files in os.walk(ROOT):
        here = Path(folder)
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and (here / d) != ROOT / "public" / "luminair"]
        out += [here / f for f in files if Path(f).suffix in SCANNED]
    this = Path(__file__).resolve()
    return tuple(p for p in sorted(out) if p != this)  # this file's broken citations are its test's input


@functools.cache
def _documents() -> dict[str, list[Path]]:
    """File name -> the repository's documents of that name."""
    docs: dict[str, list[Path]] = {}
    for path in _scanned_files():
        if path.suffix == ".md":
            docs.setdefault(path.name, []).append(path)
    return docs


def _headings(doc: Path) -> set[str]:
    return {m.group(1).strip() for m in re.finditer(r"^#{1,6}\s+(.+)$", doc.read_text(encoding="utf-8"), re.M)}


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def broken_citations(path: Path, text: str) -> list[str]:
    """Every citation of a .md file in `text` (a file at `path`) that names no document of the
    repository (relative to the file or to the repository root; a bare file name: the one document
    of that name, as in code that builds the path), or a section that document lacks."""
    broken = []
    by_name = _documents()
    for m in CITATION.finditer(text):
        cited, anchor, section = m.groups()
        if cited in NOT_CITATIONS:
            continue
        same_name = by_name.get(cited, []) if "/" not in cited else []
        candidates = [path.parent / cited, ROOT / cited] + (same_name if len(same_name) == 1 else [])
        doc = next((p for p in candidates if p.is_file()), None)
        line = text.count("\n", 0, m.start()) + 1
        where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}"
        if doc is None:
            broken.append(f"{where}: {cited} does not exist")
        elif doc.suffix == ".md" and anchor and anchor not in {_slug(h) for h in _headings(doc)}:
            broken.append(f"{where}: {cited} has no section #{anchor}")
        elif doc.suffix == ".md" and section and section not in _headings(doc):
            broken.append(f"{where}: {cited} has no section \"{section}\"")
    return broken


def test_every_cited_document_exists_with_the_section_it_names():
    broken = [b for path in _scanned_files() for b in broken_citations(path, path.read_text(encoding="utf-8", errors="replace"))]
    assert not broken, "citations of documents that are not in the repository:\n" + "\n".join(broken)


def test_the_citation_check_sees_a_missing_document_and_a_missing_section(tmp_path):
    here = ROOT / "tests" / "x.py"
    assert broken_citations(here, "# see DESIGN.md section 4") == ["tests/x.py:1: DESIGN.md does not exist"]
    assert broken_citations(here, '"""(circle-stark.md section 6)"""')
    assert broken_citations(here, 'docs/protocol.md "No such section"') == [
        'tests/x.py:1: docs/protocol.md has no section "No such section"']
    assert broken_citations(here, "[x](docs/protocol.md#no-such-anchor)")
    assert not broken_citations(here, 'docs/protocol.md "4. The channel", [y](docs/formats.md#verifier-work-budget)')
    assert not broken_citations(here, "[z](../README.md)")  # relative to the file's folder


def test_readme_is_a_front_door():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 350, f"README.md has {len(lines)} lines; move detail into docs/ or bench/README.md"
    history = [n for n, line in enumerate(lines, 1) if re.search(r"\bformats? \d+\b", line)]
    assert not history, f"README.md lines {history} hold per-format history: it belongs in docs/changelog.md"
