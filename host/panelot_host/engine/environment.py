"""The run environment (`docs/engine.md`, "Recovery"): a versioned snapshot and its digest.

It names the system prompt, the tool schemas and safety metadata (through descriptor
digests, which cover schema, level, effects, recovery class and binding — MCP server,
endpoint and authentication identity included), the provider transport with its credential
*reference*, the model and its capabilities. A started run validates it before continuing;
drift is rejected with a ``DriftError`` naming what changed. A rotated secret behind an
unchanged reference is not drift.
"""

from __future__ import annotations

from typing import Any

import msgspec

from panelot_host.engine.context import EngineContext
from panelot_host.engine.cursor import RunCursor
from panelot_host.engine.models import ResolvedModel
from panelot_host.engine.prompts import prompt_digest
from panelot_host.engine.workflow_run import WORKFLOW_MODEL, is_workflow_turn, workflow_model
from panelot_host.errors import DriftError
from panelot_host.store import turns
from panelot_host.store.records import RunRecord
from panelot_host.tools.catalog import RunCatalog, recovered_run_catalog

ENVIRONMENT_VERSION = 1
_LABELS = {
    "prompt": "the system prompt",
    "transport": "the provider transport or its credential reference",
    "model": "the model",
    "capabilities": "the model's capabilities",
    "tools": "the tool schemas, safety metadata or bindings",
    "version": "the environment format",
}


def snapshot(
    ctx: EngineContext, model: ResolvedModel, catalog: RunCatalog
) -> tuple[dict[str, Any], str]:
    """The environment of a run and its digest."""
    environment: dict[str, Any] = {
        "version": ENVIRONMENT_VERSION,
        "prompt": prompt_digest(ctx.system_prompt),
        "transport": model.transport,
        "model": model.model,
        "capabilities": {
            "toolUse": model.capabilities.tool_use,
            "vision": model.capabilities.vision,
        },
        "tools": catalog.digests(),
    }
    return environment, digest_of(environment)


def digest_of(environment: dict[str, Any]) -> str:
    return prompt_digest(msgspec.json.encode(environment, order="sorted").decode())


def model_of_run(ctx: EngineContext, cursor: RunCursor, turn_id: str) -> ResolvedModel:
    """The model a started run continues with: its cursor's, or a workflow run's player."""
    if cursor.model == WORKFLOW_MODEL:
        turn = turns.get_turn(ctx.db.conn, turn_id)
        if is_workflow_turn(turn):
            return workflow_model(ctx, turn.context, turn_id, turn.thread_id)
    return ctx.models.resolve(cursor.model or None)


def validate(ctx: EngineContext, run: RunRecord, cursor: RunCursor) -> None:
    """Raise ``DriftError`` unless the started run's environment is unchanged."""
    stored = run.environment
    if stored is None:
        return  # a run that never started resolves its environment now
    model = model_of_run(ctx, cursor, run.turn_id)
    try:
        catalog = recovered_run_catalog(ctx.registry.current, model.capabilities, cursor.catalog)
    except DriftError as exc:
        raise DriftError(f"cannot continue this run: {exc.message}; fork or start again") from exc
    current, digest = snapshot(ctx, model, catalog)
    if digest == run.environment_digest:
        return
    changed = [
        _LABELS.get(k, k)
        for k in sorted(set(stored) | set(current))
        if stored.get(k) != current.get(k)
    ]
    raise DriftError(
        "cannot continue this run: its environment changed since it started ("
        + ", ".join(changed or ["its digest"])
        + "); fork the thread or start again"
    )
