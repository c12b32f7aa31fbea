-- Per local day aggregates for the stats, kept by triggers inside the same transaction as the
-- write that changes them, so they can never disagree with the entries. The stats then read one
-- row per logged day (10 years: ~3 650) instead of grouping every entry (~11 000), and activity
-- impact reads one row per (activity, day) without joining the entries.
--
-- entry_days: one row per (user, local day) with entries; `day` is the date's proleptic
-- Gregorian ordinal (Python's date.toordinal(), 0001-01-01 = 1), for streak and weekday
-- arithmetic; n1..n5 count the entries of each mood level. A day whose last entry goes is
-- deleted, so the table holds exactly the logged days.
CREATE TABLE entry_days (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    local_date TEXT NOT NULL,
    day INTEGER NOT NULL,
    n INTEGER NOT NULL,
    mood_sum INTEGER NOT NULL,
    n1 INTEGER NOT NULL,
    n2 INTEGER NOT NULL,
    n3 INTEGER NOT NULL,
    n4 INTEGER NOT NULL,
    n5 INTEGER NOT NULL,
    PRIMARY KEY (user_id, local_date)
) WITHOUT ROWID;

-- activity_days: one row per (user, activity, local day) on which entries carry the activity.
CREATE TABLE activity_days (
    user_id INTEGER NOT NULL,
    activity_id INTEGER NOT NULL REFERENCES activities (id) ON DELETE CASCADE,
    local_date TEXT NOT NULL,
    n INTEGER NOT NULL,
    mood_sum INTEGER NOT NULL,
    PRIMARY KEY (user_id, activity_id, local_date)
) WITHOUT ROWID;

INSERT INTO entry_days (user_id, local_date, day, n, mood_sum, n1, n2, n3, n4, n5)
SELECT user_id, local_date, CAST(julianday(local_date) - 1721424.5 AS INTEGER), count(*),
       sum(mood), sum(mood = 1), sum(mood = 2), sum(mood = 3), sum(mood = 4), sum(mood = 5)
FROM entries GROUP BY user_id, local_date;

INSERT INTO activity_days (user_id, activity_id, local_date, n, mood_sum)
SELECT e.user_id, ea.activity_id, e.local_date, count(*), sum(e.mood)
FROM entry_activities ea JOIN entries e ON e.id = ea.entry_id
GROUP BY e.user_id, ea.activity_id, e.local_date;

-- An entry counts on its day from its insert to its delete, and moves when its user, day or
-- mood changes. Its activities are counted by the entry_activities triggers below while the
-- entry exists; when the entry itself goes, its links are uncounted here, BEFORE the delete
-- (the links' own delete, a cascade, runs after the entry is gone and then does nothing).
CREATE TRIGGER entry_days_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entry_days (user_id, local_date, day, n, mood_sum, n1, n2, n3, n4, n5)
    VALUES (new.user_id, new.local_date, CAST(julianday(new.local_date) - 1721424.5 AS INTEGER),
            1, new.mood, new.mood = 1, new.mood = 2, new.mood = 3, new.mood = 4, new.mood = 5)
    ON CONFLICT (user_id, local_date) DO UPDATE SET
        n = n + 1, mood_sum = mood_sum + excluded.mood_sum, n1 = n1 + excluded.n1,
        n2 = n2 + excluded.n2, n3 = n3 + excluded.n3, n4 = n4 + excluded.n4,
        n5 = n5 + excluded.n5;
END;

CREATE TRIGGER entry_days_delete AFTER DELETE ON entries BEGIN
    UPDATE entry_days SET n = n - 1, mood_sum = mood_sum - old.mood, n1 = n1 - (old.mood = 1),
        n2 = n2 - (old.mood = 2), n3 = n3 - (old.mood = 3), n4 = n4 - (old.mood = 4),
        n5 = n5 - (old.mood = 5)
    WHERE user_id = old.user_id AND local_date = old.local_date;
    DELETE FROM entry_days WHERE user_id = old.user_id AND local_date = old.local_date AND n = 0;
END;

CREATE TRIGGER activity_days_entry_delete BEFORE DELETE ON entries BEGIN
    UPDATE activity_days SET n = n - 1, mood_sum = mood_sum - old.mood
    WHERE user_id = old.user_id AND local_date = old.local_date
      AND activity_id IN (SELECT activity_id FROM entry_activities WHERE entry_id = old.id);
    DELETE FROM activity_days WHERE user_id = old.user_id AND local_date = old.local_date
      AND n = 0
      AND activity_id IN (SELECT activity_id FROM entry_activities WHERE entry_id = old.id);
END;

CREATE TRIGGER entry_days_update AFTER UPDATE OF user_id, local_date, mood ON entries
WHEN old.user_id IS NOT new.user_id OR old.local_date IS NOT new.local_date
  OR old.mood IS NOT new.mood
BEGIN
    UPDATE entry_days SET n = n - 1, mood_sum = mood_sum - old.mood, n1 = n1 - (old.mood = 1),
        n2 = n2 - (old.mood = 2), n3 = n3 - (old.mood = 3), n4 = n4 - (old.mood = 4),
        n5 = n5 - (old.mood = 5)
    WHERE user_id = old.user_id AND local_date = old.local_date;
    DELETE FROM entry_days WHERE user_id = old.user_id AND local_date = old.local_date AND n = 0;
    INSERT INTO entry_days (user_id, local_date, day, n, mood_sum, n1, n2, n3, n4, n5)
    VALUES (new.user_id, new.local_date, CAST(julianday(new.local_date) - 1721424.5 AS INTEGER),
            1, new.mood, new.mood = 1, new.mood = 2, new.mood = 3, new.mood = 4, new.mood = 5)
    ON CONFLICT (user_id, local_date) DO UPDATE SET
        n = n + 1, mood_sum = mood_sum + excluded.mood_sum, n1 = n1 + excluded.n1,
        n2 = n2 + excluded.n2, n3 = n3 + excluded.n3, n4 = n4 + excluded.n4,
        n5 = n5 + excluded.n5;
    UPDATE activity_days SET n = n - 1, mood_sum = mood_sum - old.mood
    WHERE user_id = old.user_id AND local_date = old.local_date
      AND activity_id IN (SELECT activity_id FROM entry_activities WHERE entry_id = old.id);
    DELETE FROM activity_days WHERE user_id = old.user_id AND local_date = old.local_date
      AND n = 0
      AND activity_id IN (SELECT activity_id FROM entry_activities WHERE entry_id = old.id);
    INSERT INTO activity_days (user_id, activity_id, local_date, n, mood_sum)
    SELECT new.user_id, activity_id, new.local_date, 1, new.mood
    FROM entry_activities WHERE entry_id = new.id
    ON CONFLICT (user_id, activity_id, local_date) DO UPDATE SET
        n = n + 1, mood_sum = mood_sum + excluded.mood_sum;
END;

CREATE TRIGGER activity_days_link_insert AFTER INSERT ON entry_activities BEGIN
    INSERT INTO activity_days (user_id, activity_id, local_date, n, mood_sum)
    SELECT user_id, new.activity_id, local_date, 1, mood FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id, activity_id, local_date) DO UPDATE SET
        n = n + 1, mood_sum = mood_sum + excluded.mood_sum;
END;

CREATE TRIGGER activity_days_link_delete AFTER DELETE ON entry_activities BEGIN
    UPDATE activity_days SET n = n - 1,
        mood_sum = mood_sum - (SELECT mood FROM entries WHERE id = old.entry_id)
    WHERE (user_id, activity_id, local_date) =
          (SELECT user_id, old.activity_id, local_date FROM entries WHERE id = old.entry_id);
    DELETE FROM activity_days WHERE n = 0 AND (user_id, activity_id, local_date) =
          (SELECT user_id, old.activity_id, local_date FROM entries WHERE id = old.entry_id);
END;

CREATE TRIGGER activity_days_link_update AFTER UPDATE OF entry_id, activity_id
ON entry_activities BEGIN
    UPDATE activity_days SET n = n - 1,
        mood_sum = mood_sum - (SELECT mood FROM entries WHERE id = old.entry_id)
    WHERE (user_id, activity_id, local_date) =
          (SELECT user_id, old.activity_id, local_date FROM entries WHERE id = old.entry_id);
    DELETE FROM activity_days WHERE n = 0 AND (user_id, activity_id, local_date) =
          (SELECT user_id, old.activity_id, local_date FROM entries WHERE id = old.entry_id);
    INSERT INTO activity_days (user_id, activity_id, local_date, n, mood_sum)
    SELECT user_id, new.activity_id, local_date, 1, mood FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id, activity_id, local_date) DO UPDATE SET
        n = n + 1, mood_sum = mood_sum + excluded.mood_sum;
END;
