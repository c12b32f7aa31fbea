"""The journal: saving and reading entries, their input and JSON, vocabularies, per-day
counts and the stats built on them, the now-playing lookup."""
