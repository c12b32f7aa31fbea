"""A journal in and out: Daylio files, k-mood's own JSON, the importer, export and backups."""
