"""The optional NATS relay: fan-out and wake-ups, never the source of truth.

With KMOOD_NATS_URL set, the server publishes `<prefix>.entry.saved` (ids only) once an entry's
prompt enqueue has committed, and `<prefix>.jobs.wake` after other enqueues; the worker
subscribes to both and starts its next iteration at once instead of at its next change check.
Everything still completes without it (sweeps, PRAGMA data_version): NATS down, absent or
killed costs latency only.

The client (nats-py, an optional requirement) is imported only when the relay is configured.
It runs on a thread of its own with its own event loop, so neither waitress's threads nor the
worker loop become async. Start-up never waits: the first connection is made in the background
and reconnects never give up. Publishing never blocks a save: messages go into a bounded
buffer, and are dropped (and counted) when it is full or NATS is not connected.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

BUFFER = 1000  # messages waiting for the relay thread; past this they are dropped
RECONNECT_WAIT_S = 1.0
CONNECT_TIMEOUT_S = 2
CLOSE_TIMEOUT_S = 3.0


class NullRelay:
    """No NATS configured: every call does nothing (and nothing imports the client)."""

    enabled = False

    def start(self, name: str, on_message: Callable[[], None] | None = None) -> None:
        pass

    def entry_saved(self, user_id: int, entry_id: int, kinds: list[str]) -> None:
        pass

    def wake(self) -> None:
        pass

    def stats(self) -> dict:
        return {}

    def close(self) -> None:
        pass


class NatsRelay:
    """The relay over nats-py on a background thread (see the module docstring)."""

    enabled = True

    def __init__(self, servers: list[str], prefix: str, buffer: int = BUFFER):
        self.servers = servers
        self.prefix = prefix
        self.saved_subject = f"{prefix}.entry.saved"
        self.wake_subject = f"{prefix}.jobs.wake"
        self.buffer = buffer
        self.connected = False
        self.published = self.dropped = self.received = self.reconnects = 0
        self._pending: collections.deque[tuple[str, bytes]] = collections.deque()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready: asyncio.Event | None = None  # set when there is something to send
        self._thread: threading.Thread | None = None
        self._task: asyncio.Task | None = None
        self._stopping = False
        self._client = None

    # --- any thread ------------------------------------------------------------------------

    def start(self, name: str, on_message: Callable[[], None] | None = None) -> None:
        """Run the client on its own thread; `on_message` (called on that thread) makes this a
        subscriber of both subjects. Returns at once: the connection is made in the background."""
        started = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            self._ready = asyncio.Event()
            self._task = loop.create_task(self._main(name, on_message))
            started.set()
            try:
                loop.run_until_complete(self._task)
            except asyncio.CancelledError:
                pass
            except Exception:
                log.exception("NATS relay stopped by an error; k-mood goes on without it")
            finally:
                self.connected = False
                loop.close()

        self._thread = threading.Thread(target=run, name="nats-relay", daemon=True)
        self._thread.start()
        started.wait()

    def entry_saved(self, user_id: int, entry_id: int, kinds: list[str]) -> None:
        """Ids and job kinds only: a note never leaves the database through the relay."""
        self._publish(self.saved_subject, json.dumps(
            {"user_id": user_id, "entry_id": entry_id, "kinds": kinds},
            separators=(",", ":")).encode())

    def wake(self) -> None:
        self._publish(self.wake_subject, b"{}")

    def _publish(self, subject: str, data: bytes) -> None:
        """Never blocks, never raises: drop (and count) when not connected or the buffer is full."""
        loop = self._loop
        with self._lock:
            if not self.connected or loop is None or len(self._pending) >= self.buffer:
                self.dropped += 1
                return
            self._pending.append((subject, data))
            first = len(self._pending) == 1
        if first:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._ready.set)

    def stats(self) -> dict:
        return {"connected": self.connected, "published": self.published,
                "dropped": self.dropped, "received": self.received,
                "reconnects": self.reconnects}

    def close(self) -> None:
        """Flush what is buffered if NATS is there (briefly), then stop the thread."""
        self._stopping = True
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        with contextlib.suppress(RuntimeError):  # connected: flush, then stop; else stop now
            loop.call_soon_threadsafe(self._ready.set if self.connected else self._task.cancel)
        thread.join(CLOSE_TIMEOUT_S)
        if thread.is_alive():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._task.cancel)
            thread.join(CLOSE_TIMEOUT_S)

    # --- the relay thread ------------------------------------------------------------------

    async def _main(self, name: str, on_message: Callable[[], None] | None) -> None:
        import nats  # only here: without KMOOD_NATS_URL nothing imports the client

        client = await self._connect(nats, name)
        if client is None:
            return
        self._client = client
        if on_message is not None:
            async def handle(msg) -> None:
                self.received += 1
                on_message()

            for subject in (self.saved_subject, self.wake_subject):
                await client.subscribe(subject, cb=handle)
            await client.flush(timeout=CONNECT_TIMEOUT_S)
        try:
            await self._pump(client)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.close(), CLOSE_TIMEOUT_S)

    async def _connect(self, nats, name: str):
        """Until it works or we stop: nats-py gives up on a first connection that fails, so
        retry here; once connected, its own reconnects are set to never give up."""
        warned = False

        async def disconnected() -> None:
            self.connected = False
            if not self._stopping:
                log.warning("NATS relay disconnected; reconnecting in the background "
                            "(saves and jobs go on without it)")

        async def reconnected() -> None:
            self.connected = True
            self.reconnects += 1
            log.info("NATS relay reconnected")

        async def error(exc) -> None:
            log.debug("NATS relay: %s", exc)

        while not self._stopping:
            try:
                client = await nats.connect(
                    servers=self.servers, name=name, allow_reconnect=True,
                    max_reconnect_attempts=-1, reconnect_time_wait=RECONNECT_WAIT_S,
                    connect_timeout=CONNECT_TIMEOUT_S, disconnected_cb=disconnected,
                    reconnected_cb=reconnected, error_cb=error)
            except Exception as exc:
                (log.debug if warned else log.warning)(
                    "NATS relay cannot reach %s yet (%s); trying again in the background",
                    ",".join(self.servers), exc)
                warned = True
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._ready.wait(), RECONNECT_WAIT_S)
                self._ready.clear()
                continue
            self.connected = True
            log.info("NATS relay connected to %s as %r", client.connected_url.netloc, name)
            return client
        return None

    async def _pump(self, client) -> None:
        """Move buffered messages to the client; its flusher sends them."""
        while True:
            await self._ready.wait()
            self._ready.clear()
            while True:
                with self._lock:
                    if not self._pending:
                        break
                    subject, data = self._pending.popleft()
                try:
                    await client.publish(subject, data)
                    self.published += 1
                except Exception as exc:  # closed or reconnecting: drop, the sweeps cover it
                    self.dropped += 1
                    log.debug("NATS relay dropped a message: %s", exc)
            if self._stopping:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(client.flush(), CLOSE_TIMEOUT_S)
                return


def from_config(config) -> NullRelay | NatsRelay:
    if not config.nats_url:
        return NullRelay()
    return NatsRelay(config.nats_url.split(","), config.nats_subject_prefix)
