"""The one concurrency limit of a run: fixed, or adaptive between 1 and a ceiling.

An API account's rate limit is not known in advance (a new one starts at 50 requests a
minute, a large one takes thousands), so a fixed number of trials in flight is either too
many or far too few. The adaptive limit is additive-increase, multiplicative-decrease, as
TCP finds a link's capacity (and as inspect_ai's adaptive connections do): it starts at the
stage's default and, until the API first pushes back, grows by one for every SLOW_START
trials that finished while the limit was full (half again per round trip); after that by
one per round trip (a full limit's worth of such trials, WINDOW at least). A 429 or 529
halves it at once, once per overload: pushback on a request sent before the last halving
answers the old, larger limit and does not halve it again.
"""

from __future__ import annotations

import time
from collections import deque

import anyio

SLOW_START = 2
"""Until the first pushback: one more slot for every this many trials that finished while
the limit was full (1.5 times the limit per round trip)."""
WINDOW = 8
"""After it: one more slot per round trip, counted as at least this many full-limit
finishes, so a small limit (a slow account) creeps up rather than hitting the API's limit
every few round trips."""


class Limiter:
    def __init__(self, start: int, ceiling: int | None = None) -> None:
        self.limit = max(1, start if ceiling is None else min(start, ceiling))
        self.ceiling = ceiling
        """None: the limit is fixed."""
        self.in_flight = 0
        self.peak = 0
        """The most trials in flight at once."""
        self.throttles = 0
        self._grown = 0
        """Full-limit finishes since the limit last changed (congestion avoidance)."""
        self._slow_start = True
        self._cut_at = float("-inf")
        """When (monotonic seconds) the limit was last halved."""
        self._waiting: deque[anyio.Event] = deque()

    @property
    def adaptive(self) -> bool:
        return self.ceiling is not None

    async def acquire(self) -> None:
        """A slot: taken at once when one is free (no trip through the event loop, which
        was most of a simulated trial's cost), else in turn."""
        if self.in_flight >= self.limit or self._waiting:
            event = anyio.Event()
            self._waiting.append(event)
            try:
                await event.wait()
            except BaseException:
                if event in self._waiting:
                    self._waiting.remove(event)
                elif event.is_set():  # the slot was given to us: pass it on
                    self.in_flight -= 1
                    self._hand_on()
                raise
        else:
            self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)

    def release(self, succeeded: bool = True) -> None:
        # Exactly full: trials still draining above a just-halved limit say nothing new.
        full = self.in_flight == self.limit
        self.in_flight -= 1
        if succeeded and full and self.adaptive:
            self._grow()
        self._hand_on()

    def _hand_on(self) -> None:
        """Wake waiters while the limit has room; each takes its slot as it is woken."""
        while self._waiting and self.in_flight < self.limit:
            self.in_flight += 1
            self._waiting.popleft().set()

    def _grow(self) -> None:
        assert self.ceiling is not None
        if self.limit >= self.ceiling:
            return
        self._grown += 1
        if self._grown >= (SLOW_START if self._slow_start else max(self.limit, WINDOW)):
            self.limit += 1
            self._grown = 0

    def throttled(self, sent_at: float | None = None) -> None:
        """The API answered 429 or 529 to a request sent at `sent_at` (monotonic seconds;
        None: just now)."""
        self.throttles += 1
        now = time.monotonic()
        if not self.adaptive or (now if sent_at is None else sent_at) < self._cut_at:
            return
        self._slow_start = False
        self._cut_at = now
        self.limit = max(1, self.limit // 2)
        self._grown = 0
