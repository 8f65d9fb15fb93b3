"""The chat's conversation logic: one thread, one message at a time from one inbox.

Lines become ``turn.submit`` when the thread is idle, ``turn.steer`` while a Turn runs
(``turn.enqueue`` when the Turn no longer admits steering) and answers while a question
(approval, ``ask_user``, budget pause) waits. Ctrl-C interrupts the running Turn; a second
Ctrl-C, or Ctrl-C when idle, quits. At the end of piped input the session quits once the
thread is idle; a question that can no longer be answered interrupts its Turn. At a
terminal the end of input (Ctrl-D) quits like ``/quit``: the running Turn is interrupted
first. Lines starting with ``/word`` are commands (``COMMANDS``) and never reach the model;
``//`` sends a line that starts with ``/``.

``run`` returns the exit status: ``EXIT_OK`` unless the last Turn the chat saw end failed
(``EXIT_TURN_FAILED``, also when ``turn.submit`` was refused) or was interrupted
(``EXIT_INTERRUPTED``).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream

from panelot_host.cli.chat_input import CtrlC, EndOfInput, Event, Inbound, Line
from panelot_host.cli.chat_questions import (
    ApprovalQuestion,
    InteractionQuestion,
    Question,
    ResumeQuestion,
    approval_answer,
    ask,
    interaction_answer,
    invalid_hint,
    resume_answer,
)
from panelot_host.cli.chat_render import Renderer, one_line
from panelot_host.server.transport import EngineTransport, RemoteError

INTERRUPT_WAIT_S = 10.0  # how long quitting waits for the running Turn to stop
QUIT_COMMANDS = frozenset({"/quit", "/exit"})
COMMANDS = {
    "/help": "list these commands",
    "/quit": "quit (a running turn is interrupted first); also /exit and Ctrl-D",
    "/exit": "the same as /quit",
    "/decline": "decline to answer the agent's question (ask_user)",
}
_COMMAND = re.compile(r"/[A-Za-z][\w-]*")
EXIT_OK, EXIT_TURN_FAILED, EXIT_INTERRUPTED = 0, 3, 4
_EXIT_OF = {"failed": EXIT_TURN_FAILED, "interrupted": EXIT_INTERRUPTED}


def command_word(typed: str) -> str | None:
    """The ``/word`` a typed line starts with, or None for a message (``//`` escapes)."""
    first = typed.split(maxsplit=1)[0] if typed else ""
    return first.lower() if _COMMAND.fullmatch(first) else None


def help_text() -> list[str]:
    width = max(len(c) for c in COMMANDS)
    lines = [f"{name.ljust(width)}  {what}" for name, what in COMMANDS.items()]
    lines.append("//text".ljust(width) + "  send a message that starts with /")
    return lines


def new_command_id() -> str:
    return str(uuid.uuid4())


class ChatSession:
    """Drives one thread from typed lines and engine events; see the module docstring."""

    def __init__(
        self,
        client: EngineTransport,
        thread_id: str,
        out: Renderer,
        *,
        model: str | None = None,
        budget: int | None = None,
        command_id: Callable[[], str] = new_command_id,
    ) -> None:
        self.client = client
        self.thread_id = thread_id
        self.out = out
        self._model = model
        self._budget = budget
        self._command_id = command_id
        self.running: str | None = None  # the running (or paused) Turn
        self.questions: list[Question] = []
        self.queued = 0
        self.input_ended = False
        self.quitting = False
        self._interrupt_sent = False
        self._tasks: TaskGroup | None = None
        self.outcome: str | None = None  # how the last Turn ended ("failed" when refused)
        # told whether what the user types should be visible (the terminal's echo): not
        # while the agent writes, so steering never lands inside the reply
        self.show_typing: Callable[[bool], None] = _ignore

    @property
    def exit_status(self) -> int:
        return _EXIT_OF.get(self.outcome or "", EXIT_OK)

    @property
    def turn_running(self) -> bool:
        return self.running is not None

    @property
    def finished(self) -> bool:
        if self.quitting:
            return True
        idle = self.running is None and not self.queued and not self.questions
        return self.input_ended and idle

    async def run(self, inbox: MemoryObjectReceiveStream[Inbound], first: str | None) -> int:
        """Handle messages until the user quits or the input ended and the thread is idle."""
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            if first and first.strip():
                if not self.out.echo_user:  # typed on the command line, not at the prompt
                    self.out.line(f"you> {first.strip()}", "bold")
                await self.submit(first.strip())
            self._next_prompt()
            async for message in inbox:
                await self.handle(message)
                if self.finished:
                    break
            await self._stop_running_turn(inbox)
            tasks.cancel_scope.cancel()
        return self.exit_status

    async def handle(self, message: Inbound) -> None:
        match message:
            case Event(method=method, params=params):
                await self.on_event(method, params)
            case Line(text=text):
                await self.on_line(text)
            case EndOfInput():
                await self.on_end_of_input()
            case CtrlC():
                self.on_ctrl_c()

    # ------------------------------------------------------------ adopting a thread

    def adopt(self, snapshot: dict[str, Any]) -> None:
        """Take over an opened thread's live state: its Turn, questions and queue."""
        turn, run = snapshot.get("turn"), snapshot.get("run")
        if turn and turn.get("status") in ("running", "paused"):
            self.running = turn["id"]
        for request in snapshot.get("pendingApprovals", []):
            self.questions.append(ApprovalQuestion(request))
        for request in snapshot.get("pendingInteractions", []):
            self.questions.append(InteractionQuestion(request))
        if self.running and run and run.get("state") in ("budget_paused", "interrupted"):
            self.questions.append(ResumeQuestion(run["id"], run["turnId"], run["state"]))
        self.queued = len(snapshot.get("queue", []))

    # ------------------------------------------------------------ events

    async def on_event(self, method: str, params: dict[str, Any]) -> None:
        if params.get("threadId", self.thread_id) != self.thread_id:
            return
        self.out.event(method, params)
        match method:
            case "turn.started":
                self._set_running(params["turnId"])
            case "turn.complete":
                self.outcome = params.get("status")
                self._turn_ended(params["turnId"])
            case "queue.updated":
                self.queued = len(params.get("queue", []))
            case "approval.request":
                await self._add_question(ApprovalQuestion(params))
            case "interaction.request":
                await self._add_question(InteractionQuestion(params))
            case "approval.resolved":
                self._drop_question(str(params.get("requestId")))
            case "interaction.resolved":
                self._drop_question(str(params.get("interactionId")))
            case "turn.paused":
                await self._paused(params)

    async def _paused(self, params: dict[str, Any]) -> None:
        if params.get("reason") != "budget":
            self.out.info(
                "paused: a tool call's outcome is uncertain; resolve it in the side panel, "
                "or press Ctrl-C to end the turn"
            )
            return
        run_id = params.get("runId") or await self._run_id()
        if run_id:
            await self._add_question(ResumeQuestion(run_id, params["turnId"], "budget_paused"))

    async def _run_id(self) -> str | None:
        snapshot = await self.client.send("thread.open", {"threadId": self.thread_id})
        run = snapshot.get("run")
        return str(run["id"]) if run else None

    def _set_running(self, turn_id: str) -> None:
        self.running, self._interrupt_sent = turn_id, False
        self._typing_visible()

    def _turn_ended(self, turn_id: str) -> None:
        if self.running == turn_id:
            self.running = None
            self._typing_visible()
        self.questions.clear()  # whatever the Turn waited for has been settled with it
        self._next_prompt()

    async def _add_question(self, question: Question) -> None:
        if any(q.key == question.key for q in self.questions):
            return
        self.questions.append(question)
        self._typing_visible()
        if len(self.questions) == 1:
            ask(question, self.out)
        if self.input_ended:
            self.out.info("no input left to answer with: interrupting the turn")
            await self.interrupt()

    def _drop_question(self, key: str) -> None:
        was_first = bool(self.questions) and self.questions[0].key == key
        self.questions = [q for q in self.questions if q.key != key]
        self._typing_visible()
        if was_first:
            self._next_prompt()

    def _typing_visible(self) -> None:
        self.show_typing(self.running is None or bool(self.questions))

    def _next_prompt(self) -> None:
        if self.finished:
            return
        if self.questions:
            ask(self.questions[0], self.out)
        elif self.running is None and not self.queued:
            self.out.prompt("you> ")

    # ------------------------------------------------------------ typed input

    async def on_line(self, text: str) -> None:
        typed = text.strip()
        word = command_word(typed)
        if word in QUIT_COMMANDS:
            self.quitting = True
        elif word == "/help":
            for line in help_text():
                self.out.info_after_reply(line)
            self._next_prompt()
        elif word is not None and not (word == "/decline" and self._asks_user()):
            why = "no question from the agent waits" if word in COMMANDS else "unknown command"
            self.out.info_after_reply(f"{why}: {word} not sent · /help lists the commands")
            self._next_prompt()
        elif self.questions:
            await self._answer(self.questions[0], typed)
        elif not typed:
            self._next_prompt()
        elif self.running is not None:
            await self.steer(_unescaped(typed))
        else:
            await self.submit(_unescaped(typed))

    def _asks_user(self) -> bool:
        return bool(self.questions) and isinstance(self.questions[0], InteractionQuestion)

    async def on_end_of_input(self) -> None:
        self.input_ended = True
        if self.out.interactive:  # Ctrl-D at a terminal: quit, interrupting the turn first
            self.quitting = True
            return
        if self.questions and self.running is not None:
            self.out.info("input ended while a question waits: interrupting the turn")
            await self.interrupt()

    def on_ctrl_c(self) -> None:
        if self.running is None or self._interrupt_sent:
            self.quitting = True
            self.out.info("bye")
            return
        self.out.info("interrupting · press Ctrl-C again to quit")
        assert self._tasks is not None
        self._tasks.start_soon(self.interrupt)

    # ------------------------------------------------------------ ops

    async def submit(self, text: str) -> None:
        params: dict[str, Any] = {
            "commandId": self._command_id(),
            "threadId": self.thread_id,
            "text": text,
        }
        if self._model:
            params["model"] = self._model
        if self._budget:
            params["tokenBudget"] = self._budget
        try:
            result = await self.client.send("turn.submit", params)
        except RemoteError as exc:
            if exc.kind == "turn_active":
                await self.enqueue(text)
            else:
                self.outcome = "failed"
                self.out.error(exc.message)
                self._next_prompt()
            return
        if self.running != result["turnId"]:
            self._set_running(result["turnId"])

    async def steer(self, text: str) -> None:
        assert self.running is not None
        params = {
            "commandId": self._command_id(),
            "threadId": self.thread_id,
            "expectedTurnId": self.running,
            "text": text,
        }
        try:
            await self.client.send("turn.steer", params)
        except RemoteError as exc:
            if exc.kind == "stale_turn":
                await self.enqueue(text)
            else:
                self.out.error(exc.message)
            return
        self.out.info_after_reply(f"steering: {one_line(text, 80)} (read before the next step)")

    async def enqueue(self, text: str) -> None:
        params = {"commandId": self._command_id(), "threadId": self.thread_id, "text": text}
        try:
            await self.client.send("turn.enqueue", params)
        except RemoteError as exc:
            self.out.error(exc.message)
            return
        # queue.updated (already in the inbox) says whether it waits or has started
        self.out.info("the turn takes no more steering: this message runs as the next turn")

    async def interrupt(self) -> None:
        """``turn.interrupt`` for the running Turn (returns once the Turn has stopped)."""
        self._interrupt_sent = True
        params: dict[str, Any] = {"threadId": self.thread_id}
        if self.running is not None:
            params["turnId"] = self.running
        try:
            await self.client.send("turn.interrupt", params)
        except RemoteError as exc:
            self.out.error(exc.message)

    async def _stop_running_turn(self, inbox: MemoryObjectReceiveStream[Inbound]) -> None:
        """Quitting: end the running Turn so the thread is idle when it is resumed, and
        show how it ended."""
        if self.running is None:
            return
        with anyio.move_on_after(INTERRUPT_WAIT_S, shield=True):
            await self.interrupt()
            async for message in inbox:
                if isinstance(message, Event):
                    await self.on_event(message.method, message.params)
                if not self.turn_running:
                    break

    # ------------------------------------------------------------ answers

    async def _answer(self, question: Question, typed: str) -> None:
        match question:
            case ApprovalQuestion():
                params = approval_answer(question, typed)
                sent = params is not None and await self._respond("approval.response", params)
            case InteractionQuestion():
                sent = await self._answer_interaction(question, typed)
            case ResumeQuestion():
                sent = await self._answer_resume(question, typed)
        if not sent:
            self.out.info(invalid_hint(question))
            ask(question, self.out)
            return
        self._drop_question(question.key)

    async def _answer_interaction(self, question: InteractionQuestion, typed: str) -> bool:
        params: dict[str, Any] = {"interactionId": question.key}
        if typed == "/decline":
            return await self._respond(
                "interaction.response", {**params, "values": {}, "action": "decline"}
            )
        answer = interaction_answer(question, typed)
        if answer is None:
            return False
        return await self._respond("interaction.response", {**params, "values": {"answer": answer}})

    async def _answer_resume(self, question: ResumeQuestion, typed: str) -> bool:
        answer = resume_answer(typed)
        if answer is None:
            return False
        resume, budget = answer
        if not resume:
            await self.interrupt()
            return True
        params: dict[str, Any] = {"threadId": self.thread_id, "runId": question.run_id}
        if budget is not None:
            params["tokenBudget"] = budget
        return await self._respond("run.resume", params)

    async def _respond(self, method: str, params: dict[str, Any]) -> bool:
        """Send an answer; False when it was invalid (ask again), True otherwise."""
        try:
            await self.client.send(method, {"commandId": self._command_id(), **params})
        except RemoteError as exc:
            self.out.error(exc.message)
            return exc.kind != "invalid_params"
        return True


def _unescaped(typed: str) -> str:
    """``//text`` sends ``/text``."""
    return typed[1:] if typed.startswith("//") else typed


def _ignore(_: bool) -> None:
    return None
