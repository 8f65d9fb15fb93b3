"""``ToolRegistry``: the capability-metadata boundary, with digests and generations."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Literal

import msgspec

from panelot_host.errors import DriftError, InvalidToolDescriptor, NotFound
from panelot_host.tools.checks import normalise
from panelot_host.tools.descriptor import AgentTool, ExecuteFn, served_by
from panelot_host.tools.frozen import sha256_hex
from panelot_host.tools.validation import ArgumentValidator

Freshness = Literal["current", "replaced", "removed"]


def descriptor_digest(tool: AgentTool) -> str:
    """``sha256:<hex>`` over the canonical JSON of schema, safety metadata and binding.

    Covers the model-facing description and schemas, level and escalations, effects,
    recovery class, image output, trust, provenance and binding; not the UI label and
    not the Python callables (the binding names the implementation instead).
    """
    material = {
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
        "providerSchema": tool.provider_schema,
        "level": tool.level,
        "escalations": msgspec.to_builtins(tool.escalations),
        "effects": sorted(tool.effects),
        "recovery": tool.recovery,
        "producesImages": tool.produces_images,
        "trust": tool.trust,
        "provenance": msgspec.to_builtins(tool.provenance),
        "binding": msgspec.to_builtins(tool.binding),
    }
    return sha256_hex(material)


class RegisteredTool(msgspec.Struct, frozen=True):
    """A normalised, deep-frozen descriptor with its digest and compiled validator."""

    descriptor: AgentTool
    digest: str
    validator: ArgumentValidator

    @property
    def name(self) -> str:
        return self.descriptor.name

    @property
    def execute(self) -> ExecuteFn:
        return self.descriptor.execute


class Generation:
    """An immutable snapshot: name -> (descriptor, digest, execute), with an id.

    A run binds one generation; later registrations make new generations and never
    change this one, so nothing can replace a tool between its digest and its execution.
    """

    __slots__ = ("_tools", "id")

    def __init__(self, generation_id: int, tools: Mapping[str, RegisteredTool]) -> None:
        self.id = generation_id
        self._tools: Mapping[str, RegisteredTool] = MappingProxyType(dict(tools))

    @property
    def tools(self) -> Mapping[str, RegisteredTool]:
        return self._tools

    def __iter__(self) -> Iterator[RegisteredTool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def get(self, name: str) -> RegisteredTool | None:
        return self._tools.get(name)

    def require(self, name: str, digest: str) -> RegisteredTool:
        """The tool ``name`` if its digest is still ``digest`` (recovery's drift check).

        Raises:
            DriftError: the tool is gone or its descriptor changed.
        """
        tool = self._tools.get(name)
        if tool is None:
            raise DriftError(f"tool {name!r} is no longer registered")
        if tool.digest != digest:
            raise DriftError(f"tool {name!r} changed since the run started ({tool.digest})")
        return tool


class ToolRegistry:
    """Admits descriptors (see ``checks.normalise``) and publishes atomic generations.

    Every change (``register``, ``update``, ``replace_mcp_server``) is validated as a
    whole and then publishes one new ``Generation``; a failed change publishes nothing.
    Validators are compiled once per descriptor digest and reused across generations.
    """

    def __init__(self) -> None:
        self._validators: dict[str, ArgumentValidator] = {}
        self._current = Generation(0, {})

    @property
    def current(self) -> Generation:
        """The newest generation (bind it once per run)."""
        return self._current

    def register(self, tool: AgentTool) -> RegisteredTool:
        """Admit one tool. Raises ``InvalidToolDescriptor`` (bad or duplicate name/schema)."""
        return self.update(add=[tool]).tools[tool.name]

    def update(self, *, add: Iterable[AgentTool] = (), remove: Iterable[str] = ()) -> Generation:
        """Remove and add tools in one new generation (a replacement is remove + add).

        Raises:
            InvalidToolDescriptor: a descriptor is invalid or its name is taken.
            NotFound: a name in ``remove`` is not registered.
        """
        tools = dict(self._current.tools)
        for name in remove:
            if tools.pop(name, None) is None:
                raise NotFound(f"tool {name!r} is not registered")
        for tool in add:
            if tool.name in tools:
                raise InvalidToolDescriptor(f"tool {tool.name!r} is already registered")
            tools[tool.name] = self._admit(tool)
        self._current = Generation(self._current.id + 1, tools)
        return self._current

    def replace_mcp_server(self, server: str, tools: Iterable[AgentTool]) -> Generation:
        """Swap all tools of MCP ``server`` for ``tools`` (a reconnect re-listing them).

        Raises:
            InvalidToolDescriptor: a tool is invalid or not bound to ``server``.
        """
        new = list(tools)
        for tool in new:
            if not served_by(tool, server):
                raise InvalidToolDescriptor(f"tool {tool.name!r} is not bound to {server!r}")
        old = [t.name for t in self._current if served_by(t.descriptor, server)]
        return self.update(remove=old, add=new)

    def freshness(self, name: str, digest: str) -> Freshness:
        """Whether a call bound to ``digest`` still matches the newest generation."""
        tool = self._current.get(name)
        if tool is None:
            return "removed"
        return "current" if tool.digest == digest else "replaced"

    def _admit(self, tool: AgentTool) -> RegisteredTool:
        normal = normalise(tool)
        digest = descriptor_digest(normal)
        validator = self._validators.get(digest)
        if validator is None:
            validator = self._validators[digest] = ArgumentValidator(normal.parameters)
        return RegisteredTool(normal, digest, validator)
