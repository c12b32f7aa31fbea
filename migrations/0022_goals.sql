-- Goals: "walk 3 times a week", "call mum once a month". Progress is never stored: it is
-- counted from the journal (days with the goal's activity) or from check-ins (a goal without
-- an activity is checked off by hand, once a day at most), so it cannot drift.
CREATE TABLE goals (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    -- NULL: checked off by hand; an activity deleted later turns the goal into such a one
    activity_id INTEGER REFERENCES activities (id) ON DELETE SET NULL,
    period TEXT NOT NULL CHECK (period IN ('week', 'month')),
    target INTEGER NOT NULL CHECK (target BETWEEN 1 AND 31),
    start_date TEXT NOT NULL,
    archived_at INTEGER,
    created_at INTEGER NOT NULL,
    UNIQUE (user_id, name_key)
);

CREATE INDEX goals_activity ON goals (activity_id) WHERE activity_id IS NOT NULL;

CREATE TABLE goal_checkins (
    goal_id INTEGER NOT NULL REFERENCES goals (id) ON DELETE CASCADE,
    local_date TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (goal_id, local_date)
) WITHOUT ROWID;
