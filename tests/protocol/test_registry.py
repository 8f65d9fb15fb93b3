"""Every method, event, item kind, status and error kind named in protocol.md exists;
each op is declared once, and documented."""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import msgspec
import pytest

from panelot_host.protocol import (
    CONTROL_NOTIFICATIONS,
    ERROR_CODES,
    EVENTS,
    OPS,
    SHIM_REQUESTS,
    common,
)
from panelot_host.protocol.items import ITEM_KINDS, Item
from panelot_host.protocol.jsonrpc import ENGINE_ERROR_KINDS
from panelot_host.protocol.ops import ThreadRenameParams, ThreadRenameResult, ThreadResult
from panelot_host.protocol.ops._base import Params, command, request
from panelot_host.protocol.registry import table

PROTOCOL_MD = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

# Hard-coded from the protocol's version 1 (its normative contract): the host may add ops (each
# then documented in docs/protocol.md, see below), never drop or rename these.
DOC_OPS = [
    "initialize",
    "thread.create",
    "thread.list",
    "thread.open",
    "thread.delete",
    "thread.fork",
    "thread.selectBranch",
    "thread.rename",
    "turn.submit",
    "turn.steer",
    "turn.enqueue",
    "queue.update",
    "queue.remove",
    "turn.interrupt",
    "approval.response",
    "interaction.response",
    "run.resume",
    "recovery.resolve",
    "settings.get",
    "settings.update",
    "credentials.set",
    "credentials.delete",
    "permissions.list",
    "permissions.revoke",
]
DOC_EVENTS = [
    "thread.updated",
    "turn.started",
    "item.started",
    "item.completed",
    "item.delta",
    "approval.request",
    "approval.resolved",
    "interaction.request",
    "interaction.resolved",
    "queue.updated",
    "run.updated",
    "turn.paused",
    "turn.complete",
    "$/chunk",
    "$/error",
]
EXTENSION_EVENTS = ["authority.widened", "item.updated"]
DOC_SHIM = ["browser.resolveTarget", "browser.invoke"]
EXTENSION_SHIM = ["browser.threadTabs"]
DOC_ITEM_KINDS = ["user", "steering", "assistant", "toolCall", "notice", "compaction"]
DOC_TOOL_STATUSES = [
    "pending",
    "awaiting_approval",
    "running",
    "succeeded",
    "failed",
    "denied",
    "uncertain",
    "interrupted",
]
DOC_ERROR_KINDS = [
    "not_initialized",
    "not_found",
    "invalid_state",
    "stale_turn",
    "turn_active",
    "queue_full",
    "conflict",
    "thread_busy",
    "capability",
    "drift",
    "too_large",
    "provider",
    "tool",
    "context_overflow",
]
DOC_RUN_STATES = [
    "queued",
    "streaming",
    "awaiting_approval",
    "awaiting_interaction",
    "executing_tool",
    "paused_uncertain",
    "budget_paused",
    "interrupted",
    "completed",
    "failed",
]
DOC_LITERALS: dict[Any, list[str]] = {
    common.StopReason: ["end_turn", "max_tokens", "stop_sequence", "content_filter"],
    common.TurnEndStatus: ["completed", "interrupted", "failed"],
    common.Decision: ["allow", "deny"],
    common.ApprovalScope: ["once", "thread", "origin"],
    common.RecoveryOutcome: ["succeeded", "failed", "retry"],
    # needs_model: an extension (a workflow run that diverged with no model configured)
    common.PauseReason: ["budget", "uncertain", "needs_model"],
    common.ToolCallStatus: DOC_TOOL_STATUSES,
    common.RunState: DOC_RUN_STATES,
    common.TitleSource: ["fallback", "model", "user"],
    common.Effect: ["read", "write", "navigate", "network", "external"],
    common.ToolLevel: ["L0", "L1", "L2"],
}
DOC_COMMANDS = set(DOC_OPS) - {
    "initialize",
    "thread.list",
    "thread.open",
    "turn.interrupt",
    "settings.get",
    "permissions.list",
}


def test_every_method_is_registered() -> None:
    assert set(DOC_OPS) <= set(OPS)
    assert sorted(EVENTS) == sorted(DOC_EVENTS + EXTENSION_EVENTS)
    assert sorted(SHIM_REQUESTS) == sorted(DOC_SHIM + EXTENSION_SHIM)
    assert "$/cancelRequest" in CONTROL_NOTIFICATIONS


def test_commands_are_the_ops_that_carry_command_id() -> None:
    commands = {m for m, s in OPS.items() if s.command}
    assert commands >= DOC_COMMANDS
    assert not commands & (set(DOC_OPS) - DOC_COMMANDS)
    assert commands == {m for m, s in OPS.items() if "command_id" in s.params.__struct_fields__}
    assert [m for m, s in OPS.items() if s.before_initialize] == ["initialize"]


def test_item_kinds() -> None:
    tags = sorted(t.__struct_config__.tag for t in typing.get_args(Item))
    assert tags == sorted(DOC_ITEM_KINDS) == sorted(ITEM_KINDS)


@pytest.mark.parametrize("literal", list(DOC_LITERALS), ids=str)
def test_enumerated_values(literal: Any) -> None:
    assert set(typing.get_args(literal)) == set(DOC_LITERALS[literal])


def test_error_kinds() -> None:
    assert set(DOC_ERROR_KINDS) <= set(ERROR_CODES)
    assert set(DOC_ERROR_KINDS) <= set(typing.get_args(common.ErrorKind))
    # exactly the documented kinds, plus the extensions ``storage`` and ``internal``
    assert set(typing.get_args(common.ErrorKind)) == {*DOC_ERROR_KINDS, "storage", "internal"}
    assert sorted(ENGINE_ERROR_KINDS) == sorted([*DOC_ERROR_KINDS, "storage"])
    assert set(typing.get_args(common.ErrorKind)) <= set(ERROR_CODES)


def test_tables_are_read_only() -> None:
    with pytest.raises(TypeError):
        OPS["x"] = OPS["initialize"]  # type: ignore[index]


def _documented_ops() -> dict[str, bool]:
    """``### `method``` headings of docs/protocol.md section 6 -> marked ``— command``."""
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    section = text.split("## 6. Ops", 1)[1].split("\n## ", 1)[0]
    headings = re.findall(r"^### `([^`]+)`( — command)?$", section, flags=re.MULTILINE)
    return {method: bool(marker) for method, marker in headings}


def _listed_commands() -> set[str]:
    """The methods listed after "Commands:" in docs/protocol.md, "Commands and receipts"."""
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    listing = text.split("\nCommands: ", 1)[1].split("Not commands:", 1)[0]
    return set(re.findall(r"`([^`]+)`", listing))


def test_every_op_is_documented_as_declared() -> None:
    """docs/protocol.md has a section per op, marked a command exactly when it is one."""
    assert _documented_ops() == {method: spec.command for method, spec in OPS.items()}
    assert _listed_commands() == {method for method, spec in OPS.items() if spec.command}


def test_a_declaration_that_disagrees_with_its_params_fails_at_import() -> None:
    class NoCommandId(Params, kw_only=True):
        title: str

    with pytest.raises(TypeError, match="commandId"):
        command("thread.x", NoCommandId, ThreadResult)
    with pytest.raises(TypeError, match="commandId"):
        request("thread.y", ThreadRenameParams, ThreadRenameResult)


def test_an_op_declared_twice_fails_at_import() -> None:
    spec = command("thread.rename", ThreadRenameParams, ThreadRenameResult)
    with pytest.raises(ValueError, match="declared twice"):
        table(spec, msgspec.structs.replace(spec))
