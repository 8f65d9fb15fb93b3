-- Schema 2: full-text search over thread titles and message text (SQLite FTS5).
-- One row per searchable text; thread.list groups the hits by thread and ranks them by bm25.

CREATE VIRTUAL TABLE search_text USING fts5 (
    body,
    thread_id UNINDEXED,
    source UNINDEXED,      -- 'title' or an item id
    tokenize = 'unicode61 remove_diacritics 2'
);

-- Backfill what schema 1 already stored.
INSERT INTO search_text (body, thread_id, source)
    SELECT title, id, 'title' FROM thread WHERE deleted = 0;
INSERT INTO search_text (body, thread_id, source)
    SELECT item.text, item.thread_id, item.id FROM item JOIN thread ON thread.id = item.thread_id
    WHERE thread.deleted = 0 AND item.kind IN ('user', 'steering', 'assistant')
      AND item.text IS NOT NULL AND item.text != '';
