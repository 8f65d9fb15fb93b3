"""What a tool sees while it runs: ``ToolContext`` (the engine implements it) and the
``BrowserBridge`` seam to the extension shim.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from panelot_host.errors import ToolError
from panelot_host.protocol.tabs import ThreadTabs
from panelot_host.tools.target import Target


class BrowserBridge(Protocol):
    """The host's requests to the shim (`docs/protocol.md`, "Browser tools (host -> shim
    requests)").

    Implementations send ``browser.resolveTarget`` / ``browser.invoke`` and await the
    answer. Cancelling the awaiting task (anyio cancellation on interrupt) must cancel the
    request (``$/cancelRequest``). Both raise ``errors.ToolError`` when the shim answers
    with an error or the Port is gone.
    """

    async def resolve_target(
        self, tool: str, args: Mapping[str, Any], thread_tabs: ThreadTabs | None = None
    ) -> Target:
        """The tab the call would act on, with its origin; a call that names no tab acts
        on ``thread_tabs.tabs[0]`` (the calling thread's current tab), else the active tab."""
        ...

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
        """Run ``tool`` for the Turn ``turn_id`` of ``thread_id`` (what ``detach`` of that
        Turn releases); the answer is ``{content, details?, isError, target?,
        threadTabs?, frames?, frameSkipped?}`` (``threadTabs``: the calling thread's tabs
        after the call). With ``capture`` the shim captures frames of the tab around the
        action (issue 30): ``frames``, each as ``protocol.frames.CapturedFrame`` names its
        fields (not validated here: a bad frame must not cost the call its result), or
        why there are none (``frameSkipped``)."""
        ...

    async def find_thread_tabs(self, thread_tabs: ThreadTabs) -> ThreadTabs:
        """``browser.threadTabs``: the thread's tabs as found (and grouped) in the browser."""
        ...


class ToolContext(Protocol):
    """Handed to ``AgentTool.execute`` by the engine, one per call.

    Cancellation contract: on interrupt the engine cancels the task running ``execute``
    with anyio cancellation. A tool must let the cancellation exception propagate (never
    swallow it) and do cleanup in ``finally`` blocks, shielded when it must await.
    """

    @property
    def call_id(self) -> str: ...

    @property
    def thread_id(self) -> str: ...

    @property
    def turn_id(self) -> str: ...

    @property
    def turn_started_ms(self) -> int:
        """When the Turn started (Unix epoch, milliseconds): what "this turn's" means."""
        ...

    @property
    def capture_frames(self) -> bool:
        """Whether the ``captureFrames`` setting is on: a browser action then asks the
        shim for frames of its tab (``tools.browser.acts_on_page``)."""
        ...

    @property
    def target(self) -> Target | None:
        """The target the Gatekeeper approved (revalidated right before dispatch)."""
        ...

    @property
    def browser(self) -> BrowserBridge | None:
        """The shim, or None when no client offers browser tools."""
        ...

    def report_progress(self, progress: str) -> None:
        """on_update: the engine emits it as ``item.delta {progress}``."""
        ...

    async def ask_user(self, prompt: str, schema: dict[str, Any]) -> dict[str, Any]:
        """Open an interaction and wait for the user's answer (claimed once).

        Returns the ``values`` of ``interaction.response`` (valid against ``schema``).
        """
        ...


def require_browser(browser: BrowserBridge | None) -> BrowserBridge:
    """``browser``, for a browser tool that is about to reach the shim.

    Raises:
        ToolError: no browser is connected, so browser tools cannot run.
    """
    if browser is None:
        raise ToolError("no browser is connected, so browser tools cannot run")
    return browser
