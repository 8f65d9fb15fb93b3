"""The text of a downloaded file: HTML, plain text, CSV and JSON as text, PDF through
``pypdf``. What cannot be read says why (``FileTextError``); nothing here runs or
renders what the file holds.
"""

from __future__ import annotations

import codecs
import html.parser
from pathlib import Path, PurePath
from typing import Literal

from panelot_host.errors import ToolError

MAX_FILE_BYTES = 25 * 1024 * 1024  # a bigger file is refused before it is opened
MAX_PDF_PAGES = 2_000

Kind = Literal["pdf", "html", "text"]

_HTML_MIMES = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_MIMES = frozenset(
    {"application/json", "application/csv", "application/xml", "application/javascript"}
)
_SUFFIXES: dict[str, Kind] = {
    ".pdf": "pdf",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    **dict.fromkeys((".txt", ".csv", ".tsv", ".json", ".md", ".xml", ".log", ".ics"), "text"),
}
_SKIPPED = frozenset({"script", "style", "noscript", "template", "svg"})
_BLOCKS = frozenset(
    {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article"}
    | {"header", "footer", "table", "ul", "ol", "pre", "blockquote", "dt", "dd", "hr", "title"}
)


class FileTextError(ToolError):
    """The file cannot be read as text: too big, not a kind Panelot reads, or broken."""


def kind_of(name: str, mime: str) -> Kind | None:
    """How to read a file named ``name`` that the server said is ``mime``: the declared
    type first, then the name's suffix; None when neither says it is text or PDF."""
    essence = mime.split(";", 1)[0].strip().lower()
    if essence == "application/pdf":
        return "pdf"
    if essence in _HTML_MIMES:
        return "html"
    if essence.startswith("text/") or essence in _TEXT_MIMES or essence.endswith("+json"):
        return "text"
    return _SUFFIXES.get(PurePath(name).suffix.lower())


def read_file_text(path: Path, mime: str) -> str:
    """The text of the file at ``path`` (blocking: run it in a worker thread).

    Raises:
        FileTextError: the file is missing, larger than ``MAX_FILE_BYTES``, of a kind that
            is not text, HTML or PDF, or unreadable (a broken or password-protected PDF).
    """
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise FileTextError(f"the file is gone ({exc.strerror})") from exc
    if size > MAX_FILE_BYTES:
        raise FileTextError(
            f"it is {size / 1_048_576:.1f} MB; Panelot reads files up to "
            f"{MAX_FILE_BYTES // 1_048_576} MB"
        )
    kind = kind_of(path.name, mime)
    if kind == "pdf":
        return _pdf_text(path)
    data = path.read_bytes()
    if kind is None and (b"\0" in data[:8192] or not _decodes(data)):
        shown = mime or "an unknown type"
        raise FileTextError(
            f"it is not text ({shown}); Panelot reads text, HTML, CSV, JSON and PDF files"
        )
    text = _decode(data)
    return _html_text(text) if kind == "html" else text


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _decode(data: bytes) -> str:
    """UTF-8 (with or without a BOM), UTF-16 with a BOM, else Windows-1252 (what browsers
    assume for unlabelled Western text): never fails."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _pdf_text(path: Path) -> str:
    # lazy: pypdf loads only when a PDF is read
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise FileTextError("the PDF is protected by a password")
        pages = reader.pages
        count = len(pages)
        shown = min(count, MAX_PDF_PAGES)
        texts = [
            f"[page {n + 1} of {count}]\n{(pages[n].extract_text() or '').strip()}"
            for n in range(shown)
        ]
    except FileTextError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, IndexError, RecursionError) as exc:
        raise FileTextError(f"the PDF could not be read ({type(exc).__name__}: {exc})") from exc
    if count > shown:
        texts.append(f"[pages {shown + 1} to {count} not read: {MAX_PDF_PAGES} pages at most]")
    return "\n\n".join(texts)


class _TextOfHtml(html.parser.HTMLParser):
    """The visible text of an HTML document, one line per block element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self._skipping += 1
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def _html_text(source: str) -> str:
    parser = _TextOfHtml()
    parser.feed(source)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(line for line in lines if line)
