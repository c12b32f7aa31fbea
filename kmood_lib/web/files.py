"""Stored files over HTTP (photos, voice memos, covers), by RFC 9110: validators (§13.1), byte
ranges (§14) and a body read from its reader as it is sent. A file behind a login is kept by
the browser only to be asked for again (`private, no-cache`): the owner gets a 304 for the
price of a lookup, and a logged-out person or another user gets the login page or a 404,
never the copy in the cache."""

from __future__ import annotations

import itertools
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass

import bottle

from kmood_lib.core.blobs import BlobReader, BytesReader
from kmood_lib.web.http import header

PRIVATE = "private, no-cache"
MAX_RANGES = 16  # more in one request is ignored (a 200 with the whole file), as §14.2 allows
_ENTITY_TAG = re.compile(r'(?:W/)?("[^"]*")')
_DIGITS = re.compile(r"[0-9]+")
_BEYOND = 2**63  # a position past any stored value: no need to read a longer number exactly


@dataclass(frozen=True)
class Asked:
    """What a request's headers ask of a stored file, read before the file is opened (a
    header that is not UTF-8 is a 400 then, with nothing to close)."""

    if_none_match: str | None
    range: str | None
    if_range: str | None
    head: bool

    @classmethod
    def of(cls, request: bottle.BaseRequest) -> Asked:
        return cls(header(request, "If-None-Match"), header(request, "Range"),
                   header(request, "If-Range"), request.method == "HEAD")


def none_match(value: str | None, etag: str) -> bool:
    """Whether If-None-Match names the file's current ETag (weak comparison, `*` included):
    the client's copy is current, a 304 (§13.1.2)."""
    if value is None:
        return False
    return value.strip() == "*" or etag.removeprefix("W/") in _ENTITY_TAG.findall(value)


def if_range_holds(value: str | None, etag: str) -> bool:
    """Whether the ranges may be sent (§13.1.5): no If-Range, or one naming the current ETag
    by strong comparison. A date never holds: these files are sent without Last-Modified."""
    return value is None or (value.strip() == etag and not etag.startswith("W/"))


def _position(digits: str) -> int:
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 18 else _BEYOND


def requested_ranges(value: str, size: int) -> list[tuple[int, int]] | None:
    """The satisfiable ranges of a Range header as (start, end excluded), in the order asked;
    [] when none is satisfiable (a 416); None when the header is to be ignored (a 200 with the
    whole file): another unit, a ranges-specifier that is not valid (§14.1.1), more than
    MAX_RANGES ranges or ranges that overlap (§14.2)."""
    unit, equals, range_set = value.partition("=")
    if not equals or unit.lower() != "bytes":
        return None
    specs = [spec.strip(" \t") for spec in range_set.split(",")]
    specs = [spec for spec in specs if spec]  # empty list elements are allowed (§5.6.1.2)
    if not specs or len(specs) > MAX_RANGES:
        return None
    ranges = []
    for spec in specs:
        first, dash, last = spec.partition("-")
        if not dash or not (first or last) or any(
                part and not _DIGITS.fullmatch(part) for part in (first, last)):
            return None
        if not first:  # a suffix: the last `last` bytes
            length = _position(last)
            if length > 0 and size > 0:
                ranges.append((max(0, size - length), size))
            continue
        start = _position(first)
        end = size - 1 if not last else _position(last)
        if last and end < start:
            return None
        if start < size:
            ranges.append((start, min(end, size - 1) + 1))
    in_order = sorted(ranges)
    if any(later[0] < earlier[1] for earlier, later in itertools.pairwise(in_order)):
        return None
    return ranges


class Body:
    """A response body read from `reader` as it is sent: each part a prefix and a range of
    the file, then a tail. The server closes it when it is sent or the client has gone;
    closing it closes the reader (its connection and read transaction)."""

    def __init__(self, reader: BlobReader | BytesReader, parts: list[tuple[bytes, int, int]],
                 tail: bytes = b""):
        self._reader, self._parts, self._tail = reader, parts, tail

    def __iter__(self) -> Iterator[bytes]:
        try:
            for prefix, start, end in self._parts:
                if prefix:
                    yield prefix
                yield from self._reader.chunks(start, end)
            if self._tail:
                yield self._tail
        finally:  # also when nobody calls close(): Bottle does not after a failed first chunk
            self.close()

    def close(self) -> None:
        self._reader.close()


def _multipart(ranges: list[tuple[int, int]], size: int, content_type: str
               ) -> tuple[list[tuple[bytes, int, int]], bytes, str]:
    """The parts of a multipart/byteranges body (§14.6), their tail and the boundary."""
    boundary = secrets.token_hex(16)
    parts = [((b"\r\n" if i else b"") + (
        f"--{boundary}\r\nContent-Type: {content_type}\r\n"
        f"Content-Range: bytes {start}-{end - 1}/{size}\r\n\r\n").encode("ascii"), start, end)
        for i, (start, end) in enumerate(ranges)]
    return parts, f"\r\n--{boundary}--\r\n".encode("ascii"), boundary


def not_modified(etag: str) -> bottle.HTTPResponse:
    """The 304 to a client whose copy is current, with what a 200 would say of keeping it."""
    return bottle.HTTPResponse(status=304, headers={"Cache-Control": PRIVATE, "ETag": etag,
                                                    "Accept-Ranges": "bytes"})


def answer(asked: Asked, reader: BlobReader | BytesReader, content_type: str, etag: str
           ) -> bottle.HTTPResponse:
    """The answer to a GET or HEAD of a stored file; the reader is closed unless it became
    the body (then the server closes it; Bottle does for a HEAD, sending no body).

    1. If-None-Match names the ETag: 304;
    2. no Range, a Range to ignore, a HEAD (ranges are defined for GET only) or an If-Range
       that does not hold: 200 with the whole file;
    3. no range satisfiable: 416 with `Content-Range: bytes */size`;
    4. one range: 206 with it; several: 206 multipart/byteranges, in the order asked.
    """
    body = None
    try:
        if none_match(asked.if_none_match, etag):
            return not_modified(etag)
        headers = {"Cache-Control": PRIVATE, "ETag": etag, "Accept-Ranges": "bytes"}
        size, ranges = reader.size, None
        if asked.range is not None and not asked.head and if_range_holds(asked.if_range, etag):
            ranges = requested_ranges(asked.range, size)
        if ranges == []:
            return bottle.HTTPResponse(status=416, headers={
                **headers, "Content-Range": f"bytes */{size}"})
        status, tail = 200, b""
        if ranges is None:
            parts = [(b"", 0, size)]
            headers["Content-Type"] = content_type
        elif len(ranges) == 1:
            status, [(start, end)] = 206, ranges
            parts = [(b"", start, end)]
            headers.update({"Content-Type": content_type,
                            "Content-Range": f"bytes {start}-{end - 1}/{size}"})
        else:
            status = 206
            parts, tail, boundary = _multipart(ranges, size, content_type)
            headers["Content-Type"] = f"multipart/byteranges; boundary={boundary}"
        headers["Content-Length"] = str(
            sum(len(prefix) + end - start for prefix, start, end in parts) + len(tail))
        body = Body(reader, parts, tail)
        return bottle.HTTPResponse(body, status, headers)
    finally:
        if body is None:
            reader.close()
