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
from collections.abc import Iterator

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


class Document:
    """The top-level object of `data`: `values` holds every member parsed except `streamed`,
    which `items()` walks. Raises `error` (a DaylioFormatError) for what is not such a file."""

    def __init__(self, data: bytes | bytearray | memoryview, what: str, streamed: str,
                 error: type[DaylioFormatError] = DaylioFormatError):
        self.data, self.what, self.streamed, self.error = data, what, streamed, error
        self.values: dict = {}
        self._span: tuple[int, int] | None = None
        start = _SPACE.match(data, len(_BOM) if data[:3] == _BOM else 0).end()
        if data[start:start + 1] != b"{":
            self._whole(start)  # says what the file holds instead
        position = self._members(start)
        if _SPACE.match(data, position).end() != len(data):
            raise error(f"{what} does not hold valid JSON (extra data after the object)")

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
            stop = self._value_end(position, end)
            yield index, self._parse(position, stop)
            index += 1
            position = _SPACE.match(self.data, stop).end()
            mark = self.data[position:position + 1]
            if mark == b"]":
                return
            if mark != b",":
                raise self.error(f"{self.what} does not hold valid JSON (item {index} of"
                                 f" {self.streamed} is not followed by , or ])")
            position = _SPACE.match(self.data, position + 1).end()

    def _whole(self, start: int) -> None:
        self._parse(start, len(self.data))
        raise self.error(f"{self.what} holds JSON that is not an object")

    def _members(self, start: int) -> int:
        data, end = self.data, len(self.data)
        position = _SPACE.match(data, start + 1).end()
        if data[position:position + 1] == b"}":
            return position + 1
        while True:
            key_end = self._value_end(position, end)
            key = self._parse(position, key_end)
            if not isinstance(key, str):
                raise self.error(f"{self.what} does not hold valid JSON (a key is not a string)")
            position = _SPACE.match(data, key_end).end()
            if data[position:position + 1] != b":":
                raise self.error(f"{self.what} does not hold valid JSON (no : after {key!r})")
            position = _SPACE.match(data, position + 1).end()
            stop = self._value_end(position, end)
            if key == self.streamed:
                self._span = (position, stop)
                self.values.pop(key, None)
            else:
                self.values[key] = self._parse(position, stop)
            position = _SPACE.match(data, stop).end()
            mark = data[position:position + 1]
            if mark == b"}":
                return position + 1
            if mark != b",":
                raise self.error(f"{self.what} does not hold valid JSON (the value of {key!r}"
                                 f" is not followed by , or }})")
            position = _SPACE.match(data, position + 1).end()

    def _value_end(self, position: int, end: int) -> int:
        """Where the value starting at `position` ends (brackets balanced, strings skipped);
        a scalar ends at the next , ] } or space."""
        data = self.data
        first = data[position:position + 1]
        if first == b'"':
            match = _TOKEN.match(data, position)
            if match is None:
                raise self.error(f"{self.what} does not hold valid JSON (a string never ends)")
            return match.end()
        if first not in (b"[", b"{"):
            match = _SCALAR.match(data, position)
            if match.end() == position:
                raise self.error(f"{self.what} does not hold valid JSON (a value is missing)")
            return match.end()
        depth = 0
        for match in _TOKEN.finditer(data, position, end):
            token = data[match.start():match.start() + 1]
            if match.end() - match.start() > 1 and token != b'"':  # a whole shallow value
                if depth == 0:
                    return match.end()
            elif token in (b"[", b"{"):
                depth += 1
                if depth > MAX_DEPTH:
                    raise self.error(f"{self.what} holds JSON nested too deeply to be an export")
            elif token in (b"]", b"}"):
                depth -= 1
                if depth == 0:
                    return match.end()
        raise self.error(f"{self.what} does not hold valid JSON (it ends inside a value)")

    def _parse(self, start: int, stop: int):
        try:
            return json.loads(bytes(self.data[start:stop]).decode("utf-8"))
        except UnicodeDecodeError:
            raise self.error(f"{self.what} does not hold UTF-8 text") from None
        except ValueError as exc:
            raise self.error(f"{self.what} does not hold valid JSON ({exc})") from None
        except RecursionError:
            raise self.error(f"{self.what} holds JSON nested too deeply to be an export") \
                from None
