"""The replay tests' shop (tests/support/shop.py) judged by a yardstick no one here wrote:
Playwright's aria snapshot. Every cosmetic look keeps each page's controls (role and
name) as recorded, while ids, classes and order really change; a sold-out product really
loses its button."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, Playwright
from tests.support.shop import Look, ShopState, serve_shop

from .harness import CHROMIUM

ARIA_LINE = re.compile(r'^\s*- (\w+)(?: "([^"]*)")?')
SEEDS = range(20)


@pytest.fixture
def page(playwright: Playwright) -> Iterator[Page]:
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
    try:
        yield browser.new_page()
    finally:
        browser.close()


def _controls(page: Page) -> Counter[tuple[str, str]]:
    """The page's elements with a role, by role and name, outside the cookie banner."""
    banner = page.get_by_role("region", name="Cookie notice")
    if banner.count():
        banner.evaluate("el => el.remove()")
    found: Counter[tuple[str, str]] = Counter()
    for line in page.locator("body").aria_snapshot().splitlines():
        match = ARIA_LINE.match(line)
        if match and match.group(1) not in ("text", "paragraph", "generic"):
            found[(match.group(1), match.group(2) or "")] += 1
    return found


def _visit(page: Page, base: str, state: ShopState, look: Look) -> dict[str, object]:
    state.look = look
    state.cart = {"Desk lamp": 1}
    seen: dict[str, object] = {}
    for path in ("/", "/search?q=lamp", "/cart", "/checkout"):
        page.goto(base + path)
        seen[path] = _controls(page)
        seen[f"{path} ids"] = page.eval_on_selector_all("[id]", "els => els.map(e => e.id)")
        seen[f"{path} order"] = page.locator("h2").all_inner_texts()
    return seen


def test_every_look_keeps_the_controls_and_changes_the_markup(page: Page) -> None:
    with serve_shop() as (base, state):
        recorded = _visit(page, base, state, Look())
        reordered = 0
        for seed in SEEDS:
            looked = _visit(page, base, state, Look(seed=seed))
            for path in ("/", "/search?q=lamp", "/cart", "/checkout"):
                assert looked[path] == recorded[path], (seed, path)
                assert set(looked[f"{path} ids"]).isdisjoint(recorded[f"{path} ids"])  # type: ignore[arg-type]
            reordered += looked["/search?q=lamp order"] != recorded["/search?q=lamp order"]
    assert recorded[("/search?q=lamp")][("button", "Add to cart")] == 5  # type: ignore[index]
    assert reordered >= 15  # the results' order really changes


def test_a_sold_out_product_loses_its_button(page: Page) -> None:
    with serve_shop() as (base, state):
        state.look = Look(seed=3, sold_out="Desk lamp")
        page.goto(f"{base}/search?q=lamp")
        assert _controls(page)[("button", "Add to cart")] == 4
        desk = page.get_by_role("article").filter(has=page.get_by_role("heading", name="Desk lamp"))
        assert desk.get_by_role("button").count() == 0
        assert "Sold out" in desk.inner_text()


def test_the_task_can_be_done_by_hand(page: Page) -> None:
    """The recorded task, as a person does it, places the order the shop stores."""
    with serve_shop() as (base, state):
        page.goto(base)
        page.get_by_role("searchbox", name="Search products").fill("lamp")
        page.get_by_role("button", name="Search").click()
        desk = page.get_by_role("article").filter(has=page.get_by_role("heading", name="Desk lamp"))
        desk.get_by_role("button", name="Add to cart").click()
        page.get_by_role("spinbutton", name="Quantity").fill("2")
        page.get_by_role("button", name="Update cart").click()
        page.get_by_role("link", name="Checkout").click()
        page.get_by_role("textbox", name="Full name").fill("Ada Lovelace")
        page.get_by_role("textbox", name="Email").fill("ada@example.org")
        page.get_by_role("combobox", name="Shipping").select_option("Express")
        page.get_by_role("button", name="Place order").click()
        page.get_by_role("heading", name="Thank you").wait_for()
        (order,) = state.orders
        assert order["name"] == "Ada Lovelace" and order["shipping"] == "Express"
        assert order["cart"] == "[('Desk lamp', 2)]"
