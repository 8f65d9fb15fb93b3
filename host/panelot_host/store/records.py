"""Rows of the store as msgspec Structs. The server maps them to protocol structs."""

from __future__ import annotations

from typing import Any

import msgspec


class ThreadStats(msgspec.Struct, frozen=True):
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = 0.0


class ThreadRecord(msgspec.Struct, frozen=True):
    id: str
    title: str
    title_source: str
    parent_thread_id: str | None
    forked_from_item_id: str | None
    head_item_id: str | None
    created_at: int
    updated_at: int
    stats: ThreadStats
    last_turn_status: str | None = None
    """The status of the thread's latest Turn (None: no Turn yet)."""
    last_run_state: str | None = None
    """The state of that Turn's latest Run."""


class ItemRecord(msgspec.Struct, frozen=True):
    id: str
    thread_id: str
    parent_id: str | None
    turn_id: str | None
    kind: str
    created_at: int
    text: str | None = None
    thinking: str | None = None
    extra: dict[str, Any] = {}
    interrupted: bool = False
    call_id: str | None = None
    name: str | None = None
    args: dict[str, Any] | None = None
    descriptor_digest: str | None = None
    batch_item_id: str | None = None
    batch_index: int | None = None
    status: str | None = None
    result: dict[str, Any] | None = None


class TurnUsage(msgspec.Struct, frozen=True):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = 0.0

    @property
    def total(self) -> int:
        """What a token budget counts: input, output and cache tokens."""
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )


class TurnRecord(msgspec.Struct, frozen=True):
    id: str
    thread_id: str
    status: str
    stop_reason: str | None
    error: dict[str, str] | None
    user_item_id: str | None
    context: dict[str, Any]
    usage: TurnUsage
    started_at: int
    ended_at: int | None


class RunRecord(msgspec.Struct, frozen=True):
    id: str
    turn_id: str
    thread_id: str
    state: str
    cursor: dict[str, Any]
    environment: dict[str, Any] | None
    environment_digest: str | None
    updated_at: int


class ApprovalRecord(msgspec.Struct, frozen=True):
    id: str
    thread_id: str
    turn_id: str
    tool_call_item_id: str
    request: dict[str, Any]
    state: str
    decision: str | None
    scope: str | None
    message: str | None
    created_at: int
    decided_at: int | None


class InteractionRecord(msgspec.Struct, frozen=True):
    id: str
    thread_id: str
    turn_id: str
    tool_call_item_id: str
    prompt: str
    schema: dict[str, Any]
    origin: str
    state: str
    response: dict[str, Any] | None
    created_at: int
    answered_at: int | None


class SteeringRecord(msgspec.Struct, frozen=True):
    id: str
    thread_id: str
    turn_id: str
    text: str
    state: str
    created_at: int
    admitted_at_call: int | None
    attachments: list[Any] = []


class QueueEntryRecord(msgspec.Struct, frozen=True):
    id: str
    thread_id: str
    position: int
    text: str
    created_at: int


class GrantRecord(msgspec.Struct, frozen=True):
    id: str
    scope: str
    tool: str
    origin: str | None
    thread_id: str | None
    decision: str
    provenance: dict[str, Any]
    created_at: int
    revoked_at: int | None


class UsageRecord(msgspec.Struct, frozen=True):
    thread_id: str
    turn_id: str
    run_id: str
    model: str
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float | None
    created_at: int


class CredentialRecord(msgspec.Struct, frozen=True):
    ref: str
    provider: str | None
    backend: str
    fingerprint: str
    created_at: int
    updated_at: int
