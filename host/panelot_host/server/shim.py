"""The browser bridge over a client connection: ``browser.resolveTarget``/``browser.invoke``
requests to whichever client listed browser tools in ``initialize`` (the extension shim)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import msgspec

from panelot_host.errors import InvalidResult, OutcomeUnknown, ToolError
from panelot_host.protocol import codec
from panelot_host.protocol.ops import browser as browser_ops
from panelot_host.protocol.tabs import ThreadTabs
from panelot_host.server.errors import ConnectionLost, RpcError
from panelot_host.tools.target import Target

RESOLVE_WAIT_S = 15.0
INVOKE_WAIT_S = 300.0


class Requester(Protocol):
    async def request(self, method: str, params: msgspec.Struct, wait_s: float = ...) -> Any: ...

    def notify_raw(self, method: str, params: dict[str, Any]) -> None: ...


class ConnectionBrowser:
    """Implements ``BrowserBridge`` by asking the shim; its failures become ``ToolError``."""

    def __init__(self, connection: Requester) -> None:
        self._connection = connection

    async def resolve_target(
        self, tool: str, args: Mapping[str, Any], thread_tabs: ThreadTabs | None = None
    ) -> Target:
        params = browser_ops.BrowserResolveTargetParams(
            tool=tool, args=dict(args), thread_tabs=thread_tabs
        )
        found = await self._ask("browser.resolveTarget", params, RESOLVE_WAIT_S)
        assert isinstance(found, browser_ops.BrowserTarget)
        return Target(
            tab_id=found.tab_id,
            url=found.url,
            origin=found.origin,
            title=found.title,
            frame_id=found.frame_id,
            element=found.element,
            active=found.active,
        )

    async def invoke(
        self,
        call_id: str,
        tool: str,
        args: Mapping[str, Any],
        target: Target | None,
        thread_tabs: ThreadTabs | None = None,
        *,
        thread_id: str | None = None,
        turn_id: str | None = None,
        capture: bool = False,
    ) -> dict[str, Any]:
        """``browser.invoke``; its ``frames`` are taken out before the answer is validated
        and handed back as sent (``tools.browser_result`` keeps the valid ones), so a bad
        frame never costs the call its result."""
        params = browser_ops.BrowserInvokeParams(
            call_id=call_id,
            tool=tool,
            args=dict(args),
            target=_browser_target(target),
            thread_tabs=thread_tabs,
            thread_id=thread_id,
            turn_id=turn_id,
            capture=capture,
        )
        try:
            raw = await self._request("browser.invoke", params, INVOKE_WAIT_S)
        except ToolError as exc:
            if isinstance(exc.__cause__, TimeoutError | ConnectionLost):
                raise OutcomeUnknown(
                    f"{tool}: {exc.message}; it may or may not have acted"
                ) from exc
            raise
        rest, frames = _split_frames(raw)
        result = self._decode("browser.invoke", rest)
        answer: dict[str, Any] = msgspec.to_builtins(result)
        answer.update(frames)
        return answer

    async def find_thread_tabs(self, thread_tabs: ThreadTabs) -> ThreadTabs:
        params = browser_ops.BrowserThreadTabsParams(thread_tabs=thread_tabs)
        found = await self._ask("browser.threadTabs", params, RESOLVE_WAIT_S)
        assert isinstance(found, ThreadTabs)
        return found

    def detach(self, thread_id: str, turn_id: str) -> None:
        """Interrupt: tell the shim to detach L2 tools (chrome.debugger) of this Turn."""
        self._connection.notify_raw("browser.detach", {"threadId": thread_id, "turnId": turn_id})

    async def _ask(self, method: str, params: msgspec.Struct, wait_s: float) -> msgspec.Struct:
        """The shim's result, decoded and validated.

        Raises:
            ToolError: the shim answered with an error or an invalid result, or not in
                time (``__cause__`` the ``RpcError``, ``InvalidResult`` or ``TimeoutError``).
        """
        return self._decode(method, await self._request(method, params, wait_s))

    async def _request(self, method: str, params: msgspec.Struct, wait_s: float) -> Any:
        """The shim's result as it came (JSON values); ``ToolError`` as ``_ask``'s."""
        try:
            return await self._connection.request(method, params, wait_s)
        except RpcError as exc:
            raise ToolError(f"the browser could not run it: {exc.message}") from exc
        except TimeoutError as exc:
            raise ToolError(f"the browser did not answer within {wait_s:.0f} s") from exc

    def _decode(self, method: str, raw: Any) -> msgspec.Struct:
        try:
            return codec.decode_result(method, msgspec.json.encode(raw))
        except InvalidResult as exc:
            raise ToolError(f"the browser answered with an invalid result: {exc.message}") from exc


_FRAME_FIELDS = ("frames", "frameSkipped")


def _split_frames(raw: Any) -> tuple[Any, dict[str, Any]]:
    """``browser.invoke``'s result without its frames, and the frames as sent (issue 30):
    the rest is validated as the result; each frame on its own later, so a frame this host
    cannot keep (too large, an unknown skip reason) is dropped, not the call's result."""
    data = raw
    if isinstance(raw, msgspec.Raw):
        try:
            data = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            return raw, {}  # not JSON: the codec reports it
    if not isinstance(data, dict) or not any(name in data for name in _FRAME_FIELDS):
        return raw, {}
    frames = {name: data.pop(name) for name in _FRAME_FIELDS if name in data}
    return data, frames


def _browser_target(target: Target | None) -> browser_ops.BrowserTarget | None:
    if target is None:
        return None  # a tool call without a target (L0 and host-side tools)
    return browser_ops.BrowserTarget(
        tab_id=target.tab_id,
        url=target.url or "",
        origin=target.origin or "",
        title=target.title or "",
        frame_id=target.frame_id,
    )
