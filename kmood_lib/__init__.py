"""k-mood: a self-hosted mood journal. Everything the server and the worker share."""

__version__ = "0.1.0"
