"""Semantic targets read from ``browser_snapshot`` outlines and resolved again on another
snapshot by meaning (issue 29): robust to refs renumbered, order shuffled and an added
banner; a removed element or an undecidable one is a divergence that says what was looked
for and what was found."""

from __future__ import annotations

import json
import random

from hypothesis import given
from hypothesis import strategies as st

from panelot_host.protocol.workflows import SemanticTarget
from panelot_host.tools.outline import (
    Resolved,
    Unresolved,
    parse,
    parse_element,
    resolve,
    target_of,
    url_matches,
)

PRODUCTS = ["Socks", "Hat", "Scarf", "Gloves"]


def shop(
    order: list[str], *, first_ref: int = 1, banner: bool = False, ref_prefix: str = ""
) -> str:
    """A results page as the shim outlines it (``describe()``: role, name, value, refs)."""
    rows: list[tuple[int, str]] = []
    if banner:
        rows += [(0, "banner"), (1, 'searchbox "Search"'), (1, 'link "Sale"')]
    rows += [(0, "main"), (1, 'heading[1] "Results"'), (1, 'searchbox "Search" = "socks"')]
    for product in order:
        rows += [(1, "article"), (2, f"heading[2] {json.dumps(product)}"),
                 (2, 'button "Add to cart"')]  # fmt: skip
    lines = ['Page "Shop" at https://shop.example/search?q=socks; scrolled to y=0 of 1 px.']
    for index, (depth, text) in enumerate(rows):
        lines.append(f"{'  ' * depth}- {text} [{ref_prefix}e{first_ref + index}]")
    return "\n".join(lines)


def target_for(product: str) -> SemanticTarget:
    page = parse(shop(PRODUCTS))
    node = next(
        n for i, n in enumerate(page.nodes)
        if n.name == "Add to cart" and page.nodes[i - 1].name == product
    )  # fmt: skip
    return target_of(page, node, "https://shop.example")


def product_of(page_text: str, ref: str) -> str:
    page = parse(page_text)
    node = page.by_ref(ref)
    assert node is not None
    return page.nodes[node.index - 1].name


def test_a_line_reads_role_name_value_and_ref() -> None:
    page = parse(shop(["Hat"]))
    assert page.url == "https://shop.example/search?q=socks" and page.title == "Shop"
    box = page.nodes[2]
    assert (box.role, box.name, box.value, box.ref) == ("searchbox", "Search", "socks", "e3")
    assert page.nodes[box.parent or 0].role == "main"
    assert parse('- button "Pay" [ref=e12 disabled]').nodes[0].ref == "e12"
    assert parse_element('button "Pay"') == ("button", "Pay")


def test_the_target_is_described_by_meaning_not_by_ref() -> None:
    target = target_for("Hat")
    assert target.role == "button" and target.name == "Add to cart"
    assert target.landmark == "main" and target.heading == 'heading "Hat"'
    assert (target.nth, target.count) == (1, 4)
    assert target.url_pattern == "https://shop.example/search*"
    assert url_matches(target.url_pattern, "https://shop.example/search?q=wool")


@given(
    order=st.permutations(PRODUCTS),
    first_ref=st.integers(1, 500),
    banner=st.booleans(),
    wanted=st.sampled_from(PRODUCTS),
    frame=st.sampled_from(["", "f1"]),
)
def test_cosmetic_changes_resolve_to_the_same_element(
    order: list[str], first_ref: int, banner: bool, wanted: str, frame: str
) -> None:
    page = shop(list(order), first_ref=first_ref, banner=banner, ref_prefix=frame)
    found = resolve(target_for(wanted), parse(page))
    assert isinstance(found, Resolved)
    assert product_of(page, found.node.ref) == wanted


def test_names_compare_without_case_or_extra_whitespace() -> None:
    target = target_for("Hat")
    page = shop(PRODUCTS).replace('"Add to cart"', '"ADD  to  Cart"')
    assert isinstance(resolve(target, parse(page)), Resolved)


def test_an_added_banner_with_the_same_field_is_told_apart_by_its_landmark() -> None:
    page = parse(shop(PRODUCTS))
    box = next(n for n in page.nodes if n.role == "searchbox")
    target = target_of(page, box)
    with_banner = parse(shop(PRODUCTS, banner=True, first_ref=9))
    found = resolve(target, with_banner)
    assert isinstance(found, Resolved) and found.node.value == "socks"


def test_a_removed_button_is_a_divergence_saying_what_was_found() -> None:
    page = shop(PRODUCTS).replace('button "Add to cart"', 'button "Notify me"')
    found = resolve(target_for("Hat"), parse(page))
    assert isinstance(found, Unresolved)
    assert found.looked_for.startswith('button "Add to cart" in main under heading "Hat"')
    assert 'button "Notify me"' in found.found


def test_equals_that_nothing_tells_apart_are_not_guessed() -> None:
    rows = "\n".join(f'- button "Add to cart" [e{i}]' for i in range(3))
    page = parse(rows)
    target = target_of(page, page.nodes[1])
    assert isinstance(resolve(target, page), Resolved)  # as many as recorded: by position
    fewer = parse("\n".join(f'- button "Add to cart" [e{i}]' for i in range(2)))
    found = resolve(target, fewer)
    assert isinstance(found, Unresolved) and "2 elements" in found.found


def test_random_order_keeps_every_product_apart() -> None:
    rng = random.Random(29)
    for _ in range(20):
        order = PRODUCTS[:]
        rng.shuffle(order)
        page = shop(order, first_ref=rng.randint(1, 99), banner=rng.random() < 0.5)
        for wanted in PRODUCTS:
            found = resolve(target_for(wanted), parse(page))
            assert isinstance(found, Resolved) and product_of(page, found.node.ref) == wanted
