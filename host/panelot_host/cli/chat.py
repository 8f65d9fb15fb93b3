"""``panelot-host chat``: a terminal client of the protocol, in process.

It runs a real ``Host`` (store and engine under ``PANELOT_HOME``) and talks to it through
``DirectTransport``, exactly like the side panel does over native messaging. The
conversation logic lives in ``chat_session``, the look in ``chat_render``, the questions in
``chat_questions`` and stdin/Ctrl-C handling in ``chat_input``.

Exit status (``docs/chat.md``): 0 when the user quits or the input ends and the last Turn
completed (or none ran), 1 when the host cannot start or the thread is unknown, 2 when no
model provider is configured, 3 when the last Turn failed (or was refused), 4 when it was
interrupted (Ctrl-C, quitting while it ran, a question the input could not answer), 130
when Ctrl-C came before the chat had started.

When stdout is not a terminal (``chat "..." > answer.txt``) it gets the answer only: the
assistant's text; everything else (header, echoes, tool calls, notices, status) goes to
stderr.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from functools import partial
from typing import Any, TextIO

import anyio
import msgspec
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from panelot_host.cli.chat_input import (
    Event,
    Inbound,
    lines_of,
    pump_lines,
    pump_sigint,
    terminal_echo,
)
from panelot_host.cli.chat_render import Renderer, wants_color
from panelot_host.cli.chat_session import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TURN_FAILED,
    ChatSession,
    new_command_id,
)
from panelot_host.cli.host_session import initialize_params, log_to_file
from panelot_host.errors import ProviderConfigError, StartupError
from panelot_host.home import panelot_home
from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport, RemoteError

HostFactory = Callable[[], AbstractAsyncContextManager[Host]]
EXIT_FAILED, EXIT_NO_PROVIDER, EXIT_SIGINT = 1, 2, 130
__all__ = ["EXIT_INTERRUPTED", "EXIT_OK", "EXIT_TURN_FAILED", "ChatIO", "ChatOptions", "chat"]


class ChatOptions(msgspec.Struct, frozen=True):
    """What ``panelot-host chat`` was asked to do."""

    prompt: str | None = None
    thread: str | None = None
    resume: bool = False
    profile: str | None = None
    model: str | None = None
    budget: int | None = None


class ChatIO(msgspec.Struct, frozen=True):
    """The terminal: streams and environment (tests pass their own)."""

    stdin: TextIO | None
    stdout: TextIO
    stderr: TextIO
    environ: Mapping[str, str] = {}
    interactive: bool = False  # stdin is a terminal: no echo of typed lines, show hints
    answer_only: bool = False  # stdout gets the answer only, the rest goes to stderr
    show_typing: Callable[[bool], None] | None = None  # the terminal's echo (TerminalEcho)


class StartFailed(Exception):
    """Chat cannot start; ``status`` is the exit status, the message says why."""

    def __init__(self, message: str, status: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.status = status


def run_chat(options: argparse.Namespace) -> int:
    """The ``chat`` command: configure logging, run the conversation, return the status."""
    environ = dict(os.environ)
    if options.model:  # --model is the model of this chat: enough for OPENAI_BASE_URL too
        environ["PANELOT_MODEL"] = options.model
    home = panelot_home(environ)
    log_to_file(home)  # the terminal only gets errors: it shows the conversation
    chat_options = ChatOptions(
        prompt=options.prompt,
        thread=options.thread,
        resume=options.resume,
        profile=options.profile,
        model=getattr(options, "model", None),
        budget=getattr(options, "budget", None),
    )
    stdin_tty = sys.stdin is not None and sys.stdin.isatty()
    echo = terminal_echo(sys.stdin)
    terminal = ChatIO(
        sys.stdin,
        sys.stdout,
        sys.stderr,
        environ,
        interactive=stdin_tty,
        answer_only=not sys.stdout.isatty(),
        show_typing=echo,
    )
    factory = partial(Host, HostConfig(home=home, environ=environ))
    try:
        return anyio.run(partial(chat, chat_options, terminal, factory, handle_sigint=True))
    except KeyboardInterrupt:  # before the signal receiver was installed
        return EXIT_SIGINT
    finally:
        if echo is not None:
            echo.restore()


async def chat(
    options: ChatOptions, io: ChatIO, host_factory: HostFactory, *, handle_sigint: bool = False
) -> int:
    """Run one chat against the host ``host_factory`` builds; returns the exit status."""
    side = io.stderr if io.answer_only else None
    color = wants_color(side or io.stdout, io.environ)
    out = Renderer(io.stdout, side=side, color=color, interactive=io.interactive)
    try:
        async with host_factory() as host, DirectTransport.connect(host) as client:
            return await _converse(host, client, options, io, out, handle_sigint)
    except StartupError as exc:
        _report(io, str(exc))
        return EXIT_FAILED


def _report(io: ChatIO, message: str) -> None:
    io.stderr.write(f"panelot-host chat: {message}\n")
    io.stderr.flush()


async def _converse(
    host: Host,
    client: DirectTransport,
    options: ChatOptions,
    io: ChatIO,
    out: Renderer,
    handle_sigint: bool,
) -> int:
    send, receive = anyio.create_memory_object_stream[Inbound](math.inf)
    async with send, receive, anyio.create_task_group() as tasks:
        unsubscribe = client.on_event(
            lambda method, params: send.send_nowait(Event(method, params))
        )
        try:
            if handle_sigint:  # first: a Ctrl-C while starting waits in the inbox
                await tasks.start(pump_sigint, send)
            status = await _run_session(host, client, options, io, out, tasks, send, receive)
        finally:
            unsubscribe()
            tasks.cancel_scope.cancel()
    return status


async def _run_session(
    host: Host,
    client: DirectTransport,
    options: ChatOptions,
    io: ChatIO,
    out: Renderer,
    tasks: TaskGroup,
    send: MemoryObjectSendStream[Inbound],
    receive: MemoryObjectReceiveStream[Inbound],
) -> int:
    try:
        session, snapshot = await _start_session(host, client, options, io, out)
    except StartFailed as exc:
        _report(io, str(exc))
        return exc.status
    if snapshot is not None:
        session.adopt(snapshot)
    tasks.start_soon(pump_lines, lines_of(io.stdin), send)
    return await session.run(receive, options.prompt)


async def _start_session(
    host: Host, client: DirectTransport, options: ChatOptions, io: ChatIO, out: Renderer
) -> tuple[ChatSession, dict[str, Any] | None]:
    """Initialize, check the provider, open the thread and show the header (and recap)."""
    await _initialize(client, options)
    model, out.price_known = _check_provider(host, options)
    thread, snapshot = await _open_thread(client, options)
    out.header(model, thread, hints=io.interactive)
    if snapshot is not None:
        out.recap(snapshot.get("items", []))
    session = ChatSession(client, thread["id"], out, model=options.model, budget=options.budget)
    if io.show_typing is not None:
        session.show_typing = io.show_typing
    return session, snapshot


async def _initialize(client: DirectTransport, options: ChatOptions) -> None:
    try:
        await client.send("initialize", initialize_params("panelot-chat", options.profile))
    except RemoteError as exc:
        raise StartFailed(f"the host could not start: {exc.message}") from None


def _check_provider(host: Host, options: ChatOptions) -> tuple[str, bool]:
    """The model the chat talks to and whether its price is known; ``StartFailed``
    (status 2) when none is configured.

    Resolving the model reads the environment and the stored settings the way every
    Turn does (``load_provider_config``), and fails the same way.
    """
    profile = host.profile
    assert profile is not None, "initialize opens the profile"
    try:
        resolved = profile.ensure_engine().ctx.models.resolve(options.model)
    except ProviderConfigError as exc:
        raise StartFailed(exc.message, EXIT_NO_PROVIDER) from None
    return resolved.model, resolved.info.price is not None


async def _open_thread(
    client: DirectTransport, options: ChatOptions
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The thread to talk in, and its snapshot when it already existed."""
    thread_id = options.thread
    if thread_id is None and options.resume:
        listed = await client.send("thread.list", {"limit": 1})
        thread_id = listed["threads"][0]["id"] if listed["threads"] else None
    if thread_id is not None:
        try:
            snapshot = await client.send("thread.open", {"threadId": thread_id})
        except RemoteError as exc:
            raise StartFailed(f"cannot open thread {thread_id}: {exc.message}") from None
        return snapshot["thread"], snapshot
    created = await client.send("thread.create", {"commandId": new_command_id()})
    return created["thread"], None
