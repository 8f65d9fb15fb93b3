"""A run's tool catalog: one generation filtered by model and client capabilities."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from panelot_host.providers.types import ToolSpec
from panelot_host.tools.calls import BoundCall, bind_call
from panelot_host.tools.capabilities import ModelCapabilities
from panelot_host.tools.descriptor import BrowserBinding
from panelot_host.tools.frozen import sha256_hex
from panelot_host.tools.provider_schemas import tool_spec
from panelot_host.tools.registry import Generation, RegisteredTool
from panelot_host.tools.result import ToolResult
from panelot_host.tools.validation import unknown_tool_result


class RunCatalog:
    """The tools one run offers and executes, all from one generation.

    Provider schemas and ``ToolSpec``s derive from the same descriptors the calls run.
    ``digest`` (over names and descriptor digests) goes into the turn context.
    """

    __slots__ = ("_specs", "_tools", "digest", "generation_id")

    def __init__(self, generation_id: int, tools: Iterable[RegisteredTool]) -> None:
        self.generation_id = generation_id
        self._tools: Mapping[str, RegisteredTool] = MappingProxyType(
            {t.name: t for t in sorted(tools, key=lambda t: t.name)}
        )
        self.digest = sha256_hex([[t.name, t.digest] for t in self._tools.values()])
        self._specs: tuple[ToolSpec, ...] | None = None

    @property
    def tools(self) -> Mapping[str, RegisteredTool]:
        return self._tools

    def digests(self) -> dict[str, str]:
        """name -> descriptor digest, for the run's environment snapshot."""
        return {name: tool.digest for name, tool in self._tools.items()}

    def specs(self) -> list[ToolSpec]:
        """The catalog as ``ModelRequest.tools``: built once per run (every model call of
        the run offers the same tools); adapters only read them."""
        if self._specs is None:
            self._specs = tuple(tool_spec(t.descriptor) for t in self._tools.values())
        return list(self._specs)

    def bind(self, name: str, args: Mapping[str, Any]) -> BoundCall | ToolResult:
        """Look up and validate a model's call; an error result when it is not runnable.

        A name outside the catalog or invalid arguments give an error result the model
        can correct from, and nothing is executed.
        """
        tool = self._tools.get(name)
        if tool is None:
            return unknown_tool_result(name, list(self._tools))
        return bind_call(tool, args, self.generation_id)


def new_run_catalog(
    generation: Generation, capabilities: ModelCapabilities, browser_tools: Collection[str]
) -> RunCatalog:
    """The catalog of a new run.

    ``browser_tools`` is the client's ``initialize.capabilities.browserTools``: browser
    tools it does not list are not offered. No tool use: empty. No vision: no tool that
    produces images.
    """
    if not capabilities.tool_use:
        return RunCatalog(generation.id, ())
    offered = frozenset(browser_tools)
    kept = [
        t
        for t in generation
        if _browser_offered(t, offered) and (capabilities.vision or not _images(t))
    ]
    return RunCatalog(generation.id, kept)


def recovered_run_catalog(
    generation: Generation, capabilities: ModelCapabilities, snapshot: Mapping[str, str]
) -> RunCatalog:
    """The catalog of a recovered run, from its snapshot (name -> descriptor digest).

    No tool use: empty, whatever the snapshot says.

    Raises:
        DriftError: a snapshot tool is gone or its descriptor changed.
    """
    if not capabilities.tool_use:
        return RunCatalog(generation.id, ())
    return RunCatalog(
        generation.id, [generation.require(name, digest) for name, digest in snapshot.items()]
    )


def _browser_offered(tool: RegisteredTool, offered: frozenset[str]) -> bool:
    binding = tool.descriptor.binding
    return not isinstance(binding, BrowserBinding) or binding.tool in offered


def _images(tool: RegisteredTool) -> bool:
    return tool.descriptor.produces_images
