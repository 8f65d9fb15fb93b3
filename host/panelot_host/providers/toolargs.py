"""Assemble a tool call's streamed argument fragments into its arguments object."""

from __future__ import annotations

from typing import Any, Final

import msgspec

from panelot_host.providers.types import ToolCallEnd

MAX_ARGS_DEPTH: Final = 64
"""Deepest nesting of arrays and objects accepted in one call's arguments (the arguments
object counts as one level). Tool schemas nest a few levels. Arguments are re-encoded in
every later request, validated and walked by the Gatekeeper, and carried in protocol items
four levels down (the protocol refuses an incoming message deeper than 100 levels); past
~1,000 levels the decoder itself raises ``RecursionError``. Deeper arguments are an error
for that call, which the model can correct from."""

_decode = msgspec.json.Decoder()


def finish_tool_call(index: int, name: str, raw: str) -> ToolCallEnd:
    """The ``ToolCallEnd`` for a call whose argument JSON text is ``raw``.

    Empty text means no arguments (``{}``). Invalid JSON, a non-object, or arguments nested
    deeper than ``MAX_ARGS_DEPTH`` give ``args={}`` and an ``error`` the engine turns into a
    failed tool result the model can correct from.
    """
    if not raw.strip():
        return ToolCallEnd(index=index, args={})
    try:
        args: Any = _decode.decode(raw)
    except msgspec.DecodeError as exc:
        return _failed(
            index,
            f"the arguments of tool call {name!r} are not valid JSON ({exc}); "
            "send them again as one JSON object",
        )
    except RecursionError:  # nested about 1,000 levels or more
        return _too_deep(index, name)
    if not isinstance(args, dict):
        return _failed(
            index,
            f"the arguments of tool call {name!r} must be a JSON object, got {type(args).__name__}",
        )
    if raw.count("[") + raw.count("{") > MAX_ARGS_DEPTH and _nests_deeper(args):
        return _too_deep(index, name)
    return ToolCallEnd(index=index, args=args)


def _failed(index: int, error: str) -> ToolCallEnd:
    return ToolCallEnd(index=index, args={}, error=error)


def _too_deep(index: int, name: str) -> ToolCallEnd:
    return _failed(
        index,
        f"the arguments of tool call {name!r} nest arrays and objects deeper than "
        f"{MAX_ARGS_DEPTH} levels; send them again, nested at most {MAX_ARGS_DEPTH} levels",
    )


def _nests_deeper(args: dict[str, Any]) -> bool:
    """True when ``args`` holds arrays and objects more than ``MAX_ARGS_DEPTH`` levels
    deep, itself included; walked one level at a time (no recursion)."""
    level: list[Any] = [args]
    for _ in range(MAX_ARGS_DEPTH):
        level = [
            child
            for container in level
            for child in (container.values() if isinstance(container, dict) else container)
            if isinstance(child, dict | list)
        ]
        if not level:
            return False
    return True
