"""Issue 24, item 3, on MiniWoB++'s own pages: what a person can click gets a ref even
when no role says so. A tree of `li`/`span` items with a click handler and the pointer
cursor (navigate-tree), links that are `span`s (click-tab-2, inside jQuery UI tabs) and
icon `span`s with no text (email-inbox's trash) are offered by the snapshot, and plain
clicks on those refs solve the episodes. The policies see only the tool results."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from tests.support.web import serve_html

from .harness import Browser
from .miniwob_kit import reward, serve_miniwob, start_episode
from .miniwob_policies import POLICIES, task_text
from .tool_driver import invoke, open_tab


class Tools:
    """The browser tools on one tab, as the host would call them (already approved)."""

    def __init__(self, browser: Browser, tab: int, url: str) -> None:
        self.browser, self.tab = browser, tab
        origin = "/".join(url.split("/")[:3])
        self.decided = {"tabId": tab, "url": url, "origin": origin, "title": ""}
        self.calls = 0

    def __call__(self, tool: str, **args: Any) -> str:
        self.calls += 1
        result = invoke(self.browser, tool, {"tabId": self.tab, **args}, self.decided)
        assert not result["isError"], result
        content: str = result["content"]
        return content

    def task(self) -> str:
        """The task's instruction, as the page shows it (`#query`)."""
        return task_text(self("browser_read"))

    def click(self, outline: str, pattern: str) -> bool:
        """Click the first outline line matching ``pattern``; False when there is none."""
        line = re.search(rf"^\s*- .*{pattern}.*$", outline, re.M)
        if line is None:
            return False
        ref = re.search(r"\[(e\d+)", line.group(0))
        assert ref, line.group(0)
        self("browser_click", ref=ref.group(1))
        return True


def solve(tools: Tools, task: str) -> str:
    """Run the task's policy (``miniwob_policies``) on the tools; its final answer."""
    policy = POLICIES[task](tools.task())
    try:
        call = next(policy)
        while True:
            name, args = call
            call = policy.send(tools(name, **args))
    except StopIteration as done:
        return str(done.value)


def episode(browser: Browser, base: str, task: str, seed: int) -> tuple[Any, Tools]:
    page = browser.context.new_page()
    start_episode(page, base, task, seed)
    tab: int = browser.worker().evaluate(
        "async (url) => (await chrome.tabs.query({})).find((t) => t.url === url).id", page.url
    )
    return page, Tools(browser, tab, page.url)


@pytest.mark.parametrize("seed", [1, 2])
def test_navigate_tree_items_are_refs_and_a_plain_click_solves_it(
    browser: Browser, seed: int
) -> None:
    with serve_miniwob() as base:
        page, tools = episode(browser, base, "navigate-tree", seed)
        wanted = re.search(r"named (.+?)\.", tools.task())
        assert wanted, tools.task()
        name = re.escape(f'"{wanted.group(1).strip(chr(34))}"')
        opened = 0
        while reward(page) is None:
            outline = tools("browser_snapshot")
            if tools.click(outline, name):
                continue
            # not shown yet: open the next closed folder (its hit area) and look again
            assert tools.click(outline, r'class "hitarea[^"]*expandable-hitarea'), outline
            opened += 1
            assert opened < 10, (wanted.group(1), outline)
        assert reward(page) == 1.0


def test_span_links_inside_jquery_ui_tabs_are_refs(browser: Browser) -> None:
    with serve_miniwob() as base:
        page, tools = episode(browser, base, "click-tab-2", 3)
        wanted = re.search(r'link "(.+?)"', tools.task())
        assert wanted, tools.task()
        name = re.escape(f'"{wanted.group(1)}"')
        for tab_name in ("Tab #1", "Tab #2", "Tab #3"):
            outline = tools("browser_snapshot")
            if tools.click(outline, name):
                break
            assert tools.click(outline, re.escape(f'tab "{tab_name}"')), outline
        assert reward(page) == 1.0


def test_an_icon_without_text_is_a_ref_with_its_class(browser: Browser) -> None:
    with serve_miniwob() as base:
        page, tools = episode(browser, base, "email-inbox-delete", 4)
        sender = re.search(r"email by (.+?) and", tools.task())
        assert sender, tools.task()
        outline = tools("browser_snapshot")
        assert tools.click(outline, re.escape(sender.group(1))), outline  # open the email
        outline = tools("browser_snapshot")
        assert '(class "trash")' in outline, outline
        assert tools.click(outline, r'\(class "trash"\)'), outline
        assert reward(page) == 1.0


LONG = "Dear team,\n" + "the quarterly figures are attached. " * 12 + "\nRegards"


def test_a_fields_whole_value_is_in_the_outline_of_its_ref(browser: Browser) -> None:
    page_html = (
        "<!doctype html><title>Note</title><label>Note <textarea id=n rows=4></textarea></label>"
        f"<script>document.getElementById('n').value = {json.dumps(LONG)}</script>"
    )
    with serve_html(lambda path: page_html) as site:
        url = f"{site}/note"
        _, tab = open_tab(browser, url)
        tools = Tools(browser, tab, url)
        outline = tools("browser_snapshot")
        line = re.search(r'- textbox "Note" = (".*?") \[(e\d+)', outline)
        assert line, outline
        shown = json.loads(line.group(1))
        assert shown.endswith("…") and len(shown) == 60  # the page's outline cuts it
        region = tools("browser_snapshot", ref=line.group(2))
        assert json.dumps(LONG) in region  # the field's own outline: all of it, newlines kept
