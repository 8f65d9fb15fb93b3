"""A loopback web server with plain pages, for the browser tools to open."""

from __future__ import annotations

import html
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler

from tests.support.web import send_html, serve_on_loopback


class _Pages(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        title = html.escape(f"Page {self.path}")
        send_html(self, f"<!doctype html><title>{title}</title><h1>{title}</h1>")


@contextmanager
def serve_pages() -> Iterator[str]:
    """Yield the server's base URL (``http://127.0.0.1:<port>``)."""
    with serve_on_loopback(_Pages) as base:
        yield base
