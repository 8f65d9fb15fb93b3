"""A workflow run inside the agent loop (issue 29): the player stands in for the model
(``workflow_model``), the Turn records which steps were replayed and where the run
diverged (``record_progress``), and a divergence with no model to hand over to pauses the
run (``needs_model``) until ``run.resume`` after one is configured."""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec

from panelot_host.engine.context import EngineContext, RunRef
from panelot_host.engine.models import ResolvedModel
from panelot_host.engine.workflow_player import WorkflowPlayer
from panelot_host.errors import ProviderConfigError
from panelot_host.protocol.workflows import WorkflowDefinition
from panelot_host.providers.catalog import ModelInfo, Price
from panelot_host.store import tabs as tab_store
from panelot_host.store import turns
from panelot_host.store.records import TurnRecord

WORKFLOW_MODEL: Final = "workflow"
"""The run cursor's model of a workflow run (the player)."""
WORKFLOW_TRANSPORT: Final = "workflow"
RunChange = Literal["diverged", "denied"]
_FREE = Price(input=0.0, output=0.0, cache_read=0.0, cache_write=0.0)


def workflow_context(
    workflow_id: str, definition: WorkflowDefinition, parameters: dict[str, str], trigger: str
) -> dict[str, Any]:
    """What a workflow run's Turn context holds: the workflow as it was when the run
    started (an edit meanwhile does not change a running replay) and its parameters."""
    return {
        "workflow": {
            "id": workflow_id,
            "definition": msgspec.to_builtins(definition),
            "parameters": parameters,
            "trigger": trigger,
        }
    }


def is_workflow_turn(turn: TurnRecord) -> bool:
    return "workflow" in turn.context


def workflow_model(
    ctx: EngineContext, context: dict[str, Any], turn_id: str, thread_id: str | None = None
) -> ResolvedModel:
    """The player of ``turn``'s workflow, wrapping the configured model when there is one.
    Its model id, transport and capabilities do not depend on that model, so configuring
    one while a run waits for it is not drift. A run in a thread (``thread_id``) that owns
    no tab yet opens its own for a first step that loads a page, rather than taking the
    user's tab."""
    spec = context["workflow"]
    definition = msgspec.convert(spec["definition"], WorkflowDefinition)
    try:
        fallback: ResolvedModel | None = ctx.models.resolve(None)
    except ProviderConfigError:
        fallback = None
    known = fallback.info if fallback is not None else None
    info = ModelInfo(
        id=WORKFLOW_MODEL,
        provider="workflow",
        tool_use=True,
        vision=False,
        context_window=known.context_window if known else None,
        max_output_tokens=known.max_output_tokens if known else None,
        price=known.price if known else _FREE,
    )
    owned = tab_store.get(ctx.db.conn, thread_id) if thread_id else None
    player = WorkflowPlayer(
        definition,
        dict(spec.get("parameters") or {}),
        turn_id,
        fallback,
        opens_tab=thread_id is not None and not (owned and owned.tabs),
    )
    return ResolvedModel(player, info, WORKFLOW_TRANSPORT)


def player_of(model: ResolvedModel) -> WorkflowPlayer | None:
    return model.provider if isinstance(model.provider, WorkflowPlayer) else None


def record_progress(ctx: EngineContext, run: RunRef, player: WorkflowPlayer) -> RunChange | None:
    """Store the run's record on its Turn when it changed; what just happened to the run
    (``diverged``, ``denied``) for the caller to say in a notice, or None."""
    turn = turns.get_turn(ctx.db.conn, run.turn_id)
    spec = turn.context["workflow"]
    record = msgspec.to_builtins(player.record(spec["id"], spec.get("trigger", "user")))
    before = turn.context.get("workflowRecord") or {}
    if record == before:
        return None
    with ctx.db.transaction() as conn:
        current = turns.get_turn(conn, run.turn_id)
        turns.update_turn_context(conn, run.turn_id, {**current.context, "workflowRecord": record})
    if before.get("divergedAt") is None and record.get("divergedAt") is not None:
        return "diverged"
    if before.get("deniedAt") is None and record.get("deniedAt") is not None:
        return "denied"
    return None


def needs_model(ctx: EngineContext, run: RunRef, player: WorkflowPlayer) -> bool:
    """The run diverged and there is no model to hand it to."""
    if player.fallback is not None:
        return False
    if player.divergence is not None:
        return True
    turn = turns.get_turn(ctx.db.conn, run.turn_id)
    return (turn.context.get("workflowRecord") or {}).get("divergedAt") is not None
