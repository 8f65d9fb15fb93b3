"""Issue 26: several tasks at once, each in its own tabs. Two threads run turns at the same
time on two sites, in two panels: each opens its own tab (in the background), snapshots,
clicks and types there, while the user's active tab stays active and untouched. A call on
the user's active tab, which no thread owns, is asked first. The tool log (each call's
stored target) shows that neither thread touched the other's tab; each thread's tabs form
one Chrome tab group named after it; stopping one thread leaves the other running."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import closing, suppress
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Playwright, expect
from tests.support.web import serve_html

from .fake_model import HANG, FakeAnthropic, Reply, text_events, text_reply, tool_use_reply
from .harness import Browser, Profile
from .panel_kit import approval_cards, connected, log, send
from .tool_driver import last_snapshot, open_tab, ref_of, tool_results

PAGE = """<!doctype html><title>{name} counter</title>
<main><h1>{name}</h1>
<button onclick="this.dataset.n = (+(this.dataset.n || 0) + 1);
  document.getElementById('out').textContent = this.dataset.n">Count</button>
<label>Note <input id="note"></label><p id="out">0</p></main>"""
USERS_PAGE = """<!doctype html><title>My own work</title>
<main><h1>Mine</h1><label>Draft <input id="draft"></label></main>"""

Step = Callable[[dict[str, Any]], Reply]


class Scripts:
    """The fake model's side of several threads at once: each request is answered from the
    script of the thread it belongs to (told apart by the thread's first message), at the
    step its history has reached (one step per assistant message so far)."""

    def __init__(self) -> None:
        self.scripts: dict[str, list[Step]] = {}

    def add(self, first_message: str, steps: list[Step]) -> None:
        self.scripts[first_message] = steps

    def reply(self, body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        first = messages[0]["content"]
        text = first if isinstance(first, str) else first[0].get("text", "")
        steps = next(s for key, s in self.scripts.items() if text.startswith(key))
        done = sum(1 for m in messages if m["role"] == "assistant")
        return steps[done](body)


def _call(name: str, args: Callable[[list[str]], dict[str, Any]] | dict[str, Any]) -> Step:
    def step(body: dict[str, Any]) -> Reply:
        given = args(tool_results(body)) if callable(args) else args
        return tool_use_reply(f"toolu_{name}_{len(body['messages'])}", name, given)

    return step


def _waiting(event: threading.Event, then: Step) -> Step:
    """``then``, once ``event`` is set (the model is slow while the other thread works)."""

    def step(body: dict[str, Any]) -> Reply:
        assert event.wait(120), "the other thread never got this far"
        return then(body)

    return step


def _task(site: str, note: str, ready: threading.Event, other: threading.Event) -> list[Step]:
    """Open ``site`` in a tab of its own, then (once the other thread has opened its own:
    both turns are under way at once) snapshot it, click Count and type ``note``; no call
    names a tab."""

    def opened(body: dict[str, Any]) -> Reply:
        ready.set()  # this thread's tab is open
        assert other.wait(120), "the other thread never opened its tab"
        return _call("browser_snapshot", {})(body)

    return [
        _call("browser_tab_new", {"url": f"{site}/counter"}),
        opened,
        _call("browser_click", lambda r: {"ref": ref_of(last_snapshot(r), "button", "Count")}),
        _call(
            "browser_type",
            lambda r: {"ref": ref_of(last_snapshot(r), "textbox", "Note"), "text": note},
        ),
    ]


def _hanging() -> Reply:
    """An answer that starts ("Checking") and never ends."""
    start, block, delta, *_ = text_events(["Checking"])
    return Reply(body=[start, block, delta, HANG])


def _db(browser: Browser) -> Path:
    [found] = Path(browser.profile.panelot_home).glob("profiles/*/panelot.db")
    return found


def _tool_log(browser: Browser) -> list[tuple[str, str, str, int | None]]:
    """Each tool call the host stored: its thread, tool, status and the tab it acted on."""
    with closing(sqlite3.connect(f"file:{_db(browser)}?mode=ro", uri=True)) as conn:
        rows = conn.execute(
            "SELECT thread_id, name, status, extra FROM item WHERE kind = 'toolCall' ORDER BY ord"
        ).fetchall()
    found = []
    for thread_id, name, status, extra in rows:
        target = (json.loads(extra or "{}").get("target") or {}) if extra else {}
        found.append((thread_id, name, status, target.get("tabId")))
    return found


def _allow_all(panels: list[Page], done: Callable[[], bool], timeout_s: float = 120) -> None:
    """Allow every card the panels show (one at a time, whichever shows) until ``done``."""
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, "the turns did not get there in time"
        for panel in panels:
            allow = log(panel).get_by_role("button", name="Allow once", exact=True)
            if allow.count():
                with suppress(Exception):  # the card went away as we clicked: fine
                    allow.first.click(timeout=2_000)
        time.sleep(0.1)


def test_two_threads_work_at_once_each_in_its_own_tabs(
    owning_browser: Browser, model: FakeAnthropic
) -> None:
    browser = owning_browser
    a_ready, b_ready, b_may_end = threading.Event(), threading.Event(), threading.Event()
    scripts = Scripts()
    with (
        serve_html(lambda _p: PAGE.format(name="Alpha")) as site_a,
        serve_html(lambda _p: PAGE.format(name="Beta")) as site_b,
        serve_html(lambda _p: USERS_PAGE) as site_u,
    ):
        scripts.add(
            "Task A",
            [
                _call("browser_read", {}),  # names no tab: the user's active tab, asked
                *_task(site_a, "from A", a_ready, b_ready),
                lambda _body: _hanging(),  # A's last answer never ends: the user stops it
            ],
        )
        scripts.add(
            "Task B",
            [
                *_task(site_b, "from B", b_ready, a_ready),
                _waiting(b_may_end, lambda _body: text_reply(["B done."])),
            ],
        )
        model.plan(*([scripts.reply] * 20))

        panel_a, panel_b = browser.open_panel(), browser.open_panel()
        connected(panel_a)
        connected(panel_b)
        users_page, users_tab = open_tab(browser, f"{site_u}/mine")
        users_page.bring_to_front()
        worker = browser.worker()

        def active_tab() -> int:
            found: int = worker.evaluate(
                "async () => (await chrome.tabs.query("
                "{active: true, lastFocusedWindow: true}))[0].id"
            )
            return found

        assert active_tab() == users_tab
        send(panel_a, "Task A: count on Alpha")
        send(panel_b, "Task B: count on Beta")

        # A's first call names no tab: it would act on the user's active tab, so it asks
        card = approval_cards(panel_a).first
        expect(card).to_contain_text("your active tab")
        card.get_by_role("button", name="Deny", exact=True).click()

        def both_typed() -> bool:
            return b_ready.is_set() and a_ready.is_set() and _typed(browser) == 2

        _allow_all([panel_a, panel_b], both_typed)

        # the user's tab: still the active one, as it was, in no group
        assert active_tab() == users_tab
        assert users_page.locator("#draft").input_value() == ""
        assert worker.evaluate("async (id) => (await chrome.tabs.get(id)).groupId", users_tab) == -1

        # each site was worked in its own tab, by its own thread
        pages = {p.url.rsplit("/", 1)[0]: p for p in browser.context.pages}
        assert pages[site_a].locator("#out").text_content() == "1"
        assert pages[site_a].locator("#note").input_value() == "from A"
        assert pages[site_b].locator("#note").input_value() == "from B"

        thread_a = panel_a.evaluate("panelot.threadId")
        thread_b = panel_b.evaluate("panelot.threadId")
        calls = _tool_log(browser)
        acted = {
            thread: {
                tab
                for t, _name, status, tab in calls
                if t == thread and status == "succeeded" and tab is not None
            }
            for thread in (thread_a, thread_b)
        }
        tab_a = worker.evaluate(
            "async (u) => (await chrome.tabs.query({url: u + '/*'}))[0].id", site_a
        )
        tab_b = worker.evaluate(
            "async (u) => (await chrome.tabs.query({url: u + '/*'}))[0].id", site_b
        )
        assert acted[thread_a] == {tab_a}, calls
        assert acted[thread_b] == {tab_b}, calls
        denied = [c for c in calls if c[0] == thread_a and c[2] == "denied"]
        assert [name for _, name, _, _ in denied] == ["browser_read"]
        assert all(tab != users_tab for _, _, status, tab in calls if status == "succeeded")

        # one tab group per thread, named after it, holding its tab
        groups = worker.evaluate(
            "async () => Promise.all((await chrome.tabGroups.query({})).map(async (g) => "
            "({title: g.title, color: g.color, tabs: (await chrome.tabs.query({groupId: g.id}))"
            ".map((t) => t.id)})))"
        )
        by_tabs = {tuple(g["tabs"]): g for g in groups}
        assert set(by_tabs) == {(tab_a,), (tab_b,)}
        assert by_tabs[(tab_a,)]["title"].startswith("Task A")
        assert by_tabs[(tab_b,)]["title"].startswith("Task B")

        # stopping A (waiting for its model) leaves B running; B then finishes
        stop_a = panel_a.get_by_role("button", name="Stop", exact=True)
        expect(stop_a).to_be_visible()
        expect(panel_b.get_by_role("button", name="Stop", exact=True)).to_be_visible()
        stop_a.click()
        expect(panel_a.get_by_role("button", name="Stop", exact=True)).to_be_hidden()
        expect(panel_b.get_by_role("button", name="Stop", exact=True)).to_be_visible()
        b_may_end.set()
        expect(log(panel_b).get_by_text("B done.")).to_be_visible(timeout=30_000)
        assert active_tab() == users_tab


def _typed(browser: Browser) -> int:
    """How many of the two sites' notes have been typed into."""
    count = 0
    for page in browser.context.pages:
        if "/counter" in page.url:
            with suppress(Exception):
                if page.locator("#note").input_value(timeout=1_000):
                    count += 1
    return count


def _restore_last_session(user_data: Path) -> None:
    """Let Chromium restore the last session at its next start, as a user's does."""
    prefs_file = user_data / "Default" / "Preferences"
    prefs = json.loads(prefs_file.read_text())
    prefs.setdefault("session", {})["restore_on_startup"] = 1
    prefs_file.write_text(json.dumps(prefs))


def _groups(browser: Browser) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = browser.worker().evaluate(
        "async () => Promise.all((await chrome.tabGroups.query({})).map(async (g) => "
        "({id: g.id, title: g.title, color: g.color, tabs: (await chrome.tabs.query("
        "{groupId: g.id})).map((t) => ({id: t.id, url: t.url}))})))"
    )
    return found


def test_a_thread_finds_its_tab_group_again_after_the_browser_restarts(
    playwright: Playwright, tmp_path: Path, model: FakeAnthropic
) -> None:
    profile = Profile(root=tmp_path, model_url=model.url, ask_for_unowned_tabs=True)
    scripts = Scripts()
    with serve_html(lambda _p: PAGE.format(name="Alpha")) as site:
        scripts.add(
            "Open Alpha",
            [
                _call("browser_tab_new", {"url": f"{site}/counter"}),
                lambda _body: text_reply(["Opened."]),
                _call("browser_snapshot", {}),  # after the restart: names no tab
                _call(
                    "browser_click", lambda r: {"ref": ref_of(last_snapshot(r), "button", "Count")}
                ),
                lambda _body: text_reply(["Counted."]),
            ],
        )
        model.plan(*([scripts.reply] * 10))

        browser = profile.launch(playwright)
        try:
            panel = browser.open_panel()
            connected(panel)
            send(panel, "Open Alpha in a tab")
            _allow_all([panel], lambda: log(panel).get_by_text("Opened.").count() > 0)
            [before] = _groups(browser)
            assert before["title"] == "Open Alpha in a tab"
            assert [t["url"] for t in before["tabs"]] == [f"{site}/counter"]
            thread_id = panel.evaluate("panelot.threadId")
        finally:
            browser.close()

        _restore_last_session(profile.user_data)
        profile.extra_args = ["--restore-last-session"]
        browser = profile.launch(playwright)
        try:
            [after] = _groups(browser)  # restored by Chromium: new group and tab ids
            assert (after["title"], after["color"]) == (before["title"], before["color"])
            [restored] = after["tabs"]
            assert restored["id"] != before["tabs"][0]["id"]

            panel = browser.open_panel()
            connected(panel)
            toggle = panel.get_by_role("button", name="Threads")
            toggle.click()
            panel.get_by_role("navigation", name="Threads").get_by_role(
                "button", name=re.compile("Open Alpha")
            ).first.click()
            send(panel, "Now count once")
            _allow_all([panel], lambda: log(panel).get_by_text("Counted.").count() > 0)

            calls = [c for c in _tool_log(browser) if c[0] == thread_id and c[2] == "succeeded"]
            assert [(name, tab) for _, name, _, tab in calls[-2:]] == [
                ("browser_snapshot", restored["id"]),
                ("browser_click", restored["id"]),
            ]
            with closing(sqlite3.connect(f"file:{_db(browser)}?mode=ro", uri=True)) as conn:
                kept = conn.execute(
                    "SELECT tab_id FROM thread_tab WHERE thread_id = ?", (thread_id,)
                ).fetchall()
                group_id = conn.execute(
                    "SELECT group_id FROM thread_tab_group WHERE thread_id = ?", (thread_id,)
                ).fetchone()[0]
                asked = [
                    json.loads(request)
                    for (request,) in conn.execute(
                        "SELECT request FROM approval WHERE thread_id = ?", (thread_id,)
                    )
                ]
            # the restored tab is the thread's own: nothing asked whose tab it is
            assert [a.get("tabOwner") for a in asked] == [None] * len(asked)
            assert [a["tool"]["name"] for a in asked][-1] == "browser_click"
            assert kept == [(restored["id"],)]
            assert group_id == after["id"]
        finally:
            browser.close()
