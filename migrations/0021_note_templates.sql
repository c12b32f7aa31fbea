-- Named starting points for an entry's title and note ("Evening: what happened today?"),
-- picked on the log form; Daylio's writing templates are imported into them.
CREATE TABLE note_templates (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    note_title TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    UNIQUE (user_id, name_key)
);
