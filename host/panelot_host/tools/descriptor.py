"""The ``AgentTool`` descriptor (`docs/engine.md`, "Tool contract") and its safety vocabulary."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal

import msgspec

from panelot_host import vocabulary
from panelot_host.tools.context import ToolContext
from panelot_host.tools.result import ToolResult
from panelot_host.tools.target import Target

Level = vocabulary.ToolLevel
Effect = vocabulary.Effect
RecoveryClass = vocabulary.RecoveryClass
Trust = Literal["trusted", "untrusted"]
UserSupplied = Literal["files"]

LEVEL_ORDER: Mapping[Level, int] = {"L0": 0, "L1": 1, "L2": 2}
EFFECTS: frozenset[Effect] = frozenset({"read", "write", "navigate", "network", "external"})

ExecuteFn = Callable[[dict[str, Any], ToolContext], Awaitable[ToolResult]]
TargetResolver = Callable[[Mapping[str, Any]], Awaitable[Target | None]]


class BuiltinBinding(msgspec.Struct, tag="builtin", frozen=True):
    """Runs inside the host; ``function`` names the implementation (module:qualname)."""

    function: str
    version: str = "1"


class BrowserBinding(msgspec.Struct, tag="browser", frozen=True, rename="camel"):
    """Runs in the browser through the shim's ``browser.invoke`` under ``tool``.

    ``destination`` names the argument holding the URL the call loads (a navigation): the
    Gatekeeper then decides it by that URL's origin, not by the tab's current one.
    ``delivers`` says, in words ("types into"), how the call puts what the model chose into
    its target's origin; content read from other origins then never rides on a site grant
    alone (``gatekeeper.provenance``). None for calls that deliver nothing (reads, closing
    or switching tabs, going back). ``acts_on`` says whether the call acts on an open tab
    (``tab``), opens a new one (``new_tab``) or touches none (``nothing``: listing tabs
    or downloads): only a call on an open tab can act on a tab its thread does not own.
    """

    tool: str
    protocol_version: int = 1
    destination: str | None = None
    delivers: str | None = None
    acts_on: Literal["tab", "new_tab", "nothing"] = "tab"


class McpBinding(msgspec.Struct, tag="mcp", frozen=True, rename="camel"):
    """A tool of an MCP server. ``endpoint`` is the URL or the stdio command line;
    ``auth_identity`` names who we authenticate as (a credential reference and its
    fingerprint, never a secret); ``remote_name`` is the tool's name on the server.
    """

    server: str
    endpoint: str
    remote_name: str
    auth_identity: str | None = None


Binding = BuiltinBinding | BrowserBinding | McpBinding


class Provenance(msgspec.Struct, frozen=True, rename="camel"):
    """Who declared the descriptor: ``source`` kind and a name (module, MCP server)."""

    source: Literal["builtin", "browser", "mcp"]
    declared_by: str


class LevelEscalation(msgspec.Struct, frozen=True):
    """Raise the call's level to ``level`` when ``args[arg] == equals``.

    A declarative level function of the arguments (it is covered by the digest, which a
    Python callable could not be).
    """

    arg: str
    equals: str | int | bool | None
    level: Level


class AgentTool(msgspec.Struct, frozen=True, kw_only=True):
    """One tool: what the model sees, what the Gatekeeper decides by, how it runs.

    ``parameters`` is the runtime JSON Schema (Draft 2020-12, an object schema) the
    arguments are validated against; ``provider_schema`` optionally replaces it in what
    providers see (e.g. without a top-level ``anyOf`` Anthropic rejects). ``level`` is the
    base level, ``escalations`` raise it for some arguments (see ``level_for``).
    ``produces_images`` marks tools a model without vision is not offered. ``trust`` says
    whether the output may be believed (``untrusted``: page or MCP content, data only).
    ``resolve_target`` overrides how the target is found (browser tools ask the shim).
    ``user_supplies`` names what only the user gives, at each call, on the approval card
    (``files``: picked for an upload); such a call is always asked and no grant covers it.
    ``execute`` returns a ``ToolResult`` and may raise ``errors.ToolError``.
    """

    name: str
    label: str
    description: str
    parameters: Mapping[str, Any]
    level: Level
    effects: frozenset[Effect]
    recovery: RecoveryClass
    binding: Binding
    execute: ExecuteFn
    provider_schema: Mapping[str, Any] | None = None
    escalations: tuple[LevelEscalation, ...] = ()
    produces_images: bool = False
    trust: Trust = "trusted"
    provenance: Provenance | None = None
    resolve_target: TargetResolver | None = None
    user_supplies: UserSupplied | None = None

    def level_for(self, args: Mapping[str, Any]) -> Level:
        """The level of a call with ``args``: the base level or the highest escalation."""
        level = self.level
        for rule in self.escalations:
            if _matches(args, rule) and LEVEL_ORDER[rule.level] > LEVEL_ORDER[level]:
                level = rule.level
        return level


def served_by(tool: AgentTool, server: str) -> bool:
    """Whether ``tool`` is a tool of the MCP server ``server``."""
    return isinstance(tool.binding, McpBinding) and tool.binding.server == server


def _matches(args: Mapping[str, Any], rule: LevelEscalation) -> bool:
    # type() as well as ==: True == 1 in Python, but `fullPage: 1` is not `fullPage: true`
    if rule.arg not in args:
        return False
    value = args[rule.arg]
    return type(value) is type(rule.equals) and value == rule.equals
