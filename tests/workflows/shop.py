"""A tiny shop the fake browser serves for the workflow tests: a search page and a results
page whose outlines follow ``browser_snapshot``'s (a header line, one indented line per
element), clicks and typing that change them, and cosmetic variants (refs renumbered, the
products in another order, a banner added) or a broken one (the buttons gone)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.fake_browser import FakeBrowser, FakeTab

from panelot_host.errors import ToolError

HOME = "https://shop.example/"
PRODUCTS = ["Socks", "Hat", "Scarf"]


class Shop(FakeBrowser):
    """``shuffled``: products in reverse order; ``banner``: a banner with its own search;
    ``renumbered``: refs start at 40; ``sold_out``: no "Add to cart" button at all."""

    def __init__(
        self,
        *,
        shuffled: bool = False,
        banner: bool = False,
        renumbered: bool = False,
        sold_out: bool = False,
    ) -> None:
        super().__init__({}, HOME)
        self.shuffled, self.banner, self.renumbered, self.sold_out = (
            shuffled, banner, renumbered, sold_out,
        )  # fmt: skip
        self.typed = ""
        self.cart: list[str] = []
        self.refs: dict[str, tuple[str, str, str | None]] = {}

    def _elements(self, url: str) -> list[tuple[int, str, str, str | None, str | None]]:
        """(depth, role, name, value, product) of each element of the page at ``url``."""
        found: list[tuple[int, str, str, str | None, str | None]] = []
        if self.banner:
            found += [(0, "banner", "", None, None), (1, "searchbox", "Search", None, None),
                      (1, "link", "Summer sale", None, None)]  # fmt: skip
        found.append((0, "main", "", None, None))
        if urlsplit(url).path == "/search":
            query = parse_qs(urlsplit(url).query).get("q", [""])[0]
            found.append((1, "heading", f"Results for {query}", None, None))
            products = list(reversed(PRODUCTS)) if self.shuffled else PRODUCTS
            for product in products:
                found.append((1, "heading", product, None, None))
                if not self.sold_out:
                    found.append((1, "button", "Add to cart", None, product))
            found += [(1, "status", f"Added {p} to cart", None, None) for p in self.cart]
        else:
            found += [(1, "searchbox", "Search", self.typed or None, None),
                      (1, "button", "Search", None, None)]  # fmt: skip
        return found

    def _snapshot(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        self.refs = {}
        lines = [f'Page "Shop" at {tab.url}; scrolled to y=0 of 900 px (viewport 900 px).']
        first = 40 if self.renumbered else 1
        for index, (depth, role, name, value, product) in enumerate(self._elements(tab.url)):
            ref = f"e{first + index}"
            self.refs[ref] = (role, name, product)
            role_shown = "heading[2]" if role == "heading" else role
            parts = [role_shown] + ([json.dumps(name)] if name else [])
            if value is not None:
                parts.append(f"= {json.dumps(value)}")
            parts.append(f"[{ref}]")
            lines.append("  " * depth + "- " + " ".join(parts))
        return "\n".join(lines)

    def _element(self, ref: str) -> tuple[str, str, str | None]:
        if ref not in self.refs:
            raise ToolError(f"ref {ref} is not in the latest snapshot")
        return self.refs[ref]

    def _click(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        role, name, product = self._element(args["ref"])
        self.actions.append(f"click {role} {name} {product or ''}".strip())
        if name == "Search":
            tab.history.append(f"{HOME}search?q={self.typed}")
        elif product is not None:
            self.cart.append(product)
        return f"Clicked {role} {json.dumps(name)}"

    def _type(self, tab: FakeTab, args: Mapping[str, Any]) -> str:
        role, name, _ = self._element(args["ref"])
        self.typed = args["text"]
        self.actions.append(f"type {name} {args['text']}")
        return f"Typed into {role} {json.dumps(name)}"
