"""Typing into the human's terminal, politely, and reading back what our command printed.

One send is a pipeline, each step its own module:

1. look and judge (:mod:`.judge`, pure but for what a look teaches);
2. refused outright, or not our moment yet (:mod:`.moment`: the guard, the
   human's quiet, a resize being told);
3. approved by the human, in approve mode (:mod:`.control`);
4. typed only if nothing changed since the look, checked by tmux at the
   keystroke, recorded and audited in the same command (:mod:`.keystroke`);
5. followed to its prompt, its output cut from the screen (:mod:`.outcome`).

Only our own unsent text is ever cleared (``C-u``).  The human has the last
word: while paused nothing is typed (checked again inside the injecting tmux
command), and the page hears what the agent does.
"""

from __future__ import annotations

import time

from ..core.clock import Deadline
from ..core.config import Config
from ..core.result import Result, failure
from ..core.status import Status
from ..transport.target import Target
from ..transport.tmux import Tmux
from . import control, judge, keystroke, moment, outcome

TRANSIENT = 0.2  # seconds a send looks for its moment, whatever its timeout
MAX_TEXT = 64 * 1024


# --- typing ------------------------------------------------------------------
def send(
    cfg: Config,
    target: Target,
    text: str,
    *,
    enter: bool,
    deadline: Deadline,
    force: bool,
    audit_as: str = "send",
    keys: tuple[str, ...] = (),
) -> Result:
    """Type ``text`` (then Enter) or press ``keys`` in the shared session, politely."""
    try:
        return _send(
            cfg,
            target,
            text,
            enter=enter,
            deadline=deadline,
            force=force,
            audit_as=audit_as,
            keys=keys,
        )
    finally:
        control.announce(target.tmux, target.pane, "idle")


def _send(
    cfg: Config,
    target: Target,
    text: str,
    *,
    enter: bool,
    deadline: Deadline,
    force: bool,
    audit_as: str,
    keys: tuple[str, ...],
) -> Result:
    """Look and judge; refused outright?  Our moment?  (Approved?)  Then type, and follow what was
    typed."""
    tmux: Tmux = target.tmux
    what = text or " ".join(keys)
    if len(text) > MAX_TEXT:
        return failure(f"{len(text)} characters is too much to type into the human's terminal "
                       f"(the limit is {MAX_TEXT})", session=target.name, status=Status.UNKNOWN,
                       hint="write the text to a file and send a short command that uses it")
    # A moment that passes by itself (the shell has yet to read bytes just typed, or a terminal's
    # reply to the query its prompt made) never refuses a send, even one that may not wait.
    quiet_by = deadline.at_least(TRANSIENT)
    checked = approved = False
    resizing: Deadline | None = None
    while True:
        st, lk = judge.observe(tmux, target.pane, target.name)
        if lk is None:
            return failure(st.evidence, session=target.name)
        if (
            refused := moment.refusal(target, st, lk, text, enter, force, checked=checked)
        ) is not None:
            return refused
        checked = checked or bool(text and st.status == Status.READY)
        verdict, resizing = moment.verdict(cfg, st, lk, text, keys, force, resizing)
        if verdict.go and not approved and lk.facts.approve:
            refusal = control.await_approval(tmux, target.pane, text, keys, enter, deadline.left())
            if refusal is not None:
                hint = (
                    control.PAUSED_HINT
                    if refusal == control.PAUSED
                    else "ask the human what to do instead"
                )
                return failure(refusal, session=target.name, status=st.status, hint=hint)
            approved = True
            continue  # the screen may have changed while the human decided
        if not verdict.go:
            control.announce(tmux, target.pane, "held", what, control.for_the_human(verdict.reason))
        elif st.notes.leftover and (text or enter):
            keystroke.clear_leftover(tmux, target.pane, lk)
            continue
        elif keystroke.too_soon(cfg):
            continue
        else:
            typed = keystroke.type_now(cfg, target, st, lk, text, enter, keys, audit_as)
            if typed is not None:
                sent, entry = typed
                return outcome.finish(cfg, target, sent, text, deadline=deadline, entry=entry)
            if control.paused(tmux, target.pane):
                return failure(
                    control.PAUSED, session=target.name, status=st.status, hint=control.PAUSED_HINT
                )
            verdict = moment.LAST_MOMENT
        if verdict.final or quiet_by.passed:
            return moment.refused(target, st, verdict)
        time.sleep(0.05)
