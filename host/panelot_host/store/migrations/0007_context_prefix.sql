-- Schema 7: a durable cache of each thread's session prefix (the provider messages of the
-- finished turns before a run's Turn), so a fresh host process does not rebuild a long
-- branch on a thread's first model call. One row per thread, keyed by where the prefix
-- starts (NULL: the root; else the last item a compaction covers) and ends; ``format``
-- names the encoding and the code that built it, ``checksum`` guards the blob.
-- ``context_elision`` holds the engine's elision pass over the stored prefix, in a row of
-- its own (writing it does not rewrite the prefix's blob), dropped with it. Triggers
-- drop the rows whenever an item it may cover changes (every item of a prefix was stored no
-- later than its end item, so ``end_ord >= ord`` covers them all), whatever code path
-- changed it.

CREATE TABLE context_prefix (
    thread_id       TEXT PRIMARY KEY REFERENCES thread (id) ON DELETE CASCADE,
    start_item_id   TEXT,
    end_item_id     TEXT NOT NULL,
    end_ord         INTEGER NOT NULL,
    format          TEXT NOT NULL,
    checksum        INTEGER NOT NULL,
    messages        BLOB NOT NULL
);

CREATE TABLE context_elision (
    thread_id       TEXT PRIMARY KEY REFERENCES thread (id) ON DELETE CASCADE,
    checksum        INTEGER NOT NULL,
    elision         BLOB NOT NULL
);

CREATE TRIGGER context_prefix_stale AFTER UPDATE ON item
BEGIN
    DELETE FROM context_elision WHERE thread_id IN (SELECT thread_id FROM context_prefix
        WHERE thread_id = old.thread_id AND end_ord >= old.ord);
    DELETE FROM context_prefix WHERE thread_id = old.thread_id AND end_ord >= old.ord;
END;

CREATE TRIGGER context_prefix_gone AFTER DELETE ON item
BEGIN
    DELETE FROM context_elision WHERE thread_id IN (SELECT thread_id FROM context_prefix
        WHERE thread_id = old.thread_id AND end_ord >= old.ord);
    DELETE FROM context_prefix WHERE thread_id = old.thread_id AND end_ord >= old.ord;
END;

-- The latest compaction of a branch is looked up once per run: without this index that
-- reads every row of the thread.
CREATE INDEX item_compactions ON item (thread_id, ord) WHERE kind = 'compaction';
