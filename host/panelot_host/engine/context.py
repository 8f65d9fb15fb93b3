"""What the engine's services and run loops need from the rest of the host, and which run
they work on.

``EngineContext`` holds the dependencies, fixed when the engine is built: nothing is
patched in later. The state that changes while the host runs lives in the objects it
holds, each with one job: the thread actors, the slots runs work in, the policy cache,
the link to the client that runs browser tools, the per-thread history cache
(``history_cache.HistoryCache``, which the engine makes and passes in). ``RunRef``
(``store.records``, re-exported here) names one run (thread, Turn, run) and travels
instead of three loose ids.
``ToolSources`` is the seam to the host's MCP servers (``tool_warmup`` waits on it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from panelot_host.engine.actor import ThreadActor, ThreadActors
from panelot_host.engine.failpoints import NO_FAULTS, FaultHook
from panelot_host.engine.history_cache import HistoryCache
from panelot_host.engine.models import ModelAccess
from panelot_host.engine.policy import PolicyCache
from panelot_host.engine.publish import Publisher
from panelot_host.engine.slots import TurnSlots
from panelot_host.engine.stream import MAX_ANSWER_BYTES
from panelot_host.store.db import Database
from panelot_host.store.records import RunRef as RunRef
from panelot_host.tools.context import BrowserBridge
from panelot_host.tools.registry import ToolRegistry

DEFAULT_MAX_TOKENS = 8192


class BrowserLink:
    """The client that runs browser tools (``initialize.capabilities.browserTools``), as
    the last ``initialize`` attached it; none until then."""

    def __init__(self) -> None:
        self.bridge: BrowserBridge | None = None
        self.tools: frozenset[str] = frozenset()
        self.found_tabs: set[str] = set()  # threads whose tabs this client has found

    def attach(self, bridge: BrowserBridge | None, tools: frozenset[str]) -> None:
        self.bridge = bridge
        self.tools = tools if bridge is not None else frozenset()
        self.found_tabs = set()  # another browser (or the same restarted): new tab ids


def _ignore(_: str) -> None:
    return None


def _ignore_two(_: str, __: str) -> None:
    return None


class ToolSources(Protocol):
    """Where tools come from besides the built-in ones (the host's MCP servers)."""

    async def connecting(self) -> list[str]:
        """Names of servers whose first connection is under way (started if need be)."""
        ...

    async def wait(self, names: list[str], timeout_s: float) -> list[str]:
        """Wait at most ``timeout_s`` for ``names`` (none: no wait); one line per server
        not connected that this run should be told about (``"name (state: reason)"``):
        those of ``names``, and others the host has not reported yet."""
        ...


@dataclass(frozen=True, slots=True)
class EngineContext:
    """Dependencies of the engine's services and run loops (no domain state of its own).

        ``on_idle`` is called when a thread's run ends (the queue starts its next entry);
        ``on_first_turn`` when a thread's first Turn starts (a title is made); ``faults`` is
        the fault-injection hook (``engine.failpoints``; none in production);
        ``max_answer_bytes`` bounds one model answer (``engine.stream``); ``slots`` limits
        how many runs work at the same time (``engine.slots``); ``history`` holds each thread's
    last session prefix (``context_window.session_context``)."""

    db: Database
    publish: Publisher
    models: ModelAccess
    registry: ToolRegistry
    actors: ThreadActors
    policy: PolicyCache
    system_prompt: str
    tool_sources: ToolSources | None = None  # MCP servers (engine.tool_warmup)
    on_idle: Callable[[str], None] = _ignore
    on_first_turn: Callable[[str, str], None] = _ignore_two
    faults: FaultHook = NO_FAULTS
    max_answer_bytes: int = MAX_ANSWER_BYTES
    act_on_unowned_tabs_default: bool = False  # engine.thread_tabs, until the user sets it
    slots: TurnSlots = field(default_factory=TurnSlots)
    history: HistoryCache = field(default_factory=HistoryCache)  # context_window's memory
    link: BrowserLink = field(init=False, default_factory=BrowserLink)

    def actor(self, thread_id: str) -> ThreadActor:
        return self.actors.of(thread_id)

    @property
    def browser(self) -> BrowserBridge | None:
        return self.link.bridge

    @property
    def browser_tools(self) -> frozenset[str]:
        return self.link.tools
