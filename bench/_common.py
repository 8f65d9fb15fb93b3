"""Shared helpers of the host benchmarks (cold start, store, engine, memory).

Not a benchmark itself: seeding realistic threads through the store's repositories, a
no-op L0 read tool, a scripted model, timing and reporting helpers.
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from panelot_host.providers.catalog import ModelInfo
from panelot_host.store import items, threads, turns
from panelot_host.store.db import Database
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.profiles import database_path
from panelot_host.store.records import ItemRecord, UsageRecord
from panelot_host.tools.descriptor import AgentTool, BuiltinBinding
from panelot_host.tools.result import ToolResult

NOOP_NAME = "bench_noop"
INIT_PARAMS: dict[str, Any] = {"protocolVersion": 1, "client": {"name": "bench", "version": "0"}}
MODEL_INFO = ModelInfo(id="scripted-model", provider="scripted", tool_use=True, vision=True)

_WORDS = [
    "price",
    "order",
    "cart",
    "checkout",
    "invoice",
    "shipping",
    "address",
    "refund",
    "coupon",
    "page",
    "table",
    "form",
    "search",
    "result",
    "button",
    "login",
    "account",
    "profile",
    "settings",
    "report",
    "chart",
    "summary",
    "email",
    "calendar",
    "meeting",
    "flight",
    "hotel",
    "booking",
    "weather",
    "recipe",
    "article",
    "review",
    "product",
    "list",
    "download",
    "upload",
    "document",
    "spreadsheet",
    "slide",
    "image",
    "video",
    "playlist",
    "ticket",
    "support",
]


# ---------------------------------------------------------------- reporting


def machine() -> str:
    """``nproc``, Python version and platform: printed by every benchmark."""
    return (
        f"{os.cpu_count()} CPUs (nproc), Python {platform.python_version()}, "
        f"{platform.machine()} {platform.system()}"
    )


def verdict(met: bool) -> str:
    return "MET" if met else "MISSED"


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def p90(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def header(title: str, quick: bool) -> None:
    print(f"== {title}{' (--quick: tiny version, figures not representative)' if quick else ''}")
    print(f"machine: {machine()}")


def figure(
    name: str,
    value: float,
    unit: str,
    *,
    baseline: float | None = None,
    baseline_name: str = "baseline",
    target: str | None = None,
    met: bool | None = None,
    extra: str = "",
) -> None:
    """One result line: ``FIGURE name: value unit | baseline ... | ratio | target | MET``."""
    parts = [f"FIGURE {name}: {value:,.2f} {unit}"]
    if baseline is not None:
        parts.append(f"{baseline_name}: {baseline:,.2f} {unit}")
        if baseline > 0:
            parts.append(f"ratio {value / baseline:,.2f}x")
    if target is not None:
        parts.append(f"target {target}")
    if met is not None:
        parts.append(verdict(met))
    if extra:
        parts.append(extra)
    print(" | ".join(parts), flush=True)


def vm_status(field: str, pid: int | str = "self") -> int:
    """A ``/proc/<pid>/status`` memory field (``VmHWM``, ``VmRSS``) in kB (0 if unknown)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


# ---------------------------------------------------------------- the no-op tool


async def _noop(args: dict[str, Any], context: Any) -> ToolResult:
    return ToolResult(content="ok")


def noop_tool() -> AgentTool:
    """An L0 read tool that does nothing (allowed by the Gatekeeper's defaults)."""
    return AgentTool(
        name=NOOP_NAME,
        label="No-op",
        description="Does nothing and answers ok. For benchmarks.",
        parameters={
            "type": "object",
            "properties": {"i": {"type": "integer"}},
            "additionalProperties": False,
        },
        level="L0",
        effects=frozenset({"read"}),
        recovery="read",
        binding=BuiltinBinding("bench._common:_noop"),
        execute=_noop,
    )


# ---------------------------------------------------------------- seeding


def profile_db_path(home: Path) -> Path:
    """The default profile's database under ``home`` (what ``initialize`` opens)."""
    return database_path(home, None)


def _sentence(rng: random.Random, size: int) -> str:
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(_WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:size].strip()


def seed_threads(db: Database, count: int, *, items_per_thread: int = 4, seed: int = 1) -> None:
    """``count`` threads, each with a title and a few user/assistant messages (indexed)."""
    rng = random.Random(seed)
    base = now_ms() - count * 1000
    with db.transaction() as conn:
        for n in range(count):
            title = f"{_sentence(rng, 30)} {n}"
            record = threads.create(conn, title=title, title_source="model")
            head: str | None = None
            turn_id = new_id("trn")
            for k in range(items_per_thread):
                item = ItemRecord(
                    id=new_id("itm"),
                    thread_id=record.id,
                    parent_id=head,
                    turn_id=turn_id,
                    kind="user" if k % 2 == 0 else "assistant",
                    created_at=base + n * 1000 + k,
                    text=_sentence(rng, 200),
                )
                items.insert(conn, item)
                head = item.id
            conn.execute(
                "UPDATE thread SET head_item_id = ?, updated_at = ?, created_at = ? WHERE id = ?",
                (head, base + n * 1000 + items_per_thread, base + n * 1000, record.id),
            )


def seed_long_thread(
    db: Database,
    n_items: int,
    *,
    tool_steps_per_turn: int = 4,
    tool_digest: str = "sha256:" + "0" * 64,
    seed: int = 2,
) -> str:
    """One thread whose selected branch holds ``n_items`` items; returns its id.

    The rows are what the engine writes for a turn (see a real run's ``item`` table):
    a user message (~200 bytes), then per tool step an assistant item (~200 bytes of text,
    ``stopReason: tool_use``) and its ``toolCall`` item (small args, result on the same
    row, status ``succeeded``), then a final assistant answer (~200 bytes); with a
    completed turn, run and per-call usage rows. One branch of ``n_items``.
    """
    rng = random.Random(seed)
    start = now_ms() - n_items * 50
    clock = start
    with db.transaction() as conn:
        record = threads.create(conn, title="A long research thread", title_source="model")
        thread_id = record.id
        head: str | None = None
        count = 0
        calls = 0
        while count < n_items:
            turn_id, run_id = new_id("trn"), new_id("run")
            user = ItemRecord(
                id=new_id("itm"),
                thread_id=thread_id,
                parent_id=head,
                turn_id=turn_id,
                kind="user",
                created_at=clock,
                text=_sentence(rng, 200),
            )
            turns.insert_turn(
                conn,
                turn_id=turn_id,
                thread_id=thread_id,
                user_item_id=user.id,
                context={"model": MODEL_INFO.id},
            )
            items.insert(conn, user)
            head, count = user.id, count + 1
            model_calls = 0
            step = 0
            while count < n_items:
                clock += 10
                model_calls += 1
                final = step == tool_steps_per_turn or count + 2 > n_items
                assistant = ItemRecord(
                    id=new_id("itm"),
                    thread_id=thread_id,
                    parent_id=head,
                    turn_id=turn_id,
                    kind="assistant",
                    created_at=clock,
                    text=_sentence(rng, 200),
                    extra={"stopReason": "end_turn" if final else "tool_use"},
                )
                items.insert(conn, assistant)
                head, count = assistant.id, count + 1
                if final:
                    break
                calls += 1
                call = ItemRecord(
                    id=new_id("itm"),
                    thread_id=thread_id,
                    parent_id=head,
                    turn_id=turn_id,
                    kind="toolCall",
                    created_at=clock,
                    extra={"label": "No-op", "level": "L0", "effects": ["read"]},
                    call_id=f"call_{calls:08d}",
                    name=NOOP_NAME,
                    args={"i": calls},
                    descriptor_digest=tool_digest,
                    batch_item_id=assistant.id,
                    batch_index=0,
                    status="succeeded",
                    result={"content": f"ok {_sentence(rng, 40)}", "isError": False},
                )
                items.insert(conn, call)
                head, count = call.id, count + 1
                step += 1
            turns.insert_run(
                conn,
                run_id=run_id,
                turn_id=turn_id,
                thread_id=thread_id,
                state="completed",
                cursor={"calls": model_calls},
            )
            for _ in range(model_calls):
                turns.record_usage(
                    conn,
                    UsageRecord(
                        thread_id, turn_id, run_id, MODEL_INFO.id, 100, 50, 0, 0, None, clock
                    ),
                )
            turns.set_turn_status(conn, turn_id, "completed", stop_reason="end_turn")
            threads.count_turn(conn, thread_id)
        threads.set_head(conn, thread_id, head)
    return thread_id


def python_env() -> dict[str, str]:
    """The environment for host subprocesses: no provider keys."""
    env = dict(os.environ)
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        env.pop(key, None)
    return env


def venv_script(name: str) -> Path | None:
    """``<venv>/bin/<name>`` next to the running interpreter, when it exists."""
    candidate = Path(sys.executable).parent / name
    return candidate if candidate.exists() else None
