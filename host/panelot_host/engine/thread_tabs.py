"""The tabs a thread owns (issue 26): what its browser calls carry, what they report back,
and whose a tab is when a call acts on one the thread does not own.

A thread owns the tabs it opened and the tabs the user handed to it; they form one Chrome
tab group named after the thread, in a colour fixed per thread. The store keeps them
(``store.tabs``); the shim finds them in the browser (``browser.threadTabs``, once per
connection: a restarted browser gives them new ids) and reports them after every call.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import msgspec

from panelot_host.engine.commands import Receipt, command_unit
from panelot_host.engine.context import EngineContext
from panelot_host.engine.views import thread_view
from panelot_host.errors import ToolError
from panelot_host.protocol.ops.threads import ThreadResult
from panelot_host.protocol.tabs import (
    TAB_GROUP_COLORS,
    SharedTab,
    TabGroupColor,
    ThreadTab,
    ThreadTabs,
)
from panelot_host.store import tabs as tab_store
from panelot_host.store import threads
from panelot_host.tools.calls import BoundCall
from panelot_host.tools.context import BrowserBridge
from panelot_host.tools.descriptor import BrowserBinding
from panelot_host.tools.target import Target

GROUP_TITLE_CHARS = 40  # Chrome shows a group's title in the tab strip: keep it short
UNOWNED_SETTING = "actOnUnownedTabs"
SHARE_SETTING = "shareActiveTab"
USERS_ACTIVE_TAB = "your active tab"  # foreign_tab's words for the user's tabs
USERS_OTHER_TAB = "one of your tabs"

_tabs_decoder = msgspec.json.Decoder(ThreadTabs)


def group_color(thread_id: str) -> TabGroupColor:
    """The thread's colour: the same every time, spread over Chrome's colours."""
    digest = hashlib.sha256(thread_id.encode()).digest()
    return TAB_GROUP_COLORS[digest[0] % len(TAB_GROUP_COLORS)]


def group_title(title: str) -> str:
    title = " ".join(title.split())
    if len(title) <= GROUP_TITLE_CHARS:
        return title
    return title[: GROUP_TITLE_CHARS - 1].rstrip() + "…"


def current_tabs(ctx: EngineContext, thread_id: str) -> ThreadTabs:
    """The thread's tabs as stored, titled after the thread as it is named now."""
    thread = threads.get(ctx.db.conn, thread_id)
    stored = tab_store.get(ctx.db.conn, thread_id)
    if stored is None:
        return ThreadTabs(
            thread_id=thread_id, title=group_title(thread.title), color=group_color(thread_id)
        )
    return msgspec.structs.replace(stored, title=group_title(thread.title))


def keep_tabs(ctx: EngineContext, found: ThreadTabs) -> None:
    """Store what the shim reported of a thread's tabs and tell the thread's clients."""
    if not threads.exists(ctx.db.conn, found.thread_id):
        return  # the thread was deleted meanwhile
    before = tab_store.get(ctx.db.conn, found.thread_id)
    if before == found:
        return
    with ctx.db.transaction() as conn:
        tab_store.put(conn, found)
        record = threads.get(conn, found.thread_id)
    ctx.publish.thread_updated(record)


def with_shared(current: ThreadTabs, tab: SharedTab) -> ThreadTabs:
    """``current`` with ``tab`` handed over by the user, as the tab to act on first."""
    shared = ThreadTab(tab_id=tab.tab_id, url=tab.url, title=tab.title, source="shared")
    others = [t for t in current.tabs if t.tab_id != tab.tab_id]
    return msgspec.structs.replace(current, tabs=[shared, *others])


async def find_in_browser(ctx: EngineContext, tabs: ThreadTabs) -> ThreadTabs:
    """``tabs`` as the connected browser finds and groups them (``browser.threadTabs``),
    marked found for this connection; ``tabs`` unchanged when no browser is connected or
    an older shim cannot (the thread's next browser call then reports them)."""
    bridge = ctx.browser
    if bridge is None:
        return tabs
    try:
        found = await bridge.find_thread_tabs(tabs)
    except ToolError:
        return tabs
    ctx.link.found_tabs.add(tabs.thread_id)
    return found


async def share_tab(ctx: EngineContext, thread_id: str, tab: SharedTab) -> None:
    """Hand ``tab`` over to the thread: stored at once, then grouped by the browser."""
    shared = with_shared(current_tabs(ctx, thread_id), tab)
    keep_tabs(ctx, shared)
    keep_tabs(ctx, await find_in_browser(ctx, shared))


def acts_on_unowned_tabs(ctx: EngineContext, settings: Mapping[str, Any] | None = None) -> bool:
    """The user let threads act on tabs they do not own without the extra question."""
    stored = (ctx.policy.settings() if settings is None else settings).get(UNOWNED_SETTING)
    return ctx.act_on_unowned_tabs_default if stored is None else bool(stored)


def foreign_tab(
    ctx: EngineContext, thread_id: str, call: BoundCall, target: Target | None
) -> str | None:
    """Whose tab ``target`` is, in the card's words, when the thread does not own it
    ("your active tab", "a tab of the thread “Taxes”"); None when it does, when the call
    acts on no open tab (listing tabs, opening one), or when the user lets threads act on
    any tab."""
    binding = call.tool.descriptor.binding
    if not isinstance(binding, BrowserBinding) or binding.acts_on != "tab":
        return None
    if target is None or target.tab_id is None or acts_on_unowned_tabs(ctx):
        return None
    owned = tab_store.get(ctx.db.conn, thread_id)
    if owned is not None and any(t.tab_id == target.tab_id for t in owned.tabs):
        return None
    owner = tab_store.owner_of(ctx.db.conn, target.tab_id)
    if owner is not None and owner != thread_id and threads.exists(ctx.db.conn, owner):
        return f"a tab of the thread “{threads.get(ctx.db.conn, owner).title}”"
    return USERS_ACTIVE_TAB if target.active else USERS_OTHER_TAB


def is_users_tab(description: str | None) -> bool:
    """A ``foreign_tab`` description of a tab no thread owns (approving shares it)."""
    return description in (USERS_ACTIVE_TAB, USERS_OTHER_TAB)


class ThreadBrowser:
    """The browser as one thread's calls see it: each request carries the thread's tabs,
    and what the shim reports of them is kept (implements ``BrowserBridge``)."""

    def __init__(self, ctx: EngineContext, bridge: BrowserBridge, thread_id: str) -> None:
        self._ctx = ctx
        self._bridge = bridge
        self._thread_id = thread_id

    async def _tabs(self) -> ThreadTabs:
        tabs = current_tabs(self._ctx, self._thread_id)
        found = self._ctx.link.found_tabs
        if self._thread_id in found:
            return tabs
        found.add(self._thread_id)
        if not tabs.tabs and tabs.group_id is None:
            return tabs  # nothing to find yet
        tabs = await find_in_browser(self._ctx, tabs)
        keep_tabs(self._ctx, tabs)
        return tabs

    async def resolve_target(
        self, tool: str, args: Mapping[str, Any], thread_tabs: ThreadTabs | None = None
    ) -> Target:
        return await self._bridge.resolve_target(tool, args, thread_tabs or await self._tabs())

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
        tabs = thread_tabs or await self._tabs()
        answer = await self._bridge.invoke(
            call_id,
            tool,
            args,
            target,
            tabs,
            thread_id=thread_id,
            turn_id=turn_id,
            capture=capture,
        )
        reported = answer.get("threadTabs")
        if isinstance(reported, dict):
            try:
                found = _tabs_decoder.decode(msgspec.json.encode(reported))
            except msgspec.ValidationError:
                found = None  # a shim that reports nonsense keeps what the host knew
            if found is not None and found.thread_id == self._thread_id:
                keep_tabs(self._ctx, found)
        return answer

    async def find_thread_tabs(self, thread_tabs: ThreadTabs) -> ThreadTabs:
        return await self._bridge.find_thread_tabs(thread_tabs)


def thread_browser(ctx: EngineContext, thread_id: str) -> BrowserBridge | None:
    """The browser for ``thread_id``'s calls, or None when no client runs browser tools."""
    bridge = ctx.browser
    return None if bridge is None else ThreadBrowser(ctx, bridge, thread_id)


class TabService:
    """``thread.shareTab`` and ``turn.submit``'s ``shareTab``: the user hands a tab over."""

    def __init__(self, ctx: EngineContext) -> None:
        self.ctx = ctx

    async def share(self, cmd: Receipt, thread_id: str, tab: SharedTab) -> ThreadResult:
        """Have the browser put the tab in the thread's group (when one is connected; else
        the thread's next browser call does), then store the thread's tabs with the
        command's receipt; the answer shows them."""
        shared = await find_in_browser(
            self.ctx, with_shared(current_tabs(self.ctx, thread_id), tab)
        )
        with command_unit(self.ctx.db, cmd) as unit:
            tab_store.put(unit.conn, shared)
            record = threads.get(unit.conn, thread_id)
            result = unit.respond(ThreadResult(thread=thread_view(record)))
        self.ctx.publish.thread_updated(record)
        return result

    def share_on_submit(self, thread_id: str, tab: SharedTab | None) -> None:
        """The tab active as the user sent a message, handed over when the user allows it
        (``shareActiveTab``); the thread's next browser call groups it."""
        if tab is None or not self.ctx.policy.settings().get(SHARE_SETTING):
            return
        keep_tabs(self.ctx, with_shared(current_tabs(self.ctx, thread_id), tab))
        self.ctx.link.found_tabs.discard(thread_id)
