-- Panelot store, schema 1: every entity of design/data-model-and-permissions.md.
-- Times are integer milliseconds since the epoch (UTC). JSON columns hold msgspec-encoded JSON.

CREATE TABLE thread (
    id                  TEXT PRIMARY KEY,
    title               TEXT NOT NULL,
    title_source        TEXT NOT NULL CHECK (title_source IN ('fallback', 'model', 'user')),
    parent_thread_id    TEXT,
    forked_from_item_id TEXT,
    head_item_id        TEXT,            -- the selected branch ends here (NULL: empty thread)
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    deleted             INTEGER NOT NULL DEFAULT 0,
    turns               INTEGER NOT NULL DEFAULT 0,
    input_tokens        INTEGER NOT NULL DEFAULT 0,
    output_tokens       INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens   INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens  INTEGER NOT NULL DEFAULT 0,
    cost_usd            REAL,            -- NULL while any model call of the thread had no known price
    cost_known          INTEGER NOT NULL DEFAULT 1,
    seq_ceiling         INTEGER NOT NULL DEFAULT 0  -- events use seq <= ceiling; raised in blocks
);
CREATE INDEX thread_by_update ON thread (deleted, updated_at DESC, id DESC);

CREATE TABLE item (
    ord                 INTEGER PRIMARY KEY AUTOINCREMENT,  -- creation order on disk
    id                  TEXT NOT NULL UNIQUE,
    thread_id           TEXT NOT NULL REFERENCES thread (id) ON DELETE CASCADE,
    parent_id           TEXT,            -- previous node of the branch (a tree: siblings = branches)
    turn_id             TEXT,
    kind                TEXT NOT NULL CHECK (kind IN ('user', 'steering', 'assistant', 'toolCall', 'notice')),
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
CREATE INDEX item_by_thread ON item (thread_id, ord);
CREATE INDEX item_by_parent ON item (parent_id);
CREATE INDEX item_by_batch ON item (batch_item_id, batch_index);
CREATE UNIQUE INDEX item_call_id ON item (thread_id, call_id) WHERE call_id IS NOT NULL;

CREATE TABLE turn (
    id                  TEXT PRIMARY KEY,
    thread_id           TEXT NOT NULL REFERENCES thread (id) ON DELETE CASCADE,
    status              TEXT NOT NULL,   -- running, paused, completed, interrupted, failed
    stop_reason         TEXT,
    error               TEXT,            -- JSON {kind, message}
    user_item_id        TEXT,
    context             TEXT NOT NULL,   -- JSON turn_context: model, budget, catalog digest
    input_tokens        INTEGER NOT NULL DEFAULT 0,
    output_tokens       INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens   INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens  INTEGER NOT NULL DEFAULT 0,
    cost_usd            REAL,
    cost_known          INTEGER NOT NULL DEFAULT 1,
    started_at          INTEGER NOT NULL,
    ended_at            INTEGER
);
CREATE INDEX turn_by_thread ON turn (thread_id, started_at);

CREATE TABLE run (
    id                  TEXT PRIMARY KEY,
    turn_id             TEXT NOT NULL REFERENCES turn (id) ON DELETE CASCADE,
    thread_id           TEXT NOT NULL REFERENCES thread (id) ON DELETE CASCADE,
    state               TEXT NOT NULL,
    cursor              TEXT NOT NULL,   -- JSON: step, failure streak, tools disabled, cutoff, pending calls
    environment         TEXT,            -- JSON, versioned snapshot
    environment_digest  TEXT,
    updated_at          INTEGER NOT NULL
);
CREATE INDEX run_by_thread ON run (thread_id, state);
CREATE INDEX run_by_state ON run (state);

CREATE TABLE approval (
    id                  TEXT PRIMARY KEY,  -- the requestId
    thread_id           TEXT NOT NULL REFERENCES thread (id) ON DELETE CASCADE,
    turn_id             TEXT NOT NULL,
    tool_call_item_id   TEXT NOT NULL,
    request             TEXT NOT NULL,     -- JSON: tool, args, target, basis
    state               TEXT NOT NULL CHECK (state IN ('pending', 'decided', 'cancelled')),
    decision            TEXT,
    scope               TEXT,
    message             TEXT,
    command_id          TEXT,
    created_at          INTEGER NOT NULL,
    decided_at          INTEGER
);
CREATE INDEX approval_pending ON approval (thread_id, state);

CREATE TABLE interaction (
    id                  TEXT PRIMARY KEY,
    thread_id           TEXT NOT NULL REFERENCES thread (id) ON DELETE CASCADE,
    turn_id             TEXT NOT NULL,
    tool_call_item_id   TEXT NOT NULL,
    prompt              TEXT NOT NULL,
    schema              TEXT NOT NULL,     -- JSON Schema of the answer
    origin              TEXT NOT NULL DEFAULT 'ask_user',  -- ask_user, mcp_elicitation
    state               TEXT NOT NULL CHECK (state IN ('pending', 'answered', 'cancelled')),
    response            TEXT,              -- JSON values, claimed once
    command_id          TEXT,
    created_at          INTEGER NOT NULL,
    answered_at         INTEGER
);
CREATE INDEX interaction_pending ON interaction (thread_id, state);

CREATE TABLE steering (
    id                  TEXT PRIMARY KEY,  -- also the id of the steering item once admitted
    thread_id           TEXT NOT NULL REFERENCES thread (id) ON DELETE CASCADE,
    turn_id             TEXT NOT NULL,
    text                TEXT NOT NULL,
    attachments         TEXT,              -- JSON list of attachment refs
    state               TEXT NOT NULL CHECK (state IN ('pending', 'admitted')),
    created_at          INTEGER NOT NULL,
    admitted_at_call    INTEGER            -- model call number that first saw it
);
CREATE INDEX steering_pending ON steering (turn_id, state, created_at);

CREATE TABLE queue_entry (
    id                  TEXT PRIMARY KEY,
    thread_id           TEXT NOT NULL REFERENCES thread (id) ON DELETE CASCADE,
    position            INTEGER NOT NULL,
    text                TEXT NOT NULL,
    created_at          INTEGER NOT NULL
);
CREATE INDEX queue_by_thread ON queue_entry (thread_id, position);

CREATE TABLE grant_rule (
    id                  TEXT PRIMARY KEY,
    scope               TEXT NOT NULL CHECK (scope IN ('thread', 'origin', 'global')),
    tool                TEXT NOT NULL,     -- tool name or pattern
    origin              TEXT,
    thread_id           TEXT,
    decision            TEXT NOT NULL CHECK (decision IN ('allow', 'deny')),
    provenance          TEXT NOT NULL,     -- JSON: approval request, scope, when
    created_at          INTEGER NOT NULL,
    revoked_at          INTEGER
);
CREATE INDEX grant_active ON grant_rule (revoked_at, scope);

CREATE TABLE command_receipt (
    command_id          TEXT PRIMARY KEY,
    method              TEXT NOT NULL,
    params_digest       TEXT NOT NULL,
    response            BLOB NOT NULL,     -- the JSON result sent the first time
    created_at          INTEGER NOT NULL
);

CREATE TABLE usage (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_id           TEXT NOT NULL REFERENCES thread (id) ON DELETE CASCADE,
    turn_id             TEXT NOT NULL,
    run_id              TEXT NOT NULL,
    model               TEXT NOT NULL,
    input_tokens        INTEGER NOT NULL,
    output_tokens       INTEGER NOT NULL,
    cache_read_tokens   INTEGER NOT NULL,
    cache_write_tokens  INTEGER NOT NULL,
    cost_usd            REAL,              -- NULL: price unknown
    created_at          INTEGER NOT NULL
);
CREATE INDEX usage_by_turn ON usage (turn_id);

CREATE TABLE credential (
    ref                 TEXT PRIMARY KEY,
    provider            TEXT,
    backend             TEXT NOT NULL,     -- keyring, encrypted_file
    fingerprint         TEXT NOT NULL,     -- never the secret
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
);

CREATE TABLE setting (
    key                 TEXT PRIMARY KEY,
    value               TEXT NOT NULL      -- JSON
);
