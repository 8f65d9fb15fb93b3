"""Model capability metadata as it shapes the tool catalog and the history sent."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from panelot_host.errors import CapabilityError
from panelot_host.providers.types import ImagePart, Message, ToolResultMessage, UserMessage


class ModelCapabilities(msgspec.Struct, frozen=True, rename="camel"):
    """What the run's model can do (part of the run environment).

    ``tool_use`` False binds an empty catalog (new and recovered runs); ``vision`` False
    drops image-producing tools from a new run and forbids images in the history.
    """

    tool_use: bool
    vision: bool


def reject_image_history(messages: Sequence[Message], capabilities: ModelCapabilities) -> None:
    """Refuse to send a history holding images to a model without vision.

    Call it right before the provider call.

    Raises:
        CapabilityError: ``capabilities.vision`` is False and a user message or tool
            result holds an image.
    """
    if capabilities.vision:
        return
    for position, message in enumerate(messages):
        if isinstance(message, UserMessage | ToolResultMessage) and any(
            isinstance(part, ImagePart) for part in message.content
        ):
            where = "a tool result" if isinstance(message, ToolResultMessage) else "a message"
            raise CapabilityError(
                f"the model has no vision but the history holds an image in {where} "
                f"(message {position}); switch to a vision model or remove the image"
            )
