"""``panelot-host workflow list|show|export|import|run|delete``: saved workflows from the
terminal (issue 29).

Each command is the protocol's ``workflow.*`` op against the profile's store
(``host_session``), so input is validated exactly as for the side panel. ``run`` starts
the run and follows its Turn to its end; this in-process host has no browser, so a
workflow's browser steps fail here and the run hands over to the model (or pauses): run
workflows that drive pages from the side panel, where the extension runs browser tools.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio

from panelot_host.cli.host_session import (
    EXIT_FAILED,
    EXIT_OK,
    CommandFailed,
    command_id,
    log_to_file,
    run_with_client,
)
from panelot_host.home import panelot_home
from panelot_host.server.config import HostConfig
from panelot_host.server.transport import DirectTransport

ACTIONS = ("list", "show", "export", "import", "run", "delete")
_NEEDS_ID = frozenset({"show", "export", "run", "delete"})
RUN_TIMEOUT_S = 600.0


def add_command(sub: Any) -> None:
    """The ``workflow`` command's parser."""
    workflow = sub.add_parser(
        "workflow",
        help="saved workflows (list, show, export, import, run, delete)",
        description="list | show ID | export ID [--output FILE] | import FILE | "
        "run ID [--param NAME=VALUE ...] [--thread ID] | delete ID",
    )
    workflow.add_argument("action", choices=ACTIONS)
    workflow.add_argument("target", nargs="?", help="the workflow id (import: the file, - stdin)")
    workflow.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    workflow.add_argument("--thread", help="run in this thread (default: a new one)")
    workflow.add_argument("--output", help="export: write the document to this file")
    workflow.add_argument("--profile", help="Chrome profile id (default profile if absent)")
    workflow.set_defaults(command="workflow", run=run_workflow)


def run_workflow(options: argparse.Namespace) -> int:
    action: str = options.action
    if (action in _NEEDS_ID or action == "import") and not options.target:
        what = "FILE" if action == "import" else "workflow ID"
        sys.stderr.write(f"panelot-host workflow {action}: give the {what}\n")
        return 2
    if action == "import":
        try:
            options.document = read_document(options.target)
        except CommandFailed as exc:
            sys.stderr.write(f"panelot-host workflow import: {exc}\n")
            return EXIT_FAILED
    environ = dict(os.environ)
    home = panelot_home(environ)
    log_to_file(home)
    config = HostConfig(home=home, environ=environ)

    async def work(client: DirectTransport) -> int:
        return await _ACTIONS[action](client, options)

    return run_with_client(config, options.profile, work, name=f"workflow {action}")


def read_document(source: str) -> dict[str, Any]:
    """The JSON object in the file ``source`` (``-``: stdin); ``CommandFailed`` otherwise."""
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
        document = json.loads(text)
    except (OSError, ValueError) as exc:
        raise CommandFailed(f"cannot read a JSON document from {source}: {exc}") from exc
    if not isinstance(document, dict):
        raise CommandFailed(f"{source} holds no workflow document (not a JSON object)")
    return document


def _print(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


async def _list(client: DirectTransport, options: argparse.Namespace) -> int:
    workflows = (await client.send("workflow.list", {}))["workflows"]
    if not workflows:
        sys.stdout.write("no workflows saved\n")
    for workflow in workflows:
        steps, params = len(workflow["steps"]), [p["name"] for p in workflow["parameters"]]
        shown = f"  parameters: {', '.join(params)}" if params else ""
        sys.stdout.write(f"{workflow['id']}  {workflow['name']}  ({steps} steps){shown}\n")
    return EXIT_OK


async def _show(client: DirectTransport, options: argparse.Namespace) -> int:
    _print((await client.send("workflow.get", {"workflowId": options.target}))["workflow"])
    return EXIT_OK


async def _export(client: DirectTransport, options: argparse.Namespace) -> int:
    document = (await client.send("workflow.export", {"workflowId": options.target}))["document"]
    if options.output:
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        await anyio.Path(options.output).write_text(text, encoding="utf-8")
        sys.stderr.write(f"wrote {options.output}\n")
    else:
        _print(document)
    return EXIT_OK


async def _import(client: DirectTransport, options: argparse.Namespace) -> int:
    document: dict[str, Any] = options.document
    params = {"commandId": command_id(), "document": document}
    workflow = (await client.send("workflow.import", params))["workflow"]
    sys.stdout.write(f"imported {workflow['id']}  {workflow['name']}\n")
    return EXIT_OK


async def _delete(client: DirectTransport, options: argparse.Namespace) -> int:
    params = {"commandId": command_id(), "workflowId": options.target}
    await client.send("workflow.delete", params)
    sys.stdout.write(f"deleted {options.target}\n")
    return EXIT_OK


def _parameters(pairs: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise CommandFailed(f"--param {pair!r}: write NAME=VALUE")
        found[name] = value
    return found


async def _run(client: DirectTransport, options: argparse.Namespace) -> int:
    ended: dict[str, Any] = {}
    done = anyio.Event()
    turn: dict[str, str] = {}

    def on_event(method: str, params: dict[str, Any]) -> None:
        if method in ("turn.complete", "turn.paused") and params.get("turnId") == turn.get("id"):
            ended.update(params, event=method)
            done.set()
        elif method == "item.completed" and params.get("turnId") == turn.get("id"):
            _show_item(params["item"])

    client.on_event(on_event)
    params: dict[str, Any] = {
        "commandId": command_id(),
        "workflowId": options.target,
        "parameters": _parameters(options.param),
    }
    if options.thread:
        params["threadId"] = options.thread
    started = await client.send("workflow.run", params)
    turn["id"] = started["turnId"]
    with anyio.move_on_after(RUN_TIMEOUT_S):
        await done.wait()
    if not done.is_set():
        raise CommandFailed(f"the run did not end within {RUN_TIMEOUT_S:.0f} s")
    if ended["event"] == "turn.paused":
        sys.stdout.write(f"paused ({ended['reason']}) in thread {started['threadId']}\n")
        return EXIT_FAILED
    sys.stdout.write(f"{ended['status']} in thread {started['threadId']}\n")
    return EXIT_OK if ended["status"] == "completed" else EXIT_FAILED


def _show_item(item: dict[str, Any]) -> None:
    match item.get("kind"):
        case "toolCall":
            by = item.get("decidedBy", "model")
            sys.stdout.write(f"  [{by}] {item['name']} {item.get('status')}\n")
        case "assistant" | "notice":
            text = item.get("text") or ""
            if text:
                sys.stdout.write(f"  {text}\n")


_ACTIONS = {
    "list": _list,
    "show": _show,
    "export": _export,
    "import": _import,
    "run": _run,
    "delete": _delete,
}
