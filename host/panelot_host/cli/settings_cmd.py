"""``panelot-host config get|set|unset``: the provider settings without a protocol client.

Each command is the protocol's ``settings.get`` / ``settings.update`` against the profile's
store (``host_session``), so values are validated exactly as for the side panel; ``get``
shows the effective value (the stored setting, else the environment's default).
"""

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

# The settings these commands edit (wire names); others are edited in the side panel.
KEYS = (
    "provider",
    "model",
    "baseUrl",
    "apiKeyRef",
    "taskModel",
    "defaultTokenBudget",
    "defaultCostBudgetUsd",
    "maxParallelTurns",
    "captureFrames",
    "frameBudgetMb",
)
_INTEGERS = frozenset({"defaultTokenBudget", "maxParallelTurns", "frameBudgetMb"})
_AMOUNTS = frozenset({"defaultCostBudgetUsd"})
_BOOLEANS = frozenset({"captureFrames"})
_TRUTH = {"true": True, "on": True, "yes": True, "1": True}
_TRUTH |= {"false": False, "off": False, "no": False, "0": False}


def run_config(options: argparse.Namespace) -> int:
    environ = dict(os.environ)
    home = panelot_home(environ)
    log_to_file(home)
    config = HostConfig(home=home, environ=environ)
    key: str | None = options.key
    if key is not None and key not in KEYS:
        sys.stderr.write(f"panelot-host config: unknown key {key}; one of {', '.join(KEYS)}\n")
        return EXIT_FAILED
    if options.action != "set" and options.value is not None:
        sys.stderr.write(f"panelot-host config: {options.action} takes no VALUE\n")
        return EXIT_FAILED
    if options.action == "get":

        async def get(client: DirectTransport) -> int:
            settings = (await client.send("settings.get", {}))["settings"]
            for name in [key] if key else KEYS:
                _show(name, settings.get(name), bare=key is not None)
            return EXIT_OK

        return run_with_client(config, options.profile, get, name="config get")
    if key is None:
        sys.stderr.write(f"panelot-host config: {options.action} needs a KEY\n")
        return EXIT_FAILED
    if options.action == "set" and options.value is None:
        sys.stderr.write("panelot-host config: set needs a VALUE (unset clears a key)\n")
        return EXIT_FAILED
    value = None if options.action == "unset" else typed_value(key, options.value)

    async def update(client: DirectTransport) -> int:
        params = {"commandId": command_id(), key: value}
        settings = (await client.send("settings.update", params))["settings"]
        _show(key, settings.get(key), bare=False)
        return EXIT_OK

    return run_with_client(config, options.profile, update, name=f"config {options.action}")


def typed_value(key: str, text: str) -> Any:
    """The value as the protocol types it: an integer, an amount or a boolean (true/false,
    on/off, yes/no, 1/0) where one is expected (else the text, which the protocol then
    refuses with the field's path)."""
    if key in _BOOLEANS:
        return _TRUTH.get(text.strip().lower(), text)
    try:
        if key in _INTEGERS:
            return int(text)
        if key in _AMOUNTS:
            return float(text.removeprefix("$"))
    except ValueError:
        return text
    return text


def _show(key: str, value: Any, *, bare: bool) -> None:
    shown = "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    print(shown if bare else f"{key} = {shown}" if shown else f"{key} (not set)")
