"""The domain vocabulary is the protocol's: one definition, the wire's values."""

from __future__ import annotations

from typing import get_args

from panelot_host import vocabulary
from panelot_host.gatekeeper import models as gatekeeper_models
from panelot_host.protocol import common, items
from panelot_host.tools import descriptor


def test_the_protocol_store_and_tools_use_the_vocabularys_types() -> None:
    for name in ("RunState", "ToolCallStatus", "TurnStatus", "TurnEndStatus", "StopReason",
                 "Decision", "ApprovalScope", "GrantScope", "PauseReason", "TitleSource",
                 "ToolLevel", "Effect", "RecoveryClass", "RecoveryOutcome",
                 "InteractionAction"):  # fmt: skip
        assert getattr(common, name) is getattr(vocabulary, name), name
    assert descriptor.Level is vocabulary.ToolLevel
    assert gatekeeper_models.GrantDecision is vocabulary.Decision


def test_item_kinds_are_the_tags_of_the_protocols_items() -> None:
    tags = {member.__struct_config__.tag for member in get_args(items.Item)}
    assert tags == set(get_args(vocabulary.ItemKind))
