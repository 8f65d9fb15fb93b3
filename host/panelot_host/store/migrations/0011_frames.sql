-- Schema 11: frames (issue 30). ``frame`` holds the small screenshots the extension
-- captured of a tab's viewport around a browser action, with the tool call they belong to
-- (``item_id``; ``seq`` orders a call's frames: a ``before`` frame first). ``image`` is the
-- JPEG or WebP as captured; ``size`` its length in bytes (the profile's budget counts
-- these); ``meta`` the rest as JSON (title, viewport, mark, typed text, fields blurred).
-- A thread's deletion removes its frames.

CREATE TABLE frame (
    id           TEXT PRIMARY KEY,
    thread_id    TEXT NOT NULL REFERENCES thread (id) ON DELETE CASCADE,
    turn_id      TEXT NOT NULL,
    item_id      TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    phase        TEXT NOT NULL,
    mime         TEXT NOT NULL,
    width        INTEGER NOT NULL,
    height       INTEGER NOT NULL,
    url          TEXT NOT NULL,
    captured_at  INTEGER NOT NULL,
    meta         TEXT NOT NULL DEFAULT '{}',
    size         INTEGER NOT NULL,
    image        BLOB NOT NULL
);

CREATE INDEX frame_by_item ON frame (item_id, seq);
CREATE INDEX frame_by_thread ON frame (thread_id, turn_id, captured_at);
CREATE INDEX frame_by_age ON frame (captured_at, id);
