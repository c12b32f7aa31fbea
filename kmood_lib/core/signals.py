"""A stop flag that a signal handler may set, and that a waiting loop wakes on."""

from __future__ import annotations

import contextlib
import os
import select


class StopSignal:
    """A stop flag that a signal handler may set: `threading.Event.set()` takes the event's
    lock, and a handler that runs while the main thread is inside `Event.wait()` already
    holds it deadlocks the worker forever. Setting this takes no lock: a flag plus one byte
    down a pipe that `wait()` selects on."""

    def __init__(self):
        self._flag = False
        self._poked = False
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        os.set_blocking(self._read, False)
        self._poll = select.poll()
        self._poll.register(self._read, select.POLLIN)

    def is_set(self) -> bool:
        return self._flag

    def set(self) -> None:
        self._flag = True
        with contextlib.suppress(BlockingIOError):  # a full pipe already wakes the waiter
            os.write(self._write, b"x")

    def poke(self) -> None:
        """Wake a waiter without asking it to stop (the NATS relay's wake-up; any thread)."""
        self._poked = True
        with contextlib.suppress(BlockingIOError):
            os.write(self._write, b"p")

    def take_poke(self) -> bool:
        """True once after a poke: the waiter should look for work now."""
        poked, self._poked = self._poked, False
        return poked

    def wait(self, timeout: float | None = None) -> bool:
        if not self._flag:
            if self._poll.poll(None if timeout is None else max(0, int(timeout * 1000))) \
                    and not self._flag:
                with contextlib.suppress(BlockingIOError):
                    os.read(self._read, 4096)  # drain pokes; a set flag keeps its byte
        return self._flag

    def close(self) -> None:
        os.close(self._read)
        os.close(self._write)
