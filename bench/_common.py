"""Shared helpers of the host benchmarks (cold start, store, engine, memory, torture).

Not a benchmark itself: seeding realistic threads through the store's repositories, a
no-op L0 read tool, a scripted model and the in-process host around it, timing, reporting
and cProfile helpers.
"""

from __future__ import annotations

import cProfile
import io
import os
import platform
import pstats
import random
import sqlite3
import statistics
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.scripted import Responder, Script, Stop, Text, ToolCall
from panelot_host.providers.types import ModelRequest, Usage
from panelot_host.store import items, threads, turns
from panelot_host.store.db import Database
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.profiles import database_path
from panelot_host.store.records import ItemRecord, ToolCallExtra, UsageRecord
from panelot_host.tools.descriptor import AgentTool, BuiltinBinding
from panelot_host.tools.result import ToolResult

if TYPE_CHECKING:
    from panelot_host.server.host import Host
    from panelot_host.server.transport import DirectTransport

REPO_ROOT = str(Path(__file__).resolve().parents[1])
NOOP_NAME = "bench_noop"
INIT_PARAMS: dict[str, Any] = {"protocolVersion": 1, "client": {"name": "bench", "version": "0"}}
# a 1M-token window (as gpt-4.1): the engine benchmarks measure steps, not compaction
MODEL_INFO = ModelInfo(
    id="scripted-model", provider="scripted", tool_use=True, vision=True, context_window=1_000_000
)

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


def profile_lines(profiler: cProfile.Profile, order: str, top: int) -> list[str]:
    """The ``top`` rows of ``profiler``'s stats sorted by ``order``, with their header."""
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(order).print_stats(top)
    lines = out.getvalue().splitlines()
    first = next(i for i, line in enumerate(lines) if "ncalls" in line)
    return lines[first : first + top + 1]


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


# ---------------------------------------------------------------- the scripted host


class ToolSteps:
    """The model of the engine and memory benchmarks: in each turn ``steps`` model calls
    that each call the no-op tool once, then one that answers with a text."""

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.calls = 0

    def __call__(self, request: ModelRequest) -> Script:
        self.calls += 1
        if self.calls > self.steps:
            self.calls = 0
            return [Text("Done: every step succeeded."), Stop("end_turn", usage=Usage(100, 20))]
        return [ToolCall(NOOP_NAME, {"i": self.calls}), Stop(usage=Usage(100, 20))]


@asynccontextmanager
async def scripted_host(
    home: Path, responder: Responder | None = None, *, noop: bool = True
) -> AsyncIterator[tuple[Host, DirectTransport]]:
    """A ``Host`` on ``home`` with the scripted provider (``responder``, keeping no requests)
    and, with ``noop``, the no-op tool registered; a ``DirectTransport`` client that has sent
    ``initialize``. The host modules are imported here, when it is first used."""
    from panelot_host.providers.scripted import ScriptedProvider
    from panelot_host.server.assembly import default_registry
    from panelot_host.server.config import HostConfig
    from panelot_host.server.host import Host
    from panelot_host.server.transport import DirectTransport

    sys.path.insert(0, REPO_ROOT)  # the test double below lives in tests/support
    from tests.support.fixed_models import FixedModels

    registry = None
    if noop:
        registry = default_registry()
        registry.register(noop_tool())
    models = FixedModels(ScriptedProvider(responder=responder, keep_requests=False), MODEL_INFO)
    async with (
        Host(HostConfig(home=home), models=lambda _db: models, registry=registry) as host,
        DirectTransport.connect(host) as client,
    ):
        await client.send("initialize", INIT_PARAMS)
        yield host, client


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
            chain = _Chain(conn, record.id)
            turn_id = new_id("trn")
            for k in range(items_per_thread):
                kind = "user" if k % 2 == 0 else "assistant"
                chain.add(turn_id, kind, base + n * 1000 + k, text=_sentence(rng, 200))
            conn.execute(
                "UPDATE thread SET head_item_id = ?, updated_at = ?, created_at = ? WHERE id = ?",
                (chain.head, base + n * 1000 + items_per_thread, base + n * 1000, record.id),
            )


class _Chain:
    """Appends items to one branch of a thread: each new item's parent is the last one."""

    def __init__(self, conn: sqlite3.Connection, thread_id: str) -> None:
        self.conn, self.thread_id = conn, thread_id
        self.head: str | None = None
        self.count = 0

    def add(
        self, turn_id: str, kind: str, created_at: int, *, id: str | None = None, **fields: Any
    ) -> ItemRecord:
        item = ItemRecord(
            id=id or new_id("itm"),
            thread_id=self.thread_id,
            parent_id=self.head,
            turn_id=turn_id,
            kind=kind,
            created_at=created_at,
            **fields,
        )
        items.insert(self.conn, item)
        self.head, self.count = item.id, self.count + 1
        return item


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
    clock = now_ms() - n_items * 50
    with db.transaction() as conn:
        record = threads.create(conn, title="A long research thread", title_source="model")
        thread_id = record.id
        chain = _Chain(conn, thread_id)
        calls = 0
        while chain.count < n_items:
            turn_id, run_id = new_id("trn"), new_id("run")
            user_id = new_id("itm")
            turns.insert_turn(
                conn,
                turn_id=turn_id,
                thread_id=thread_id,
                user_item_id=user_id,
                context={"model": MODEL_INFO.id},
            )
            chain.add(turn_id, "user", clock, id=user_id, text=_sentence(rng, 200))
            model_calls = 0
            for step in range(tool_steps_per_turn + 1):
                if chain.count >= n_items:
                    break
                clock += 10
                model_calls += 1
                final = step == tool_steps_per_turn or chain.count + 2 > n_items
                stop = "end_turn" if final else "tool_use"
                assistant = chain.add(
                    turn_id,
                    "assistant",
                    clock,
                    text=_sentence(rng, 200),
                    extra={"stopReason": stop},
                )
                if final:
                    break
                calls += 1
                chain.add(
                    turn_id,
                    "toolCall",
                    clock,
                    call_extra=ToolCallExtra(label="No-op", level="L0", effects=["read"]),
                    call_id=f"call_{calls:08d}",
                    name=NOOP_NAME,
                    args={"i": calls},
                    descriptor_digest=tool_digest,
                    batch_item_id=assistant.id,
                    batch_index=0,
                    status="succeeded",
                    result={"content": f"ok {_sentence(rng, 40)}", "isError": False},
                )
            turns.insert_run(
                conn,
                run_id=run_id,
                turn_id=turn_id,
                thread_id=thread_id,
                state="streaming",
                cursor={"calls": model_calls},
            )
            turns.update_run(conn, run_id, state="completed")  # a run starts streaming
            for _ in range(model_calls):
                turns.record_usage(
                    conn,
                    UsageRecord(
                        thread_id, turn_id, run_id, MODEL_INFO.id, 100, 50, 0, 0, None, clock
                    ),
                )
            turns.set_turn_status(conn, turn_id, "completed", stop_reason="end_turn")
            threads.count_turn(conn, thread_id)
        threads.set_head(conn, thread_id, chain.head)
    return thread_id


def seed_profile(home: Path, long_items: int, *, threads_count: int = 0) -> str:
    """Create the default profile's database under ``home`` and seed it: ``threads_count``
    short threads (``seed_threads``) and one thread of ``long_items`` items
    (``seed_long_thread``), whose id is returned. The database is closed again, so the
    host under test opens it as it would any existing profile."""
    db = Database.open(profile_db_path(home))
    try:
        if threads_count:
            seed_threads(db, threads_count)
        return seed_long_thread(db, long_items)
    finally:
        db.close()


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
