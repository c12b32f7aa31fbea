-- Hour-of-day statistics read only (user_id, time_known, local_minute, mood): with this index
-- they never touch the table (10 years of entries: 7.7 ms -> 2.4 ms).
CREATE INDEX entries_user_hour ON entries (user_id, time_known, local_minute, mood);
