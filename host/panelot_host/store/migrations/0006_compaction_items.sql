-- Schema 6: `compaction` items (a summary that later model calls send instead of the oldest
-- part of the branch). SQLite cannot change a CHECK constraint in place, so the item table
-- is rebuilt with the same columns, rows, ord values and indexes; the wire-JSON cache is
-- emptied (it is rebuilt on the next thread.open) and its trigger recreated.

DELETE FROM item_wire;

CREATE TABLE item_new (
    ord                 INTEGER PRIMARY KEY AUTOINCREMENT,  -- creation order on disk
    id                  TEXT NOT NULL UNIQUE,
    thread_id           TEXT NOT NULL REFERENCES thread (id) ON DELETE CASCADE,
    parent_id           TEXT,            -- previous node of the branch (a tree: siblings = branches)
    turn_id             TEXT,
    kind                TEXT NOT NULL CHECK (kind IN ('user', 'steering', 'assistant', 'toolCall', 'notice', 'compaction')),
    created_at          INTEGER NOT NULL,
    text                TEXT,
    thinking            TEXT,
    extra               TEXT,            -- JSON: kind-specific fields (thinking signature, images, code...)
    interrupted         INTEGER NOT NULL DEFAULT 0,
    -- tool calls
    call_id             TEXT,            -- provider call id, normalised (unique in the thread)
    name                TEXT,
    args                TEXT,            -- JSON
    descriptor_digest   TEXT,
    batch_item_id       TEXT,            -- the assistant item whose message carried this call
    batch_index         INTEGER,         -- position of the call in that message
    status              TEXT,
    result              TEXT             -- JSON {content, details?, isError}
);

INSERT INTO item_new (ord, id, thread_id, parent_id, turn_id, kind, created_at, text, thinking,
                      extra, interrupted, call_id, name, args, descriptor_digest, batch_item_id,
                      batch_index, status, result)
    SELECT ord, id, thread_id, parent_id, turn_id, kind, created_at, text, thinking, extra,
           interrupted, call_id, name, args, descriptor_digest, batch_item_id, batch_index,
           status, result
    FROM item ORDER BY ord;

DROP TABLE item;
ALTER TABLE item_new RENAME TO item;

CREATE INDEX item_by_thread ON item (thread_id, ord);
CREATE UNIQUE INDEX item_call_id ON item (thread_id, call_id) WHERE call_id IS NOT NULL;
CREATE INDEX item_by_turn ON item (turn_id, ord);

CREATE TRIGGER item_wire_stale AFTER UPDATE ON item
BEGIN
    DELETE FROM item_wire WHERE id = old.id;
END;
