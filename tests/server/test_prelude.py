"""The prelude (``server.prelude``): ``initialize`` and ``thread.list`` answered over a real
pipe before any event loop, and everything else handed over untouched, with the store it
opened and the session it initialized."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from panelot_host.errors import LeaseUnavailable
from panelot_host.protocol.codec import encode_request
from panelot_host.server.config import HostConfig
from panelot_host.server.prelude import (
    NEXT_REQUEST_WAIT_S,
    Handover,
    Initialized,
    answer_first_requests,
    can_answer,
)
from panelot_host.store import threads, turns
from panelot_host.store.db import Database
from panelot_host.store.lease import WriterLease
from panelot_host.store.profiles import database_path
from panelot_host.wire import FrameError, decode_frames, encode_frame
from panelot_host.wire.blocking import BlockingFrames

INIT = {"protocolVersion": 1, "client": {"name": "pytest", "version": "0"}}


def _request(request_id: int, method: str, params: Any) -> bytes:
    return encode_frame(encode_request(request_id, method, params))


INIT_FRAME = _request(1, "initialize", INIT)
LIST_FRAME = _request(2, "thread.list", {"limit": 10})


class Client:
    """The browser's end of the host's stdin, and what the prelude wrote back."""

    def __init__(self, home: Path) -> None:
        self.config = HostConfig(home=home)
        self.read_end, self.write_end = os.pipe()
        self.written: list[bytes] = []

    def send(self, *frames: bytes) -> None:
        os.write(self.write_end, b"".join(frames))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.write_end)

    def run(self, write: Any = None) -> Handover | int:
        frames = BlockingFrames(self.read_end)
        return answer_first_requests(self.config, frames, write or self._collect)

    def _collect(self, buffers: list[bytes]) -> None:
        self.written.append(b"".join(buffers))

    def answers(self) -> list[dict[str, Any]]:
        payloads = decode_frames(b"".join(self.written))
        return [msgspec.json.decode(p) for p in payloads if isinstance(p, bytes)]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    made = Client(tmp_path / "home")
    handlers = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGHUP)}
    yield made
    made.close()
    os.close(made.read_end)
    for number, handler in handlers.items():  # a handover leaves the prelude's installed
        signal.signal(number, handler)


def _handed_over(handover: Handover | int) -> Handover:
    """The handover, with the stop-signal handlers it leaves for the server put back."""
    assert isinstance(handover, Handover)
    handover.stop_signals.uninstall()
    return handover


def _close(handover: Handover) -> None:
    if handover.store is not None:
        handover.store.close()


def _lease_is_free(home: Path) -> bool:
    lease = WriterLease(database_path(home, None), wait_s=0.0)
    try:
        lease.acquire()
    except LeaseUnavailable:
        return False
    lease.release()
    return True


def _with_threads(home: Path, *titles: str) -> None:
    db = Database.open(database_path(home, None))
    try:
        with db.transaction() as conn:
            for title in titles:
                threads.create(conn, title=title, title_source="user")
    finally:
        db.close()


def test_initialize_and_thread_list_are_answered_and_the_next_op_is_handed_over(
    client: Client,
) -> None:
    _with_threads(client.config.home, "First", "Second")
    settings = _request(3, "settings.get", {})
    client.send(INIT_FRAME, LIST_FRAME, settings)
    handover = _handed_over(client.run())
    try:
        init, listed = client.answers()
        assert init["id"] == 1 and init["result"]["protocolVersion"] == 1
        assert init["result"]["engine"]["name"] == "panelot-host"
        assert listed["id"] == 2
        assert sorted(t["title"] for t in listed["result"]["threads"]) == ["First", "Second"]
        assert handover.session == Initialized(None, ())
        assert handover.store is not None and not _lease_is_free(client.config.home)
        assert list(handover.read_ahead.frames) == [settings[4:]]
    finally:
        _close(handover)
    assert _lease_is_free(client.config.home)


def test_a_search_and_the_browser_tools_are_served_as_the_server_serves_them(
    client: Client,
) -> None:
    _with_threads(client.config.home, "Groceries list", "Taxes")
    init = {**INIT, "capabilities": {"browserTools": ["browser_click"]}}
    search = _request(2, "thread.list", {"query": "grocer"})
    client.send(_request(1, "initialize", init), search)
    handover = _handed_over(client.run())
    try:
        init_answer, found = client.answers()
        assert init_answer["result"]["capabilities"] == {"browserTools": ["browser_click"]}
        assert [t["title"] for t in found["result"]["threads"]] == ["Groceries list"]
        assert found["result"]["matches"][0]["source"] == "title"
        assert handover.session == Initialized(None, ("browser_click",))
    finally:
        _close(handover)


def test_with_no_next_request_the_prelude_hands_over_after_its_wait(client: Client) -> None:
    client.send(INIT_FRAME)
    started = time.monotonic()
    handover = _handed_over(client.run())
    try:
        assert time.monotonic() - started >= NEXT_REQUEST_WAIT_S
        assert [a["id"] for a in client.answers()] == [1]
        assert not handover.read_ahead.frames and not handover.read_ahead.at_eof
    finally:
        _close(handover)


def test_end_of_input_closes_the_store_and_ends(client: Client) -> None:
    client.send(INIT_FRAME, LIST_FRAME)
    client.close()
    assert client.run() == 0
    assert [a["id"] for a in client.answers()] == [1, 2]
    assert _lease_is_free(client.config.home)


def test_a_profile_with_unfinished_runs_leaves_initialize_to_the_server(client: Client) -> None:
    db = Database.open(database_path(client.config.home, None))
    with db.transaction() as conn:
        thread = threads.create(conn, title="t")
        turns.insert_turn(conn, turn_id="trn", thread_id=thread.id, user_item_id=None, context={})
        turns.insert_run(
            conn, run_id="run", turn_id="trn", thread_id=thread.id, state="streaming", cursor={}
        )
    db.close()
    client.send(INIT_FRAME, LIST_FRAME)
    handover = _handed_over(client.run())
    try:
        assert client.answers() == []  # recovery needs the engine: the server answers
        assert handover.session is None
        assert handover.store is not None  # opened once, adopted by the server
        assert list(handover.read_ahead.frames) == [INIT_FRAME[4:], LIST_FRAME[4:]]
    finally:
        _close(handover)


def test_a_lease_another_process_holds_is_left_for_the_server_to_wait_for(
    client: Client,
) -> None:
    held = WriterLease(database_path(client.config.home, None), wait_s=0.0)
    held.acquire()
    try:
        client.send(INIT_FRAME)
        started = time.monotonic()
        handover = _handed_over(client.run())
        assert time.monotonic() - started < 5  # no waiting here (the server waits)
    finally:
        held.release()
    assert client.answers() == []
    assert handover.store is None and handover.session is None
    assert list(handover.read_ahead.frames) == [INIT_FRAME[4:]]


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("bad header", b"hello\n"),
        ("not JSON", encode_frame(b'{"jsonrpc": "2.0", "id": 1, ')),
        ("list first", LIST_FRAME),
        ("another version", _request(1, "initialize", {**INIT, "protocolVersion": 9})),
        ("unknown member", _request(1, "initialize", {**INIT, "extra": 1})),
        ("a notification", encode_frame(b'{"jsonrpc":"2.0","method":"$/cancelRequest"}')),
        ("a response", encode_frame(b'{"jsonrpc":"2.0","id":5,"result":{}}')),
        ("another op", _request(1, "thread.create", {"commandId": "c"})),
        ("no such method", _request(1, "thread.nope", {})),
    ],
)
def test_anything_but_a_good_initialize_first_is_left_to_the_server(
    client: Client, first: str, then: bytes
) -> None:
    client.send(then, INIT_FRAME)
    handover = _handed_over(client.run())
    assert client.answers() == []
    assert handover.store is None and handover.session is None
    left = list(handover.read_ahead.frames)
    if first == "bad header":
        assert isinstance(left[0], FrameError)
    else:
        assert left[0] == then[4:]
    assert left[-1] == INIT_FRAME[4:]


@pytest.mark.parametrize(
    "then",
    [
        _request(2, "initialize", INIT),  # a second initialize: the server's error
        _request(2, "thread.list", {"limit": "ten"}),  # bad params: the server's error
        _request(2, "thread.list", {"cursor": "not-a-cursor"}),  # the query's error
        encode_frame(b'{"jsonrpc":"2.0","method":"thread.list","params":{}}'),  # no id
    ],
)
def test_after_initialize_only_good_thread_lists_are_answered(client: Client, then: bytes) -> None:
    client.send(INIT_FRAME, then)
    handover = _handed_over(client.run())
    try:
        assert [a["id"] for a in client.answers()] == [1]
        assert handover.session is not None
        assert list(handover.read_ahead.frames) == [then[4:]]
    finally:
        _close(handover)


def test_a_failed_write_hands_over_the_session_it_initialized(client: Client) -> None:
    def broken(buffers: list[bytes]) -> None:
        raise BrokenPipeError("the browser closed the Port")

    client.send(INIT_FRAME, LIST_FRAME)
    handover = _handed_over(client.run(broken))
    try:
        assert handover.session == Initialized(None, ())
        assert list(handover.read_ahead.frames) == [LIST_FRAME[4:]]
    finally:
        _close(handover)


def test_a_stop_signal_while_waiting_closes_the_store_and_ends(client: Client) -> None:
    swallowed: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda number, frame: swallowed.append(number))
    ours = signal.getsignal(signal.SIGTERM)
    try:
        client.send(INIT_FRAME)  # then nothing: the prelude waits for a next request
        timer = threading.Timer(0.01, os.kill, (os.getpid(), signal.SIGTERM))
        timer.start()
        assert client.run() == 0
        timer.join()
        assert swallowed == []  # the prelude's handler took it
        assert signal.getsignal(signal.SIGTERM) is ours  # and put ours back
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert [a["id"] for a in client.answers()] == [1]
    assert _lease_is_free(client.config.home)


def test_a_stop_signal_while_answering_is_taken_once_the_answer_is_out(client: Client) -> None:
    previous = signal.getsignal(signal.SIGTERM)
    written: list[bytes] = []

    def write_then_signal(buffers: list[bytes]) -> None:
        written.append(b"".join(buffers))
        os.kill(os.getpid(), signal.SIGTERM)  # arrives while answering, not waiting

    client.send(INIT_FRAME, LIST_FRAME)
    try:
        assert client.run(write_then_signal) == 0
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert len(written) == 1  # initialize answered; then the stop, before the list
    assert _lease_is_free(client.config.home)


def test_a_signal_noted_after_the_handover_is_kept_for_the_server(client: Client) -> None:
    client.send(INIT_FRAME)
    handover = client.run()
    assert isinstance(handover, Handover)
    try:
        os.kill(os.getpid(), signal.SIGTERM)  # while "the server loads"
        assert handover.stop_signals.received
    finally:
        _handed_over(handover)
        _close(handover)


def test_the_prelude_serves_pipes_only_and_not_with_injected_crashes(
    client: Client, tmp_path: Path
) -> None:
    assert can_answer(client.config, client.read_end)
    crashing = HostConfig(
        home=client.config.home, environ={"PANELOT_FAILPOINTS": "unexpected_exception"}
    )
    assert not can_answer(crashing, client.read_end)
    with open(tmp_path / "frames", "wb") as file:
        assert not can_answer(client.config, file.fileno())


def test_a_failed_read_ends_with_status_1_and_closes_what_it_opened(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, INIT_FRAME)
    frames = BlockingFrames(read_end)
    written: list[bytes] = []

    def answer_then_lose_stdin(buffers: list[bytes]) -> None:
        written.append(b"".join(buffers))
        os.close(read_end)  # the next read fails

    config = HostConfig(home=tmp_path / "home")
    try:
        assert answer_first_requests(config, frames, answer_then_lose_stdin) == 1
    finally:
        os.close(write_end)
    assert len(written) == 1
    assert _lease_is_free(config.home)
