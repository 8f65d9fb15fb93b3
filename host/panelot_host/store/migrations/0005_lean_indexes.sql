-- Schema 5: indexes for the queries the engine makes, and no others. Every index is
-- written inside each step's transaction, and each page a commit dirties is written to
-- the WAL and synced: parent and batch links are walked in memory (never queried), and
-- a run's state changes at every step while only start-up scans runs by state.

DROP INDEX item_by_parent;
DROP INDEX item_by_batch;
DROP INDEX run_by_state;
DROP INDEX run_by_thread;
CREATE INDEX run_by_turn ON run (turn_id);
