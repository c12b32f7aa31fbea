"""Daylio's exports read exactly, into an import plan that `importer.py` applies atomically:
`csv_export` (every CSV header generation) and `backup` (the `.daylio` ZIP), with what they share —
`moods` (names to levels), `notes` (HTML to text), `dates` (localised days, 12/24-hour times) and
`plan` (rows, problems, the format error). Nothing here touches the database.
"""
