"""browser_read (Markdown through Readability + turndown, bounded) and browser_screenshot
(JPEG, long side <= 1,568 px; the whole page through the debugger) by a model's calls."""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Playwright

from .fake_model import FakeAnthropic
from .harness import Browser, Profile
from .tool_driver import invoke, open_tab, run_tools
from .tool_pages import serve_tool_pages


@pytest.fixture
def hidpi_browser(
    playwright: Playwright, tmp_path: Path, model: FakeAnthropic
) -> Iterator[Browser]:
    """A screen of 5 device pixels per CSS pixel: the 360x720 window captures as 1800x3600."""
    profile = Profile(
        root=tmp_path, model_url=model.url, extra_args=["--force-device-scale-factor=5"]
    )
    launched = profile.launch(playwright)
    try:
        yield launched
    finally:
        launched.close()


def _jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a JPEG's SOF marker."""
    assert data.startswith(b"\xff\xd8\xff"), "not a JPEG"
    at = 2
    while at < len(data):
        marker, length = data[at + 1], struct.unpack(">H", data[at + 2 : at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        at += 2 + length
    raise AssertionError("no frame header in the JPEG")


def _images(model: FakeAnthropic) -> list[dict[str, object]]:
    """The image blocks of the tool results the model received, by call, in order (the
    host may leave older images out of later requests)."""
    found: dict[str, list[dict[str, object]]] = {}
    for body in model.bodies:
        for message in body["messages"]:
            if isinstance(message["content"], str):
                continue
            for block in message["content"]:
                if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                    images = [b for b in block["content"] if b.get("type") == "image"]
                    if images:
                        found.setdefault(block["tool_use_id"], images)
    return [image for images in found.values() for image in images]


def test_read_gives_markdown_with_headings_links_lists_tables(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/article")
        results, asked = run_tools(browser, model, [("browser_read", {"tabId": tab})])
        text = results[0]
        assert asked == 0
        assert "# Walking the ridge" in text and "## Stages" in text
        assert "| Day 2 | 6 km |" in text  # a table stays a table
        assert "- Boots" in text.replace("-   ", "- ")
        assert f"[map of the ridge]({site}/map)" in text  # links absolute
        assert "Contact us" not in text  # the footer is not the article
        # bounded: a long page is cut with a note that says how to read on
        page.goto(f"{site}/big")
        big = invoke(browser, "browser_read", {"tabId": tab})
        assert big["details"]["truncated"] is True and len(big["content"]) < 31_000
        assert "call browser_read with offset" in big["content"]
        offset = big["details"]["shown"]
        rest = invoke(browser, "browser_read", {"tabId": tab, "offset": offset})
        assert rest["details"]["offset"] == offset and "Item 2499" not in big["content"]


def test_screenshot_is_a_scaled_jpeg_and_full_page_uses_the_debugger(
    hidpi_browser: Browser, model: FakeAnthropic
) -> None:
    browser = hidpi_browser
    with serve_tool_pages() as site:
        _page, tab = open_tab(browser, f"{site}/big")
        results, asked = run_tools(
            browser,
            model,
            [
                # the panel's page is in front
                ("browser_tab_select", {"tabId": tab, "focus": True}),
                ("browser_screenshot", {"tabId": tab}),
                ("browser_screenshot", {"tabId": tab, "fullPage": True}),
            ],
        )
        assert asked == 2  # selecting the tab; the full page attaches the debugger (L2)
        visible, whole = (base64.b64decode(str(i["source"]["data"])) for i in _images(model))  # type: ignore[index]
        # the viewport in device pixels, scaled to a long side of 1,568
        width, height = _jpeg_size(visible)
        assert height == 1568 and 700 < width < 900, (width, height)
        # the whole 52,000 px page: at most 1,568 px long, as tall as wide allows
        width, height = _jpeg_size(whole)
        assert max(width, height) <= 1568 and height > width
        assert "the whole page" in results[2] and "of height" in results[2]
        assert "image/jpeg" in json.dumps(_images(model))
