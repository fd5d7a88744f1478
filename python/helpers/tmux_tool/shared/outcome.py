"""After the agent typed into the human's terminal: its command's end, and the output it owes.

A command submitted is followed until its prompt is back (the judge's
``ready``, held still as :mod:`..judgement.stillness` asks) or the call's
time is up; then its output is cut from the screen (:mod:`.output`) and
given once.  A command that outlives its send owes its output to the later
call that sees its prompt back (:func:`owed_output`).
"""

from __future__ import annotations

import time
from dataclasses import replace

from ..core.clock import Deadline
from ..core.config import Config
from ..core.messages import message
from ..core.result import Result
from ..core.status import Status
from ..judgement.state import State, reported
from ..judgement.stillness import Stillness
from ..transport.panes import PaneFacts
from ..transport.target import Target
from . import audit, control, judge, output, records, seen
from .records import Sent


def poll_step(elapsed: float) -> float:
    """Look often right after typing (most commands end within milliseconds), then back off."""
    return 0.002 if elapsed < 0.05 else 0.01 if elapsed < 0.2 else 0.025 if elapsed < 1.0 else 0.05


def finish(
    cfg: Config, target: Target, sent: Sent, text: str, *, deadline: Deadline, entry: str
) -> Result:
    """After typing: wait (if asked) for the prompt to come back; return the output, and add it to
    the audit trail's ``entry`` for the injection."""
    started = time.monotonic()
    still = Stillness()
    # told with the record of the command's end: one redraw
    idle = control.telling(target.pane, "idle")
    while True:
        st = judge.observe(
            target.tmux, target.pane, target.name, deliver=bool(text and sent.submitted), also=idle
        )[0]
        if st.notes.delivered:
            control.said(target.tmux, target.pane, "idle")
        now = time.monotonic()
        still.see(st.snap.digest if st.snap else "", now)
        settled = still.settled(st, now)
        # unsent text: once it is shown
        drawn = not sent.submitted and (st.notes.leftover or not text)
        if settled or drawn or now >= deadline.at:
            break
        time.sleep(poll_step(now - started))
    if st.snap is not None:
        seen.note_screen(cfg, st.facts.pane_id if st.facts else "", st.snap.digest, ours=True)
    cut = output.Cut()
    facts = output.screen_with_output(st)
    if sent.submitted and text and facts is not None and st.status != Status.ERROR:
        cut = output.command_output(target.tmux, target.pane, sent, facts, st.notes.before)
        if st.status == Status.READY and not st.notes.delivered:
            _delivered(target, facts)
    shown, hint, notes = output.deliver(cfg, cut, facts)
    done = st.status in (Status.READY, Status.BLOCKED, Status.ERROR)
    if text and not sent.submitted:
        hint = message("not_submitted")
    elif not done:
        hint = message("still_running")
    result = reported(st, target.name, output=shown, hint=hint, in_pane=True, **notes)
    audit.record_result(cfg.shared_dir / "audit.log", entry, result.status, result.screen)
    return result


def owed_output(target: Target, st: State) -> output.Cut:
    """The output of our command that outlived its send: once its prompt is back (``ready``) it is
    given, once, and its pane is let go; while it asks a question (``blocked``), what it printed so
    far."""
    facts = output.screen_with_output(st)
    if facts is None or not Sent.parse(facts.sent).owed:
        return output.Cut()
    cut = output.output_of(target, st)
    if st.status == Status.READY:
        _delivered(target, facts)
    return cut


def _delivered(target: Target, facts: PaneFacts) -> None:
    """Record that the agent has the output of the command last submitted in this pane: calls no
    longer follow the pane for it."""
    records.save(target.tmux, facts.pane_id or target.pane, records.SENT,
                 replace(Sent.parse(facts.sent), back=True, delivered=True))
