"""``panelot-host export THREAD [--turn TURN] [--json|--md|--html|--gif] [-o FILE]``: a
thread (or one of its Turns) exported from the terminal (issue 30).

It is the protocol's ``thread.export`` op against the profile's store (``host_session``),
so the file is exactly what the side panel saves, secrets masked the same way. Text
formats go to stdout unless ``-o`` names a file; a GIF is written to ``-o`` or, without
it, to the file name the host suggests, in the current directory.
"""

from __future__ import annotations

import argparse
import base64
import os
import sys
from pathlib import Path
from typing import Any

import anyio

from panelot_host.cli.host_session import EXIT_OK, log_to_file, run_with_client
from panelot_host.home import panelot_home
from panelot_host.server.config import HostConfig
from panelot_host.server.transport import DirectTransport

FORMATS = ("json", "md", "html", "gif")


def add_command(sub: Any) -> None:
    """The ``export`` command's parser."""
    export = sub.add_parser(
        "export",
        help="export a thread as JSON, Markdown, an HTML report or a GIF of its frames",
        description="THREAD [--turn TURN] [--json | --md | --html | --gif] [-o FILE]: "
        "JSON (the default; 'thread.import' takes it back), a Markdown transcript, one "
        "self-contained HTML report, or an animated GIF with one frame per action. Text "
        "goes to stdout unless -o FILE; a GIF goes to -o FILE or to the suggested file "
        "name in the current directory. Secrets are masked in every format.",
    )
    export.add_argument("thread", help="the thread id")
    export.add_argument("--turn", help="export this Turn of the thread alone")
    formats = export.add_mutually_exclusive_group()
    for fmt in FORMATS:
        formats.add_argument(
            f"--{fmt}", dest="format", action="store_const", const=fmt, help=f"as {fmt}"
        )
    export.add_argument("-o", "--output", help="write to this file")
    export.add_argument("--profile", help="Chrome profile id (default profile if absent)")
    export.set_defaults(command="export", run=run_export, format="json")


def run_export(options: argparse.Namespace) -> int:
    environ = dict(os.environ)
    home = panelot_home(environ)
    log_to_file(home)
    config = HostConfig(home=home, environ=environ)

    async def work(client: DirectTransport) -> int:
        return await _export(client, options)

    return run_with_client(config, options.profile, work, name="export")


async def _export(client: DirectTransport, options: argparse.Namespace) -> int:
    params: dict[str, Any] = {"threadId": options.thread, "format": options.format}
    if options.turn:
        params["turnId"] = options.turn
    result = await client.send("thread.export", params)
    if result.get("data") is not None:
        target = Path(options.output or result["fileName"])
        await anyio.Path(target).write_bytes(base64.b64decode(result["data"]))
    elif options.output:
        target = Path(options.output)
        await anyio.Path(target).write_text(result["text"], encoding="utf-8")
    else:
        sys.stdout.write(result["text"])
        return EXIT_OK
    sys.stderr.write(f"wrote {target}\n")
    return EXIT_OK
