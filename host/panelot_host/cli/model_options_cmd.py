"""``panelot-host model-options [MODEL] [--api ...] [--reasoning-effort ...]
[--thinking-budget ...]``: the per-model options (``settings.modelOptions``) without a
protocol client, through ``settings.update`` as the side panel does."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from panelot_host.cli.host_session import (
    EXIT_FAILED,
    EXIT_OK,
    command_id,
    log_to_file,
    run_with_client,
)
from panelot_host.home import panelot_home
from panelot_host.server.config import HostConfig
from panelot_host.server.transport import DirectTransport

DEFAULT = "default"
"""The value that removes an option (the model's default again)."""


def add_command(sub: Any) -> None:
    parser = sub.add_parser(
        "model-options",
        help="per-model options: OpenAI API, reasoning effort, Anthropic thinking budget",
        description="Without MODEL: list every model's options. With MODEL and no option: "
        "show its options. 'default' (or 0 for --thinking-budget) removes an option.",
    )
    parser.add_argument("model", nargs="?", help="the model id, e.g. gpt-5 or claude-sonnet-4-5")
    parser.add_argument("--api", choices=["responses", "chat", DEFAULT])
    parser.add_argument("--reasoning-effort", choices=["low", "medium", "high", DEFAULT])
    parser.add_argument("--thinking-budget", type=int, metavar="TOKENS")
    parser.add_argument("--profile", help="Chrome profile id (default profile if absent)")
    parser.set_defaults(command="model-options", run=run_model_options)


def changed(current: dict[str, Any], options: argparse.Namespace) -> dict[str, Any]:
    """``current`` with the options given on the command line applied."""
    entry = dict(current)
    given = {
        "api": options.api,
        "reasoningEffort": options.reasoning_effort,
        "thinkingBudget": options.thinking_budget,
    }
    for key, value in given.items():
        if value is None:
            continue
        if value in (DEFAULT, 0):
            entry.pop(key, None)
        else:
            entry[key] = value
    return entry


def run_model_options(options: argparse.Namespace) -> int:
    environ = dict(os.environ)
    home = panelot_home(environ)
    log_to_file(home)
    config = HostConfig(home=home, environ=environ)
    edits = (options.api, options.reasoning_effort, options.thinking_budget)
    if options.model is None and any(e is not None for e in edits):
        sys.stderr.write("panelot-host model-options: name the MODEL to change\n")
        return EXIT_FAILED

    async def run(client: DirectTransport) -> int:
        settings = (await client.send("settings.get", {}))["settings"]
        table: dict[str, Any] = dict(settings.get("modelOptions") or {})
        if options.model is not None and any(e is not None for e in edits):
            entry = changed(table.get(options.model, {}), options)
            if entry:
                table[options.model] = entry
            else:
                table.pop(options.model, None)
            params = {"commandId": command_id(), "modelOptions": table}
            table = (await client.send("settings.update", params))["settings"]["modelOptions"]
        names = [options.model] if options.model else sorted(table)
        for name in names:
            print(_line(name, table.get(name) or {}))
        return EXIT_OK

    return run_with_client(config, options.profile, run, name="model-options")


def _line(model: str, entry: dict[str, Any]) -> str:
    shown = ", ".join(
        f"{k}={entry[k]}" for k in ("api", "reasoningEffort", "thinkingBudget") if k in entry
    )
    return f"{model}: {shown or '(defaults)'}"
