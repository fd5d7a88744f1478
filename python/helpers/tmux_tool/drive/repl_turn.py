"""``ask`` for a REPL: one input, the output up to the next bare prompt.

A REPL has no transcript of turns: its answer is what lies between the echo
of the input and the next bare prompt (:meth:`Profile.extract_answer`).
The input has started when the program went busy, or its screen moved on
without the input still on the cursor line; it is done when the prompt is
back and the screen held still for the profile's settle time.
"""

from __future__ import annotations

from ..core.clock import Deadline
from ..core.messages import message
from ..core.result import Result
from ..core.status import Status
from ..judgement.state import State, reported
from ..private.server import Shell
from ..programs import Profile
from ..screen.snapshot import Snapshot
from ..sessions import observe
from ..sessions.context import Context
from ..sessions.observe import POLL
from ..transport import keyboard, panes
from ..transport.target import Target
from .launch import TURN_START, press_submit, settle_for

SCROLLBACK_LINES = 2000


def ask(
    ctx: Context, target: Target, shell: Shell, profile: Profile, prompt: str, deadline: Deadline
) -> Result:
    """Type ``prompt`` into the REPL, submit it, and return its output once the prompt is back."""
    snap, facts = panes.look(target.tmux, target.pane)
    before, earlier = snap.digest, _rows_before(target, snap)
    keyboard.paste(target.tmux, target.pane, prompt, bracketed=profile.paste)
    press_submit(target, profile)
    started = _await_repl_start(ctx, target, before, prompt)
    if not started:
        press_submit(target, profile)  # one more submit: the first was swallowed
        started = _await_repl_start(ctx, target, before, prompt)
    if not started:
        st = observe.state_of(ctx.open(target))
        return reported(
            st,
            target.name,
            ok=False,
            error="the prompt was typed but did not start running",
            hint="read the screen; press Enter with keys if the prompt is still on the input line",
        )
    st = _await_repl_done(ctx, target, profile, deadline)
    lines = panes.scrollback(target.tmux, target.pane, SCROLLBACK_LINES)
    if earlier is not None and len(lines) < SCROLLBACK_LINES and st.facts is not None \
            and st.facts.history_size < facts.history_limit:
        lines = lines[earlier:]  # this turn's rows: no earlier turn's echo can be taken for its own
    answer = profile.extract_answer(lines, prompt)
    done = st.status in (Status.READY, Status.BLOCKED, Status.ERROR)
    hint = None
    if not done:
        hint = "still working after the timeout: wait for it, then read; or interrupt it"
    elif st.status == Status.BLOCKED:
        hint = message("blocked", program=shell.program or "the program")
    elif answer is None:
        hint = "the answer could not be cut out of the screen; read the session to see it"
    return reported(
        st,
        target.name,
        ok=done and st.status != Status.ERROR,
        output=answer or "",
        hint=hint,
        error=None
        if done and st.status != Status.ERROR
        else (
            f"the turn ended with an error: {st.evidence}"
            if done
            else f"no answer within {deadline.seconds:g}s"
        ),
    )


def _rows_before(target: Target, snap: Snapshot) -> int | None:
    """Where this turn's rows will start in the scrollback: at the row the input is typed on (the
    prompt's row, or the empty cursor row under the last output of a program that draws none).
    None when the scrollback is longer than what is captured of it (rows would be counted from a
    moving start)."""
    rows = len(panes.scrollback(target.tmux, target.pane, SCROLLBACK_LINES))
    if rows >= SCROLLBACK_LINES:
        return None
    return rows - 1 if snap.cursor_line.strip() else rows


def _await_repl_start(ctx: Context, target: Target, before: str, prompt: str) -> bool:
    """The input runs: the program went busy, or its screen moved on without our text on the input
    line."""
    tail = prompt.strip().splitlines()[-1][-24:]
    for _ in Deadline(TURN_START).ticks(POLL):
        st = observe.state_of(ctx.open(target))
        if st.status in (Status.BUSY, Status.BLOCKED, Status.ERROR):
            return True
        if st.snap is not None and st.snap.digest != before and st.status == Status.READY \
                and tail not in st.snap.cursor_line:
            return True
    return False


def _await_repl_done(ctx: Context, target: Target, profile: Profile, deadline: Deadline) -> State:
    """Ready (or blocked, or dead) and holding still for the profile's settle time."""
    settle = settle_for(profile)
    return next(st for st, now, still in observe.looks(ctx.open(target))
                if still.settled(st, now, settle) or now >= deadline.at)
