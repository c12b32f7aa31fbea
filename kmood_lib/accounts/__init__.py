"""Accounts: users, sessions and API tokens, password hashing, the login throttle."""
