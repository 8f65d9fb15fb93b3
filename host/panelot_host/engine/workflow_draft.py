"""``workflow.propose``: a workflow draft from a finished Turn's stored items (issue 29).

Its browser steps that change something are kept (reads, snapshots, screenshots and tab
lists are not); each element a step acted on is described semantically from the
``browser_snapshot`` of the same tab that preceded it (``tools.outline``); the values typed
or selected become named parameters; the goal is the Turn's user message.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from panelot_host.protocol.workflows import (
    ExpectAppears,
    Expectation,
    ExpectNavigation,
    ExpectValue,
    SemanticTarget,
    WorkflowDefinition,
    WorkflowParameter,
    WorkflowSource,
    WorkflowStep,
)
from panelot_host.store.records import ItemRecord
from panelot_host.tools import outline

REPLAYED_TOOLS = frozenset(
    {"browser_navigate", "browser_navigate_back", "browser_click", "browser_double_click",
     "browser_hover", "browser_type", "browser_select_option", "browser_press_key",
     "browser_tab_new", "browser_handle_dialog", "browser_scroll"}
)  # fmt: skip
"""Browser tools a workflow replays (the others only read, or name a tab by its id)."""
_DROPPED_ARGS = ("ref", "tabId")


class Draft(msgspec.Struct, frozen=True):
    definition: WorkflowDefinition
    skipped: int


def result_text(call: ItemRecord) -> str:
    content = (call.result or {}).get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))


def _tab_of(call: ItemRecord) -> tuple[int | None, dict[str, Any]]:
    target = call.call_extra.target or {}
    return target.get("tabId"), target


class _Builder:
    def __init__(self) -> None:
        self.parameters: list[WorkflowParameter] = []
        self.outlines: dict[int | None, outline.Outline] = {}

    def parameter(self, label: str, value: str, kind: str) -> str:
        base = re.sub(r"[^a-z0-9]+", "_", label.casefold()).strip("_")[:40] or "value"
        if base[0].isdigit():
            base = "p_" + base
        name, n = base, 2
        while any(p.name == name for p in self.parameters):
            name, n = f"{base}_{n}", n + 1
        self.parameters.append(
            WorkflowParameter(name=name, label=label or name, default=value, kind=kind)  # type: ignore[arg-type]
        )
        return "{{" + name + "}}"

    def target(self, call: ItemRecord) -> tuple[SemanticTarget | None, str]:
        ref = (call.args or {}).get("ref")
        if not isinstance(ref, str):
            return None, ""
        tab, where = _tab_of(call)
        origin = where.get("origin")
        seen = self.outlines.get(tab)
        node = seen.by_ref(ref) if seen is not None else None
        if seen is not None and node is not None:
            target = outline.target_of(seen, node, origin)
            if target.url_pattern is None and where.get("url"):
                target = msgspec.structs.replace(
                    target, url_pattern=outline.url_pattern(where["url"])
                )
            return target, node.name
        parsed = outline.parse_element(where.get("element") or "")
        if parsed is None:
            return None, ""
        url = where.get("url")
        pattern = outline.url_pattern(url) if url else None
        target = SemanticTarget(role=parsed[0], name=parsed[1], origin=origin, url_pattern=pattern)
        return target, parsed[1]

    def step(self, call: ItemRecord, later: list[ItemRecord]) -> WorkflowStep:
        args = {k: v for k, v in (call.args or {}).items() if k not in _DROPPED_ARGS}
        target, label = self.target(call)
        name = call.name or ""
        expect: Expectation | None = None
        if name == "browser_type" and isinstance(args.get("text"), str):
            args["text"] = self.parameter(label or "text", args["text"], "text")
            expect = ExpectValue(value=args["text"])
        elif name == "browser_select_option" and args.get("values"):
            values = [str(v) for v in args["values"]]
            args["values"] = [self.parameter(label or "option", values[0], "option"), *values[1:]]
            expect = ExpectValue(value=args["values"][0])
        elif name == "browser_navigate" and isinstance(args.get("url"), str):
            expect = ExpectNavigation(url_pattern=outline.url_pattern(args["url"]))
        elif name in ("browser_click", "browser_double_click", "browser_press_key"):
            expect = self.effect(call, later)
        title = _title(name, args, target)
        return WorkflowStep(tool=name, arguments=args, target=target, expect=expect, title=title)

    def effect(self, call: ItemRecord, later: list[ItemRecord]) -> Expectation | None:
        """A click's effect: the next call on its tab started on another URL (a
        navigation), or the next snapshot of the tab shows a named element that was not
        there before (it appeared)."""
        tab, where = _tab_of(call)
        for after in later:
            after_tab, after_where = _tab_of(after)
            if after_tab != tab or after.status != "succeeded":
                continue
            url, before_url = after_where.get("url"), where.get("url")
            if url and before_url and url != before_url:
                return ExpectNavigation(url_pattern=outline.url_pattern(url))
            if after.name == "browser_snapshot":
                return self._appeared(tab, outline.parse(result_text(after)))
        return None

    def _appeared(self, tab: int | None, after: outline.Outline) -> Expectation | None:
        before = self.outlines.get(tab)
        if before is None:
            return None
        known = {(n.role, outline.normalised(n.name)) for n in before.nodes}
        for node in after.nodes:
            if node.name and (node.role, outline.normalised(node.name)) not in known:
                return ExpectAppears(role=node.role, name=node.name)
        return None


def _title(tool: str, args: dict[str, Any], target: SemanticTarget | None) -> str:
    what = outline.describe(target.role, target.name) if target else ""
    match tool:
        case "browser_navigate":
            return f"Go to {args.get('url', '')}"
        case "browser_type":
            return f"Type {args.get('text', '')!r} into {what}"
        case "browser_select_option":
            return f"Select {', '.join(map(str, args.get('values', [])))} in {what}"
        case "browser_press_key":
            return f"Press {args.get('key', '')}"
        case _:
            verb = tool.removeprefix("browser_").replace("_", " ").capitalize()
            return f"{verb} {what}".strip()


def propose(thread_id: str, turn_id: str, stored: list[ItemRecord]) -> Draft:
    """The draft of the Turn whose items (in order) are ``stored``."""
    builder = _Builder()
    steps: list[WorkflowStep] = []
    skipped = 0
    goal = next((i.text or "" for i in stored if i.kind == "user"), "")
    calls = [i for i in stored if i.kind == "toolCall"]
    for index, call in enumerate(calls):
        name = call.name or ""
        if name == "browser_snapshot" and call.status == "succeeded":
            if not (call.args or {}).get("ref"):  # a region's outline is not the page's
                builder.outlines[_tab_of(call)[0]] = outline.parse(result_text(call))
            skipped += 1
            continue
        if name not in REPLAYED_TOOLS or call.status != "succeeded":
            skipped += 1
            continue
        steps.append(builder.step(call, calls[index + 1 :]))
    name = " ".join(goal.split())[:60] or "Workflow"
    definition = WorkflowDefinition(
        name=name,
        goal=goal.strip(),
        parameters=builder.parameters,
        steps=steps,
        source=WorkflowSource(thread_id=thread_id, turn_id=turn_id),
    )
    return Draft(definition, skipped)
