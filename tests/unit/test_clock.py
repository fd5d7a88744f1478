"""The call's one deadline: what is left of it, and the named floors a step may have beyond it."""

from __future__ import annotations

import time

from python.helpers.tmux_tool.core.clock import Deadline


def test_a_floor_gives_a_step_that_long_from_now_when_the_call_has_less_left() -> None:
    call = Deadline(0.05)
    step = call.at_least(5.0)
    assert 4.0 < step.left() <= 5.0
    assert step.seconds == 5.0
    assert call.left() <= 0.05  # the call's own deadline is not moved


def test_a_floor_below_what_is_left_is_the_call_deadline_itself() -> None:
    call = Deadline(30.0)
    step = call.at_least(0.2)
    assert step.at == call.at and step.seconds == 30.0


def test_a_deadline_keeps_the_time_it_was_given_for_the_answer_to_say() -> None:
    call = Deadline(2.5)
    time.sleep(0.01)
    assert call.seconds == 2.5 and call.left() < 2.5
    assert Deadline(-1).seconds == 0.0 and Deadline(-1).passed
