"""A thread's browser tabs and its Chrome tab group (extension, issue 26).

The host keeps them (the store's ``thread_tab`` tables); the shim finds them in the
browser, groups them and reports what it found. Tab ids are the browser's and change when
it restarts: the shim finds the group again by its title and colour, and the tabs by URL.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from panelot_host.protocol.common import Id

TabGroupColor = Literal[
    "grey", "blue", "red", "yellow", "green", "pink", "purple", "cyan", "orange"
]
"""The colours of Chrome's tab groups (``chrome.tabGroups.Color``)."""

TAB_GROUP_COLORS: Final[tuple[TabGroupColor, ...]] = (
    "blue",
    "red",
    "yellow",
    "green",
    "pink",
    "purple",
    "cyan",
    "orange",
    "grey",
)

TabSource = Literal["opened", "shared"]
"""How a thread got a tab: it ``opened`` it, or the user handed it over (``shared``)."""


class ThreadTab(msgspec.Struct, rename="camel", kw_only=True):
    """Extension: one tab a thread owns, as last seen (its URL and title find it again
    after a browser restart)."""

    tab_id: int
    url: str
    title: str = ""
    source: TabSource = "opened"
    grouped: bool = False
    """The tab was in the thread's group when last seen: once the user takes it out of
    the group, it is the user's again."""


class ThreadTabs(msgspec.Struct, rename="camel", kw_only=True):
    """Extension: the tabs a thread owns and the Chrome tab group that shows them.

    ``tabs[0]`` is the tab the thread acts on when a call names none (the one it used
    last). ``groupId`` is the group's id in the running browser (null until the group
    exists); ``title`` and ``color`` are what the group was last given: the thread's title
    and a colour fixed per thread."""

    thread_id: Id
    title: str
    color: TabGroupColor
    group_id: int | None = None
    tabs: list[ThreadTab] = msgspec.field(default_factory=list)


class SharedTab(msgspec.Struct, rename="camel", kw_only=True):
    """The tab the user hands to a thread (``thread.shareTab``, ``turn.start``'s
    ``shareTab``): the panel reads it from the browser."""

    tab_id: int
    url: str
    title: str = ""
