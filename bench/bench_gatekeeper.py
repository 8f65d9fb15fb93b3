"""Per tool call: argument validation + Gatekeeper decision, with 200 registered tools.

Run: .venv/bin/python bench/bench_gatekeeper.py
Prints the median (target <= 50 us) and, measured in the same run, a baseline: a bare
dict lookup plus jsonschema ``is_valid`` of the same arguments.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from jsonschema import Draft202012Validator

from panelot_host.gatekeeper import Gatekeeper, Grant, PolicyRule, Target
from panelot_host.tools import (
    BROWSER_TOOL_NAMES,
    AgentTool,
    BoundCall,
    BuiltinBinding,
    ModelCapabilities,
    ToolRegistry,
    ToolResult,
    browser_tools,
    builtin_tools,
    new_run_catalog,
)
from panelot_host.tools.frozen import thaw

TOOLS = 200
ROUNDS = 20_000
TARGET = Target(tab_id=1, url="https://shop.example/cart", origin="https://shop.example")
NOW = datetime(2025, 1, 1, tzinfo=UTC)


async def _noop(args: dict[str, Any], context: Any) -> ToolResult:
    return ToolResult(content="ok")


def synthetic(i: int) -> AgentTool:
    return AgentTool(
        name=f"tool_{i:03d}",
        label=f"Tool {i}",
        description=f"Synthetic tool number {i}.",
        parameters={
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        level="L0",
        effects=frozenset({"read", "network"} if i % 2 else {"read"}),
        recovery="read",
        binding=BuiltinBinding(f"bench:tool_{i}"),
        execute=_noop,
    )


def setup() -> tuple[Any, list[PolicyRule], list[Grant], list[tuple[str, dict[str, Any]]]]:
    registry = ToolRegistry()
    fixed = [*builtin_tools(), *browser_tools(BROWSER_TOOL_NAMES)]
    registry.update(add=[*fixed, *(synthetic(i) for i in range(TOOLS - len(fixed)))])
    assert len(registry.current) == TOOLS
    catalog = new_run_catalog(registry.current, ModelCapabilities(True, True), BROWSER_TOOL_NAMES)
    rules = [
        PolicyRule(decision="deny", origin="https://*.bank.example"),
        PolicyRule(decision="ask", tool="browser_navigate", origin="https://shop.example"),
        PolicyRule(decision="allow", tool="tool_0*"),
        PolicyRule(decision="deny", effect="external"),
        PolicyRule(decision="ask", effect="network", origin="https://ads.example"),
        *(PolicyRule(decision="allow", tool=f"tool_1{i}*") for i in range(5)),
    ]
    grants = [
        Grant(
            id=f"g{i}",
            scope="thread",
            tool=f"tool_{i:03d}",
            decision="allow",
            created_at=NOW,
            thread_id="t1",
        )
        for i in range(20)
    ] + [
        Grant(
            id="gc",
            scope="origin",
            tool="browser_click",
            decision="allow",
            created_at=NOW,
            origin="https://shop.example",
        )
    ]
    calls: list[tuple[str, dict[str, Any]]] = [
        ("browser_click", {"ref": "e12"}),
        ("browser_type", {"ref": "e3", "text": "running shoes", "submit": True}),
        ("browser_read", {}),
        ("tool_042", {"query": "weather", "limit": 5, "tags": ["a", "b"]}),
        ("tool_150", {"query": "news"}),
    ]
    return catalog, rules, grants, calls


def median_us(op: Callable[[int], object]) -> tuple[float, float]:
    samples = []
    for i in range(ROUNDS):
        start = time.perf_counter_ns()
        op(i)
        samples.append(time.perf_counter_ns() - start)
    samples.sort()
    return statistics.median(samples) / 1000, samples[int(len(samples) * 0.9)] / 1000


def main() -> None:
    catalog, rules, grants, calls = setup()
    gatekeeper = Gatekeeper(rules)

    def validate_and_decide(i: int) -> object:
        name, args = calls[i % len(calls)]
        call = catalog.bind(name, args)
        assert isinstance(call, BoundCall)
        target = TARGET if call.tool.descriptor.level != "L0" else None
        return gatekeeper.decide(call, target, thread_id="t1", grants=grants)

    plain = {
        n: Draft202012Validator(thaw(t.descriptor.parameters)) for n, t in catalog.tools.items()
    }

    def baseline(i: int) -> object:
        name, args = calls[i % len(calls)]
        return plain[name].is_valid(args)

    median_us(validate_and_decide)  # warm up
    med, p90 = median_us(validate_and_decide)
    base_med, base_p90 = median_us(baseline)
    print(
        f"registered tools: {TOOLS}, policy rules: {len(rules)}, grants: {len(grants)}, "
        f"calls: {ROUNDS}"
    )
    print(f"validation + Gatekeeper decision: median {med:.1f} us, p90 {p90:.1f} us")
    print(
        f"baseline (dict lookup + jsonschema is_valid): median {base_med:.1f} us, "
        f"p90 {base_p90:.1f} us"
    )
    print(
        f"overhead over baseline: {med - base_med:.1f} us; target median <= 50 us: "
        f"{'OK' if med <= 50 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
