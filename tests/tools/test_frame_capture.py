"""Which browser calls ask the shim for frames (issue 30): decided from the descriptors'
traits, and a bad frame never costs a call its result."""

from __future__ import annotations

from typing import Any

from tests.support.frames import captured

from panelot_host.tools.browser import ACTIONS, BROWSER_TOOL_NAMES, acts_on_page
from panelot_host.tools.browser_result import browser_result

ACTING = {
    "browser_tab_select",
    "browser_navigate",
    "browser_navigate_back",
    "browser_click",
    "browser_double_click",
    "browser_click_at",
    "browser_hover",
    "browser_drag",
    "browser_type",
    "browser_select_option",
    "browser_upload_file",
    "browser_press_key",
    "browser_scroll",
}


def test_actions_are_the_calls_that_change_what_a_tab_shows() -> None:
    assert set(ACTIONS) == ACTING | {"browser_tab_new"}
    for name in BROWSER_TOOL_NAMES:
        assert acts_on_page(name, {"ref": "e1"}) == (name in ACTING), name
    assert acts_on_page("browser_tab_new", {"url": "https://a.example/"})
    assert not acts_on_page("browser_tab_new", {})
    assert not acts_on_page("an_mcp_tool", {})


def test_frames_leave_the_answer_and_bad_ones_are_dropped() -> None:
    answer: dict[str, Any] = {
        "content": "clicked",
        "isError": False,
        "frames": [captured("after"), captured(width=-1), {"phase": "later"}],
        "frameSkipped": "a reason from a newer extension",
    }
    result = browser_result("browser_click", answer)
    assert result.content.endswith("clicked\n</untrusted-page-content>")
    assert result.details is None and not result.is_error
    assert [f.phase for f in result.frames] == ["after"]
    assert result.frame_skipped == "failed"  # an unknown reason, kept as a failure
    assert "frames" in answer  # the caller's answer is left as it was
