"""The run's concurrency limit: fixed, or adaptive (additive increase, multiplicative
decrease on 429/529), checked step by step without a clock."""

from __future__ import annotations

import time

import anyio

from activation.trials.limiter import SLOW_START, WINDOW, Limiter


def fill(limiter: Limiter, count: int) -> None:
    """Take `count` free slots at once (none may wait)."""

    async def take() -> None:
        for _ in range(count):
            with anyio.fail_after(1):
                await limiter.acquire()

    anyio.run(take)


def test_a_fixed_limit_never_moves() -> None:
    limiter = Limiter(3)
    fill(limiter, 3)
    for _ in range(3):
        limiter.release()
    limiter.throttled()
    assert (limiter.limit, limiter.peak, limiter.in_flight, limiter.throttles) == (3, 3, 0, 1)


def keep_full(limiter: Limiter) -> None:
    """More trials are always waiting: every free slot is taken at once."""
    fill(limiter, limiter.limit - limiter.in_flight)


def test_it_grows_by_half_per_round_trip_until_the_api_pushes_back_then_halves() -> None:
    limiter = Limiter(4, ceiling=64)
    keep_full(limiter)
    for _ in range(4):  # a round trip: four trials finished while the limit was full
        limiter.release()
        keep_full(limiter)
    assert limiter.limit == 4 + 4 // SLOW_START
    limiter.throttled()
    assert limiter.limit == 3


def test_a_limit_nobody_fills_does_not_grow() -> None:
    limiter = Limiter(4, ceiling=64)
    for _ in range(10):  # one trial at a time: the limit is never what holds the run back
        fill(limiter, 1)
        limiter.release()
    assert limiter.limit == 4


def test_after_pushback_it_grows_by_one_per_round_trip_of_at_least_a_window() -> None:
    limiter = Limiter(20, ceiling=64)
    keep_full(limiter)
    limiter.throttled()  # slow start ends: limit 10, twenty still in flight
    while limiter.in_flight > limiter.limit:
        limiter.release()
    finished = 0
    while limiter.limit == 10:  # a round trip at limit 10: ten full-limit finishes
        limiter.release()
        keep_full(limiter)
        finished += 1
    assert (limiter.limit, finished) == (11, 10)
    small = Limiter(4, ceiling=64)
    keep_full(small)
    small.throttled()  # limit 2
    while small.in_flight > small.limit:
        small.release()
    finished = 0
    while small.limit == 2:  # a small limit waits for a whole window of finishes
        small.release()
        keep_full(small)
        finished += 1
    assert (small.limit, finished) == (3, WINDOW)


def test_pushback_on_a_request_sent_before_the_last_halving_is_the_same_overload() -> None:
    limiter = Limiter(16, ceiling=64)
    keep_full(limiter)
    sent = time.monotonic()
    limiter.throttled(sent)
    limiter.throttled(sent)  # sent before the halving: answers the old limit
    assert limiter.limit == 8
    limiter.throttled()  # sent now, after it: a new overload
    assert limiter.limit == 4


def test_it_stays_under_its_ceiling_and_above_one() -> None:
    limiter = Limiter(5, ceiling=6)
    keep_full(limiter)
    for _ in range(10):
        limiter.release()
        keep_full(limiter)
    assert limiter.limit == 6
    for _ in range(10):
        while limiter.in_flight > limiter.limit - 1:
            limiter.release()
        limiter.throttled()
    assert limiter.limit == 1


def test_a_cancelled_waiter_leaves_the_queue_and_the_next_gets_the_slot() -> None:
    limiter = Limiter(1)
    got: list[str] = []

    async def want(name: str, scope: anyio.CancelScope) -> None:
        with scope:
            await limiter.acquire()
            got.append(name)
            limiter.release()
            return
        got.append(f"{name} cancelled")

    async def main() -> None:
        await limiter.acquire()
        doomed = anyio.CancelScope()
        async with anyio.create_task_group() as group:
            group.start_soon(want, "b", doomed)
            group.start_soon(want, "c", anyio.CancelScope())
            await anyio.wait_all_tasks_blocked()
            doomed.cancel()  # b gives up while it waits
            await anyio.wait_all_tasks_blocked()
            limiter.release()

    anyio.run(main)
    assert got == ["b cancelled", "c"]
    assert (limiter.in_flight, len(limiter._waiting)) == (0, 0)
