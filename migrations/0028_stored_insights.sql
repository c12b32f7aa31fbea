-- The insights of the standard ranges (all time, the last year, the last 90 days) as the
-- worker last computed them (SPEC §11, issue #39), so that a visit shows them at once instead
-- of computing them while the person waits. Derived from the journal: never exported, and
-- recomputed from it whenever it is missing.
-- `version` is the journal version a row was computed from, `settings` the thresholds it
-- cleared (JSON), `date_to` the local day it was computed on (which ends its range) and
-- `fresh_until` the end of that local day (Unix ms). A row whose version, settings or day is
-- not the user's now is still shown, marked as updating, until the worker replaces it: the
-- `insights` job's sweep finds those users.
CREATE TABLE stored_insights (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    range TEXT NOT NULL,
    date_from TEXT NOT NULL,
    date_to TEXT NOT NULL,
    version INTEGER NOT NULL,
    settings TEXT NOT NULL,
    fresh_until INTEGER NOT NULL,
    computed_at INTEGER NOT NULL,
    took_ms INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (user_id, range)
);
