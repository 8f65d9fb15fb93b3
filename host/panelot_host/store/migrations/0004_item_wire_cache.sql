-- Schema 4: a cache of each item's wire JSON, so reopening a long thread (which Chrome's
-- side panel does at every service-worker start) reads stored JSON instead of rebuilding
-- 10,000 items. Triggers drop an item's entry whenever its row changes, whatever code path
-- changed it; ``format`` names the wire format the JSON was rendered in.

CREATE TABLE item_wire (
    id          TEXT PRIMARY KEY REFERENCES item (id) ON DELETE CASCADE,
    thread_id   TEXT NOT NULL,
    format      INTEGER NOT NULL,
    json        BLOB NOT NULL
);
CREATE INDEX item_wire_by_thread ON item_wire (thread_id);

CREATE TRIGGER item_wire_stale AFTER UPDATE ON item
BEGIN
    DELETE FROM item_wire WHERE id = old.id;
END;
