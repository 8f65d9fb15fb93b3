"""``browser_downloads``: the files the browser downloaded during this Turn, and the text
of a finished one.

The shim lists what Chrome downloaded since the Turn started (``chrome.downloads``); the
host reads a finished file where Chrome wrote it, because an extension cannot open files
(``tools.file_text``). The model learns a file's name, never the folder it is in.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path, PurePath
from typing import Any, Literal

import anyio
import msgspec

from panelot_host.tools.browser_result import ShimAnswer, browser_result, wrap_untrusted
from panelot_host.tools.context import ToolContext, require_browser
from panelot_host.tools.file_text import FileTextError, read_file_text
from panelot_host.tools.result import ToolResult, error_result

TOOL = "browser_downloads"
READ_CHARS = 20_000  # one read's share of a file, like one browser_read of a page
READ_WAIT_S = 60.0  # a file that takes longer to turn into text is given up (not waited on)
FINISH_WAIT_S = 15.0  # reading a download still under way waits this long for it to finish
FINISH_POLL_S = 0.25


class DownloadItem(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """One download as the shim reports it (``chrome.downloads.DownloadItem``)."""

    id: int
    url: str
    filename: str  # where Chrome writes it: for the host only, never shown to the model
    mime: str = ""
    state: Literal["in_progress", "interrupted", "complete"]
    error: str | None = None
    bytes_received: int = 0
    total_bytes: int = -1
    exists: bool = True

    @property
    def name(self) -> str:
        return PurePath(self.filename).name or "(not named yet)"

    def line(self) -> str:
        """How the model sees it in the list."""
        if self.state == "complete":
            status = "finished" if self.exists else "finished, then deleted"
        elif self.state == "interrupted":
            status = f"failed ({self.error or 'interrupted'})"
        else:
            status = f"downloading, {_bytes(self.bytes_received)} of {_bytes(self.total_bytes)}"
        kind = f", {self.mime}" if self.mime else ""
        return f"- download {self.id}: {self.name}{kind}, {status}, from {self.url}"


class _Listing(msgspec.Struct, frozen=True):
    downloads: list[DownloadItem]


async def run_downloads(args: dict[str, Any], context: ToolContext) -> ToolResult:
    """List this Turn's downloads, or (``id``) read one from ``offset``; a download still
    under way is waited for up to ``FINISH_WAIT_S`` first."""
    items = await _turn_downloads(context)
    if isinstance(items, ToolResult):
        return items
    wanted = args.get("id")
    if wanted is None:
        return _listing(items)
    deadline = anyio.current_time() + FINISH_WAIT_S
    while True:
        item = next((i for i in items if i.id == wanted), None)
        if item is None or item.state != "in_progress" or anyio.current_time() > deadline:
            break
        await anyio.sleep(FINISH_POLL_S)
        items = await _turn_downloads(context)
        if isinstance(items, ToolResult):
            return items
    if item is None:
        return error_result(
            f"There is no download {wanted} in this turn. {_listing(items).content}"
        )
    return await _read(item, args.get("offset", 0))


async def _turn_downloads(context: ToolContext) -> list[DownloadItem] | ToolResult:
    """What the browser downloaded since the Turn started, oldest first; or, when the shim
    answered with an error or a malformed list, the result that says so."""
    browser = require_browser(context.browser)
    since = datetime.fromtimestamp(context.turn_started_ms / 1000, UTC)
    answer = await browser.invoke(
        context.call_id,
        TOOL,
        {"startedAfter": since.isoformat(timespec="milliseconds").replace("+00:00", "Z")},
        context.target,
    )
    try:
        shim = msgspec.convert(answer, ShimAnswer)
        return msgspec.convert(shim.details, _Listing).downloads
    except msgspec.ValidationError as exc:
        if isinstance(answer, dict) and answer.get("isError"):
            return browser_result(TOOL, answer)
        return error_result(f"`{TOOL}`: the browser returned a malformed list ({exc}).")


def _listing(items: list[DownloadItem]) -> ToolResult:
    details = {"downloads": [_shown(i) for i in items]}
    if not items:
        return ToolResult(content="Nothing was downloaded in this turn.", details=details)
    lines = "\n".join(i.line() for i in items)
    return ToolResult(
        content=f"Downloads of this turn, oldest first:\n{wrap_untrusted(lines)}\n"
        "Read a finished one with its id.",
        details=details,
    )


async def _read(item: DownloadItem, offset: int) -> ToolResult:
    shown = {"download": _shown(item)}
    if item.state == "in_progress":
        return error_result(
            f"Download {item.id} is still downloading ({_bytes(item.bytes_received)} of "
            f"{_bytes(item.total_bytes)}): wait a moment (browser_wait_for timeMs) and read "
            "it again.",
            details=shown,
        )
    if item.state == "interrupted":
        return error_result(
            f"Download {item.id} failed ({item.error or 'interrupted'}): there is no file to read.",
            details=shown,
        )
    if not item.exists:
        return error_result(f"Download {item.id} finished, but its file was deleted since.")
    try:
        with anyio.fail_after(READ_WAIT_S):
            text = await anyio.to_thread.run_sync(
                read_file_text, Path(item.filename), item.mime, abandon_on_cancel=True
            )
    except FileTextError as exc:
        return error_result(f"Download {item.id} cannot be read: {exc.message}.")
    except TimeoutError:
        return error_result(
            f"Download {item.id} took more than {READ_WAIT_S:.0f} s to read; Panelot gave up on it."
        )
    return _page(item, text, offset, shown)


def _page(item: DownloadItem, text: str, offset: int, shown: dict[str, Any]) -> ToolResult:
    if offset > 0 and offset >= len(text):
        return error_result(
            f"Download {item.id} has {len(text)} characters of text; offset {offset} is "
            "past its end."
        )
    part = text[offset : offset + READ_CHARS]
    end = offset + len(part)
    rest = (
        f" This is characters {offset} to {end} of {len(text)}: read on with offset {end}."
        if end < len(text)
        else ""
    )
    empty = " It holds no text (a scanned PDF holds images only)." if not text.strip() else ""
    head = f"The text of download {item.id}.{empty}{rest}"
    body = f"File {item.name}, from {item.url}:\n\n{part}"
    return ToolResult(
        content=f"{head}\n{wrap_untrusted(body)}",
        details={**shown, "chars": len(text), "offset": offset},
    )


def _shown(item: DownloadItem) -> dict[str, Any]:
    """What the panel shows of an item: its name, not the folder it lies in."""
    return {
        "id": item.id,
        "name": item.name,
        "url": item.url,
        "mime": item.mime,
        "state": item.state,
    }


def _bytes(count: int) -> str:
    if count < 0:
        return "an unknown size"
    if count < 1024:
        return f"{count} bytes"
    if count < 1_048_576:
        return f"{count / 1024:.0f} KB"
    return f"{count / 1_048_576:.1f} MB"
