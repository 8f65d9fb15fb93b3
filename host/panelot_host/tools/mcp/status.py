"""What the client sees of each MCP server, and the timing knobs of a connection."""

from __future__ import annotations

import random
from typing import Literal

import msgspec

ServerState = Literal["disabled", "connecting", "connected", "reconnecting", "failed"]
Transport = Literal["stdio", "http", "sse"]


class ServerStatus(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """One configured server: ``state``, why it failed (``reason``), how many tools it
    offers, how often it was restarted, what it calls itself, and tools it listed that
    could not be offered (``skippedTools``: ``"name: why"``)."""

    name: str
    transport: Transport
    state: ServerState
    tool_count: int = 0
    reason: str | None = None
    restarts: int = 0
    server_name: str | None = None
    server_version: str | None = None
    skipped_tools: tuple[str, ...] = ()


class Backoff(msgspec.Struct, frozen=True, kw_only=True):
    """Reconnect delays: ``initial_s * factor**(n-1)`` capped at ``max_s``, with jitter
    (a uniform draw in [50%, 100%]); after ``max_attempts`` failures in a row the server
    is left ``failed`` until the configuration is reloaded."""

    initial_s: float = 0.5
    factor: float = 2.0
    max_s: float = 30.0
    max_attempts: int = 10

    def delay(self, attempt: int, rng: random.Random) -> float:
        """The jittered delay before reconnect ``attempt`` (1-based)."""
        base = min(self.max_s, self.initial_s * self.factor ** max(0, attempt - 1))
        return base * rng.uniform(0.5, 1.0)


class Timing(msgspec.Struct, frozen=True, kw_only=True):
    """How long to wait for a server: to connect (``initialize``), between keepalive
    pings, and for a ping's answer. Call timeouts are per server (``mcp.json``)."""

    connect_s: float = 30.0
    keepalive_s: float = 30.0
    ping_timeout_s: float = 10.0
    backoff: Backoff = Backoff()
