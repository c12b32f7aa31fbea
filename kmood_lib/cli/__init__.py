"""The command-line faces of kmood.py and kmood_worker.py: serve, users, portability, queue,
doctor, and the runner that maps their errors to exit codes."""
