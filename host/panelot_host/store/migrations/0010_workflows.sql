-- Schema 10: workflows (issue 29). ``workflow`` holds a saved workflow of the profile:
-- its name (listed and searched without decoding), its ``definition`` (the protocol's
-- ``WorkflowDefinition`` as JSON: goal, parameters, steps, source) and when it was made
-- and last changed. ``workflow_schedule`` is its schedule, if any: ``schedule`` as JSON
-- (``{"kind": "daily", "at"}`` or ``{"kind": "every", "hours"}``), the browser's UTC
-- offset daily times are in, ``anchor_at`` (when it was set: every-N-hours counts from
-- there), ``checked_at`` (occurrences up to here were handed out or reported by
-- ``workflow.due``), ``last_run_at`` (the last one handed out to run) and the thread its
-- runs go to (NULL until the first).

CREATE TABLE workflow (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    definition  TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

CREATE INDEX workflow_by_update ON workflow (updated_at DESC);

CREATE TABLE workflow_schedule (
    workflow_id         TEXT PRIMARY KEY REFERENCES workflow (id) ON DELETE CASCADE,
    schedule            TEXT NOT NULL,
    paused              INTEGER NOT NULL DEFAULT 0,
    utc_offset_minutes  INTEGER NOT NULL DEFAULT 0,
    anchor_at           INTEGER NOT NULL,
    checked_at          INTEGER NOT NULL,
    last_run_at         INTEGER,
    thread_id           TEXT REFERENCES thread (id) ON DELETE SET NULL
);
