"""A JSON document read one piece at a time: the top-level object's values, each parsed on its
own, except the one big list (a backup's `dayEntries`, an export's `entries`), whose items are
handed out one by one. The bytes stay as they came; memory is the file plus one item, whatever
the document's shape (a whole-document `json.loads` takes ten times the file, and more for a
file of tiny containers).

The scanner only finds where each value ends: a regular expression steps over whole strings
(so brackets inside them do not count) and counts brackets; `json.loads` then parses each
piece, and so decides what is valid.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

from kmood_lib.core.i18n import N_, Phrase
from kmood_lib.portability.daylio.plan import DaylioFormatError

# A whole string; a whole object or list nested at most two deep (one match for a typical
# item, found in C); or one bracket of anything deeper. What lies between is skipped.
_STRING = rb'"(?:[^"\\]++|\\.)*+"'
_FLAT = rb'(?:\[(?:[^"\[\]{}]++|' + _STRING + rb')*+\]|\{(?:[^"\[\]{}]++|' + _STRING + rb')*+\})'
_SHALLOW = (rb'(?:\[(?:[^"\[\]{}]++|' + _STRING + b'|' + _FLAT + rb')*+\]|\{(?:[^"\[\]{}]++|'
            + _STRING + b'|' + _FLAT + rb')*+\})')
_TOKEN = re.compile(_STRING + b'|' + _SHALLOW + rb'|[\[\]{}]')
_SPACE = re.compile(rb"[ \t\r\n]*+")
_SCALAR = re.compile(rb"[^,\]} \t\r\n]*+")
_BOM = b"\xef\xbb\xbf"
MAX_DEPTH = 200  # deeper than any export: refused before json.loads could recurse
MAX_PIECE_BYTES = 1024 * 1024  # one entry, or any other member (moods, tags, reminders...)
TOO_DEEP = N_("{what} holds JSON nested too deeply to be an export")


class Document:
    """The top-level object of `data`: `values` holds every member parsed except `streamed`,
    which `items()` walks. Raises `error` (a DaylioFormatError) for what is not such a file."""

    def __init__(self, data: bytes | bytearray | memoryview, what: str, streamed: str,
                 error: type[DaylioFormatError] = DaylioFormatError,
                 check_items: Callable[[int], None] | None = None):
        """`check_items(n)` is called as the streamed list is found to hold n items (it may
        refuse, before they are all counted); every other member, and every item, may hold
        at most MAX_PIECE_BYTES, so no piece parsed costs more than a few megabytes."""
        self.data, self.what, self.streamed, self.error = data, what, streamed, error
        self.check_items = check_items
        self.values: dict = {}
        self._span: tuple[int, int] | None = None
        start = _SPACE.match(data, len(_BOM) if data[:3] == _BOM else 0).end()
        if data[start:start + 1] != b"{":
            self._whole(start)  # says what the file holds instead
        position = self._members(start)
        if _SPACE.match(data, position).end() != len(data):
            raise error(Phrase("{what} does not hold valid JSON (extra data after the object)",
                               what=what))

    def has_list(self) -> bool:
        return self._span is not None and self.data[self._span[0]:self._span[0] + 1] == b"["

    def items(self) -> Iterator[tuple[int, object]]:
        """(position, item) for each item of the streamed list; an item that is not valid JSON
        raises `error`, as a whole-file parse would have."""
        if not self.has_list():
            return
        start, end = self._span
        position = _SPACE.match(self.data, start + 1).end()
        index = 0
        if self.data[position:position + 1] == b"]":
            return
        while True:
            stop = self._value_end(position, end, MAX_PIECE_BYTES,
                                   Phrase("item {n} of {list}", n=index, list=self.streamed))
            yield index, self._parse(position, stop)
            index += 1
            position = _SPACE.match(self.data, stop).end()
            mark = self.data[position:position + 1]
            if mark == b"]":
                return
            if mark != b",":
                raise self._refused(N_("{what} does not hold valid JSON (item {n} of {list} is not"
                                    " followed by , or ])"), n=index, list=self.streamed)
            position = _SPACE.match(self.data, position + 1).end()

    def _whole(self, start: int) -> None:
        """Why a document that does not start with { is refused, without parsing it."""
        first = bytes(self.data[start:start + 4])
        if not first:
            raise self._refused(N_("{what} does not hold valid JSON (it is empty)"))
        try:
            first.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start < len(first) - 3 or exc.reason != "unexpected end of data":
                raise self._refused(N_("{what} does not hold UTF-8 text")) from None
        if first[:1] in b'["-0123456789tfn':
            raise self._refused(N_("{what} holds JSON that is not an object"))
        raise self._refused(N_("{what} does not hold valid JSON (it does not start with a value)"))

    def _members(self, start: int) -> int:
        data, end = self.data, len(self.data)
        position = _SPACE.match(data, start + 1).end()
        if data[position:position + 1] == b"}":
            return position + 1
        while True:
            key_end = self._value_end(position, end, MAX_PIECE_BYTES, Phrase("a key"))
            key = self._parse(position, key_end)
            if not isinstance(key, str):
                raise self._refused(N_("{what} does not hold valid JSON (a key is not a string)"))
            position = _SPACE.match(data, key_end).end()
            if data[position:position + 1] != b":":
                raise self._refused(N_("{what} does not hold valid JSON (no : after {key})"),
                                    key=repr(key))
            position = _SPACE.match(data, position + 1).end()
            if key == self.streamed:
                if self._span is not None:
                    raise self._refused(N_("{what} names {key} twice"), key=repr(key))
                stop = self._value_end(position, end, items=True)
                self._span = (position, stop)
            else:
                stop = self._value_end(position, end, MAX_PIECE_BYTES, repr(key))
                self.values[key] = self._parse(position, stop)
            position = _SPACE.match(data, stop).end()
            mark = data[position:position + 1]
            if mark == b"}":
                return position + 1
            if mark != b",":
                raise self._refused(N_("{what} does not hold valid JSON (the value of {key} is not"
                                    " followed by , or {brace})"), key=repr(key), brace="}")
            position = _SPACE.match(data, position + 1).end()

    def _value_end(self, position: int, end: int, cap: int | None = None, name: str = "",
                   items: bool = False) -> int:
        """Where the value starting at `position` ends (brackets balanced, strings skipped);
        a scalar ends at the next , ] } or space. Past `cap` bytes it is refused as `name`;
        with `items`, the list's items are counted for check_items as the scan goes."""
        data = self.data
        first = data[position:position + 1]
        if first == b'"':
            match = _TOKEN.match(data, position)
            if match is None:
                raise self._refused(N_("{what} does not hold valid JSON (a string never ends)"))
            return self._capped(position, match.end(), cap, name)
        if first not in (b"[", b"{"):
            match = _SCALAR.match(data, position)
            if match.end() == position:
                raise self._refused(N_("{what} does not hold valid JSON (a value is missing)"))
            return self._capped(position, match.end(), cap, name)
        depth = counted = 0
        check = self.check_items if items else None
        scan_from = position
        if items:  # step inside the list itself, so that its items are met one by one
            depth, scan_from = 1, position + 1
        for match in _TOKEN.finditer(data, scan_from, end):
            start = match.start()
            if cap is not None and start - position > cap:
                self._capped(position, start, cap, name)
            token = data[start:start + 1]
            if depth == 1 and check is not None:  # an item of the streamed list begins
                counted += 1
                if counted % 1024 == 0:
                    check(counted)
            if match.end() - start > 1 and token != b'"':  # a whole shallow value
                if depth == 0:
                    return self._capped(position, match.end(), cap, name)
            elif token in (b"[", b"{"):
                depth += 1
                if depth > MAX_DEPTH:
                    raise self._refused(TOO_DEEP)
            elif token in (b"]", b"}"):
                depth -= 1
                if depth == 0:
                    return self._capped(position, match.end(), cap, name)
        raise self._refused(N_("{what} does not hold valid JSON (it ends inside a value)"))

    def _capped(self, start: int, stop: int, cap: int | None, name: str) -> int:
        if cap is not None and stop - start > cap:
            raise self._refused(N_("{what}: {name} holds more than {n} KiB, more than an export's"
                                " ever does"), name=name, n=cap // 1024)
        return stop

    def _refused(self, message: str, **values) -> Exception:
        """The error that refuses this document, saying why (`{what}` is the document)."""
        return self.error(Phrase(message, what=self.what, **values))

    def _parse(self, start: int, stop: int):
        try:
            return json.loads(bytes(self.data[start:stop]).decode("utf-8"))
        except UnicodeDecodeError:
            raise self._refused(N_("{what} does not hold UTF-8 text")) from None
        except ValueError as exc:
            raise self._refused(N_("{what} does not hold valid JSON ({reason})"),
                                reason=str(exc)) from None
        except RecursionError:
            raise self._refused(TOO_DEEP) from None
