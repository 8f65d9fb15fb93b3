"""``panelot-host``: serve Chrome over stdio, or run one of the user commands.

Chrome starts the host as ``panelot-host chrome-extension://<id>/`` (on Windows followed by
``--parent-window=<HWND>``). Start-up cost matters (Chrome starts a host for every service
worker start), so each command imports what it needs only when it runs.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple

from panelot_host import __version__

if TYPE_CHECKING:  # argparse is imported for the user commands only, not to serve
    import argparse

    from panelot_host.secret_mask import SecretMask
    from panelot_host.server.config import HostConfig
    from panelot_host.server.prelude import Handover

EXTENSION_SCHEME = "chrome-extension://"
_SECRET_VARIABLE_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
"""Environment variables whose values are masked in the log (``ANTHROPIC_API_KEY``...)."""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0].startswith(EXTENSION_SCHEME):
        return _serve_for_origin(args[0])
    if args in (["serve"], ["serve", "--verbose"]):  # start-up cost: no argparse
        return _serve(verbose=len(args) == 2)
    parser = _parser()
    options = parser.parse_args(args)
    if options.command is None:
        parser.print_help(sys.stderr)
        return 2
    result: int = options.run(options)
    return result


def _parser() -> argparse.ArgumentParser:
    # lazy: argparse is for the user commands; serving Chrome never loads it
    import argparse

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
    credentials = sub.add_parser(
        "credentials",
        help="API keys and other secrets (OS keyring or encrypted file)",
        description="set REF: store a secret under REF, read from a hidden prompt or from "
        "stdin (never from the command line); list: references and fingerprints; "
        "delete REF: forget it. Reference a key with 'config set apiKeyRef REF'.",
    )
    credentials.add_argument("action", choices=["set", "list", "delete"])
    credentials.add_argument("ref", nargs="?", help="the credential reference, e.g. openai")
    credentials.add_argument("--profile", help="Chrome profile id (default profile if absent)")
    credentials.set_defaults(command="credentials", run=_run_credentials)
    config = sub.add_parser(
        "config",
        help="the provider settings (as the side panel's settings)",
        description="get [KEY] | set KEY VALUE | unset KEY, for the keys "
        "provider, model, baseUrl, apiKeyRef, taskModel, defaultTokenBudget, "
        "defaultCostBudgetUsd, maxParallelTurns, captureFrames, frameBudgetMb.",
    )
    config.add_argument("action", choices=["get", "set", "unset"])
    config.add_argument("key", nargs="?", help="the setting")
    config.add_argument("value", nargs="?", help="its new value (set)")
    config.add_argument("--profile", help="Chrome profile id (default profile if absent)")
    config.set_defaults(command="config", run=_run_config)
    permissions = sub.add_parser("permissions", help="the grant ledger")
    permissions.add_argument("action", choices=["export"], help="export: print it as JSON")
    permissions.add_argument("--profile", help="Chrome profile id (default profile if absent)")
    permissions.set_defaults(command="permissions", run=_run_permissions)
    # lazy: as the install commands
    from panelot_host.cli.model_options_cmd import add_command as add_model_options_command

    add_model_options_command(sub)
    # lazy: as the install commands
    from panelot_host.cli.workflow_cmd import add_command as add_workflow_command

    add_workflow_command(sub)
    # lazy: as the install commands
    from panelot_host.cli.export_cmd import add_command as add_export_command

    add_export_command(sub)
    # lazy: the install commands load with the parser, which serving never builds
    from panelot_host.cli.install import add_commands as add_install_commands

    add_install_commands(sub)
    # lazy: as the install commands
    from panelot_host.cli.extension_cmd import add_commands as add_extension_commands

    add_extension_commands(sub)
    version = sub.add_parser("version", help="print the version")
    version.set_defaults(command="version", run=_run_version)
    return parser


def _run_version(_: argparse.Namespace) -> int:
    print(f"panelot-host {__version__}")
    return 0


def _serve_for_origin(origin: str) -> int:
    gc.disable()  # as in _serve, from the first import on
    # lazy: serving imports in a fixed order: gc off, then msgspec its own way (msgspec_import)
    from panelot_host.msgspec_import import import_msgspec_without_typing_extensions

    import_msgspec_without_typing_extensions()  # as in _serve, before msgspec's first import
    # lazy: after msgspec_import (cli.config imports msgspec)
    from panelot_host.cli.config import ORIGINS_FILE, allowed_origins
    from panelot_host.home import panelot_home

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


SERVE_AT_A_TERMINAL = (
    "panelot-host serve: this speaks the EngineTransport protocol in native-messaging frames "
    "(a 32-bit length, then JSON) on stdin/stdout, for Chrome and other programs; typed "
    "text is not understood. To talk to the agent here, run 'panelot-host chat'. "
    "Ctrl-D or Ctrl-C stops this.\n"
)


def _serve(*, verbose: bool) -> int:
    """Answer the first requests in the prelude (no event loop yet), then serve on with the
    async server from where it stopped (``server.prelude``)."""
    with _no_collection_while_importing():
        start = _ready_to_serve(verbose)
    handover: Handover | None = None
    if start.prelude:
        # lazy: the prelude's parts load only when it answers (start-up speed)
        from panelot_host.server.prelude import answer_first_requests
        from panelot_host.wire.blocking import BlockingFrames
        from panelot_host.wire.fds import writev_all

        frames = BlockingFrames(start.reader)
        answered = answer_first_requests(
            start.config, frames, functools.partial(writev_all, start.writer)
        )
        if isinstance(answered, int):  # ended (end of input, a stop signal): settled
            return answered
        handover = answered
    with _no_collection_while_importing():
        # lazy: the event loop and the async server load after the first answers are out
        import anyio

        from panelot_host.cli.logs import rotate_log_file
        from panelot_host.server.native import serve
        from panelot_host.wire.stdio import StdioChannel

        read_ahead = handover.read_ahead if handover is not None else None
        channel = StdioChannel(start.reader, start.writer, read_ahead=read_ahead)
        rotate_log_file()
    status: int = anyio.run(serve, start.config, channel, start.mask, handover)
    return status


@contextlib.contextmanager
def _no_collection_while_importing() -> Iterator[None]:
    """Importing the serve path triggers ~50 collections of objects that live as long as
    the process (modules, classes, protocol structs): ~10 ms before the first answer. None
    is run while importing; what was imported is then frozen, so that later collections do
    not walk it either."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


class _Start(NamedTuple):
    """What serving starts from: the frame fds, the configuration, the log's mask, and
    whether the prelude can answer first."""

    reader: int
    writer: int
    config: HostConfig
    mask: SecretMask
    prelude: bool


def _ready_to_serve(verbose: bool) -> _Start:
    # lazy: the first thing serving imports: msgspec before anything else imports it
    from panelot_host.msgspec_import import import_msgspec_without_typing_extensions

    import_msgspec_without_typing_extensions()  # before anything imports msgspec
    # lazy: after msgspec_import, like everything the serve path loads
    from panelot_host.wire.fds import protect_stdin, protect_stdout

    if sys.stdin is not None and sys.stdin.isatty():
        sys.stderr.write(SERVE_AT_A_TERMINAL)
        sys.stderr.flush()

    # Before anything else can print: stdout carries frames only.
    reader, writer = protect_stdin(), protect_stdout()
    # lazy: after stdin and stdout are protected (nothing may print to the frames)
    from panelot_host.cli.logs import configure_logging
    from panelot_host.home import panelot_home
    from panelot_host.secret_mask import SecretMask
    from panelot_host.server.config import HostConfig
    from panelot_host.server.prelude import can_answer

    home = panelot_home(os.environ)
    mask = SecretMask()
    for name, value in os.environ.items():
        if name.endswith(_SECRET_VARIABLE_SUFFIXES):
            mask.add(value)
    configure_logging(home, verbose=verbose, mask=mask, rotate=False)  # see _serve
    config = HostConfig(home=home, environ=dict(os.environ))
    return _Start(reader, writer, config, mask, can_answer(config, reader))


def _run_permissions(options: argparse.Namespace) -> int:
    # lazy: a user command's module loads only when it runs (start-up speed)
    from panelot_host.cli.permissions import run_permissions

    return run_permissions(options)


def _run_credentials(options: argparse.Namespace) -> int:
    # lazy: a user command's module loads only when it runs (start-up speed)
    from panelot_host.cli.credentials_cmd import run_credentials

    if options.action in ("set", "delete") and not options.ref:
        sys.stderr.write(f"panelot-host credentials {options.action}: give the REF\n")
        return 2
    if options.action == "list" and options.ref:
        sys.stderr.write("panelot-host credentials list: takes no REF\n")
        return 2
    return run_credentials(options)


def _run_config(options: argparse.Namespace) -> int:
    # lazy: a user command's module loads only when it runs (start-up speed)
    from panelot_host.cli.settings_cmd import run_config

    return run_config(options)


def _run_chat(options: argparse.Namespace) -> int:
    # lazy: a user command's module loads only when it runs (start-up speed)
    from panelot_host.cli.chat import run_chat

    return run_chat(options)


if __name__ == "__main__":
    raise SystemExit(main())
