"""The ground floor: configuration, clock, SQLite connections and migrations, text and input
checks, the domain's errors, logging, time zones. Imports nothing else of k-mood."""
