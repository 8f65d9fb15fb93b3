"""Store: ``thread.list`` over 1,000 threads and ``thread.open`` of a 10,000-item thread.

Run: .venv/bin/python bench/bench_store.py [--quick] [--profile]

Seeds a profile database through the store's repositories: 1,000 threads (titles and four
~200-byte messages each, all indexed for search) and one thread whose branch holds 10,000
items (user / assistant / toolCall rows as the engine writes them, ~200-byte texts, small
results). Each op is timed (median of many calls) at four depths, in the same run:

- through ``DirectTransport``: the real op path (JSON-RPC encode, decode + validation,
  routing, the engine, result encoding) and the client's JSON decode of the result;
- the engine call alone (``profile.threads.list/open``, a protocol struct), and the same
  plus the msgspec JSON encoding of the result;
- the store call alone (``threads.list_threads``, ``items.branch``: records);
- baseline: the raw SQL ``SELECT`` of the same rows with ``sqlite3`` (fetchall).

Also the first ``thread.open`` of the long thread, when no item has its wire JSON cached
yet (the cache is emptied before each of 5 calls), against the later, cached opens.

Targets: ``thread.list`` (first page of 50, and a search) <= 20 ms; ``thread.open`` of the
10,000-item thread <= 100 ms (both through DirectTransport).
"""

from __future__ import annotations

import argparse
import cProfile
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import msgspec

from _common import (
    figure,
    header,
    median,
    profile_db_path,
    profile_lines,
    scripted_host,
    seed_profile,
)
from panelot_host.server.host import OpenProfile
from panelot_host.store import items, threads

LIST_TARGET_MS = 20.0
OPEN_TARGET_MS = 100.0
_encode = msgspec.json.Encoder().encode

THREAD_COLUMNS = (
    "id, title, title_source, parent_thread_id, forked_from_item_id, head_item_id, "
    "created_at, updated_at, turns, input_tokens, output_tokens, cache_read_tokens, "
    "cache_write_tokens, cost_usd, cost_known"
)
ITEM_COLUMNS = (
    "id, thread_id, parent_id, turn_id, kind, created_at, text, thinking, extra, interrupted, "
    "call_id, name, args, descriptor_digest, batch_item_id, batch_index, status, result"
)


def time_sync(fn: Callable[[], Any], repeat: int) -> float:
    """Median seconds of ``repeat`` calls (after one warm-up call)."""
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return median(samples)


async def time_async(fn: Callable[[], Awaitable[Any]], repeat: int) -> float:
    await fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        await fn()
        samples.append(time.perf_counter() - start)
    return median(samples)


def encode_list(engine: OpenProfile, query: str | None) -> bytes:
    return _encode(engine.threads.list(50, None, query))


def raw_list(conn: sqlite3.Connection, limit: int) -> list[Any]:
    return conn.execute(
        f"SELECT {THREAD_COLUMNS} FROM thread WHERE deleted = 0 "
        "ORDER BY updated_at DESC, id DESC LIMIT ?",
        (limit + 1,),
    ).fetchall()


def raw_search(conn: sqlite3.Connection, match: str, limit: int) -> list[Any]:
    columns = ", ".join(f"t.{c.strip()}" for c in THREAD_COLUMNS.split(","))
    return conn.execute(
        f"SELECT {columns} FROM (SELECT thread_id, min(CASE source WHEN 'title' "
        "THEN rank * 2.0 ELSE rank END) AS score FROM search_text WHERE search_text MATCH ? "
        "GROUP BY thread_id) AS hits JOIN thread AS t ON t.id = hits.thread_id "
        "WHERE t.deleted = 0 ORDER BY hits.score, t.updated_at DESC LIMIT ? OFFSET 0",
        (match, limit + 1),
    ).fetchall()


def raw_branch(conn: sqlite3.Connection, head: str) -> list[Any]:
    prefixed = ", ".join(f"item.{c.strip()}" for c in ITEM_COLUMNS.split(","))
    return conn.execute(
        "WITH RECURSIVE path(id, depth) AS (SELECT ?, 0 UNION ALL "
        "SELECT item.parent_id, path.depth + 1 FROM item JOIN path ON item.id = path.id "
        f"WHERE item.parent_id IS NOT NULL) SELECT {prefixed} FROM path "
        "JOIN item ON item.id = path.id ORDER BY path.depth DESC",
        (head,),
    ).fetchall()


def raw_flat(conn: sqlite3.Connection, thread_id: str) -> list[Any]:
    return conn.execute(
        f"SELECT {ITEM_COLUMNS} FROM item WHERE thread_id = ? ORDER BY ord", (thread_id,)
    ).fetchall()


def print_profile(label: str, fn: Callable[[], Any], repeat: int, top: int = 15) -> None:
    """cProfile of ``repeat`` calls of ``fn``: the top functions by internal time."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(repeat):
        fn()
    profiler.disable()
    print(f"\ncProfile of {label} x{repeat} (top {top} by own time; cProfile inflates calls):")
    for line in profile_lines(profiler, "tottime", top):
        print(f"  {line}")


async def run(
    home: Path,
    long_thread: str,
    n_items: int,
    reps: int,
    open_reps: int,
    first_reps: int,
    profile: bool,
) -> None:
    raw = sqlite3.connect(profile_db_path(home), isolation_level=None)
    head = raw.execute("SELECT head_item_id FROM thread WHERE id = ?", (long_thread,)).fetchone()[0]
    async with scripted_host(home, noop=False) as (host, client):
        assert host.profile is not None
        engine, conn = host.profile, host.profile.db.conn  # its one ThreadService

        cases = [
            ("first page", None, None),
            ("search 'invoice' (matches most threads)", "invoice", '"invoice"*'),
            ("search '417' (matches one title)", "417", '"417"*'),
        ]
        for label, query, match in cases:
            params: dict[str, Any] = {"limit": 50}
            if query:
                params["query"] = query
            page = await client.send("thread.list", params)
            via_transport = await time_async(partial(client.send, "thread.list", params), reps)
            via_engine = time_sync(partial(engine.threads.list, 50, None, query), reps)
            via_engine_json = time_sync(partial(encode_list, engine, query), reps)
            via_store = time_sync(
                partial(threads.list_threads, conn, limit=50, cursor=None, query=query), reps
            )
            if match is None:
                baseline = time_sync(partial(raw_list, raw, 50), reps)
            else:
                baseline = time_sync(partial(raw_search, raw, match, 50), reps)
            print(f"\nthread.list, {label}: {len(page['threads'])} threads returned")
            ms = via_transport * 1000
            figure(
                f"thread.list {label} via DirectTransport",
                ms,
                "ms",
                baseline=baseline * 1000,
                baseline_name="raw SQL",
                target=f"<= {LIST_TARGET_MS:.0f} ms",
                met=ms <= LIST_TARGET_MS,
            )
            figure("  engine.threads.list alone", via_engine * 1000, "ms")
            figure("  engine.threads.list + JSON encode", via_engine_json * 1000, "ms")
            figure("  store threads.list_threads alone", via_store * 1000, "ms")

        snapshot = await client.send("thread.open", {"threadId": long_thread})
        size = len(_encode(snapshot))
        print(
            f"\nthread.open of a {len(snapshot['items']):,}-item thread "
            f"(result {size / 1e6:.1f} MB of JSON), median of {open_reps}"
        )
        assert len(snapshot["items"]) == n_items, len(snapshot["items"])
        via_transport = await time_async(
            lambda: client.send("thread.open", {"threadId": long_thread}), open_reps
        )
        via_engine = time_sync(lambda: engine.threads.open(long_thread), open_reps)
        via_engine_json = time_sync(lambda: _encode(engine.threads.open(long_thread)), open_reps)
        via_store = time_sync(lambda: items.branch(conn, head), open_reps)
        baseline = time_sync(lambda: raw_branch(raw, head), open_reps)
        flat = time_sync(lambda: raw_flat(raw, long_thread), open_reps)
        ms = via_transport * 1000
        figure(
            f"thread.open {n_items:,} items via DirectTransport",
            ms,
            "ms",
            baseline=baseline * 1000,
            baseline_name="raw SQL (same recursive branch query)",
            target=f"<= {OPEN_TARGET_MS:.0f} ms",
            met=ms <= OPEN_TARGET_MS,
        )
        figure("  engine.threads.open alone (snapshot struct)", via_engine * 1000, "ms")
        figure("  engine.threads.open + JSON encode", via_engine_json * 1000, "ms")
        figure("  store items.branch alone (records)", via_store * 1000, "ms")
        figure("  raw SQL flat SELECT by thread_id ORDER BY ord", flat * 1000, "ms")
        db = host.profile.db

        def first_open() -> float:
            """``thread.open`` of a thread whose items were never rendered (as right after
            seeding): the ``item_wire`` cache is emptied, then the open renders and stores
            every item."""
            with db.transaction() as write:
                write.execute("DELETE FROM item_wire WHERE thread_id = ?", (long_thread,))
            start = time.perf_counter()
            engine.threads.open(long_thread)
            return time.perf_counter() - start

        first = median([first_open() for _ in range(first_reps)])
        figure(
            "  engine.threads.open, first open (renders and caches every item)",
            first * 1000,
            "ms",
            baseline=via_engine * 1000,
            baseline_name="a later open (cached JSON)",
            extra=f"median of {first_reps}, item_wire emptied before each",
        )
        payload = _encode(engine.threads.open(long_thread))
        decode = time_sync(lambda: msgspec.json.decode(payload), open_reps)
        figure("  client-side JSON decode of the result alone", decode * 1000, "ms")
        if profile:
            print_profile("engine.threads.open", lambda: engine.threads.open(long_thread), 5)
    raw.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the smoke test")
    parser.add_argument(
        "--profile", action="store_true", help="also print a cProfile of thread.open"
    )
    options = parser.parse_args()
    n_threads, n_items, reps, open_reps, first_reps = (
        (50, 500, 5, 3, 1) if options.quick else (1000, 10_000, 100, 15, 5)
    )
    header(
        f"Store: thread.list over {n_threads:,} threads, thread.open of {n_items:,} items",
        options.quick,
    )
    with tempfile.TemporaryDirectory(prefix="panelot-bench-store-") as tmp:
        home = Path(tmp)
        start = time.perf_counter()
        long_thread = seed_profile(home, n_items, threads_count=n_threads)
        print(f"seeded in {time.perf_counter() - start:.1f} s")
        anyio.run(run, home, long_thread, n_items, reps, open_reps, first_reps, options.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
