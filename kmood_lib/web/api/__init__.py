"""The JSON API under /api (SPEC §6), a module per area; its description is openapi.py."""
