"""A tool call's assembled arguments (issue 25, item 2): nested deeper than
``MAX_ARGS_DEPTH`` they are an error for that call, however deep, never an exception."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from panelot_host.providers.toolargs import MAX_ARGS_DEPTH, finish_tool_call


def _nested(depth: int, kind: str = "[") -> str:
    """An arguments object whose member ``a`` makes it ``depth`` levels deep in all."""
    if kind == "[":
        inner = "[" * (depth - 1) + "]" * (depth - 1)
    else:
        inner = '{"k":' * (depth - 1) + "1" + "}" * (depth - 1)
    return '{"a":' + inner + "}"


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@pytest.mark.parametrize("kind", ["[", "{"])
@pytest.mark.parametrize("depth", [MAX_ARGS_DEPTH + 1, 999, 1000, 5000, 100_000])
def test_arguments_nested_too_deeply_are_an_error_for_that_call(depth: int, kind: str) -> None:
    end = finish_tool_call(3, "click", _nested(depth, kind))
    assert end.index == 3 and end.args == {}
    assert end.error is not None
    assert "'click'" in end.error and f"deeper than {MAX_ARGS_DEPTH} levels" in end.error


@pytest.mark.parametrize("kind", ["[", "{"])
def test_arguments_nested_to_the_limit_are_taken(kind: str) -> None:
    raw = _nested(MAX_ARGS_DEPTH, kind)
    end = finish_tool_call(0, "click", raw)
    assert end.error is None and end.args == json.loads(raw)


def test_brackets_inside_strings_and_wide_arguments_are_not_depth() -> None:
    raw = json.dumps({"text": "[{" * 5000, "rows": [[i] for i in range(5000)]})
    end = finish_tool_call(0, "type", raw)
    assert end.error is None and end.args == json.loads(raw)


@st.composite
def _arguments(draw: st.DrawFn) -> dict[str, Any]:
    """An object with one chain of arrays and objects of a drawn depth near the limit,
    and shallower siblings along the way."""
    depth = draw(st.integers(1, 6) | st.integers(MAX_ARGS_DEPTH - 2, MAX_ARGS_DEPTH + 3))
    value: Any = draw(st.sampled_from([0, "s", None, [], {}]))
    if isinstance(value, list | dict):
        depth = max(depth - 1, 1)
    for _ in range(depth - 1):
        sibling = draw(st.sampled_from([1, "[{", [], {"x": []}]))
        value = [sibling, value] if draw(st.booleans()) else {"s": sibling, "v": value}
    return {"a": value}


@given(_arguments())
def test_any_arguments_are_taken_exactly_when_they_nest_within_the_limit(
    args: dict[str, Any],
) -> None:
    end = finish_tool_call(0, "t", json.dumps(args))
    if _depth(args) <= MAX_ARGS_DEPTH:
        assert end.error is None and end.args == args
    else:
        assert end.args == {} and end.error and "nest arrays and objects deeper" in end.error
