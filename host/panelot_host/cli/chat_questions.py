"""Questions the chat asks at the prompt, and how a typed line answers them.

An answer that does not parse returns None: the session asks the same question again.
"""

from __future__ import annotations

from typing import Any

import msgspec

from panelot_host.cli.chat_render import Renderer, compact_args, one_line


class ApprovalQuestion(msgspec.Struct, frozen=True):
    """An ``approval.request``: allow once, for the thread, for the site, or deny."""

    request: dict[str, Any]

    @property
    def key(self) -> str:
        return str(self.request["requestId"])


class InteractionQuestion(msgspec.Struct, frozen=True):
    """An ``interaction.request`` (``ask_user``): a free answer or one of the options."""

    request: dict[str, Any]

    @property
    def key(self) -> str:
        return str(self.request["interactionId"])

    @property
    def options(self) -> list[str]:
        answer = self.request.get("schema", {}).get("properties", {}).get("answer", {})
        return [str(o) for o in answer.get("enum", [])]


class ResumeQuestion(msgspec.Struct, frozen=True):
    """A paused Turn (``budget_paused``, or ``interrupted`` by a host restart): resume it
    (optionally with a new budget) or end it."""

    run_id: str
    turn_id: str
    state: str = "budget_paused"

    @property
    def key(self) -> str:
        return self.run_id


Question = ApprovalQuestion | InteractionQuestion | ResumeQuestion

_ONCE = {"o", "once", "y", "yes", "a", "allow"}
_THREAD = {"t", "thread"}
_SITE = {"s", "site", "origin"}
_DENY = {"d", "deny", "n", "no"}


def ask(question: Question, out: Renderer) -> None:
    """Show ``question`` and its prompt."""
    match question:
        case ApprovalQuestion(request=request):
            _show_approval(request, out)
            out.prompt("approve> ")
        case InteractionQuestion(request=request):
            out.line(f"  ? {request.get('prompt', '')}", "bold")
            if question.options:
                choices = "  ".join(f"{i}) {o}" for i, o in enumerate(question.options, 1))
                out.line(f"    {choices}")
            out.line("    (/decline to not answer)", "dim")
            out.prompt("answer> ")
        case ResumeQuestion(state=state):
            why = (
                "the token budget is used up"
                if state == "budget_paused"
                else "the last turn was cut off when the host stopped"
            )
            out.line(
                f"  = paused: {why}. Resume? "
                "[y]es · [n]o (ends the turn) · or a new budget in tokens, e.g. 20000",
                "bold",
            )
            out.prompt("resume> ")


def _show_approval(request: dict[str, Any], out: Renderer) -> None:
    tool = request.get("tool", {})
    effects = ", ".join(tool.get("effects", [])) or "no declared effects"
    origin = request.get("target", {}).get("origin")
    where = f" on {origin}" if origin else ""
    out.line(f"  ? allow {tool.get('name', '?')} ({effects}){where}?", "bold")
    out.line(f"    args: {compact_args(request.get('args', {}))}")
    site = " · [s]ite (this origin)" if origin else ""
    out.line(f"    [o]nce · [t]hread (always in this thread){site} · [d]eny [reason]", "dim")


def approval_answer(question: ApprovalQuestion, text: str) -> dict[str, Any] | None:
    """``approval.response`` params (without ``commandId``) for ``text``, or None."""
    word, _, rest = text.strip().partition(" ")
    word = word.lower().rstrip(":,")
    base: dict[str, Any] = {"requestId": question.key}
    if word in _ONCE:
        return {**base, "decision": "allow", "scope": "once"}
    if word in _THREAD:
        return {**base, "decision": "allow", "scope": "thread"}
    if word in _SITE and question.request.get("target", {}).get("origin"):
        return {**base, "decision": "allow", "scope": "origin"}
    if word in _DENY:
        denied = {**base, "decision": "deny", "scope": "once"}
        return {**denied, "message": rest.strip()} if rest.strip() else denied
    return None


def interaction_answer(question: InteractionQuestion, text: str) -> str | None:
    """The ``answer`` value for ``text``: an option (by number or name) or free text."""
    answer = text.strip()
    options = question.options
    if not answer or not options:
        return answer or None
    if answer.isdigit() and 1 <= int(answer) <= len(options):
        return options[int(answer) - 1]
    matches = [o for o in options if o.lower() == answer.lower()]
    return matches[0] if matches else None


def resume_answer(text: str) -> tuple[bool, int | None] | None:
    """(resume?, new budget) for ``text``, or None when it is neither yes, no nor a number."""
    answer = text.strip().lower()
    if answer.isdigit() and int(answer) > 0:
        return True, int(answer)
    if answer in {"y", "yes"}:
        return True, None
    if answer in {"n", "no"}:
        return False, None
    return None


def invalid_hint(question: Question) -> str:
    match question:
        case ApprovalQuestion():
            return "answer o (once), t (thread), s (site) or d [reason] (deny)"
        case InteractionQuestion():
            options = question.options
            if options:
                return "pick a number or one of: " + one_line(", ".join(options), 80)
            return "type an answer (or /decline)"
        case ResumeQuestion():
            return "answer y, n or a token budget"
