"""MiniWoB++ task pages (the `miniwob` package's `miniwob/html/`, installed by the test
set-up for its pages only) served over loopback, and an episode started as BrowserGym
starts one: a fixed seed, then `core.startEpisodeReal()`. The episode's own reward decides
whether a task was solved."""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

from playwright.sync_api import Page
from tests.support.web import serve_on_loopback

EPISODE_MS = 120_000  # MiniWoB's 10 s is for a model on a fast machine; ours goes through tools


def miniwob_html() -> Path:
    """The task pages' folder; a clear failure when the package is missing."""
    spec = importlib.util.find_spec("miniwob")
    assert spec is not None and spec.origin is not None, (
        "the miniwob package is missing: scripts/test.sh installs it (pip install --no-deps "
        "miniwob), for its task pages"
    )
    return Path(spec.origin).parent / "html"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve_miniwob() -> Iterator[str]:
    """Yield the base URL of the task pages (``{base}/miniwob/<task>.html``)."""
    handler = functools.partial(_Quiet, directory=str(miniwob_html()))
    with serve_on_loopback(handler) as base:  # type: ignore[arg-type]
        yield base


def start_episode(page: Page, base: str, task: str, seed: int) -> None:
    page.goto(f"{base}/miniwob/{task}.html")
    page.evaluate(
        "([seed, ms]) => { Math.seedrandom(seed); core.EPISODE_MAX_TIME = ms;"
        " core.startEpisodeReal(); }",
        [str(seed), EPISODE_MS],
    )


def reward(page: Page) -> float | None:
    """The episode's raw reward once it is done (1 solved, -1 failed), else None."""
    done, raw = page.evaluate("() => [WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL]")
    return float(raw) if done else None
