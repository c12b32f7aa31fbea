"""The lossy job queue: jobs and their kinds, the prompt enqueue, upstream slots and budgets,
worker heartbeats, the optional NATS relay."""
