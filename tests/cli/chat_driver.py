"""Driving ``panelot-host chat`` in process: a screen to wait on, stdin as a real pipe,
and a session whose inbox the test feeds (typed lines, Ctrl-C, end of input)."""

from __future__ import annotations

import io
import math
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any, TextIO

import anyio
from anyio.streams.memory import MemoryObjectSendStream
from tests.support.fixed_models import FixedModels

from panelot_host.cli.chat import ChatIO, ChatOptions, chat
from panelot_host.cli.chat_input import EndOfInput, Event, Inbound, Line
from panelot_host.cli.chat_render import Renderer
from panelot_host.cli.chat_session import ChatSession
from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.scripted import ScriptedProvider
from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport


class Screen(io.StringIO):
    """What the chat printed; tests wait for text to appear."""

    async def wait_for(self, text: str, *, after: int = 0, within_s: float = 10.0) -> int:
        """Wait until ``text`` appears at or after ``after``; returns the index past it."""
        with anyio.move_on_after(within_s):
            while True:
                found = self.getvalue().find(text, after)
                if found >= 0:
                    return found + len(text)
                await anyio.sleep(0.01)
        raise AssertionError(f"{text!r} did not appear; the screen shows:\n{self.getvalue()}")


class Keyboard:
    """The write end of a pipe that is the chat's stdin."""

    def __init__(self) -> None:
        read_fd, write_fd = os.pipe()
        self.stdin: TextIO = os.fdopen(read_fd, "r", encoding="utf-8")
        self._writer = os.fdopen(write_fd, "w", encoding="utf-8")

    def type(self, line: str) -> None:
        self._writer.write(line + "\n")
        self._writer.flush()

    def close(self) -> None:
        if not self._writer.closed:
            self._writer.close()

    def dispose(self) -> None:
        self.close()
        self.stdin.close()


def scripted_host(home: Path, provider: ScriptedProvider, info: ModelInfo) -> partial[Host]:
    models = FixedModels(provider, info)
    return partial(Host, HostConfig(home=home, lease_wait_s=0.5), models=lambda _db: models)


async def run_chat(
    options: ChatOptions,
    home: Path,
    provider: ScriptedProvider,
    info: ModelInfo,
    *,
    stdin: TextIO | None = None,
    screen: Screen | None = None,
    stderr: io.StringIO | None = None,
) -> int:
    terminal = ChatIO(stdin, screen or Screen(), stderr or io.StringIO())
    return await chat(options, terminal, scripted_host(home, provider, info))


class Driver:
    """A running ``ChatSession`` and the inbox the test types into."""

    def __init__(self, session: ChatSession, inbox: MemoryObjectSendStream[Inbound]) -> None:
        self.session = session
        self.inbox = inbox
        self.status: int | None = None
        self.done = anyio.Event()

    async def send(self, message: Inbound) -> None:
        await self.inbox.send(message)

    async def type(self, text: str) -> None:
        await self.inbox.send(Line(text))

    async def finished(self, within_s: float = 10.0) -> int:
        with anyio.fail_after(within_s):
            await self.done.wait()
        assert self.status is not None
        return self.status


@asynccontextmanager
async def driven_session(
    client: DirectTransport, thread_id: str, screen: Screen, **options: Any
) -> AsyncIterator[Driver]:
    """Run a session on ``thread_id``; on exit, end the input and wait for it to finish."""
    send, receive = anyio.create_memory_object_stream[Inbound](math.inf)
    unsubscribe = client.on_event(lambda method, params: send.send_nowait(Event(method, params)))
    driver = Driver(ChatSession(client, thread_id, Renderer(screen), **options), send)

    async def run() -> None:
        driver.status = await driver.session.run(receive, None)
        driver.done.set()

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run)
            yield driver
            if not driver.done.is_set():
                await send.send(EndOfInput())
            await driver.finished()
    finally:
        unsubscribe()
