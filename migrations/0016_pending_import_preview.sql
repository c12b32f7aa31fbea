-- An upload is read once, when it arrives: its dry-run report is kept beside it and the report
-- page shows that, instead of reading the whole file again on every visit. Uploads still
-- waiting from before this have no report kept: they are dropped (upload the file again).
DELETE FROM pending_imports WHERE report IS NULL;
ALTER TABLE pending_imports ADD COLUMN preview TEXT;
