"""Rebuild the provider messages of a request from the selected branch.

However the rows of a parallel batch were interleaved on disk, each assistant message
carries all of its tool calls (in the order the model made them), followed at once by
their results in the same order; every call has exactly one result (a synthetic error
result where it was interrupted or abandoned). Steering and other items that were
stored while a batch ran come after the batch's results, never between a call and its
result.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from panelot_host.providers.types import (
    AssistantContent,
    AssistantMessage,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    UserContent,
    UserMessage,
)
from panelot_host.store.records import ItemRecord

UNSETTLED_CALL_STATUSES = frozenset({"pending", "awaiting_approval", "running", "uncertain"})
SYNTHETIC_RESULT = (
    "This tool call did not finish: it was interrupted or abandoned before a result was "
    "recorded. Its outcome is unknown; check the current state before repeating it."
)


def build_messages(branch: Iterable[ItemRecord]) -> list[Message]:
    """The conversation of a branch (oldest first) as provider messages.

    One pass, holding only the open batch: an assistant item's tool calls (found by
    ``batch_item_id``, in ``batch_index`` order, wherever they sit after it) are emitted
    with it, then their results, then whatever else was stored meanwhile (steering).
    """
    messages: list[Message] = []
    batch: _Batch | None = None
    for item in branch:
        match item.kind:
            case "assistant":
                if batch is not None:
                    batch.flush(messages)
                batch = _Batch(item)
            case "toolCall" if batch is not None and item.batch_item_id == batch.assistant.id:
                batch.calls.append(item)
            case "user" | "steering":
                message = UserMessage(content=_user_content(item), steering=item.kind == "steering")
                if batch is not None:
                    batch.after.append(message)
                else:
                    messages.append(message)
            case _:
                pass  # notices are for the UI only; a call without its batch is dropped
    if batch is not None:
        batch.flush(messages)
    return messages


class TurnHistory:
    """``build_messages`` of a growing Turn, fed only the items stored since the last call.

    Every item of a Turn is read once: the messages of closed batches are kept, and only
    the open batch (from the last assistant item on) is rebuilt per request, so a long
    Turn costs what each step added. An item that may still change (a tool call not
    settled yet) and what follows it are not kept: they are offered again next time.
    """

    def __init__(self) -> None:
        self._closed: list[Message] = []
        self._open: list[ItemRecord] = []
        self.last_item_id: str | None = None  # the last item kept; read after it next time

    def messages(self, new_items: list[ItemRecord]) -> list[Message]:
        """The Turn's messages, given the items stored after ``last_item_id``."""
        kept = new_items
        for index, item in enumerate(new_items):
            if item.kind == "toolCall" and item.status in UNSETTLED_CALL_STATUSES:
                kept = new_items[:index]
                break
        for item in kept:
            if item.kind == "assistant" and self._open:
                self._closed.extend(build_messages(self._open))
                self._open = []
            self._open.append(item)
            self.last_item_id = item.id
        transient = new_items[len(kept) :]
        return [*self._closed, *build_messages([*self._open, *transient])]


class _Batch:
    """An assistant message whose tool calls and results are still being collected."""

    def __init__(self, assistant: ItemRecord) -> None:
        self.assistant = assistant
        self.calls: list[ItemRecord] = []
        self.after: list[Message] = []

    def flush(self, messages: list[Message]) -> None:
        calls = sorted(self.calls, key=_batch_position)
        messages.extend(_assistant_turn(self.assistant, calls))
        messages.extend(self.after)


def _batch_position(item: ItemRecord) -> int:
    return item.batch_index if item.batch_index is not None else 0


def _user_content(item: ItemRecord) -> list[UserContent]:
    content: list[UserContent] = []
    for attachment in item.extra.get("attachments", []):
        content.append(ImagePart(media_type=attachment["mediaType"], data=attachment["data"]))
    if item.text:
        content.append(TextPart(item.text))
    return content or [TextPart("(empty message)")]


def _assistant_turn(item: ItemRecord, calls: list[ItemRecord]) -> list[Message]:
    content: list[AssistantContent] = [_thinking(block) for block in thinking_blocks(item)]
    if item.text:
        content.append(TextPart(item.text))
    for call in calls:
        content.append(
            ToolCallPart(call_id=call.call_id or "", name=call.name or "", args=call.args or {})
        )
    if not content:
        content.append(TextPart("(no response)"))
    messages: list[Message] = [AssistantMessage(content=content)]
    messages.extend(_result_message(call) for call in calls)
    return messages


def thinking_blocks(item: ItemRecord) -> list[dict[str, Any]]:
    """The assistant item's thinking blocks, signatures included, as stored."""
    blocks: list[dict[str, Any]] = item.extra.get("thinkingBlocks", [])
    return blocks


def _thinking(block: dict[str, Any]) -> ThinkingPart:
    return ThinkingPart(
        text=block.get("text", ""),
        signature=block.get("signature"),
        redacted_data=block.get("redactedData"),
        item_id=block.get("itemId"),
        encrypted_content=block.get("encryptedContent"),
    )


def _result_message(call: ItemRecord) -> ToolResultMessage:
    result = call.result
    if result is None:
        return ToolResultMessage(
            call_id=call.call_id or "",
            name=call.name or "",
            content=[TextPart(SYNTHETIC_RESULT)],
            is_error=True,
        )
    return ToolResultMessage(
        call_id=call.call_id or "",
        name=call.name or "",
        content=result_content(result.get("content", "")),
        is_error=bool(result.get("isError", False)),
        tab_id=result_tab(result),
        denied=call.status == "denied",
    )


def result_tab(result: dict[str, Any]) -> int | None:
    """The browser tab a stored result describes (``details.target.tabId``), if any."""
    details = result.get("details")
    target = details.get("target") if isinstance(details, dict) else None
    tab = target.get("tabId") if isinstance(target, dict) else None
    return tab if isinstance(tab, int) and not isinstance(tab, bool) else None


def result_content(content: Any) -> list[UserContent]:
    """A stored result's ``content`` (string or blocks) as message parts."""
    if isinstance(content, str):
        return [TextPart(content or "(empty result)")]
    parts: list[UserContent] = []
    for block in content:
        if block.get("type") == "image":
            parts.append(ImagePart(media_type=block["mediaType"], data=block["data"]))
        else:
            parts.append(TextPart(block.get("text", "")))
    return parts or [TextPart("(empty result)")]


IMAGE_OMITTED = "[an image was returned here; this model cannot see images]"


def without_result_images(messages: list[Message]) -> list[Message]:
    """For a model without vision: images in tool results become a short note (images the
    user attached are still refused, with a ``capability`` error, before the call)."""
    cleaned: list[Message] = []
    for message in messages:
        if isinstance(message, ToolResultMessage) and any(
            isinstance(part, ImagePart) for part in message.content
        ):
            parts: list[UserContent] = [
                TextPart(IMAGE_OMITTED) if isinstance(part, ImagePart) else part
                for part in message.content
            ]
            message = msgspec.structs.replace(message, content=parts)
        cleaned.append(message)
    return cleaned
