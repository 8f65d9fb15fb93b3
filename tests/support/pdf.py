"""``text_pdf``: a small, valid PDF whose pages hold the given lines as real text (Type1
Helvetica, WinAnsi), written byte by byte with a correct cross-reference table, so the
tests read a PDF as a PDF viewer would find it, with no PDF writer installed."""

from __future__ import annotations


def _escaped(line: str) -> bytes:
    text = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return text.encode("cp1252")


def text_pdf(pages: list[list[str]]) -> bytes:
    """A PDF with one page per entry of ``pages``, each line of it drawn as text."""
    count = len(pages)
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(b"%d 0 R" % (4 + 2 * n) for n in range(count))
        + b"] /Count %d >>" % count,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for n, lines in enumerate(pages):
        page_number, content_number = 4 + 2 * n, 5 + 2 * n
        assert len(objects) + 1 == page_number
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % content_number
        )
        drawn = (
            b"BT /F1 14 Tf 72 720 Td 18 TL "
            + b" ".join(b"(" + _escaped(line) + b") Tj T*" for line in lines)
            + b" ET"
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(drawn) + drawn + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
