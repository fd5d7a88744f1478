"""``ask`` judged from the CLI's own record of the turn, with the screen as the cross-check.

For an AI CLI that reports to the tool (:mod:`..journals`), the end of a
turn, its failure and a permission it waits for are the CLI's own events,
and the answer is the model's text from the CLI's record; the screen is
looked at beside them, and where the two disagree the result says so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from .. import journals
from ..core.clock import Deadline
from ..core.messages import message
from ..core.result import Result
from ..core.status import Status
from ..journals import Turn
from ..judgement.state import State, reported
from ..judgement.stillness import ENDED
from ..private.server import Shell
from ..programs.ai import AiProfile
from ..sessions import observe
from ..sessions.context import Context
from ..sessions.observe import POLL
from ..transport.logwatch import LogWatch
from ..transport.target import Target
from . import ask_log
from .launch import SIGNED_SETTLE, settle_for

# seconds between looks once the record says the turn ended: the screen follows soon
AGREEING = 0.01


@dataclass(frozen=True, slots=True)
class Recorded:
    """How a turn ended by the CLI's own record, and what the screen showed then."""

    state: State
    turn: Turn
    cli: str
    disagreement: str | None = None


def wait(ctx: Context, target: Target, profile: AiProfile, journal: journals.Journal, reading: journals.Reading,
         deadline: Deadline, least: float) -> Recorded | None:
    """Wait for the end of the turn as the CLI records it, with the screen as the cross-check.

    The record's end (or failure) is definitive for the answer; the turn is
    reported over once the screen stops showing work too (a CLI finishes
    drawing, or tidies up, after it recorded the answer, and takes no prompt
    meanwhile) and holds still: a glance with the CLI's own end-of-turn sign
    (``least`` at least: a CLI may lay out its first answer again), the
    profile's settle time without it (a screen can pass for done between two
    frames of a turn still being drawn).
    A screen that shows work until the timeout is reported as it is, with
    the answer and the disagreement.  A permission the record asks for is
    reported once the screen shows the question.  A screen that looks done while the record says the
    turn goes on is not taken for done: the result stays ``busy`` (a retried
    request, an event still to come) until the record agrees or time is up.
    A CLI that records no end of a turn (``announces_end`` false) is over when
    the screen has looked done for the profile's settle time (a glance, with
    the CLI's own end sign on screen) and the record holds the answer (or the
    failure).  A screen that looks done that long
    while the record never saw this prompt means the CLI reports nothing (a
    release without the hooks, a setting that turned them off): None, and the
    screen decides; so does a failed turn the screen shows held still that
    long, of a CLI that records no failure (``records_failures`` false).
    """
    cli = journal.cli
    settle = settle_for(profile)
    quiet = max(SIGNED_SETTLE, least)
    watched = reading.watched()
    watch = LogWatch(watched) if watched is not None else None
    pace = _Pace(watch)
    looks = observe.looks(ctx.open(target), pace.every, pace.pause)
    started = False
    try:
        while True:
            st, now, still = next(looks)
            turn = reading.turn()
            pace.ended = turn.ended or turn.ending
            if turn.started and not started:
                started = True
                ask_log.remember(target, turn_recorded="1")
            signed = st.snap is not None and profile.finished(st.snap)  # the screen's own end sign
            if turn.ended:
                if st.status != Status.BUSY and still.steady(now) >= (quiet if signed else max(settle, quiet)):
                    return Recorded(st, turn, cli)
                if now >= deadline.at:
                    return Recorded(st, turn, cli, f"{cli} recorded the end of the turn, but the screen still "
                                    f"shows work ({st.evidence})")
            elif turn.asking is not None and st.status == Status.BLOCKED:
                return Recorded(st, turn, cli)
            elif st.status in ENDED and still.steady(now) >= (min(settle, quiet) if signed else settle):
                if st.status == Status.BLOCKED and turn.started:
                    return Recorded(st, turn, cli)
                if not journal.announces_end and (turn.answer is not None or turn.error is not None):
                    return Recorded(st, replace(turn, ended=True), cli)
                if not turn.started and still.steady(now) >= settle:
                    return None
                if st.status == Status.ERROR and not journal.records_failures \
                        and still.steady(now) >= settle:
                    return None  # a failure the CLI writes nothing of: the screen tells it
            if now >= deadline.at:
                why = (f"the screen shows {st.status} ({st.evidence}), but {cli} has not ended the turn"
                       if st.status in ENDED else None)
                return Recorded(st, turn, cli, why)
    finally:
        if watch is not None:
            watch.close()


@dataclass(slots=True)
class _Pace:
    """When to look again: at the poll, woken early when the record grows; once the record says
    the turn ended, soon (only the screen's agreement is awaited)."""

    watch: LogWatch | None
    ended: bool = False

    def every(self) -> float:
        return AGREEING if self.ended else POLL

    def pause(self, seconds: float) -> None:
        if self.watch is None or self.ended:
            time.sleep(seconds)
        else:
            self.watch.wait(seconds)


def result(rec: Recorded, target: Target, shell: Shell, deadline: Deadline,
           turn_no: int) -> Result:
    """The result of a turn judged from the CLI's record: the model's own text as the answer."""
    st, turn = rec.state, rec.turn
    extra: dict[str, Any] = {"turn": turn_no}
    if rec.disagreement:
        extra["disagreement"] = rec.disagreement
    if turn.note:
        extra["record"] = turn.note
    if turn.error is not None:
        ask_log.remember(target, turn_open="0")
        st.status, st.evidence = (
            Status.ERROR,
            f"{rec.cli} ended the turn with an error: {turn.error}",
        )
        return reported(
            st,
            target.name,
            ok=False,
            error=f"the turn ended with an error: {turn.error}",
            hint="read the screen for the CLI's message",
            **extra,
        )
    if turn.ended:
        ask_log.remember(target, turn_open="0")
        if st.status == Status.BUSY:  # the answer is whole; the CLI does not take a prompt yet
            return reported(
                st,
                target.name,
                output=turn.answer or "",
                answer_source="transcript",
                hint="the answer is complete, but the CLI still shows work: wait for it to be "
                "ready before the next prompt",
                **extra,
            )
        st.status, st.evidence = Status.READY, f"{rec.cli} recorded the end of the turn"
        if turn.answer is None:
            return reported(
                st,
                target.name,
                ok=False,
                error=f"the turn ended, but {rec.cli} recorded no answer text",
                hint="read the session to see what it did",
                answer_source="transcript",
                **extra,
            )
        return reported(st, target.name, output=turn.answer, answer_source="transcript", **extra)
    if st.status == Status.BLOCKED:
        if turn.asking:
            extra["asking"] = turn.asking
        return reported(
            st,
            target.name,
            hint=message("blocked", program=shell.program or "the program"),
            **extra,
        )
    st.status = Status.BUSY
    return reported(
        st,
        target.name,
        ok=False,
        error=f"no answer within {deadline.seconds:g}s",
        hint="still working after the timeout: wait for it, then read; or interrupt it",
        **extra,
    )
