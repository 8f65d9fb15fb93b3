-- Schema 3: a Turn's items by index. The run loop reads only the running Turn's items at
-- each step (unsettled calls, this Turn's messages, notices), so a step costs the same on
-- a 10,000-item thread as on a new one.

CREATE INDEX item_by_turn ON item (turn_id, ord);
