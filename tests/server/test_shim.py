"""ConnectionBrowser: the shim's answers become Targets and results; every way the shim can
fail becomes a ToolError (an error result for the model), a lost answer OutcomeUnknown."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from panelot_host.errors import OutcomeUnknown, ToolError
from panelot_host.protocol import jsonrpc
from panelot_host.server.errors import ConnectionLost, RpcError
from panelot_host.server.host import Host
from panelot_host.server.shim import ConnectionBrowser
from panelot_host.server.transport import DirectTransport
from panelot_host.tools.target import Target

pytestmark = pytest.mark.anyio

TAB = {"tabId": 7, "url": "https://a.example/x", "origin": "https://a.example", "title": "A"}


class FakeShim:
    """Answers each request as the connection would: the result as raw JSON, or raises."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.notified: list[tuple[str, dict[str, Any]]] = []
        self.asked: list[dict[str, Any]] = []

    async def request(self, method: str, params: msgspec.Struct, wait_s: float = 0) -> Any:
        self.asked.append(msgspec.to_builtins(params))
        if isinstance(self.answer, BaseException):
            raise self.answer
        return msgspec.Raw(msgspec.json.encode(self.answer))

    def notify_raw(self, method: str, params: dict[str, Any]) -> None:
        self.notified.append((method, params))


async def test_a_resolved_target_and_an_invoke_result() -> None:
    shim = FakeShim(TAB)
    target = await ConnectionBrowser(shim).resolve_target("browser_read", {})
    assert target == Target(tab_id=7, url=TAB["url"], origin=TAB["origin"], title="A")
    shim.answer = {"content": "done", "isError": False}
    answer = await ConnectionBrowser(shim).invoke("call_1", "browser_click", {}, target)
    assert answer["content"] == "done"


@pytest.mark.parametrize("invalid", [{"tabId": "seven"}, {"url": "https://a.example/"}, []])
async def test_an_invalid_target_from_the_shim_is_a_tool_error(invalid: Any) -> None:
    with pytest.raises(ToolError, match="invalid result") as info:
        await ConnectionBrowser(FakeShim(invalid)).resolve_target("browser_read", {})
    assert type(info.value) is ToolError


async def test_an_invalid_invoke_result_is_a_tool_error_not_an_unknown_outcome() -> None:
    browser = ConnectionBrowser(FakeShim({"isError": "no"}))
    with pytest.raises(ToolError, match="invalid result") as info:
        await browser.invoke("call_1", "browser_click", {}, None)
    assert type(info.value) is ToolError


@pytest.mark.parametrize(
    ("failure", "raised", "says"),
    [
        (RpcError(-32000, "no such tab"), ToolError, "could not run it: no such tab"),
        (TimeoutError(), OutcomeUnknown, "did not answer.*may or may not have acted"),
        (
            ConnectionLost(jsonrpc.INTERNAL_ERROR, "the connection closed"),
            OutcomeUnknown,
            "connection closed; it may or may not have acted",
        ),
    ],
)
async def test_shim_failures_of_an_invoke(
    failure: BaseException, raised: type[ToolError], says: str
) -> None:
    browser = ConnectionBrowser(FakeShim(failure))
    with pytest.raises(raised, match=says) as info:
        await browser.invoke("call_1", "browser_click", {}, None)
    assert type(info.value) is raised


async def test_an_invoke_names_its_turn_so_detach_releases_only_that_turns_tabs() -> None:
    shim = FakeShim({"content": "done", "isError": False})
    browser = ConnectionBrowser(shim)
    await browser.invoke("call_1", "browser_click", {}, None, thread_id="th_1", turn_id="tu_1")
    await browser.invoke("call_2", "browser_click", {}, None)
    assert shim.asked[0] == {
        "callId": "call_1",
        "tool": "browser_click",
        "args": {},
        "threadId": "th_1",
        "turnId": "tu_1",
    }
    assert "threadId" not in shim.asked[1]  # omitted, as an older host sends it


async def test_interrupt_tells_the_shim_to_detach() -> None:
    shim = FakeShim(None)
    ConnectionBrowser(shim).detach("th_1", "tu_1")
    assert shim.notified == [("browser.detach", {"threadId": "th_1", "turnId": "tu_1"})]


def _init(browser_tools: list[str]) -> dict[str, Any]:
    return {
        "protocolVersion": 1,
        "client": {"name": "shim", "version": "1"},
        "capabilities": {"browserTools": browser_tools},
    }


async def test_the_browser_goes_away_with_the_connection_that_brought_it(host: Host) -> None:
    """Closing the shim's connection detaches its browser; closing any other connection,
    or a shim replaced by a newer one, leaves the current browser in place."""
    async with DirectTransport.connect(host) as first:
        await first.send("initialize", _init(["browser_read"]))
        engine = host.profile.ensure_engine()  # type: ignore[union-attr]
        assert engine.ctx.browser is not None
        async with DirectTransport.connect(host) as panel:
            await panel.send("initialize", _init([]))
        assert engine.ctx.browser is not None
        async with DirectTransport.connect(host) as second:
            await second.send("initialize", _init(["browser_read"]))
            newer = engine.ctx.browser
            first.connection.close()
            assert engine.ctx.browser is newer
        assert engine.ctx.browser is None
        assert engine.ctx.browser_tools == frozenset()
