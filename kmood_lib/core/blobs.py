"""Large stored values read a piece at a time: SQLite's incremental blob I/O on a connection of
the reader's own, inside one read transaction, so that a 30 MB voice memo sent in ranges never
sits in memory whole and its row cannot change (or its rowid be reused) while it is read. The
reader outlives the request's pooled connection: a server sends the body after the route has
returned, and closes the reader when it is done or the client has gone."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator

# A piece as large as waitress's outbuf_overflow (1 MiB): waitress keeps smaller pieces sent
# to a fast client in memory, up to its high-water mark per connection (cli.serve), but moves
# a piece this large to its temporary file at once (measured: 8 whole downloads of a 30 MB
# memo at once add ~120 MB in 64 KiB pieces at waitress's default mark, ~32 MB in these).
CHUNK_BYTES = 1024 * 1024
CACHE_KIB = 256  # the reader's page cache: each page of a blob is read once


class BlobReader:
    """One BLOB, `size` bytes, read CHUNK_BYTES at a time; close() ends the read transaction
    and the connection (and may be called more than once)."""

    def __init__(self, conn: sqlite3.Connection, blob: sqlite3.Blob):
        self._conn, self._blob = conn, blob
        self.size = len(blob)

    def chunks(self, start: int, end: int) -> Iterator[bytes]:
        """The bytes from `start` to `end` (excluded), at most CHUNK_BYTES a piece."""
        while start < end:
            self._blob.seek(start)
            piece = self._blob.read(min(CHUNK_BYTES, end - start))
            if not piece:
                raise sqlite3.OperationalError(f"the blob ended at {start} of {self.size} bytes")
            yield piece
            start += len(piece)

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            self._blob.close()
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        finally:
            conn.close()


class BytesReader:
    """A BlobReader's interface over bytes already in memory (a photo, a cover), so that one
    way of answering serves both."""

    def __init__(self, data: bytes):
        self._data = data
        self.size = len(data)

    def chunks(self, start: int, end: int) -> Iterator[bytes]:
        if start < end:
            yield self._data[start:end]  # the whole of it is the same object, not a copy

    def close(self) -> None:
        self._data = b""


def open_blob(connect: Callable[[], sqlite3.Connection], table: str, column: str, lookup: str,
              params: tuple) -> tuple[sqlite3.Row, BlobReader] | None:
    """The row `lookup` finds (its first column the rowid in `table`) and a reader of its
    `column`, both in one read transaction on a new connection; None when there is no row.
    The caller closes the reader."""
    conn, reader = connect(), None
    try:
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        conn.execute("BEGIN")
        row = conn.execute(lookup, params).fetchone()
        if row is None:
            return None
        reader = BlobReader(conn, conn.blobopen(table, column, row[0], readonly=True))
        return row, reader
    finally:
        if reader is None:
            conn.close()  # its read transaction ends with it
