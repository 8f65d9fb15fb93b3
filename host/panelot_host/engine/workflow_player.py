"""The deterministic player of a workflow run (issue 29): a ``Provider`` the agent loop
drives like a model. For each step it asks for a fresh ``browser_snapshot`` (the previous
step's check serves when there was one), resolves the step's semantic target on it, calls
the step's tool with the resolved ref (through the normal engine path: the Gatekeeper
decides, "ask" asks) and checks the expected effect on a follow-up snapshot. It reports 0
tokens.

It keeps no state a restart would lose: every decision is derived from the conversation
(its calls carry ids ``wf_<turn>_<step><s|a|c>``, their results are in the request). When
a step cannot be resolved or its effect does not show, it says so (an assistant message,
stop reason ``pause_turn``) and from the next call on hands the conversation to the
configured model, with the workflow as the plan, the steps done and the divergence. A
step the Gatekeeper or the user denies is no divergence: the run ends there (the model is
not asked to find another way to do what was refused).
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from typing import Any

import msgspec

from panelot_host.engine.models import ResolvedModel
from panelot_host.gatekeeper.denials import ADVICE
from panelot_host.protocol.workflows import (
    ExpectAppears,
    ExpectNavigation,
    ExpectValue,
    WorkflowDefinition,
    WorkflowRunRecord,
    WorkflowStep,
)
from panelot_host.providers.types import (
    AssistantMessage,
    Message,
    MessageStop,
    ModelRequest,
    ProviderEvent,
    TextDelta,
    TextPart,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from panelot_host.tools import outline

DIVERGED = "The workflow stopped at step"
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class Call(msgspec.Struct, frozen=True):
    step: int
    call_id: str
    tool: str
    args: dict[str, Any]


class Diverged(msgspec.Struct, frozen=True):
    step: int
    why: str


class Refused(msgspec.Struct, frozen=True):
    """A step's call was denied (by a rule, a standing decision or the user): the run ends."""

    step: int
    why: str


class Done(msgspec.Struct, frozen=True):
    pass


Decision = Call | Diverged | Refused | Done


def fill(value: Any, parameters: dict[str, str]) -> Any:
    """``value`` with every ``{{name}}`` replaced by its parameter's value."""
    if isinstance(value, str):
        return _PLACEHOLDER.sub(lambda m: parameters.get(m[1], m[0]), value)
    if isinstance(value, list):
        return [fill(v, parameters) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, parameters) for k, v in value.items()}
    return value


def call_prefix(turn_id: str) -> str:
    """The prefix of the player's call ids in the Turn ``turn_id``."""
    return "wf_" + re.sub(r"[^A-Za-z0-9]", "", turn_id)[-12:] + "_"


def _text(result: ToolResultMessage) -> str:
    return "\n".join(p.text for p in result.content if isinstance(p, TextPart))


class WorkflowPlayer:
    """A ``Provider`` replaying ``workflow`` with ``parameters``; ``fallback``: the model
    it hands over to (None: none is configured; the engine then pauses the run)."""

    def __init__(
        self,
        workflow: WorkflowDefinition,
        parameters: dict[str, str],
        turn_id: str,
        fallback: ResolvedModel | None,
        *,
        opens_tab: bool = False,
    ) -> None:
        self.workflow = workflow
        self.opens_tab = opens_tab  # a first step that loads a page opens the run's own tab
        self.parameters = parameters
        self.prefix = call_prefix(turn_id)
        self.fallback = fallback
        self.replayed: list[int] = []
        self.divergence: Diverged | None = None
        self.refusal: Refused | None = None
        self.handed_over = False

    def record(self, workflow_id: str, trigger: str) -> WorkflowRunRecord:
        """What the Turn records of this run so far."""
        return WorkflowRunRecord(
            workflow_id=workflow_id,
            name=self.workflow.name,
            trigger="schedule" if trigger == "schedule" else "user",
            replayed_steps=list(self.replayed),
            diverged_at=self.divergence.step if self.divergence else None,
            divergence=self.divergence.why if self.divergence else None,
            handed_over=self.handed_over,
            denied_at=self.refusal.step if self.refusal else None,
        )

    # ------------------------------------------------------------ deciding

    def decide(self, messages: list[Message]) -> Decision:
        """The next thing to do, from the results of the player's calls so far."""
        results = {
            m.call_id: m
            for m in messages
            if isinstance(m, ToolResultMessage) and m.call_id.startswith(self.prefix)
        }
        self.replayed = []
        for index, raw in enumerate(self.workflow.steps):
            step = msgspec.convert(fill(msgspec.to_builtins(raw), self.parameters), WorkflowStep)
            # the previous step's check is a fresh snapshot of the page this step acts on
            carried = results.get(self._id(index - 1, "c")) if index else None
            outcome = self._step(index, step, results, carried)
            if outcome is not None:
                if isinstance(outcome, Diverged):
                    self.divergence = outcome
                elif isinstance(outcome, Refused):
                    self.refusal = outcome
                return outcome
            self.replayed.append(index)
        return Done()

    def _id(self, index: int, part: str) -> str:
        return f"{self.prefix}{index}{part}"

    def _step(
        self,
        index: int,
        step: WorkflowStep,
        results: dict[str, ToolResultMessage],
        carried: ToolResultMessage | None,
    ) -> Decision | None:
        args = dict(step.arguments)
        resolved: outline.Node | None = None
        if step.target is not None:
            snap = results.get(self._id(index, "s"), carried)
            if snap is None:
                return Call(index, self._id(index, "s"), "browser_snapshot", {})
            if snap.is_error:
                return Diverged(index, f"no snapshot of the page: {_text(snap)}")
            page = outline.parse(_text(snap))
            elsewhere = _elsewhere(step, page)
            if elsewhere is not None:
                return Diverged(index, elsewhere)
            found = outline.resolve(step.target, page)
            if isinstance(found, outline.Unresolved):
                return Diverged(index, f"looked for {found.looked_for}; found {found.found}")
            resolved = found.node
            args["ref"] = resolved.ref
        act = results.get(self._id(index, "a"))
        if act is None:
            if index == 0 and self.opens_tab and step.tool == "browser_navigate":
                # the thread's own tab, in the background: the user's tab is left alone
                return Call(index, self._id(index, "a"), "browser_tab_new", {"url": args["url"]})
            return Call(index, self._id(index, "a"), step.tool, args)
        if act.denied:
            return Refused(index, _text(act).replace(ADVICE, "").strip()[:300])
        if act.is_error:
            return Diverged(index, f"{step.tool} did not succeed: {_text(act)[:300]}")
        if step.expect is None:
            return None
        check = results.get(self._id(index, "c"))
        if check is None:
            return Call(index, self._id(index, "c"), "browser_snapshot", {})
        why = _unmet(step, outline.parse(_text(check)))
        return None if why is None else Diverged(index, why)

    # ------------------------------------------------------------ the Provider seam

    def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        return self._stream(request)

    async def _stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        decision = self.decide(request.messages)
        match decision:
            case Call():
                for event in _call_events(decision):
                    yield event
                yield MessageStop("tool_use", Usage(), "workflow")
            case Done():
                text = f'Workflow "{self.workflow.name}" done: {len(self.replayed)} steps replayed.'
                yield TextDelta(text)
                yield MessageStop("end_turn", Usage(), "workflow")
            case Refused():
                yield TextDelta(self._refused(decision))
                yield MessageStop("end_turn", Usage(), "workflow")
            case Diverged():
                announced = _announcement(request.messages, self.prefix)
                if announced is None:
                    yield TextDelta(self._announce(decision))
                    yield MessageStop("pause_turn", Usage(), "workflow")
                    return
                async for event in self._hand_over(request, decision, announced):
                    yield event

    async def _hand_over(
        self, request: ModelRequest, divergence: Diverged, at: int
    ) -> AsyncGenerator[ProviderEvent, None]:
        if self.fallback is None:  # the engine pauses before it gets here
            yield TextDelta("No model is configured to continue the workflow.")
            yield MessageStop("end_turn", Usage(), "workflow")
            return
        self.handed_over = True
        plan = UserMessage([TextPart(self.handover_text(divergence))])
        messages = [*request.messages[: at + 1], plan, *request.messages[at + 1 :]]
        model = self.fallback
        forwarded = msgspec.structs.replace(request, model=model.model, messages=messages)
        async for event in model.provider.stream(forwarded):
            yield event

    def _title(self, index: int) -> str:
        """Step ``index``'s title as this run does it (its parameters filled in)."""
        step = self.workflow.steps[index]
        return str(fill(step.title or step.tool, self.parameters))

    def _announce(self, divergence: Diverged) -> str:
        title = self._title(divergence.step)
        return f"{DIVERGED} {divergence.step + 1} ({title}): {divergence.why}. " + (
            "Handing over to the model." if self.fallback else "No model is configured."
        )

    def _refused(self, refusal: Refused) -> str:
        title = self._title(refusal.step)
        left = len(self.workflow.steps) - refusal.step - 1
        rest = f"; the {left} steps after it were not done" if left > 1 else ""
        rest = "; the step after it was not done" if left == 1 else rest
        return (
            f"{DIVERGED} {refusal.step + 1} ({title}): the call was denied, so the run "
            f"ends here{rest}. {refusal.why}"
        )

    def handover_text(self, divergence: Diverged) -> str:
        """What the model is told when it takes over: the plan, what was done, where the
        replay diverged, and what to do."""
        lines = [
            f'You are continuing the saved workflow "{self.workflow.name}", which was being '
            "replayed without a model until it diverged from the page.",
            f"Goal: {self.workflow.goal or self.workflow.name}",
            "Plan (the workflow's steps):",
        ]
        for index in range(len(self.workflow.steps)):
            mark = "done" if index in self.replayed else "to do"
            if index == divergence.step:
                mark = "diverged here"
            lines.append(f"  {index + 1}. [{mark}] {self._title(index)}")
        if self.parameters:
            values = ", ".join(f"{k}={v!r}" for k, v in sorted(self.parameters.items()))
            lines.append(f"Parameters: {values}")
        lines.append(f"Divergence at step {divergence.step + 1}: {divergence.why}.")
        lines.append(
            "Take a fresh browser_snapshot, then finish the remaining steps toward the goal "
            "as the page now is. Do not redo the steps marked done."
        )
        return "\n".join(lines)


def _announcement(messages: list[Message], prefix: str) -> int | None:
    """The index of the player's divergence message, when it was already given: the
    first assistant message after the player's last result (a divergence always follows
    one of its results)."""
    last = max(
        (i for i, m in enumerate(messages)
         if isinstance(m, ToolResultMessage) and m.call_id.startswith(prefix)),
        default=None,
    )  # fmt: skip
    if last is None:
        return None
    for index in range(last + 1, len(messages)):
        message = messages[index]
        if isinstance(message, AssistantMessage) and any(
            isinstance(p, TextPart) and p.text.startswith(DIVERGED) for p in message.content
        ):
            return index
    return None


def _call_events(call: Call) -> list[ProviderEvent]:
    raw = msgspec.json.encode(call.args).decode()
    return [
        ToolCallStart(index=0, call_id=call.call_id, name=call.tool),
        ToolCallArgsDelta(index=0, fragment=raw),
        ToolCallEnd(index=0, args=call.args),
    ]


def _elsewhere(step: WorkflowStep, page: outline.Outline) -> str | None:
    """Why the page is not one the step may act on: another site than recorded (a
    workflow never clicks on a site it was not recorded on, whatever the element's name)."""
    origin = step.target.origin if step.target else None
    if origin is None or page.url is None:
        return None
    if outline.origin_of(page.url) == origin:
        return None
    return f"expected a page of {origin}; the tab is at {page.url}"


def _unmet(step: WorkflowStep, after: outline.Outline) -> str | None:
    """Why the step's expected effect does not show on ``after`` (None: it shows)."""
    match step.expect:
        case ExpectNavigation(url_pattern=pattern):
            if after.url is not None and outline.url_matches(pattern, after.url):
                return None
            return f"expected the tab to reach {pattern}; it is at {after.url or 'an unknown URL'}"
        case ExpectAppears(role=role, name=name):
            if outline.has_element(after, role, name):
                return None
            return f"expected {outline.describe(role, name)} to appear; it did not"
        case ExpectValue(value=value):
            if step.target is None:
                return None
            found = outline.resolve(step.target, after)
            if isinstance(found, outline.Unresolved) or found.node.value is None:
                return None  # the field is gone (a submit) or shows no value: nothing to compare
            shown, wanted = outline.normalised(found.node.value), outline.normalised(value)
            if wanted in shown or shown in wanted:
                return None
            element = outline.describe(found.node.role, found.node.name)
            return f"expected {element} to be {value!r}; it shows {found.node.value!r}"
        case _:
            return None
