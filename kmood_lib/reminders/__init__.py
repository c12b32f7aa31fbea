"""Reminders: when each one next fires (schedule) and sending it (delivery, a job kind)."""
