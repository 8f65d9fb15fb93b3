"""A real HTTP server on 127.0.0.1 that serves scripted SSE responses, with faults.

Each POST takes the next ``Reply``: status, headers and body pieces; a piece may be bytes, a
``Delay`` or ``HANG`` (keep the connection open, watching for the client to close it).
"""

from __future__ import annotations

import select
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Delay:
    seconds: float


HANG = object()


@dataclass
class Reply:
    status: int = 200
    body: list[object] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/event-stream"
    chunked: bool = False  # chunked transfer encoding; else the body ends when we close
    terminate: bool = True  # send the final empty chunk (False: the body breaks off)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: bytes


class SSEServer:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[Seen] = []
        self.closed_at: list[float] = []  # when a hanging reply saw the client close
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and close the listening socket (its port is free on return)."""
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread.ident is not None:
            self._thread.join(timeout=10)

    def add(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def next_reply(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            return self.replies.pop(0) if self.replies else Reply(status=500)


def _handler_for(server: SSEServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = self.rfile.read(length)
            reply = server.next_reply(Seen(self.path, dict(self.headers.items()), body))
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("connection", "close")
            if reply.chunked:
                self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            self.close_connection = True
            self._write_body(reply)

        def _write_body(self, reply: Reply) -> None:
            for piece in reply.body:
                if isinstance(piece, Delay):
                    time.sleep(piece.seconds)
                elif piece is HANG:
                    self._hang()
                    return
                elif isinstance(piece, bytes):
                    self._send(piece, reply.chunked)
            if reply.chunked and reply.terminate:
                self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def _send(self, data: bytes, chunked: bool) -> None:
            if chunked:
                data = f"{len(data):x}\r\n".encode() + data + b"\r\n"
            self.wfile.write(data)
            self.wfile.flush()

        def _hang(self) -> None:
            sock = self.connection
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                readable, _, _ = select.select([sock], [], [], 0.005)
                if readable:
                    try:
                        data = sock.recv(1, socket.MSG_PEEK)
                    except OSError:
                        data = b""
                    if not data:
                        server.closed_at.append(time.monotonic())
                        return

    return Handler
