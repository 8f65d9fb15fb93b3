"""A loopback HTTP server in a thread, for tests that need a real web server: the one
place that starts and stops one (pages for the browser tools, model servers, web apps)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def send_html(handler: BaseHTTPRequestHandler, text: str) -> None:
    """Answer ``handler``'s request with ``text`` as a complete HTML page."""
    body = text.encode()
    handler.send_response(200)
    handler.send_header("content-type", "text/html; charset=utf-8")
    handler.send_header("content-length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@contextmanager
def serve_on_loopback(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on a free loopback port in a thread; yield its base URL
    (``http://127.0.0.1:<port>``). The server is shut down and its socket closed after."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextmanager
def serve_html(page: Callable[[str], str], seen: list[str] | None = None) -> Iterator[str]:
    """Serve ``page(path)`` as HTML for every GET, on a free loopback port; each path asked
    is appended to ``seen`` (what a test's attacker server received). Yields the base URL."""
    lock = threading.Lock()

    class Html(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if seen is not None:
                with lock:
                    seen.append(self.path)
            send_html(self, page(self.path))

    with serve_on_loopback(Html) as base:
        yield base


def port_of(base_url: str) -> int:
    """The port of a base URL that ``serve_on_loopback`` yielded."""
    return int(base_url.rsplit(":", 1)[1])
