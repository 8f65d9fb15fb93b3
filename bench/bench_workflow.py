"""Workflow replay (issue 29): a browsing task driven by a model, against its replay as a
workflow without the model, in the same run; then the replay on seeded cosmetic changes.

Run: .venv/bin/python bench/bench_workflow.py [--quick] [--latency-ms MS] [--looks N]

Real Chromium with the extension and the real host (the end-to-end tests' harness), on the
loopback shop of tests/support/shop.py. The task: open the shop in the thread's own tab,
search "lamp", add the desk lamp to the cart, set the quantity to 2, check out with a name,
an email and a shipping option, place the order: 11 steps that act, 15 model calls with
the snapshots. The model is the tests' fake Anthropic server answering each call after
``--latency-ms`` (default 1000 ms, a fast real model). Every call is allowed by a policy
rule (the benchmark measures running, not asking).

Figures: the replay's model tokens (target 0) and its wall time against the model-driven
turn's (target <= 0.1x); then ``--looks`` (default 20) replays, each on the shop changed by
``Look(seed=n)`` (ids, classes, order, wrappers, a cookie banner): how many complete
without handing over (target >= 18 of 20), and the divergence of any that hand over.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

from _browser import (
    FakeAnthropic,
    PacedScript,
    Step,
    act_on,
    connected_panel,
    launched,
    plain,
    rpc,
    timed_turn,
    wait_turn,
)
from _common import figure, header

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.shop import Look, ShopState, serve_shop

TARGET_RATIO = 0.1
TARGET_LOOKS = 0.9  # 18 of 20
_ids = itertools.count()


class ShopperModel(PacedScript):
    """The task as a model does it, one call per answer, each after ``latency_s``."""

    final = "Ordered."

    def __init__(self, site: str, latency_s: float) -> None:
        super().__init__(latency_s)
        self.site = site

    def steps(self, call: str) -> list[Step]:
        return [
            plain(call, "browser_tab_new", url=f"{self.site}/"),
            plain(call, "browser_snapshot"),
            act_on(call, "browser_type", "searchbox", "Search products", text="lamp"),
            act_on(call, "browser_click", "button", "Search"),
            plain(call, "browser_snapshot"),
            act_on(call, "browser_click", "button", "Add to cart"),  # the first: the desk lamp
            plain(call, "browser_snapshot"),
            act_on(call, "browser_type", "spinbutton", "Quantity", text="2"),
            act_on(call, "browser_click", "button", "Update cart"),
            plain(call, "browser_snapshot"),
            act_on(call, "browser_click", "link", "Checkout"),
            plain(call, "browser_snapshot"),
            act_on(call, "browser_type", "textbox", "Full name", text="Ada Lovelace"),
            act_on(call, "browser_type", "textbox", "Email", text="ada@example.org"),
            act_on(call, "browser_select_option", "combobox", "Shipping", values=["Express"]),
            act_on(call, "browser_click", "button", "Place order"),
        ]


def _replay(panel: Page, workflow_id: str) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    run = rpc(
        panel, "workflow.run", {"commandId": f"bench-{next(_ids)}", "workflowId": workflow_id}
    )
    opened = wait_turn(panel, run["threadId"], run["turnId"])
    return time.perf_counter() - started, opened


def _tokens(opened: dict[str, Any]) -> int:
    usage = opened["turn"].get("usage") or {}
    return sum(int(v) for k, v in usage.items() if k.endswith("Tokens") and isinstance(v, int))


def _close_shop_tabs(panel: Page, site: str) -> None:
    panel.evaluate(
        "async (site) => { const tabs = await chrome.tabs.query({});"
        " await Promise.all(tabs.filter((t) => (t.url || '').startsWith(site))"
        ".map((t) => chrome.tabs.remove(t.id))); }",
        site,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 looks instead of 20")
    parser.add_argument("--latency-ms", type=float, default=1000.0)
    parser.add_argument("--looks", type=int, default=20)
    args = parser.parse_args()
    looks = 3 if args.quick else args.looks
    header("workflow replay (issue 29)", args.quick)
    model = FakeAnthropic()
    model.start()
    state = ShopState()
    try:
        with (
            serve_shop(state) as (site, _),
            sync_playwright() as playwright,
            launched(playwright, model) as browser,
        ):
            panel = connected_panel(browser)
            rules = {"commandId": "bench-rules", "policyRules": [{"decision": "allow"}]}
            rpc(panel, "settings.update", rules)
            shopper = ShopperModel(site, args.latency_ms / 1000)
            print(f"model latency per answer: {args.latency_ms:.0f} ms")
            driven, recorded = timed_turn(panel, model, shopper, "Order a desk lamp")
            assert state.orders and state.orders[-1]["shipping"] == "Express", state.orders
            draft = rpc(
                panel,
                "workflow.propose",
                {"threadId": recorded["thread"]["id"], "turnId": recorded["turn"]["id"]},
            )["draft"]
            saved = rpc(panel, "workflow.save", {"commandId": "bench-save", "workflow": draft})
            workflow_id = saved["workflow"]["id"]
            steps = len(draft["steps"])
            _close_shop_tabs(panel, site)
            asked = len(model.bodies)
            state.orders.clear()
            replayed, run = _replay(panel, workflow_id)
            assert run["turn"]["status"] == "completed", run["turn"]
            assert state.orders, "the replay placed no order"
            model_calls = len(model.bodies) - asked
            figure(
                f"replay of the {steps}-step task, model calls",
                model_calls,
                "",
                target="0",
                met=model_calls == 0 and _tokens(run) == 0,
            )
            figure(
                f"replay of the {steps}-step task, wall time",
                replayed,
                "s",
                baseline=driven,
                baseline_name=f"the task driven by the model ({args.latency_ms:.0f} ms a call)",
                target=f"<= {TARGET_RATIO}x",
                met=replayed <= TARGET_RATIO * driven,
            )
            completed = 0
            for seed in range(looks):
                _close_shop_tabs(panel, site)
                state.look = Look(seed=seed)
                state.cart.clear()
                _, run = _replay(panel, workflow_id)
                record = run["turn"].get("workflow") or {}
                if record.get("divergedAt") is None and run["turn"]["status"] == "completed":
                    completed += 1
                else:
                    print(
                        f"  look {seed}: diverged at step {record.get('divergedAt')}: "
                        f"{record.get('divergence')}"
                    )
            figure(
                f"replays on {looks} cosmetic looks completed without the model",
                completed,
                f"of {looks}",
                target=f">= {int(TARGET_LOOKS * 20)} of 20",
                met=completed >= TARGET_LOOKS * looks,
            )
    finally:
        model.stop()


if __name__ == "__main__":
    main()
