-- An optional icon per activity (issue #38): one emoji, checked by the domain (one grapheme
-- cluster, emoji only); NULL when it has none. The length bound is a backstop only.
ALTER TABLE activities ADD COLUMN icon TEXT CHECK (icon IS NULL OR length(icon) <= 16);

-- The starter set of activities is offered on a new person's log page until it is answered:
-- taken, skipped, or made moot by the person's first activity (the trigger below, whichever
-- way it is made: the log form, the API, an import). People who already log are not new.
ALTER TABLE users ADD COLUMN starter_answered_at INTEGER;

UPDATE users SET starter_answered_at = updated_at
WHERE EXISTS (SELECT 1 FROM activities a WHERE a.user_id = users.id)
   OR EXISTS (SELECT 1 FROM entries e WHERE e.user_id = users.id);

CREATE TRIGGER activities_answer_starter AFTER INSERT ON activities BEGIN
    UPDATE users SET starter_answered_at = new.created_at
    WHERE id = new.user_id AND starter_answered_at IS NULL;
END;
