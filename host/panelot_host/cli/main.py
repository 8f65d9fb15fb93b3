"""``panelot-host``: serve Chrome over stdio, or run one of the user commands.

Chrome starts the host as ``panelot-host chrome-extension://<id>/`` (on Windows followed by
``--parent-window=<HWND>``). Start-up cost matters (Chrome starts a host for every service
worker start), so each command imports what it needs only when it runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

EXTENSION_SCHEME = "chrome-extension://"
_SECRET_VARIABLE_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
"""Environment variables whose values are masked in the log (``ANTHROPIC_API_KEY``...)."""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0].startswith(EXTENSION_SCHEME):
        return _serve_for_origin(args[0])
    parser = _parser()
    options = parser.parse_args(args)
    if options.command is None:
        parser.print_help(sys.stderr)
        return 2
    result: int = options.run(options)
    return result


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="panelot-host",
        description="Panelot's agent engine. Chrome starts it with the extension's origin; "
        "'serve' speaks the same protocol on stdio for local clients.",
    )
    parser.set_defaults(command=None)
    sub = parser.add_subparsers(title="commands")
    serve = sub.add_parser("serve", help="serve the protocol on stdin/stdout")
    serve.add_argument("--verbose", action="store_true", help="debug logging")
    serve.set_defaults(command="serve", run=_run_serve)
    chat = sub.add_parser("chat", help="talk to the agent in this terminal")
    chat.add_argument("prompt", nargs="?", help="the first message (else: ask)")
    chat.add_argument("--thread", help="continue this thread id")
    chat.add_argument("--resume", action="store_true", help="continue the most recent thread")
    chat.add_argument("--profile", help="Chrome profile id (default: the default profile)")
    chat.add_argument("--model", help="the model for this chat's turns (default: configured)")
    chat.add_argument(
        "--budget", type=int, metavar="TOKENS", help="token budget per turn (pauses when used up)"
    )
    chat.set_defaults(command="chat", run=_run_chat)
    permissions = sub.add_parser("permissions", help="the grant ledger")
    permissions.add_argument("action", choices=["export"], help="export: print it as JSON")
    permissions.add_argument("--profile", help="Chrome profile id (default profile if absent)")
    permissions.set_defaults(command="permissions", run=_run_permissions)
    from panelot_host.cli.install import add_commands as add_install_commands

    add_install_commands(sub)
    version = sub.add_parser("version", help="print the version")
    version.set_defaults(command="version", run=_run_version)
    return parser


def _run_version(_: argparse.Namespace) -> int:
    from panelot_host import __version__

    print(f"panelot-host {__version__}")
    return 0


def _serve_for_origin(origin: str) -> int:
    from panelot_host.cli.config import ORIGINS_FILE, allowed_origins, panelot_home

    home = panelot_home(os.environ)
    allowed = allowed_origins(home, os.environ)
    if origin not in allowed:
        sys.stderr.write(
            f"panelot-host: refusing to serve {origin}: it is not an extension this host was "
            f"installed for (allowed: {', '.join(sorted(allowed)) or 'none'}). To allow it, "
            f"add it to {home / ORIGINS_FILE} (a JSON list) or to PANELOT_ALLOWED_ORIGINS "
            "(comma-separated).\n"
        )
        return 3
    return _serve(verbose=False)


def _run_serve(options: argparse.Namespace) -> int:
    return _serve(verbose=options.verbose)


def _serve(*, verbose: bool) -> int:
    from panelot_host.wire.stdio import StdioChannel

    # Before anything else can print: stdout carries frames only.
    channel = StdioChannel.from_process_stdio()
    import anyio

    from panelot_host.cli.config import panelot_home
    from panelot_host.cli.logs import configure_logging
    from panelot_host.credentials.mask import SecretMask
    from panelot_host.server.host import HostConfig
    from panelot_host.server.native import serve

    home = panelot_home(os.environ)
    mask = SecretMask()
    for name, value in os.environ.items():
        if name.endswith(_SECRET_VARIABLE_SUFFIXES):
            mask.add(value)
    configure_logging(home, verbose=verbose, mask=mask)
    config = HostConfig(home=home, environ=dict(os.environ))
    return anyio.run(serve, config, channel, mask)


def _run_permissions(options: argparse.Namespace) -> int:
    from panelot_host.cli.permissions import run_permissions

    return run_permissions(options)


def _run_chat(options: argparse.Namespace) -> int:
    from panelot_host.cli.chat import run_chat

    return run_chat(options)


if __name__ == "__main__":
    raise SystemExit(main())
