"""MiniWoB++ through the whole stack: real Chromium, the extension, the host, the panel,
and a scripted model per task (``tests/e2e/miniwob_policies.py``) that sees only the tool results.

Run: .venv/bin/python bench/bench_miniwob.py [--quick] [--seeds N] [TASK ...]

Each task page comes from the ``miniwob`` package (its HTML only, served over loopback),
the episode is started as BrowserGym starts it (a fixed seed, ``core.startEpisodeReal()``;
the time limit raised to 120 s, as tools take longer than a model's direct actions), and
the episode's own reward decides: 1 is solved. The user's side is played in the panel:
each approval card is answered "Allow for this site". Printed per task: solved episodes,
tool calls, seconds, and the cause of each failure; then the totals. The baseline of the
same run is the task's own time limit: seconds are shown beside it.
"""

from __future__ import annotations

import argparse
import re
import time
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page, sync_playwright

from _browser import (
    EPISODE_MS,
    POLICIES,
    Browser,
    FakeAnthropic,
    Policy,
    Reply,
    Stuck,
    connected_panel,
    launched,
    reward,
    serve_miniwob,
    start_episode,
    task_text,
    text_reply,
    tool_results,
    tool_use_reply,
)
from _common import figure, header

QUICK_TASKS = ["click-button", "navigate-tree"]
REPLIES = 60  # planned replies per episode: more than any policy makes


@dataclass
class PolicyModel:
    """Plays the model for one episode: finds the task's tab, reads the task, then runs
    the task's policy on the tool results."""

    task: str
    calls: list[str] = field(default_factory=list)
    stuck: str | None = None
    _tab: int | None = None
    _policy: Policy | None = None
    _phase: str = "tabs"

    def reply(self, body: dict[str, Any]) -> Reply:
        if not body.get("tools"):
            return text_reply(["MiniWoB++"])  # a title request
        results = tool_results(body)
        last = results[-1] if results else ""
        try:
            step = self._step(last)
        except Stuck as exc:
            self.stuck = str(exc)
            return text_reply([f"Stuck: {exc}"])
        if isinstance(step, str):
            return text_reply([step])
        name, args = step
        self.calls.append(name)
        on_tab = {"tabId": self._tab} if self._tab is not None else {}
        return tool_use_reply(f"toolu_{len(self.calls)}", name, {**args, **on_tab})

    def _step(self, last: str) -> tuple[str, dict[str, object]] | str:
        if self._phase == "tabs":
            self._phase = "find"
            return ("browser_tabs_list", {})
        if self._phase == "find":
            found = re.search(rf"- tab (\d+)[^\n]*/miniwob/{re.escape(self.task)}\.html", last)
            if found is None:
                raise Stuck(f"the task's tab is not in the tab list: {last[:300]!r}")
            self._tab = int(found.group(1))
            self._phase = "read"
            return ("browser_read", {})
        if self._phase == "read":
            self._phase = "policy"
            self._policy = POLICIES[self.task](task_text(last))
            return next(self._policy)
        assert self._policy is not None
        try:
            return self._policy.send(last)
        except StopIteration as done:
            return str(done.value)


@dataclass
class Outcome:
    task: str
    seed: int
    solved: bool
    calls: int
    seconds: float
    cause: str


def run_episode(
    browser: Browser, model: FakeAnthropic, panel: Page, base: str, task: str, seed: int
) -> Outcome:
    page = browser.context.new_page()
    start_episode(page, base, task, seed)
    policy = PolicyModel(task)
    with model._lock:
        model.plans.clear()
    model.plan(*([policy.reply] * REPLIES))
    panel.get_by_role("button", name="New thread").click()
    started = time.perf_counter()
    message = f"Do the task in the tab {task} (seed {seed})."
    panel.get_by_role("textbox", name="Message").fill(message)
    panel.get_by_role("button", name="Send", exact=True).click()
    conversation = panel.get_by_role("list", name="Conversation")
    # this thread's message shown: the previous thread's answer is gone from the list
    conversation.get_by_role("listitem").filter(has_text=message).wait_for(timeout=30_000)
    final = conversation.get_by_role("listitem").filter(has_text=re.compile(r"^(Done\.|Stuck: )"))
    allow = conversation.get_by_role("button", name="Allow for this site")
    deadline = time.monotonic() + EPISODE_MS / 1000
    while not final.count() and time.monotonic() < deadline:
        if allow.count():
            button = allow.first.element_handle()
            button.click()
            button.wait_for_element_state("hidden", timeout=15_000)
            continue
        panel.wait_for_timeout(50)
    seconds = time.perf_counter() - started
    got = reward(page)
    items = conversation.get_by_role("listitem")
    last_said = items.last.inner_text()[:200] if items.count() else "(nothing)"
    page.close()
    if policy.stuck:
        cause = policy.stuck
    elif got is None:
        cause = f"the episode did not end (no reward); the panel's last item: {last_said!r}"
    elif got < 1:
        cause = f"the page gave reward {got}"
    else:
        cause = ""
    return Outcome(task, seed, got == 1.0, len(policy.calls), seconds, cause)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("tasks", nargs="*")
    args = parser.parse_args()
    tasks = args.tasks or (QUICK_TASKS if args.quick else list(POLICIES))
    seeds = range(1, (1 if args.quick else args.seeds) + 1)
    header("MiniWoB++ through Chromium, the extension, the host and the panel", args.quick)
    outcomes: list[Outcome] = []
    with sync_playwright() as playwright:
        model = FakeAnthropic()
        model.start()
        try:
            with launched(playwright, model) as browser, serve_miniwob() as base:
                panel = connected_panel(browser)
                for task in tasks:
                    for seed in seeds:
                        outcomes.append(run_episode(browser, model, panel, base, task, seed))
        finally:
            model.stop()
    print(f"{'task':22} {'solved':>7} {'calls':>6} {'s/episode':>10}  causes")
    for task in tasks:
        mine = [o for o in outcomes if o.task == task]
        solved = sum(o.solved for o in mine)
        calls = sum(o.calls for o in mine) / len(mine)
        seconds = sum(o.seconds for o in mine) / len(mine)
        causes = "; ".join(sorted({f"seed {o.seed}: {o.cause}" for o in mine if not o.solved}))
        print(f"{task:22} {solved:>3}/{len(mine):<3} {calls:>6.1f} {seconds:>10.2f}  {causes}")
    solved_tasks = sum(all(o.solved for o in outcomes if o.task == t) for t in tasks)
    episodes = sum(o.solved for o in outcomes)
    mean_s = sum(o.seconds for o in outcomes) / len(outcomes)
    share = 100 * episodes / len(outcomes)
    figure(
        "MiniWoB++ episodes solved",
        share,
        "%",
        target=">= 90 % (issue 24)",
        met=share >= 90,
        extra=f"{episodes} of {len(outcomes)} episodes; {solved_tasks} of {len(tasks)} tasks "
        "solved in every seed",
    )
    figure(
        "MiniWoB++ seconds per episode, mean",
        mean_s,
        "s",
        baseline=EPISODE_MS / 1000,
        baseline_name="the episode's time limit",
        extra=f"{len(outcomes)} episodes",
    )


if __name__ == "__main__":
    main()
