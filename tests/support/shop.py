"""A small shop on loopback, for recording a browser task once and replaying it (issue 29):
search, a results list whose "Add to cart" buttons are equal but for the product above
them, a cart with a quantity, and a checkout form.

``Look`` changes the pages cosmetically the way sites change between two visits: ids and
classes renamed, the results and the navigation links in another order, extra wrappers, a
cookie banner at the top. None of that changes what a person sees as the page's controls
(their roles and names); ``sold_out`` takes one product's button away, a real divergence.
"""

from __future__ import annotations

import html
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from tests.support.web import send_html, serve_on_loopback

PRODUCTS = (
    ("Desk lamp", "24.00"),
    ("Floor lamp", "89.00"),
    ("Lamp shade", "12.50"),
    ("Reading lamp", "31.00"),
    ("Lava lamp", "19.90"),
)
SHIPPING = ("Standard", "Express", "Pickup")


@dataclass(frozen=True)
class Look:
    """How the shop looks on one visit; ``seed`` None is the shop as recorded."""

    seed: int | None = None
    sold_out: str | None = None  # a product whose "Add to cart" button is gone

    def rng(self, page: str) -> random.Random | None:
        return None if self.seed is None else random.Random(f"{self.seed}:{page}")


@dataclass
class ShopState:
    """What the shop remembers between requests: the cart, the orders placed."""

    look: Look = field(default_factory=Look)
    cart: dict[str, int] = field(default_factory=dict)
    orders: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _attrs(rng: random.Random | None, name: str) -> str:
    """An id and class: stable ones as recorded, random ones in another look."""
    if rng is None:
        return f' id="{name}" class="{name}"'
    token = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6))
    return f' id="x-{token}" class="c-{token} {rng.choice(["v1", "v2", "mt"])}"'


def _wrap(rng: random.Random | None, inner: str) -> str:
    """Extra wrappers a redesign adds (no role, no name)."""
    if rng is None:
        return inner
    for _ in range(rng.randint(0, 2)):
        inner = f'<div class="w-{rng.randint(0, 999)}">{inner}</div>'
    return inner


def _ordered(rng: random.Random | None, items: list[str]) -> list[str]:
    if rng is not None:
        rng.shuffle(items)
    return items


def _page(state: ShopState, name: str, title: str, body: str) -> str:
    rng = state.look.rng(name)
    links = [
        '<a href="/">Home</a>',
        '<a href="/cart">Cart</a>',
        '<a href="/help">Help</a>',
    ]
    banner = ""
    if rng is not None and rng.random() < 0.7:
        banner = (
            '<section aria-label="Cookie notice"><p>We use cookies to keep your cart.</p>'
            '<button type="button" onclick="this.parentElement.remove()">Accept cookies'
            "</button></section>"
        )
    nav = f'<nav aria-label="Shop"{_attrs(rng, "nav")}>{" | ".join(_ordered(rng, links))}</nav>'
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        "</head><body>"
        f"{banner}<header{_attrs(rng, 'top')}>{nav}</header>"
        f"<main{_attrs(rng, 'main')}><h1>{title}</h1>{_wrap(rng, body)}</main></body></html>"
    )


def home(state: ShopState) -> str:
    rng = state.look.rng("home")
    form = (
        f'<form role="search" action="/search"{_attrs(rng, "search")}>'
        '<label>Search products <input name="q" type="search"></label> '
        "<button>Search</button></form>"
    )
    return _page(state, "home", "Lamp shop", form)


def results(state: ShopState, query: str) -> str:
    rng = state.look.rng("results")
    found = [p for p in PRODUCTS if query.lower() in p[0].lower()] if query else []
    articles = []
    for name, price in found:
        if state.look.sold_out == name:
            action = "<p>Sold out</p>"
        else:
            action = (
                '<form method="post" action="/cart/add">'
                f'<input type="hidden" name="product" value="{html.escape(name)}">'
                f"<button{_attrs(rng, 'add')}>Add to cart</button></form>"
            )
        articles.append(
            f"<article{_attrs(rng, 'product')}><h2>{html.escape(name)}</h2>"
            f"<p>{price} EUR</p>{_wrap(rng, action)}</article>"
        )
    listing = "".join(_ordered(rng, articles)) or "<p>Nothing found.</p>"
    said = html.escape(query)
    return _page(state, "results", f"Results for {said}", listing)


def cart(state: ShopState) -> str:
    rng = state.look.rng("cart")
    rows = "".join(
        f"<li>{html.escape(name)}: {count}</li>" for name, count in sorted(state.cart.items())
    )
    form = (
        f'<form method="post" action="/cart/update"{_attrs(rng, "cart")}>'
        f"<ul>{rows or '<li>Your cart is empty.</li>'}</ul>"
        '<label>Quantity <input name="quantity" type="number" min="1" value="1"></label> '
        "<button>Update cart</button></form>"
        '<p><a href="/checkout">Checkout</a></p>'
    )
    return _page(state, "cart", "Your cart", form)


def checkout(state: ShopState) -> str:
    rng = state.look.rng("checkout")
    options = "".join(f"<option>{s}</option>" for s in SHIPPING)
    fields = (  # a form's fields keep their order: people fill them in that order
        '<p><label>Full name <input name="name" autocomplete="name"></label></p>'
        '<p><label>Email <input name="email" type="email"></label></p>'
        f'<p><label>Shipping <select name="shipping">{options}</select></label></p>'
    )
    form = (
        f'<form method="post" action="/order"{_attrs(rng, "checkout")}>{_wrap(rng, fields)}'
        "<button>Place order</button></form>"
    )
    return _page(state, "checkout", "Checkout", form)


def thanks(state: ShopState) -> str:
    order = state.orders[-1] if state.orders else {}
    said = html.escape(order.get("name", ""))
    return _page(state, "thanks", "Thank you", f"<p>Your order is placed, {said}.</p>")


class _Shop(BaseHTTPRequestHandler):
    state: ShopState

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        with self.state.lock:
            match parts.path:
                case "/":
                    page = home(self.state)
                case "/search":
                    page = results(self.state, query.get("q", [""])[0])
                case "/cart":
                    page = cart(self.state)
                case "/checkout":
                    page = checkout(self.state)
                case "/thanks":
                    page = thanks(self.state)
                case _:
                    page = _page(self.state, "other", "Help", "<p>Write to us.</p>")
        send_html(self, page)

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
        path = urlsplit(self.path).path
        with self.state.lock:
            if path == "/cart/add":
                product = form.get("product", "")
                self.state.cart[product] = self.state.cart.get(product, 0) + 1
                target = "/cart"
            elif path == "/cart/update":
                quantity = max(1, int(form.get("quantity", "1") or 1))
                self.state.cart = {name: quantity for name in self.state.cart}
                target = "/cart"
            elif path == "/order":
                self.state.orders.append({**form, "cart": repr(sorted(self.state.cart.items()))})
                self.state.cart = {}
                target = "/thanks"
            else:
                target = "/"
        self.send_response(303)
        self.send_header("location", target)
        self.send_header("content-length", "0")
        self.end_headers()


@contextmanager
def serve_shop(state: ShopState | None = None) -> Iterator[tuple[str, ShopState]]:
    """Serve the shop on loopback; yields its base URL and its state (set ``state.look`` to
    change how the next pages look)."""
    shop_state = state or ShopState()

    class Shop(_Shop):
        state = shop_state

    with serve_on_loopback(Shop) as base:
        yield base, shop_state
