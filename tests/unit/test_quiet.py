"""Quiet: a program counts as idle over a window only when it asked for (almost) no CPU and none of
it was stopped; without samples the screen alone decides."""

from __future__ import annotations

import time
from collections.abc import Callable

from python.helpers.tmux_tool.judgement.stillness import QUIET_SHARE, Quiet, at_work
from python.helpers.tmux_tool.transport.kernel import Activity

MS = 1_000_000


def _fed(*samples: tuple[float, dict[int, int], bool]) -> Quiet:
    quiet = Quiet()
    for t, demand, stopped in samples:
        quiet.see(t, Activity(demand, stopped))
    return quiet


def test_a_program_asking_for_the_cpu_is_not_quiet() -> None:
    # A starting CLI on a loaded machine: it runs a third of the time and waits for the CPU the rest.
    quiet = _fed(*((t / 20, {7: int(t * 50 * MS)}, False) for t in range(41)))
    assert not quiet.held(2.0, 1.0)


def test_an_idle_program_with_a_timer_is_quiet() -> None:
    ticks = [(t / 20, {7: 100 * MS + t * 2 * MS, 8: 5 * MS}, False) for t in range(41)]  # 2 ms every 50 ms
    assert 2 * 20 / 1000 < QUIET_SHARE
    assert _fed(*ticks).held(2.0, 1.0)


def test_a_stopped_program_is_not_quiet_though_it_asks_for_nothing() -> None:
    samples = [(t / 20, {7: 100 * MS}, 20 <= t <= 30) for t in range(41)]
    quiet = _fed(*samples)
    assert not quiet.held(2.0, 1.5)
    assert quiet.held(2.0, 0.45)  # the stop ended before this window began


def test_work_done_before_the_window_does_not_count() -> None:
    samples = [(t / 20, {7: min(t, 20) * 50 * MS}, False) for t in range(61)]  # busy for 1 s, then idle
    assert not _fed(*samples[:31]).held(1.5, 1.0)
    assert _fed(*samples).held(3.0, 1.0)


def test_a_thread_started_in_the_window_counts_whole_and_one_that_ended_not_at_all() -> None:
    started = _fed((0.0, {7: 0}, False), (1.0, {7: 0, 9: 600 * MS}, False))
    assert not started.held(1.0, 1.0)
    ended = _fed((0.0, {7: 0, 9: 600 * MS}, False), (1.0, {7: 0}, False))
    assert ended.held(1.0, 1.0)


def test_a_window_longer_than_what_was_watched_is_not_held_yet() -> None:
    quiet = _fed((0.0, {7: 0}, False), (0.5, {7: 0}, False))
    assert not quiet.held(0.5, 1.0)


def test_without_samples_the_screen_decides() -> None:
    quiet = Quiet()
    quiet.see(0.0, None)
    assert quiet.held(5.0, 1.0)


def _samples(*demands: int) -> Callable[[], Activity]:
    """A ``sample`` for :func:`at_work` giving these CPU demands (ns) one after another."""
    it = iter(demands)
    return lambda: Activity({7: next(it)}, False)


def test_at_work_gives_the_share_of_a_program_that_works_and_zero_for_an_idle_one() -> None:
    busy = at_work(_samples(0, 10**9), window=0.05)  # a second of CPU asked for in 0.05 s
    assert busy is not None and busy > QUIET_SHARE
    assert at_work(_samples(0, 1000), window=0.05) == 0.0  # a microsecond: a timer's tick


def test_at_work_does_not_wait_when_the_kernel_does_not_say() -> None:
    begun = time.monotonic()
    assert at_work(lambda: None, window=5.0) is None
    assert time.monotonic() - begun < 1.0
