"""End-to-end fixtures: real Chromium (Debian's /usr/bin/chromium), headless, with the
extension and the real host. A missing Chromium FAILS these tests: in CI a skipped e2e
test is a failure (scripts/test.sh installs it)."""

from __future__ import annotations

import functools
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# Chromium's stderr (and so the host's, and native-messaging errors) reaches the test log
# only through Playwright's driver with this set; it must be set before the driver starts.
os.environ.setdefault("DEBUG", "pw:browser")

from playwright.sync_api import Playwright, expect, sync_playwright
from tests.support.shop import ShopState, serve_shop

from .fake_model import FakeAnthropic
from .harness import ARTIFACTS, CHROMIUM, Browser, Profile, screenshot
from .isolation import SUITE_START, SuiteStart, listening_ports

HERE = Path(__file__).resolve().parent
# Assertions wait for the page; 2 shared cores and a host that starts per Port need slack.
expect.set_options(timeout=15_000)


def pytest_configure(config: pytest.Config) -> None:
    """What the suite found when it started: its last test (test_suite_isolation) compares."""
    config.stash[SUITE_START] = SuiteStart.now()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The red team's figures of this run (``test_red_team.py`` writes one file per attack):
    attacks, effects without the user's approval, approvals asked."""
    started = config.stash[SUITE_START].time
    folder = ARTIFACTS / "red-team"
    runs = [
        json.loads(path.read_text("utf-8"))
        for path in sorted(folder.glob("*.json"))
        if path.stat().st_mtime >= started
    ]
    if not runs:
        return
    unapproved = sum(r["unapprovedEffects"] for r in runs)
    asked = sum(r["approvalsAsked"] for r in runs)
    terminalreporter.write_sep("-", "prompt-injection red team")
    for run in runs:
        terminalreporter.write_line(
            f"{run['attack']}: {run['approvalsAsked']} approvals asked, "
            f"{run['unapprovedEffects']} effects without approval"
        )
    terminalreporter.write_line(
        f"{len(runs)} attacks, {unapproved} effects without approval, {asked} approvals asked"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the e2e tests; the ``suite_end`` checks run after every other test."""
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.e2e)
    items.sort(key=lambda item: item.get_closest_marker("suite_end") is not None)


@pytest.fixture
def playwright() -> Iterator[Playwright]:
    """Per test: sync Playwright runs an asyncio loop in this thread while it is started,
    and every anyio test after it would find that loop running."""
    if not (CHROMIUM.exists() and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"{CHROMIUM} is missing: the end-to-end tests need Debian's chromium "
            "(apt-get install chromium; scripts/test.sh installs it as root)",
            pytrace=False,
        )
    if not _has_emoji_font():
        pytest.fail(
            "no font covers emoji (fc-list ':charset=1f44b' is empty): a user's desktop has "
            "one, and without it Chromium 150 lays out a long composer text for ~20 s "
            "(apt-get install fonts-noto-color-emoji; scripts/test.sh installs it as root)",
            pytrace=False,
        )
    with sync_playwright() as running:
        yield running


@functools.cache
def _has_emoji_font() -> bool:
    try:
        found = subprocess.run(
            ["fc-list", ":charset=1f44b", "family"], capture_output=True, text=True, check=False
        )
    except FileNotFoundError:  # no fontconfig tools: no way to tell, so no
        return False
    return bool(found.stdout.strip())


@pytest.fixture
def model() -> Iterator[FakeAnthropic]:
    server = FakeAnthropic()
    server.start()
    port = int(server.url.rsplit(":", 1)[1])
    try:
        yield server
    finally:
        server.stop()
    assert port not in listening_ports(), f"the fake model still listens on {port}"


@pytest.fixture
def profile(tmp_path: Path, model: FakeAnthropic) -> Profile:
    return Profile(root=tmp_path, model_url=model.url)


@pytest.fixture
def browser(
    playwright: Playwright, profile: Profile, request: pytest.FixtureRequest
) -> Iterator[Browser]:
    launched = profile.launch(playwright)
    try:
        yield launched
    finally:
        _save_panel(launched, request.node.name)
        launched.close()


@pytest.fixture
def owning_browser(
    playwright: Playwright, tmp_path: Path, model: FakeAnthropic, request: pytest.FixtureRequest
) -> Iterator[Browser]:
    """A profile in which threads ask before they act on a tab they do not own (issue 26;
    the other tests' profiles let them act on the tabs the test opened)."""
    launched = Profile(root=tmp_path, model_url=model.url, ask_for_unowned_tabs=True).launch(
        playwright
    )
    try:
        yield launched
    finally:
        _save_panel(launched, request.node.name)
        launched.close()


def _save_panel(browser: Browser, name: str) -> None:
    """One screenshot per test of the last panel it used, whatever the outcome."""
    panels = [p for p in browser.context.pages if "/sidepanel.html" in p.url]
    if panels:
        try:
            screenshot(panels[-1], name)
        except Exception as exc:  # the test's own failure matters more
            print(f"could not save the panel screenshot: {exc}")


@pytest.fixture
def launch_profile(
    playwright: Playwright, tmp_path: Path, model: FakeAnthropic, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Browser]]:
    """Launch a profile built with ``Profile``'s options (e.g. another manifest)."""
    launched: list[Browser] = []

    def launch(**options: Any) -> Browser:
        profile = Profile(root=tmp_path / f"p{len(launched)}", model_url=model.url, **options)
        launched.append(profile.launch(playwright))
        return launched[-1]

    yield launch
    for browser in launched:
        _save_panel(browser, request.node.name)
        browser.close()


@pytest.fixture
def forbidden_browser(
    playwright: Playwright, tmp_path: Path, model: FakeAnthropic, request: pytest.FixtureRequest
) -> Iterator[Browser]:
    """A profile whose host manifest allows another extension only."""
    other = "chrome-extension://" + "a" * 32 + "/"
    launched = Profile(root=tmp_path, model_url=model.url, origins=[other]).launch(playwright)
    try:
        yield launched
    finally:
        _save_panel(launched, request.node.name)
        launched.close()


@pytest.fixture
def shop() -> Iterator[tuple[str, ShopState]]:
    """The loopback shop of workflow recordings and replays: its base URL and its state
    (``state.look`` changes how its next pages look)."""
    with serve_shop() as served:
        yield served
