"""The per-address connection limit of the built-in server: how many connections one client
address may hold open.

waitress reads requests asynchronously, so a slow client (a header line every few seconds,
"slowloris") costs a channel, not a thread — but every channel counts against
`connection_limit`, and at that limit waitress stops accepting anyone. k-mood raises the limit
(KMOOD_CONNECTION_LIMIT, polled rather than select()ed, so past 1 024 descriptors) and caps the
connections of one address (KMOOD_CONNECTIONS_PER_ADDRESS): one address cannot fill the door,
and the next connection from it is answered 503 at once and closed. A public deployment puts a
reverse proxy in front (docs/deploying.md, "Reverse proxy and TLS"), which holds the slow
clients itself.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter

from waitress.channel import HTTPChannel

from kmood_lib.core.logs import EveryInterval

log = logging.getLogger(__name__)

REFUSAL = (b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 5\r\n"
           b"Content-Type: text/plain; charset=utf-8\r\nContent-Length: 47\r\n\r\n"
           b"too many open connections from this address.\r\n\r\n")


def per_address_channel(limit: int, base: type[HTTPChannel] = HTTPChannel) -> type:
    """A waitress channel class allowing `limit` open connections per client address."""
    open_by_address: Counter = Counter()
    lock = threading.Lock()
    refusals = EveryInterval()

    class Channel(base):
        _counted = None

        def __init__(self, server, sock, addr, adj, map=None):
            host = addr[0] if isinstance(addr, tuple) and addr else None
            with lock:
                over = host is not None and open_by_address[host] >= limit
                if not over and host is not None:
                    open_by_address[host] += 1
            super().__init__(server, sock, addr, adj, map)
            if over:
                self._refuse(sock, host)
            else:
                self._counted = host

        def _refuse(self, sock, host: str) -> None:
            try:
                sock.send(REFUSAL)  # small enough for any socket buffer; best effort
            except OSError:
                pass
            self.close()
            if refused := refusals.due():
                log.warning("refused %d connection(s) from addresses already holding %d"
                            " (KMOOD_CONNECTIONS_PER_ADDRESS); latest from %s",
                            refused, limit, host)

        def del_channel(self, map=None):  # every way a channel closes ends here
            with lock:
                host, self._counted = self._counted, None
                if host is not None:
                    open_by_address[host] -= 1
                    if open_by_address[host] <= 0:
                        del open_by_address[host]
            super().del_channel(map)

    Channel.open_by_address = open_by_address
    return Channel


def limit_each_address(server, limit: int) -> None:
    """Hold each client address of a waitress server to `limit` open connections (a host name
    with several addresses has one listener each)."""
    channel = per_address_channel(limit)
    listeners = getattr(server, "map", {}).values() if not hasattr(server, "channel_class") \
        else [server]
    for listener in listeners:
        if hasattr(listener, "channel_class"):
            listener.channel_class = channel
