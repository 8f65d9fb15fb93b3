"""One tool call bound to a run's generation: validated arguments and execution."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from panelot_host.errors import OutcomeUnknown, ToolError
from panelot_host.tools.context import ToolContext
from panelot_host.tools.descriptor import Level
from panelot_host.tools.frozen import deep_freeze, thaw
from panelot_host.tools.registry import RegisteredTool
from panelot_host.tools.result import ToolResult, error_result
from panelot_host.tools.validation import invalid_arguments_result


class BoundCall(msgspec.Struct, frozen=True):
    """A call whose tool is in the catalog and whose arguments are valid.

    ``generation_id`` and ``tool.digest`` identify exactly what will run; ``level`` is
    the level for these arguments (``AgentTool.level_for``).
    """

    tool: RegisteredTool
    args: Mapping[str, Any]  # deep-frozen
    generation_id: int
    level: Level

    @property
    def name(self) -> str:
        return self.tool.name

    def arguments(self) -> dict[str, Any]:
        """A fresh mutable copy of the arguments."""
        result: dict[str, Any] = thaw(self.args)
        return result

    async def execute(self, context: ToolContext) -> ToolResult:
        """Run the tool. Its errors become error results; cancellation propagates.

        ``errors.ToolError`` and any other ``Exception`` from the tool become an error
        result (a failure for the streak); anyio cancellation (interrupt) and
        ``errors.OutcomeUnknown`` (the answer was lost after dispatch) are re-raised.
        """
        try:
            result: object = await self.tool.execute(self.arguments(), context)
        except OutcomeUnknown:
            raise  # not a result: the engine decides (uncertain for a write)
        except ToolError as exc:
            return error_result(f"Tool `{self.name}` failed: {exc.message}")
        except Exception as exc:
            return error_result(
                f"Tool `{self.name}` failed unexpectedly ({type(exc).__name__}: {exc})",
                details={"exception": type(exc).__name__},
            )
        if not isinstance(result, ToolResult):
            return error_result(f"Tool `{self.name}` returned no result (a bug in the tool)")
        return result


def bind_call(
    tool: RegisteredTool, args: Mapping[str, Any], generation_id: int
) -> BoundCall | ToolResult:
    """Validate ``args`` for ``tool``: a ``BoundCall``, or an error result naming each field."""
    if not tool.validator.is_valid(args):
        return invalid_arguments_result(tool.name, tool.validator.violations(args))
    frozen = deep_freeze(args)
    return BoundCall(tool, frozen, generation_id, tool.descriptor.level_for(frozen))
