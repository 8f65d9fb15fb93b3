"""``FakeBrowser``: an in-process ``BrowserBridge`` that plays the shim, for tests (not
shipped in the wheel: the host's demo and scripted modes run browser tools through the
real shim).

A real implementation over a tiny model of a browser (tabs with a URL and a history,
pages from a dict), not a mock: the engine's and the Gatekeeper's tests run browser tools
through it exactly as through the shim, and see origins change when a tab navigates.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import msgspec

from panelot_host.errors import ToolError
from panelot_host.protocol.tabs import ThreadTab, ThreadTabs
from panelot_host.tools.target import Target

# A 1x1 transparent PNG: what every fake screenshot shows.
PIXEL_PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082"
    )
).decode()


class FakePage(msgspec.Struct, frozen=True):
    title: str
    text: str
    outline: str = ""  # browser_snapshot's answer


class FakeTab(msgspec.Struct):
    id: int
    history: list[str]

    @property
    def url(self) -> str:
        return self.history[-1]


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of an absolute URL."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


FrameMaker = Callable[[str, Mapping[str, Any]], Mapping[str, Any]]
"""``(tool, args)`` -> what a call with ``capture`` adds to its answer (``frames``,
``frameSkipped``)."""


class FakeBrowser:
    """Tabs and pages in memory; records every ``invoke`` in ``invocations``, and whether
    it asked for frames in ``captures``; ``frame_maker``, when set, answers them."""

    def __init__(self, pages: Mapping[str, FakePage], start_url: str) -> None:
        self.pages = dict(pages)
        self.tabs: dict[int, FakeTab] = {1: FakeTab(1, [start_url])}
        self.active = 1
        self.invocations: list[tuple[str, str, dict[str, Any], Target | None]] = []
        self.actions: list[str] = []  # clicks, typing, keys: what a page would have seen
        self.captures: list[tuple[str, bool]] = []  # (tool, capture) of each invoke
        self.frame_maker: FrameMaker | None = None

    async def resolve_target(
        self, tool: str, args: Mapping[str, Any], thread_tabs: ThreadTabs | None = None
    ) -> Target:
        return self._target(self._tab(args, thread_tabs))

    async def invoke(
        self,
        call_id: str,
        tool: str,
        args: Mapping[str, Any],
        target: Target | None,
        thread_tabs: ThreadTabs | None = None,
        *,
        thread_id: str | None = None,
        turn_id: str | None = None,
        capture: bool = False,
    ) -> dict[str, Any]:
        self.invocations.append((call_id, tool, dict(args), target))
        self.captures.append((tool, capture))
        handler = getattr(self, "_" + tool.removeprefix("browser_"), None)
        if handler is None:
            raise ToolError(f"the fake browser cannot run {tool!r}")
        tab = self._tab(args, thread_tabs)
        before = set(self.tabs)
        content: str | list[dict[str, Any]] = handler(tab, args)
        answer = {"content": content, "isError": False, "target": self._target_json(tab)}
        if thread_tabs is not None:
            opened = [i for i in self.tabs if i not in before]
            acted = [] if tool == "browser_tabs_list" else [tab.id]
            answer["threadTabs"] = msgspec.to_builtins(self._after(thread_tabs, opened, acted))
        if capture and self.frame_maker is not None:
            answer.update(self.frame_maker(tool, args))
        return answer

    async def find_thread_tabs(self, thread_tabs: ThreadTabs) -> ThreadTabs:
        """The shim's ``browser.threadTabs``: the thread's tabs still open, grouped."""
        return self._after(thread_tabs, [], [])

    def _after(self, owned: ThreadTabs, opened: list[int], acted: list[int]) -> ThreadTabs:
        """The thread's tabs after a call: the ones it opened first, then the one it acted
        on when it owns it, then the rest; closed ones left out."""
        known = {t.tab_id for t in owned.tabs}
        mine = [i for i in opened] + [i for i in acted if i in known]
        order = mine + [t.tab_id for t in owned.tabs if t.tab_id not in mine]
        tabs = []
        for tab_id in order:
            if tab_id in self.tabs:
                source = next((t.source for t in owned.tabs if t.tab_id == tab_id), "opened")
                tab = self.tabs[tab_id]
                title = self._page(tab).title
                tabs.append(
                    ThreadTab(tab_id=tab_id, url=tab.url, title=title, source=source, grouped=True)
                )
        return msgspec.structs.replace(owned, group_id=owned.group_id or 100, tabs=tabs)

    def navigate(self, url: str, tab_id: int | None = None) -> None:
        """Let the "user" move a tab (e.g. between approval and dispatch)."""
        self.tabs[tab_id or self.active].history.append(url)

    def _tab(self, args: Mapping[str, Any], thread_tabs: ThreadTabs | None = None) -> FakeTab:
        current = (
            [t.tab_id for t in thread_tabs.tabs if t.tab_id in self.tabs] if thread_tabs else []
        )
        tab_id = args.get("tabId", current[0] if current else self.active)
        if tab_id not in self.tabs:
            raise ToolError(f"no tab with id {tab_id}")
        return self.tabs[tab_id]

    def _page(self, tab: FakeTab) -> FakePage:
        return self.pages.get(tab.url, FakePage(title="Not found", text="404"))

    def _target(self, tab: FakeTab) -> Target:
        return Target(
            tab_id=tab.id,
            url=tab.url,
            origin=origin_of(tab.url),
            title=self._page(tab).title,
            active=tab.id == self.active,
        )

    def _target_json(self, tab: FakeTab) -> dict[str, Any]:
        result: dict[str, Any] = msgspec.to_builtins(self._target(tab))
        return result

    # ------------------------------------------------------------ one method per tool

    def _tabs_list(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        lines = [
            f"{t.id}{' (active)' if t.id == self.active else ''}: {self._page(t).title} {t.url}"
            for t in self.tabs.values()
        ]
        return "\n".join(lines)

    def _tab_new(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        new = FakeTab(max(self.tabs) + 1, [args.get("url", "about:blank")])
        self.tabs[new.id] = new
        self.active = new.id
        return f"Opened tab {new.id} at {new.url}"

    def _tab_select(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        self.active = tab.id
        return f"Tab {tab.id} is active"

    def _tab_close(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        del self.tabs[tab.id]
        self.active = self.active if self.active in self.tabs else min(self.tabs, default=0)
        return f"Closed tab {tab.id}"

    def _navigate(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        tab.history.append(args["url"])
        return f"Loaded {tab.url}: {self._page(tab).title}"

    def _navigate_back(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        if len(tab.history) > 1:
            tab.history.pop()
        return f"Back at {tab.url}"

    def _read(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        return self._page(tab).text

    def _snapshot(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        return self._page(tab).outline or f"- document {self._page(tab).title!r}"

    def _click(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        self.actions.append(f"click {args['ref']}")
        return f"Clicked {args['ref']}"

    def _type(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        self.actions.append(f"type {args['ref']} {args['text']!r}")
        return f"Typed into {args['ref']}"

    def _select_option(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        self.actions.append(f"select {args['ref']} {args['values']}")
        return f"Selected {', '.join(args['values'])}"

    def _press_key(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        self.actions.append(f"key {args['key']}")
        return f"Pressed {args['key']}"

    def _scroll(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        return f"Scrolled {args.get('ref') or args.get('direction')}"

    def _wait_for(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        text = args.get("text")
        if text is not None and text not in self._page(tab).text:
            raise ToolError(f"timed out waiting for {text!r}")
        return "Done waiting"

    def _screenshot(self, tab: FakeTab, args: Mapping[str, Any]) -> list[dict[str, Any]]:
        kind = "full page" if args.get("fullPage") else "viewport"
        return [
            {"type": "text", "text": f"Screenshot of {tab.url} ({kind})"},
            {"type": "image", "mediaType": "image/png", "data": PIXEL_PNG},
        ]
