"""The text of a downloaded file (`tools.file_text`): each kind Panelot reads, and a clear
refusal, never a crash, for everything else."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.pdf import text_pdf

from panelot_host.tools.file_text import (
    MAX_FILE_BYTES,
    FileTextError,
    kind_of,
    read_file_text,
)


def test_a_pdf_is_read_page_by_page(tmp_path: Path) -> None:
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(text_pdf([["Quarterly figures", "Revenue (EUR): 42,000"], ["Signed: Ada"]]))
    text = read_file_text(pdf, "application/pdf")
    assert "[page 1 of 2]\nQuarterly figures\nRevenue (EUR): 42,000" in text
    assert "[page 2 of 2]\nSigned: Ada" in text


def test_the_declared_type_wins_over_the_name_and_the_name_decides_without_one() -> None:
    assert kind_of("download", "application/pdf") == "pdf"
    assert kind_of("x.pdf", "text/html; charset=utf-8") == "html"
    assert kind_of("data", "application/vnd.api+json") == "text"
    assert kind_of("table.CSV", "application/octet-stream") == "text"
    assert kind_of("archive.zip", "application/zip") is None


def test_html_gives_its_visible_text_one_line_per_block(tmp_path: Path) -> None:
    page = tmp_path / "invoice.html"
    page.write_text(
        "<html><head><title>Invoice 7</title><style>p{color:red}</style>"
        "<script>alert('no')</script></head><body><h1>Total</h1><p>12 &euro;&nbsp;due</p>"
        "<ul><li>one</li><li>two</li></ul></body></html>",
        encoding="utf-8",
    )
    assert read_file_text(page, "text/html") == "Invoice 7\nTotal\n12 € due\none\ntwo"


def test_text_in_utf8_utf16_and_windows_1252_is_decoded(tmp_path: Path) -> None:
    cases = {
        "a.csv": "name,city\nZoë,Köln\n".encode(),
        "b.txt": b"\xff\xfe" + "Zoë".encode("utf-16-le"),
        "c.txt": "Zoë paid 5€".encode("cp1252"),
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    assert read_file_text(tmp_path / "a.csv", "text/csv") == "name,city\nZoë,Köln\n"
    assert read_file_text(tmp_path / "b.txt", "") == "Zoë"
    assert read_file_text(tmp_path / "c.txt", "text/plain") == "Zoë paid 5€"


@pytest.mark.parametrize(
    ("name", "data", "mime", "says"),
    [
        ("photo.png", b"\x89PNG\r\n\x1a\n\0\0\0", "image/png", "it is not text (image/png)"),
        ("broken.pdf", b"%PDF-1.4\nnot really", "application/pdf", "the PDF could not be read"),
        ("empty.pdf", b"", "application/pdf", "the PDF could not be read"),
    ],
)
def test_what_cannot_be_read_says_why(
    tmp_path: Path, name: str, data: bytes, mime: str, says: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(FileTextError) as caught:
        read_file_text(path, mime)
    assert says in caught.value.message


def test_a_missing_or_too_large_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with pytest.raises(FileTextError, match="the file is gone"):
        read_file_text(tmp_path / "nope.txt", "text/plain")
    big = tmp_path / "big.txt"
    with big.open("wb") as out:
        out.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(FileTextError, match="Panelot reads files up to 25 MB"):
        read_file_text(big, "text/plain")


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=400), pdf_head=st.booleans())
def test_arbitrary_bytes_give_text_or_a_reason_never_a_crash(data: bytes, pdf_head: bool) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("f.pdf" if pdf_head else "f.html")
        path.write_bytes((b"%PDF-1.7\n" if pdf_head else b"") + data)
        try:
            text = read_file_text(path, "")
        except FileTextError as exc:
            assert exc.message
        else:
            assert isinstance(text, str)
