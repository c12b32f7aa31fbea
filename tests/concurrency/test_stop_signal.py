"""The worker's stop flag is set from signal handlers, which run on the main thread between
bytecodes — possibly while that thread is inside the flag's own wait()."""

import subprocess

from tests.helpers import PYTHON, ROOT

RACE = """
import random, signal, sys
from kmood_lib.core.signals import StopSignal
for _ in range(2000):
    stop = StopSignal()
    signal.signal(signal.SIGALRM, lambda signum, frame: stop.set())
    signal.setitimer(signal.ITIMER_REAL, random.uniform(0.00001, 0.0005))
    while not stop.wait(0.00002):
        pass
    stop.close()
print("stopped 2000 times")
"""


def test_a_signal_arriving_inside_wait_always_stops_and_never_deadlocks():
    """With threading.Event in its place this hangs within a few hundred rounds: set() takes
    the lock that the interrupted wait() already holds."""
    result = subprocess.run([PYTHON, "-c", RACE], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)  # ~1 s when it works; a deadlock hangs for ever
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "stopped 2000 times"
