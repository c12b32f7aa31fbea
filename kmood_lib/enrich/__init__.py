"""Enrichment kinds (a sweeper and a handler each): weather, place names, song metadata."""
