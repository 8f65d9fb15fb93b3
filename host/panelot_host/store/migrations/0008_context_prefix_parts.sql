-- Schema 8: the stored session prefix in parts. Schema 7 kept a thread's prefix as one
-- blob, rewritten whole at every new Turn (2.3 MB for a 10,000-item branch: ~15-30 ms per
-- Turn). Now a new Turn appends its part (the messages it added), and a prefix is its
-- parts in order: part 0 starts where the prefix starts (NULL: the root; else the last item
-- a compaction covers), each later part where the one before it ends. Each part carries
-- its own checksum; ``end_ord`` is its end item's ``ord``. The triggers drop, when an item
-- changes, the parts that may cover it (``end_ord >= ord``: a suffix of the parts); the
-- parts before it stay valid, and the engine extends from them. The elision pass goes with
-- any change, as before (by its foreign key). What schema 7 stored is a cache: dropped,
-- rebuilt on first use.

DROP TRIGGER context_prefix_stale;
DROP TRIGGER context_prefix_gone;
DROP TABLE context_elision;
DROP TABLE context_prefix;

CREATE TABLE context_prefix (
    thread_id       TEXT NOT NULL REFERENCES thread (id) ON DELETE CASCADE,
    part            INTEGER NOT NULL,
    start_item_id   TEXT,
    end_item_id     TEXT NOT NULL,
    end_ord         INTEGER NOT NULL,
    format          TEXT NOT NULL,
    checksum        INTEGER NOT NULL,
    messages        BLOB NOT NULL,
    PRIMARY KEY (thread_id, part)
);

-- The elision pass over the whole stored prefix, tied to its last part: it goes when that
-- part goes (every drop of parts is a suffix, so it includes the last one).
CREATE TABLE context_elision (
    thread_id       TEXT PRIMARY KEY,
    part            INTEGER NOT NULL,
    checksum        INTEGER NOT NULL,
    elision         BLOB NOT NULL,
    FOREIGN KEY (thread_id, part) REFERENCES context_prefix (thread_id, part) ON DELETE CASCADE
);

CREATE TRIGGER context_prefix_stale AFTER UPDATE ON item BEGIN
    DELETE FROM context_prefix WHERE thread_id = old.thread_id AND end_ord >= old.ord;
END;

CREATE TRIGGER context_prefix_gone AFTER DELETE ON item BEGIN
    DELETE FROM context_prefix WHERE thread_id = old.thread_id AND end_ord >= old.ord;
END;
