"""Property test (issue 11): whatever a client sends (deep nesting, odd sizes, any JSON
types in any member, broken bytes), every request the host can read an id from is
answered, nothing is answered with an id the client never used, and the connection keeps
serving."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelot_host.server.config import HostConfig
from panelot_host.server.connection import Connection
from panelot_host.server.host import Host

_json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=30),
)
_json = st.recursive(
    _json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
_methods = st.sampled_from(
    [
        "thread.list",
        "thread.open",
        "turn.submit",
        "settings.update",
        "initialize",
        "nope",
        "x" * 300,
    ]
)


@st.composite
def _nested(draw: st.DrawFn) -> bytes:
    """JSON text nested ``depth`` levels deep (built as text: too deep for an encoder)."""
    depth = draw(st.sampled_from([1, 5, 97, 98, 99, 100, 101, 500, 1000, 5000]))
    opener, closer = draw(st.sampled_from([(b"[", b"]"), (b'{"k":', b"}")]))
    leaf = msgspec.json.encode(draw(_json_scalars))
    return opener * depth + leaf + closer * depth


@st.composite
def _frames(draw: st.DrawFn) -> tuple[bytes, int | None]:
    """A frame, and the id a well-behaved host must answer (None: it need not)."""
    kind = draw(st.sampled_from(["request", "deep", "garbage", "response", "any"]))
    request_id = draw(st.integers(min_value=1000, max_value=10**6))
    if kind == "garbage":
        return draw(st.binary(max_size=200)), None
    if kind == "any":
        return msgspec.json.encode(draw(_json)), None
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
    if kind == "response":
        message["result" if draw(st.booleans()) else "error"] = draw(_json)
        return msgspec.json.encode(message), None
    message["method"] = draw(_methods)
    member = draw(st.sampled_from(["params", "extra"]))
    if kind == "deep":
        head = msgspec.json.encode(message)[:-1]
        return head + b',"' + member.encode() + b'":' + draw(_nested()) + b"}", request_id
    if draw(st.booleans()):
        message[member] = draw(_json)
    return msgspec.json.encode(message), request_id


async def _serve(home: Path, frames: list[tuple[bytes, int | None]]) -> list[dict[str, Any]]:
    replies: list[dict[str, Any]] = []
    probe_answered = anyio.Event()

    async def write(payloads: list[bytes]) -> None:
        for payload in payloads:
            reply = msgspec.json.decode(payload)
            replies.append(reply)
            if reply.get("id") == 2 and "method" not in reply:
                probe_answered.set()

    config = HostConfig(home=home, lease_wait_s=1.0)
    async with Host(config) as host, anyio.create_task_group() as tasks:
        connection = Connection(host, write, tasks=tasks)
        tasks.start_soon(connection.run)
        init = {"protocolVersion": 1, "client": {"name": "f", "version": "0"}}
        await connection.handle_frame(_request(1, "initialize", init))
        for frame, _ in frames:
            await connection.handle_frame(frame)
        await connection.handle_frame(_request(2, "thread.list", {}))
        with anyio.fail_after(10):
            await probe_answered.wait()
        connection.close()
    return replies


def _request(request_id: int, method: str, params: Any) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return msgspec.json.encode(message)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_frames(), max_size=12))
def test_every_readable_request_is_answered_and_the_host_keeps_serving(
    tmp_path_factory: Any, frames: list[tuple[bytes, int | None]]
) -> None:
    home = tmp_path_factory.mktemp("fuzz")
    replies = anyio.run(_serve, home, frames)
    answered = [r["id"] for r in replies if "method" not in r and r.get("id") is not None]
    expected = {i for _, i in frames if i is not None}
    assert set(answered) - {1, 2} <= expected  # never an id the client did not send
    for request_id in expected:
        assert request_id in answered, f"request {request_id} was not answered"
    probe = next(r for r in replies if r.get("id") == 2)
    assert "result" in probe, probe
