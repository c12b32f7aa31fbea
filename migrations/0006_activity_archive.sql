-- An activity can be archived: hidden from the log form, kept on every entry that has it.
ALTER TABLE activities ADD COLUMN archived_at INTEGER;
