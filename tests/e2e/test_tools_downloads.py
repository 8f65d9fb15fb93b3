"""Issue 24, item 2: `browser_downloads`. A click starts a download; the model lists the
turn's downloads and reads the finished PDF back as text, which the host extracts from the
file Chrome wrote. The model learns the file's name, never the folder it lies in; reading
is a read (nothing asked), decided for the origin the file came from."""

from __future__ import annotations

import re

from .fake_model import FakeAnthropic
from .harness import Browser
from .tool_driver import by_ref, open_tab, run_tools
from .tool_pages import serve_tool_pages


def _download_id(results: list[str]) -> dict[str, int]:
    found = re.search(r"started a download \(download (\d+),", results[-1])
    assert found, results[-1]
    return {"id": int(found.group(1))}


def test_a_downloaded_pdf_is_listed_and_read_back(browser: Browser, model: FakeAnthropic) -> None:
    with serve_tool_pages() as site:
        _, tab = open_tab(browser, f"{site}/download")
        results, asked = run_tools(
            browser,
            model,
            [
                ("browser_downloads", {}),
                ("browser_snapshot", {"tabId": tab}),
                ("browser_click", by_ref(tab, "link", "Statement (PDF)")),
                ("browser_downloads", _download_id),
                ("browser_downloads", {}),
            ],
        )
    before, _, clicked, read, listed = results
    assert "Nothing was downloaded in this turn." in before  # not earlier tests' downloads
    assert f"{site}/statement.pdf (application/pdf)" in clicked
    assert "Statement for May\nClosing balance: 1,234.56 EUR" in read, read
    assert "[page 2 of 2]\nSigned by the bank" in read
    finished = r"- download \d+: [^,]+, application/pdf, finished, from .+/statement\.pdf"
    assert re.search(finished, listed), listed
    for said in (read, listed):
        assert "/tmp/" not in said and "/home/" not in said and "/root/" not in said
    assert asked == 1  # the click; listing and reading are reads
