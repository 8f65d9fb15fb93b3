"""The side panel's composer holding a long paste: how long Chromium lays it out.

Run: .venv/bin/python bench/bench_composer_layout.py [--quick] [--chromium PATH] [--runs N]

Loads ``extension-shim/sidepanel.html`` with its stylesheet (its scripts do not run from
``file://``; the layout is the browser's own), sets the composer's value to the text of the
e2e test ``test_a_message_over_1_mib_reaches_the_panel_intact`` (1.2 MB of German, quotes,
backslashes, tabs and an emoji every 28 bytes), and times, in the page, the first layout
that needs it (``getBoundingClientRect``). Baseline in the same run: the same length of
ASCII text. Each is measured twice: with the machine's fonts, and with its emoji fonts
hidden from the browser (a fontconfig file that rejects ``*Emoji*``), the case of issue 23:
Debian bookworm's Chromium 150 took ~20 s there (a fallback-font lookup per emoji), which
timed the e2e test out. It prints the browser's version and the fonts that cover emoji.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Playwright, sync_playwright

from _browser import REPO
from _common import figure, header

sys.path.insert(0, str(REPO))
from tests.e2e.harness import CHROMIUM, LAUNCH_ARGS, chromium_version

PANEL = REPO / "extension-shim" / "sidepanel.html"
UNIT = 'Grüße "quoted" \\ 👋 ñ\t'
TIME_LAYOUT = """text => {
  const box = document.getElementById('message');
  box.value = '';
  box.getBoundingClientRect();
  const start = performance.now();
  box.value = text;
  box.getBoundingClientRect();
  return performance.now() - start;
}"""


def paste(size: int, unit: str) -> str:
    return "big " + unit * (size // len(unit.encode()) + 1) + "end"


NO_EMOJI_FONTS = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <selectfont><rejectfont><glob>*Emoji*</glob></rejectfont></selectfont>
</fontconfig>
"""


def emoji_fonts(env: dict[str, str] | None = None) -> str:
    command = ["fc-list", ":charset=1f44b", "family"]
    found = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    return ", ".join(sorted(set(found.stdout.splitlines()))) or "none"


def measure(
    playwright: Playwright, chromium: Path, texts: dict[str, str], runs: int, env: dict[str, str]
) -> dict[str, float]:
    """Median layout time (ms) of each text in the composer."""
    browser = playwright.chromium.launch(
        executable_path=str(chromium), headless=True, args=LAUNCH_ARGS, env=env
    )
    page = browser.new_page(viewport={"width": 360, "height": 720})
    page.set_default_timeout(600_000)
    page.goto(PANEL.as_uri())
    timings: dict[str, list[float]] = {name: [] for name in texts}
    for _ in range(runs):
        for name, text in texts.items():
            timings[name].append(page.evaluate(TIME_LAYOUT, text))
    browser.close()
    return {name: statistics.median(values) for name, values in timings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--chromium", type=Path, default=CHROMIUM)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    size = 60_000 if args.quick else 1_200_000
    runs = 2 if args.quick else args.runs
    header("composer layout of a long paste", args.quick)
    print(f"browser: {chromium_version(args.chromium)}")
    texts = {"with emoji": paste(size, UNIT), "ASCII": paste(size, 'Grusse "quoted" \\ x n ')}
    size_label = f"{len(texts['with emoji'].encode()):,} bytes with emoji"
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        hidden = Path(scratch) / "fonts.conf"
        hidden.write_text(NO_EMOJI_FONTS, "utf-8")
        cases = {
            "the machine's fonts": dict(os.environ),
            "emoji fonts hidden": {**os.environ, "FONTCONFIG_FILE": str(hidden)},
        }
        for case, env in cases.items():
            print(f"{case}: fonts covering emoji: {emoji_fonts(env)}")
            medians = measure(playwright, args.chromium, texts, runs, env)
            figure(
                f"composer layout, {size_label}, {case}, median",
                medians["with emoji"],
                "ms",
                baseline=medians["ASCII"],
                baseline_name="same length ASCII",
            )


if __name__ == "__main__":
    main()
