"""The shared session: the human's terminal, one pane of it per call, judged from the kernel and
tmux.

Everything the agent may do here goes through :mod:`.send` (typing, keys,
Ctrl+C) and :mod:`.judge` (the state); what it may never do here (run with
markers, end the session) is refused with a sentence saying why.
"""

from __future__ import annotations

from typing import Any, Unpack

from ..core.clock import Deadline
from ..core.config import Config
from ..core.messages import message
from ..core.result import Extra, Result, failure
from ..core.status import Status
from ..judgement.state import State, pane_info, reported
from ..transport.target import Target
from . import control, guard, judge, outcome, output, send, where

KEYS_WAIT = 2.0
"""Seconds keys wait for a quiet moment, at least, whatever the call's timeout: they wait for it
like text does, and a shorter wait would refuse them while the human reads."""


class SharedSession:
    """The human's session, pinned to one pane for the length of a call (see :mod:`.where`)."""

    def __init__(self, cfg: Config, target: Target) -> None:
        self.cfg = cfg
        self.target = target

    @property
    def name(self) -> str:
        return self.target.name

    def state(self) -> State:
        """What ``status`` and ``wait`` report: one look at the call's pane, judged (and what it
        taught remembered)."""
        return judge.observe(self.target.tmux, self.target.pane, self.name)[0]

    # --- results ----------------------------------------------------------------
    def report(
        self,
        st: State,
        *,
        ok: bool = True,
        error: str | None = None,
        hint: str | None = None,
        exit_code: int | None = None,
        **extra: Unpack[Extra],
    ) -> Result:
        """A result that reports the pane's state and which pane it is, and whether the human has
        paused the agent."""
        res = reported(
            st, self.name, ok=ok, error=error, hint=hint, exit_code=exit_code, in_pane=True, **extra
        )
        if st.facts is not None and st.facts.paused:
            res.extra["paused"] = True
            res.hint = res.hint or f"{control.PAUSED}: {control.PAUSED_HINT}"
        return res

    def where(self, st: State) -> dict[str, Any]:
        """Which pane a result concerns, as the human sees it."""
        info = pane_info(st.facts)
        return {"pane": info} if info else {}

    def unavailable(self) -> Result | None:
        """The session must be there, and the pane of our command must not have been closed under
        it."""
        if self.target.lost:
            return failure(self.target.lost, session=self.name, status=Status.ERROR,
                           hint="ask the human what became of it if it mattered; the next call "
                                "uses the pane the human is looking at, or name one "
                                "(shared:WINDOW.PANE)")
        if not self.target.pane_id:  # resolving the call's pane found no session (or no server)
            return failure(judge.missing(self.name, self.target.tmux.socket), session=self.name)
        return None

    def row(self) -> dict[str, Any]:
        """What ``list`` says of the session: the pane the next call would use, and every pane."""
        st = self.state()
        return {
            "session": self.name,
            "server": f"shared ({self.cfg.shared_socket})",
            "program": st.program,
            "status": st.status,
            "evidence": st.evidence,
            "pane": pane_info(st.facts),
            "panes": where.panes(self.target.tmux, self.name),
        }

    # --- acting -----------------------------------------------------------------
    def run(self, command: str, deadline: Deadline) -> Result:
        named = (
            f"the session name {self.name}:{self.target.spec} names the shared terminal: "
            if self.target.spec
            else ""
        )
        return failure(
            named + message("shared_run_refused"),
            session=self.name,
            status=Status.UNKNOWN,
            hint=message("shared_run_refused_hint"),
        )

    def send(self, text: str, *, enter: bool, deadline: Deadline, force: bool) -> Result:
        res = send.send(self.cfg, self.target, text, enter=enter, deadline=deadline, force=force)
        if self.target.closed:  # said once: the pane is no longer bound
            res.extra["note"] = self.target.closed + (
                "; this command went to the pane the human is looking at" if res.ok else "")
        return res

    def keys(self, keys: list[str], *, deadline: Deadline, force: bool) -> Result:
        return send.send(
            self.cfg,
            self.target,
            "",
            enter=False,
            deadline=deadline.at_least(KEYS_WAIT),
            force=force,
            audit_as="keys",
            keys=tuple(keys),
        )

    def interrupt(self, deadline: Deadline) -> Result:
        """Ctrl+C, only for what the agent started: the human's programs are the human's to stop."""
        if not guard.ours(self.state()):
            return failure(message("shared_interrupt_refused"), session=self.name,
                           status=Status.UNKNOWN, hint="ask the human to stop it")
        return send.send(
            self.cfg,
            self.target,
            "",
            enter=False,
            deadline=deadline,
            force=True,
            audit_as="interrupt",
            keys=("C-c",),
        )

    def kill(self) -> Result:
        return failure(
            "the shared session is the human's terminal; the tool never ends it",
            session=self.name,
            status=Status.UNKNOWN,
            hint="stop it yourself with apps/shared-terminal/stop.sh --kill-session if you must",
        )

    # --- waiting ----------------------------------------------------------------
    def wait_exact(self, deadline: Deadline) -> Result | None:
        """No markers here: a wait always judges the pane."""
        return None

    def heard(self, res: Result) -> None:
        """Nothing: the page offers no one-tap answers in the human's own terminal, where they
        type."""

    def waited(self, res: Result, st: State) -> None:
        """A command of ours that outlived its send: its output is given with the wait that sees its
        prompt back, once; a closed or dead pane ends what ran there."""
        if st.status in (Status.READY, Status.BLOCKED):
            res.output, res.hint, notes = output.deliver(
                self.cfg, outcome.owed_output(self.target, st), st.facts
            )
            res.extra.update(notes)
        elif st.status == Status.ERROR and (st.facts is None or st.facts.dead):
            res.error = st.evidence
            res.hint = ("ask the human what became of it; the next call uses the pane the human is "
                        "looking at")
