"""Code cites the docs by file and heading (``docs/engine.md``, "Agent loop"); every cited
heading exists, so a renamed or dropped section cannot leave a dangling reference."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CITATION = re.compile(r'`?docs/([\w.-]+\.md)`?,\s+"([^"]+)"(?:,\s+"([^"]+)")?')
HEADING = re.compile(r"^#+\s+(?:\d+(?:\.\d+)*\.?\s+)?(.+?)\s*$")


def _headings(doc: str) -> set[str]:
    return {
        m.group(1)
        for line in (ROOT / "docs" / doc).read_text().splitlines()
        if (m := HEADING.match(line))
    }


def _citations() -> list[tuple[str, str, str]]:
    found = []
    for path in sorted((ROOT / "host").rglob("*.py")):
        text = re.sub(r"\s*\n\s*", " ", path.read_text())  # a citation may wrap lines
        for m in CITATION.finditer(text):
            for heading in filter(None, m.group(2, 3)):
                found.append((str(path.relative_to(ROOT)), m.group(1), heading))
    return found


CITED = _citations()


def test_the_code_cites_the_docs() -> None:
    assert len(CITED) >= 15


@pytest.mark.parametrize(("source", "doc", "heading"), CITED, ids=lambda v: str(v)[:40])
def test_every_cited_heading_exists(source: str, doc: str, heading: str) -> None:
    assert (ROOT / "docs" / doc).exists(), f"{source} cites docs/{doc}, which does not exist"
    assert heading in _headings(doc), f"{source} cites a heading docs/{doc} does not have"


def test_no_code_cites_documents_outside_the_repository() -> None:
    for path in (ROOT / "host").rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"seed (section )?\d|protocol(\.md)? section \d", text), path
