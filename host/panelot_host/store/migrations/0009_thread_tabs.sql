-- Schema 9: the browser tabs each thread owns (issue 26). ``thread_tab_group`` is the
-- thread's one Chrome tab group: its id in the running browser (NULL until the group
-- exists; Chrome gives a new one after a restart), the title and colour it was last given
-- (how the worker finds the group again after a restart). ``thread_tab`` lists the tabs,
-- ``rank`` 0 being the tab the thread acts on by default (the one it used last); ``url``
-- and ``title`` are what the tab showed when last seen, to find it again after a restart;
-- ``source`` says how the thread got it: it opened it, or the user handed it over;
-- ``grouped``: it was in the thread's group when last seen (taken out, it is released).

CREATE TABLE thread_tab_group (
    thread_id   TEXT PRIMARY KEY REFERENCES thread (id) ON DELETE CASCADE,
    group_id    INTEGER,
    title       TEXT NOT NULL,
    color       TEXT NOT NULL
);

CREATE TABLE thread_tab (
    thread_id   TEXT NOT NULL REFERENCES thread (id) ON DELETE CASCADE,
    tab_id      INTEGER NOT NULL,
    url         TEXT NOT NULL,
    title       TEXT NOT NULL,
    source      TEXT NOT NULL CHECK (source IN ('opened', 'shared')),
    grouped     INTEGER NOT NULL DEFAULT 0,
    rank        INTEGER NOT NULL,
    PRIMARY KEY (thread_id, tab_id)
);

CREATE INDEX thread_tab_by_tab ON thread_tab (tab_id);
