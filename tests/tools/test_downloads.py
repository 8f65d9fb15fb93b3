"""`browser_downloads` in the host: the shim lists the Turn's downloads, the host reads a
finished one from the file Chrome wrote; the model sees names and text, never folders."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from tests.support.pdf import text_pdf

from panelot_host.tools import Target, browser_tools, downloads
from panelot_host.tools.downloads import READ_CHARS

from .conftest import Context

pytestmark = pytest.mark.anyio


class Downloads:
    """The shim's side: answers `browser_downloads` with these items."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = items
        self.asked: list[dict[str, Any]] = []

    async def resolve_target(self, tool: str, args: Mapping[str, Any]) -> Target:
        raise AssertionError("not asked here")

    async def invoke(
        self,
        call_id: str,
        tool: str,
        args: Mapping[str, Any],
        target: Target | None,
        *,
        thread_id: str | None = None,
        turn_id: str | None = None,
        capture: bool = False,
    ) -> dict[str, Any]:
        assert tool == "browser_downloads" and not capture
        self.asked.append(dict(args))
        return {"content": "listed", "isError": False, "details": {"downloads": self.items}}


def item(path: Path, **more: Any) -> dict[str, Any]:
    return {
        "id": 7,
        "url": "https://bank.example/statement",
        "filename": str(path),
        "mime": "application/pdf",
        "state": "complete",
        "bytesReceived": 900,
        "totalBytes": 900,
        "exists": True,
        "startTime": "2026-05-28T00:00:01.000Z",
        **more,
    }


async def run(browser: Downloads, args: dict[str, Any]) -> Any:
    (tool,) = (t for t in browser_tools(["browser_downloads"]) if t.name == "browser_downloads")
    return await tool.execute(args, Context(browser=browser))


async def test_the_list_is_this_turns_downloads_by_name(tmp_path: Path) -> None:
    browser = Downloads(
        [
            item(tmp_path / "statement.pdf"),
            item(tmp_path / "b.csv", id=8, state="in_progress", bytesReceived=2048, totalBytes=-1),
            item(tmp_path / "c.zip", id=9, state="interrupted", error="NETWORK_FAILED"),
        ]
    )
    result = await run(browser, {})
    # the shim was asked for what started since this Turn began (the context's time)
    assert browser.asked == [{"startedAfter": "2026-05-28T20:26:40.000Z"}]
    assert not result.is_error
    assert "- download 7: statement.pdf, application/pdf, finished, from https://bank.ex" in (
        result.content
    )
    assert "- download 8: b.csv, application/pdf, downloading, 2 KB of an unknown size" in (
        result.content
    )
    assert "- download 9: c.zip, application/pdf, failed (NETWORK_FAILED)" in result.content
    assert str(tmp_path) not in result.content and str(tmp_path) not in str(result.details)
    assert result.content.count("<untrusted-page-content>") == 1


async def test_a_finished_pdf_is_read_as_text_in_bounded_parts(tmp_path: Path) -> None:
    pdf = tmp_path / "statement.pdf"
    pdf.write_bytes(text_pdf([["Balance: 1,234.56 EUR"], ["x" * 60] * 40] * 12))
    browser = Downloads([item(pdf)])
    first = await run(browser, {"id": 7})
    assert not first.is_error
    assert "Balance: 1,234.56 EUR" in first.content
    assert "File statement.pdf, from https://bank.example/statement" in first.content
    assert str(tmp_path) not in first.content
    total = first.details["chars"]
    assert total > READ_CHARS and f"read on with offset {READ_CHARS}" in first.content
    rest = await run(browser, {"id": 7, "offset": READ_CHARS})
    assert "[page 24 of 24]" in rest.content and "read on with offset" not in rest.content
    past = await run(browser, {"id": 7, "offset": total + 5})
    assert past.is_error and "is past its end" in past.content


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"id": 3}, "There is no download 7 in this turn"),
        ({"state": "in_progress"}, "is still downloading (900 bytes of 900 bytes)"),
        ({"state": "interrupted", "error": "SERVER_FORBIDDEN"}, "failed (SERVER_FORBIDDEN)"),
        ({"exists": False}, "its file was deleted since"),
        ({"mime": "application/zip", "filename": "blob.zip"}, "cannot be read"),
    ],
)
async def test_what_cannot_be_read_is_an_error_that_says_why(
    tmp_path: Path, changes: dict[str, Any], says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(downloads, "FINISH_WAIT_S", 0.3)
    path = tmp_path / changes.pop("filename", "statement.pdf")
    path.write_bytes(b"PK\x03\x04\0\0binary")
    result = await run(Downloads([item(path, **changes)]), {"id": 7})
    assert result.is_error and says in result.content, result.content


async def test_reading_a_download_under_way_waits_for_it_to_finish(tmp_path: Path) -> None:
    path = tmp_path / "late.csv"
    path.write_text("day,km\n1,3\n", encoding="utf-8")
    under_way = item(path, state="in_progress", mime="text/csv", bytesReceived=3)

    class Finishing(Downloads):
        async def invoke(self, *args: Any, **turn: Any) -> dict[str, Any]:
            answer = await super().invoke(*args, **turn)
            self.items = [item(path, mime="text/csv")]  # the next look finds it finished
            return answer

    browser = Finishing([under_way])
    result = await run(browser, {"id": 7})
    assert not result.is_error and "day,km\n1,3" in result.content
    assert len(browser.asked) == 2


async def test_a_malformed_list_from_the_shim_is_an_error_result() -> None:
    class Broken(Downloads):
        async def invoke(self, *args: Any, **turn: Any) -> dict[str, Any]:
            return {"content": "x", "details": {"downloads": [{"id": "seven"}]}}

    result = await run(Broken([]), {})
    assert result.is_error and "malformed list" in result.content
