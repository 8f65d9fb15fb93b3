"""Before a run's first model call: the configured MCP servers get their chance to connect
(a bounded wait), then the run's catalog is bound to the tools registered by then.

MCP servers start after the host has answered ``initialize`` (cold start), so a Turn
submitted at once would otherwise offer the model none of their tools. The host provides
``ToolSources`` (declared in ``engine.context``, built by ``server.assembly``): the servers
still making their first connection, and a bounded wait for them. The wait is announced in
the Turn with a notice (``mcp_waiting``), and the servers that did not connect in time, or
had already failed and were not reported yet, are named in another (``mcp_not_ready``). The
admitted catalog is replaced (cursor and environment snapshot, one transaction) only when
the registry changed since admission; no model has seen it yet.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from panelot_host.engine.context import EngineContext
from panelot_host.engine.cursor import RunCursor, dump_cursor
from panelot_host.engine.environment import snapshot
from panelot_host.engine.models import ResolvedModel
from panelot_host.store import turns
from panelot_host.tools.catalog import new_run_catalog

MCP_WAIT_S = 5.0  # how long a first model call waits for MCP servers' first connection

Notify = Callable[[str, str], None]  # (notice code, text): stored and sent in the Turn


async def ready_cursor(
    ctx: EngineContext, run_id: str, cursor: RunCursor, model: ResolvedModel, notify: Notify
) -> RunCursor:
    """The run's cursor with its catalog bound after the bounded wait for MCP servers."""
    sources = ctx.tool_sources
    if sources is None:
        return cursor
    names = await sources.connecting()
    if names:
        notify(
            "mcp_waiting",
            f"Waiting up to {MCP_WAIT_S:.0f} s for MCP servers to connect: {', '.join(names)}.",
        )
    missing = await sources.wait(names, MCP_WAIT_S)
    if missing:
        notify(
            "mcp_not_ready",
            "MCP servers not ready, so their tools are not offered in this turn: "
            + "; ".join(missing)
            + ".",
        )
    return _rebound(ctx, run_id, cursor, model)


def _rebound(ctx: EngineContext, run_id: str, cursor: RunCursor, model: ResolvedModel) -> RunCursor:
    browser_tools = frozenset(cursor.browser_tools)
    catalog = new_run_catalog(ctx.registry.current, model.capabilities, browser_tools)
    if catalog.digests() == cursor.catalog:
        return cursor
    rebound = msgspec.structs.replace(cursor, catalog=catalog.digests())
    with ctx.db.transaction() as conn:
        turns.update_run(conn, run_id, cursor=dump_cursor(rebound))
        turns.set_environment(conn, run_id, *snapshot(ctx, model, catalog))
    return rebound
