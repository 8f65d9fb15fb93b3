"""The benchmarks' baseline native host: answers every request at once with its params
(``initialize`` with a valid answer), nothing else. Standard library only, so its cost is
the framing and the pipes, not Panelot's."""

from __future__ import annotations

import json
import struct
import sys

HEADER = struct.Struct("=I")


def main() -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        header = stdin.read(4)
        if len(header) < 4:
            return 0
        message = json.loads(stdin.read(HEADER.unpack(header)[0]))
        if "id" not in message or "method" not in message:
            continue
        if message["method"] == "initialize":
            result = {
                "protocolVersion": 1,
                "engine": {"name": "echo", "version": "0"},
                "capabilities": {"browserTools": []},
            }
        else:
            result = {"echo": message.get("params")}
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
        stdout.write(HEADER.pack(len(body)) + body)
        stdout.flush()


if __name__ == "__main__":
    raise SystemExit(main())
