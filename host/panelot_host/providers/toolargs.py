"""Assemble a tool call's streamed argument fragments into its arguments object."""

from __future__ import annotations

from typing import Any

import msgspec

from panelot_host.providers.types import ToolCallEnd

_decode = msgspec.json.Decoder()


def finish_tool_call(index: int, name: str, raw: str) -> ToolCallEnd:
    """The ``ToolCallEnd`` for a call whose argument JSON text is ``raw``.

    Empty text means no arguments (``{}``). Invalid JSON or a non-object gives ``args={}`` and
    an ``error`` the engine turns into a failed tool result the model can correct from.
    """
    if not raw.strip():
        return ToolCallEnd(index=index, args={})
    try:
        args: Any = _decode.decode(raw)
    except msgspec.DecodeError as exc:
        return ToolCallEnd(
            index=index,
            args={},
            error=f"the arguments of tool call {name!r} are not valid JSON ({exc}); "
            "send them again as one JSON object",
        )
    if not isinstance(args, dict):
        return ToolCallEnd(
            index=index,
            args={},
            error=f"the arguments of tool call {name!r} must be a JSON object, "
            f"got {type(args).__name__}",
        )
    return ToolCallEnd(index=index, args=args)
