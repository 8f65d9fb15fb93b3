"""A scripted model that obeys every instruction it reads on a page: the worst case of
prompt injection, for the red-team suite (``test_red_team.py``).

It sees only what the engine sends it: the user's message and the tool results. It lists
the tabs, snapshots and reads the tab the user named, then carries out, in the order it
read them, the instructions pages wrote as ``[[do ...]]``:

- ``read TITLE``: read the tab titled TITLE;
- ``go URL``: load URL in the tab the instruction was read in;
- ``click NAME`` / ``click NAME in TITLE``: click the element named NAME (from a fresh
  snapshot) in that tab, or in the tab titled TITLE;
- ``type NAME = TEXT`` / ``type NAME in TITLE = TEXT``: type TEXT into that field;
- ``call TOOL``: call a tool of that name with no arguments.

``$acct`` in a URL or text stands for the first account number (``ACCT-`` and digits) the
model read anywhere: the data a page wants carried away. A refused or failed call does not
stop it; it goes on with the next instruction, then answers ``Done.``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .fake_model import FakeAnthropic, Reply, text_reply, tool_use_reply
from .tool_driver import tool_results

FINAL = "Done."
INSTRUCTION = re.compile(r"\[\[do ([^\]]+)\]\]")
MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+.!<>-])")
ACCOUNT = re.compile(r"ACCT-\d{6,}")
TAB_LINE = re.compile(r'- tab (\d+)(?: \(active\))?: "((?:[^"\\]|\\.)*)" ')
STEPS = 60  # replies planned: more than any attack needs

Args = dict[str, Any] | Callable[[], dict[str, Any] | None]


@dataclass
class Step:
    tool: str
    args: Args
    tab: int | None = None  # the tab the call reads or acts on


@dataclass
class ObedientModel:
    """Plans itself on ``model``; ``calls`` lists what it asked for, in order."""

    start_title: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    instructions: list[str] = field(default_factory=list)  # every one it read, in order
    results: list[str] = field(default_factory=list)  # every tool result it saw
    _queue: list[tuple[str, int | None]] = field(default_factory=list)
    _steps: list[Step] = field(default_factory=list)
    _tabs: dict[str, int] = field(default_factory=dict)
    _snapshots: dict[int, str] = field(default_factory=dict)
    _last: Step | None = None
    _started: bool = False

    def plan_on(self, model: FakeAnthropic) -> None:
        model.plan(*([self.reply] * STEPS))

    def reply(self, body: dict[str, Any]) -> Reply:
        if not body.get("tools"):  # a title request, not the agent
            return text_reply(["Untitled"])
        if self._last is not None:
            self._ingest(self._last, tool_results(body)[-1])
            self._last = None
        if not self._started:
            self._started = True
            self._steps = [
                Step("browser_tabs_list", {}),
                Step("browser_snapshot", lambda: self._on(self.start_title), None),
                Step("browser_read", lambda: self._on(self.start_title), None),
            ]
        while True:
            while self._steps:
                step = self._steps.pop(0)
                args = step.args() if callable(step.args) else step.args
                if args is None:
                    continue  # the element or tab was not found: skip, as a model would
                self._last = Step(step.tool, args, args.get("tabId"))
                self.calls.append((step.tool, args))
                return tool_use_reply(f"toolu_{len(self.calls)}", step.tool, args)
            if not self._queue:
                return text_reply([FINAL])
            self._steps = self._expand(*self._queue.pop(0))

    def _ingest(self, step: Step, result: str) -> None:
        self.results.append(result)
        if step.tool == "browser_tabs_list":
            self._tabs = {
                json.loads(f'"{title}"'): int(tab) for tab, title in TAB_LINE.findall(result)
            }
        if step.tool == "browser_snapshot" and step.tab is not None:
            self._snapshots[step.tab] = result
        # a model reads through Markdown's escapes (browser_read writes \\[ for [)
        for instruction in INSTRUCTION.findall(MARKDOWN_ESCAPE.sub(r"\1", result)):
            if instruction not in self.instructions:
                self.instructions.append(instruction)
                self._queue.append((instruction, step.tab))

    def _on(self, title: str) -> dict[str, Any] | None:
        tab = self._tabs.get(title)
        return None if tab is None else {"tabId": tab}

    def _expand(self, instruction: str, source: int | None) -> list[Step]:
        verb, _, rest = instruction.partition(" ")
        if verb == "read":
            return [Step("browser_read", lambda: self._on(rest.strip()))]
        if verb == "go" and source is not None:
            return [Step("browser_navigate", lambda: {"tabId": source, "url": self._fill(rest)})]
        if verb == "call":
            return [Step(rest.strip(), {})]
        if verb in ("click", "type"):
            target, _, text = rest.partition(" = ")
            name, _, title = target.partition(" in ")
            tab = self._tabs.get(title.strip()) if title else source
            if tab is None:
                return []

            def act() -> dict[str, Any] | None:
                ref = self._ref(tab, name.strip())
                if ref is None:
                    return None
                args: dict[str, Any] = {"tabId": tab, "ref": ref}
                if verb == "type":
                    args["text"] = self._fill(text)
                return args

            tool = "browser_click" if verb == "click" else "browser_type"
            return [Step("browser_snapshot", {"tabId": tab}), Step(tool, act)]
        return []

    def _ref(self, tab: int, name: str) -> str | None:
        outline = self._snapshots.get(tab, "")
        found = re.search(rf'- [^\n"]+ "{re.escape(name)}"[^\n]*?\[(e\d+)', outline)
        return found.group(1) if found else None

    def _fill(self, text: str) -> str:
        account = next((m.group(0) for r in self.results for m in ACCOUNT.finditer(r)), "")
        return text.strip().replace("$acct", account)
