"""A rate limit in memory: token buckets by key (an address, a shared link), bounded in
how many keys it remembers, so whatever arrives it holds at most `max_keys` small entries."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable


class RateLimit:
    """`per_minute` requests a minute for each key, in bursts of up to `per_minute`.

    1. A key's bucket holds up to `per_minute` tokens and fills at `per_minute` a minute.
    2. `take(keys, cost)` takes `cost` from every key's bucket, or from none: the answer is
       0 when it did, else the seconds until every bucket can give it.
    3. A full bucket is the same as no bucket, so the least recently used keys are forgotten
       past `max_keys` (at worst a forgotten key gets a fresh burst: the limit only ever
       errs towards letting a request in, never towards refusing one twice).
    """

    def __init__(self, per_minute: float, clock: Callable[[], float], max_keys: int = 10_000):
        self.capacity, self.rate = float(per_minute), per_minute / 60.0
        self.clock, self.max_keys = clock, max_keys
        self.buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()
        self.lock = threading.Lock()

    def _level(self, key: Hashable, now: float) -> float:
        tokens, at = self.buckets.get(key, (self.capacity, now))
        return min(self.capacity, tokens + (now - at) * self.rate)

    def take(self, keys: list[Hashable], cost: float = 1.0) -> int:
        """0 when `cost` was taken from each key's bucket; else the whole seconds to wait."""
        with self.lock:
            now = self.clock()
            levels = {key: self._level(key, now) for key in keys}
            short = max((cost - level for level in levels.values()), default=0.0)
            if short > 0:
                return max(1, math.ceil(short / self.rate))
            for key, level in levels.items():
                self.buckets[key] = (level - cost, now)
                self.buckets.move_to_end(key)
            while len(self.buckets) > self.max_keys:
                self.buckets.popitem(last=False)
            return 0
