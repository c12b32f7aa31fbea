"""The worker: one plain loop over step functions that report whether they found work.

loop.py is the loop (run_once, run_forever); batch.py claims, runs and acknowledges a batch of
jobs, and job.py runs one of them with the context its handler gets; waiting.py waits for
work between iterations that found none; maintenance.py holds the periodic steps; context.py
what the steps of one worker process share.
"""
