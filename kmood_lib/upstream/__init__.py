"""One small module per outside API, over urllib/http.client with explicit deadlines.

No retries inside: retrying belongs to the job queue.
"""
