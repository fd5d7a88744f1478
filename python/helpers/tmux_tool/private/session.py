"""A private session: the agent's own shell on its own server, judged from the shell's markers
first.

The shell's own markers say whether a command (or a started program) is
still running and how it ended; the screen is consulted only to tell *how*
it is running (asking a question, a REPL prompt, an AI CLI's spinner), and a
screen that looks ready or blocked is ``busy`` while the program has not
read the keys typed into its terminal (the kernel's count of unread input):
what it shows predates them.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Unpack

from .. import programs
from ..core import trace
from ..core.clock import Deadline
from ..core.errors import TmuxError
from ..core.messages import message
from ..core.result import Extra, Result, failure
from ..core.status import Status
from ..judgement import human, stillness
from ..judgement.state import State, reported
from ..programs import chat, waiting
from ..programs.ai import AiProfile
from ..screen.snapshot import Snapshot
from ..transport import kernel, keyboard, panes
from ..transport.panes import PaneFacts
from ..transport.target import Target
from . import run_record, runs
from .server import PrivateServer

POLL = 0.05  # seconds between looks after typing, until the session settles
LONG_TEXT = 4096  # bytes: the terminal's input buffer, which a busy program does not drain
AGAIN = 2.0  # seconds a command has to end after Ctrl+C before it is pressed again
PRESSES = 3  # Ctrl+C pressed at most this often by one interrupt


class PrivateSession:
    """One of the agent's sessions on its private server."""

    def __init__(self, server: PrivateServer, target: Target) -> None:
        self.server = server
        self.target = target

    @property
    def name(self) -> str:
        return self.target.name

    # --- judging ---------------------------------------------------------------
    def state(self) -> State:
        """Look at the session once and decide its status."""
        st = self._judged()
        if st.exact or st.status not in (Status.READY, Status.BLOCKED) or st.facts is None:
            return st
        # Keys typed into the terminal that the program has not read yet (a key that answers
        # a dialog, say) will change what it shows: the screen is out of date until it reads them.
        unread = self.target.tmux.place.unread(st.facts.tty)
        if unread:
            st.status, st.evidence = Status.BUSY, (f"{st.program or 'the program'} has not read "
                                                   f"the {unread} byte(s) typed into its terminal "
                                                   f"yet (the screen showed: {st.evidence})")
            st.question, st.options = None, ()
        return st

    def _judged(self) -> State:
        srv, target = self.server, self.target
        shell = srv.shell(target.name)
        snap, facts = panes.look(target.tmux, target.pane)
        program = shell.program if shell else None
        if facts.dead:
            return State(Status.ERROR, "the pane's process has ended", program, snap, facts)
        mark = srv.last_mark(shell) if shell else None
        if shell is None or mark is None:
            return _by_screen(snap, facts, program, target)
        rec = run_record.load_record(srv, target.name)
        if rec is not None and mark.start < rec.offset:
            # Our last line is typed but the shell has not started it: the marks are all older.
            return State(
                Status.BUSY,
                f"the shell has not started `{run_record.short(rec.command)}` yet",
                facts.command or "bash",
                snap,
                facts,
                exact=True,
            )
        running = mark.kind == "S"
        if program is None:
            if not running:
                return State(
                    Status.READY,
                    f"the shell's prompt is back (last exit code {mark.exit_code})",
                    "bash",
                    snap,
                    facts,
                    exit_code=mark.exit_code,
                    cwd=mark.cwd,
                    exact=True,
                )
            # Something runs at the shell: it may read a secret (the kernel says), and the screen
            # tells whether it is a program waiting at its own prompt (a REPL started by send) or
            # asking a question.
            term = _kernel(target, facts)
            if (secret := _secret(term, snap, facts, None, target)) is not None:
                return secret
            verdict = waiting.heard(programs.detect(_at_work(snap, term), program=None), term, snap,
                                 started=False)
            if verdict.status == Status.BLOCKED or (
                verdict.status == Status.READY and verdict.program not in (None, "bash")
            ):
                return _from_verdict(verdict, snap, facts)
            rec = run_record.running_record(srv, target.name, mark)
            what = (
                f"`{rec.command}` for {time.time() - rec.started:.0f}s"
                if rec.command
                else f"{facts.command}"
            )
            return State(
                Status.BUSY,
                f"a command is still running: {what}",
                facts.command or "bash",
                snap,
                facts,
                exact=True,
            )
        if not running:
            # The contract: a started program that ended with an error or a crash is "error";
            # a clean exit leaves the shell's own state.  The exit code is exact.
            status = Status.ERROR if mark.exit_code else Status.READY
            return State(status, f"{program} exited to the shell (exit code {mark.exit_code})",
                         "bash", snap, facts, exit_code=mark.exit_code, cwd=mark.cwd, exact=True)
        return _by_screen(snap, facts, program, target)

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
        """A result that reports the session's state."""
        return reported(st, self.name, ok=ok, error=error, hint=hint, exit_code=exit_code, **extra)

    def where(self, st: State) -> dict[str, Any]:
        """Which part of the session a result concerns: a private session has one pane."""
        return {}

    def unavailable(self) -> Result | None:
        if not self.target.tmux.has_session(self.name):
            return failure(f"there is no private session {self.name!r}", session=self.name,
                           hint=message("no_session_hint"))
        return None

    def row(self) -> dict[str, Any]:
        """What ``list`` says of the session (and the secret it asks for, if it does)."""
        st = self.state()
        row: dict[str, Any] = {
            "session": self.name,
            "server": f"private ({self.server.cfg.private_socket})",
            "program": st.program,
            "status": st.status,
            "evidence": st.evidence,
        }
        if (host := self.server.place.name) is not None:
            row["host"] = host
        if st.needs_human:
            row.update(needs_human=True, question=st.question)
        return row

    # --- acting -----------------------------------------------------------------
    def run(self, command: str, deadline: Deadline) -> Result:
        """Run a shell command and return its exact output and exit code (or ``busy`` at the
        timeout)."""
        result = runs.run(self.server, self.name, command, deadline, on_slice=self._blocked_early)
        if result.status == Status.BUSY and result.ok:
            st = self.state()
            result.screen = st.snap.text if st.snap else None
        return result

    def send(self, text: str, *, enter: bool, deadline: Deadline, force: bool) -> Result:
        """Type text (bracketed paste where the program takes it) and submit it the program's
        way."""
        shell = self.server.shell(self.name)
        profile = programs.profile_for(shell.program) if shell and shell.program else None
        before = self.state()
        if (refused := self._refused(before, text)) is not None:
            return refused
        if (
            before.status == Status.BUSY
            and len(text.encode("utf-8", "surrogateescape")) >= LONG_TEXT
        ):
            return failure(
                f"{before.evidence}; it is not reading input, and {len(text)} "
                "characters would overflow the terminal's 4 KiB input buffer and queue "
                "up in front of Ctrl+C",
                session=self.name,
                status=Status.BUSY,
                hint="wait until it asks for input, or interrupt it; pass long text in a file",
            )
        if profile is None and before.program:
            profile = programs.profile_or_generic(before.program)
            profile = chat.speaker(profile) if chat.speaks(profile, before.snap) else profile
        submit = list(profile.submit) if profile else ["Enter"]
        running = self._run_running()
        tmux, pane, digest = (
            self.target.tmux,
            self.target.pane,
            before.snap.digest if before.snap else None,
        )
        # A CLI's input box takes a paste in pieces: its Enter waits until the paste shows, whole.
        box = profile if text and enter and isinstance(profile, AiProfile) else None
        keyboard.paste(tmux, pane, text, bracketed=profile.paste if profile else True,
                       then=submit if enter and box is None else ())
        if box is not None:
            keyboard.await_paste(
                tmux, pane, digest or "", lambda snap: bool(box.pending_input(snap))
            )
            keyboard.press(tmux, pane, submit)
        return self._answered(running, self._settle(deadline, digest))

    def keys(self, keys: list[str], *, deadline: Deadline, force: bool) -> Result:
        before = self.state()
        if (refused := self._refused(before, "", keys)) is not None:
            return refused
        running = self._run_running()
        keyboard.press(self.target.tmux, self.target.pane, keys)
        return self._answered(
            running, self._settle(deadline, before.snap.digest if before.snap else None)
        )

    def _run_running(self) -> bool:
        """Is a run of ours under way in the shell (its start mark the last), its result not given
        yet?"""
        srv = self.server
        shell = srv.shell(self.name)
        rec = run_record.load_record(srv, self.name)
        if shell is None or rec is None or rec.collected or shell.program is not None:
            return False
        mark = srv.last_mark(shell)
        return mark is not None and mark.kind == "S" and mark.start >= rec.offset

    def _answered(self, running: bool, settled: Result) -> Result:
        """What typing into a run gives: the run's own result once what was typed has let it end
        (the answer to its question, say), exactly as ``wait`` would give it; else the settled
        session."""
        if not running or self._run_running():
            return settled
        return self.wait_exact(Deadline(0.0)) or settled  # a look, no wait: it has ended or not

    def _refused(self, st: State, text: str, keys: list[str] | None = None) -> Result | None:
        """Nothing of the agent's goes into a secret's prompt: the refusal, with where the human
        types it."""
        why = human.refusal(st, text, keys or ())
        if why is None:
            return None
        trace.event("refused", session=self.name, reason=why, final=True)
        where = human.where_to_type(self.server.cfg, self.name, self.server.place)
        return failure(
            f"nothing was typed: {why}",
            session=self.name,
            status=st.status,
            needs_human=True,
            question=st.question,
            secret_reader=st.secret_reader,
            program=st.program,
            hint=human.hint(st.program, where),
        )

    def interrupt(self, deadline: Deadline) -> Result:
        """Ctrl+C; pressed again when the shell went on with our command as if it had not come.

        bash takes a child that exited by itself just as the SIGINT came for
        one that caught it, and carries on with its loop (``while …; do sleep
        0.05; done``).  That shows in the kernel: :data:`AGAIN` seconds later
        the session's shell has started a child since the key.  A program that
        heard it and is shutting down (``terraform``: a second Ctrl+C makes it
        stop at once, losing state) started nothing of the shell's, and is
        left to finish.
        """
        for _ in range(PRESSES - 1):
            since = self._pressed()
            if deadline.left() <= AGAIN or since is None:
                break
            exact = self.wait_exact(Deadline(AGAIN))
            if exact is None or exact.status != Status.BUSY:
                return exact if exact is not None else self._settle(deadline, None)
            if not self._started_since(since):
                break
        else:
            self._pressed()
        exact = self.wait_exact(deadline)
        return exact if exact is not None else self._settle(deadline, None)

    def _pressed(self) -> int | None:
        """Press Ctrl+C; the kernel's clock tick then (None: unknown)."""
        keyboard.press(self.target.tmux, self.target.pane, ["C-c"])
        _, facts = panes.look(self.target.tmux, self.target.pane)
        return kernel.started_ticks(0, self.target.tmux.place.facts(facts.pid, facts.tty)) or None

    def _started_since(self, since: int) -> bool:
        """Has the session's shell started a child at clock tick ``since`` or later?"""
        _, facts = panes.look(self.target.tmux, self.target.pane)
        src = self.target.tmux.place.facts(facts.pid, facts.tty)
        children = (src.read(f"{facts.pid}/children") or "").split()
        return any((p := kernel.proc(int(c), src)) is not None and p.started >= since
                   for c in children if c.isdigit())

    def kill(self) -> Result:
        if not self.server.kill(self.name):
            return failure(f"there is no private session {self.name!r}", session=self.name,
                           status=Status.UNKNOWN, hint="list shows the sessions that exist")
        return Result(session=self.name, status=Status.READY, output=f"session {self.name} ended")

    # --- waiting ----------------------------------------------------------------
    def wait_exact(self, deadline: Deadline) -> Result | None:
        """A shell running a command of ours: wait on its markers and return its output (None:
        nothing of ours is pending, so the screen is to be judged instead)."""
        srv = self.server
        shell = srv.shell(self.name)
        rec = run_record.load_record(srv, self.name)
        if shell is None or rec is None or shell.program is not None:
            return None
        mark = srv.last_mark(shell)
        running = mark is not None and mark.kind == "S" and mark.start >= rec.offset
        if not running and rec.collected:
            return None
        if running and mark is not None:
            rec = run_record.running_record(srv, self.name, mark)
        # A secret asked for already (the agent was told): the human types it, and the wait goes on.
        asked = self.state() if running else None
        asked = asked if asked is not None and asked.needs_human else None
        res = runs.collect(
            srv, shell, rec, deadline, on_slice=lambda quiet: self._blocked_early(quiet, asked)
        )
        if res.status == Status.BUSY and asked and (st := self.state()).needs_human:
            return self.report(
                st, ok=False, error=f"{st.program} still waits for the secret after {deadline.seconds:g}s"
            )
        if res.status == Status.BUSY:
            res.ok = False
            res.error = f"{run_record.describe(rec)} is still running after {deadline.seconds:g}s"
        return res

    def waited(self, res: Result, st: State) -> None:
        """What a wait that judged the screen adds to its result: nothing here (markers gave the
        output)."""

    def heard(self, res: Result) -> None:
        """The option the human tapped in the page for this session's question, told once
        (``answered_by_human``; see :mod:`..sessions.tap`)."""
        if said := human.heard(self.target.tmux, self.name):
            res.extra["answered_by_human"] = said

    def _settle(self, deadline: Deadline, before: str | None) -> Result:
        """After typing: wait until the session has reacted (its screen changed) and settled."""
        changed = False
        for st, now, still in stillness.looks(self.state, POLL):
            changed = changed or (st.snap is not None and st.snap.digest != before)
            if changed and still.settled(st, now):
                if st.exact:  # the shell's marker comes just before it draws the prompt
                    time.sleep(POLL)
                    st = self.state()
                break
            if now >= deadline.at:
                break
        return self.report(st)

    def _blocked_early(self, quiet: float, asked: State | None = None) -> Result | None:
        """While a command runs (its output quiet for ``quiet`` seconds): stop waiting if it asks
        for a secret (the kernel says so at once) other than the one ``asked`` at the start, which
        the human is typing; or, after a quiet second, if it asks a question or opened a program
        that waits for input (the editor of ``git merge``, a REPL): it will not end by itself.  A
        session gone meanwhile is for the run's own check of its pane to report.

        Only a program that waits for its secret now ends the wait (``blocked``): keys typed into
        the terminal that its reader has not read yet (``busy``; the human's answer on its way,
        which a loaded machine holds back) are no question, and the wait goes on until the program
        has read them."""
        try:
            st = self.state()
        except TmuxError:
            return None
        if trace.on():
            trace.event(
                "state",
                session=self.name,
                status=str(st.status),
                evidence=st.evidence,
                program=st.program,
                exact=st.exact,
                needs_human=st.needs_human,
                digest=st.snap.digest if st.snap else None,
                during="run",
                quiet=round(quiet, 3),
            )
        if human.answering(st, asked):
            return None
        if st.needs_human and st.status == Status.BLOCKED:
            return self.report(st)
        if quiet < runs.SLICE:
            return None
        if st.status == Status.BLOCKED:
            return self.report(st, hint=message("question"))
        if st.status == Status.READY and st.program not in (None, "bash") and not st.exact:
            st.status = Status.BLOCKED
            st.evidence = f"the command opened {st.program}, which waits for input ({st.evidence})"
            return self.report(st, hint=message("opened_program", program=st.program))
        return None


def _by_screen(snap: Snapshot, facts: PaneFacts, program: str | None, target: Target) -> State:
    """A program at work, judged by its screen - unless the kernel says it reads a secret, or, for a
    CLI no profile knows idle at its input area, that a process of it runs (a frame of work the
    screen does not show: such a CLI signs nothing of its own)."""
    term = _kernel(target, facts)
    if secret := _secret(term, snap, facts, program, target):
        return secret
    verdict = waiting.heard(programs.detect(snap, program=program), term, snap, started=program is not None)
    st = _from_verdict(verdict, snap, facts)
    st.notes = replace(st.notes, reading=term.keys_only)
    if st.status == Status.READY and term.known and not term.waits and term.front is not None \
            and chat.speaks(programs.profile_or_generic(program), snap):
        # Caught running: confirmed over a moment, where the place keeps the count.
        share = stillness.at_work(lambda: target.tmux.place.activity(facts.pid))
        if share is None or share > 0:
            asks = f"asks for {share:.0%} of a CPU" if share else "runs"
            st.status, st.evidence = (
                Status.BUSY,
                f"{term.front.comm} {asks} (the kernel says so); the screen: {st.evidence}",
            )
            st.notes = replace(st.notes, working=True)
    return st


def _kernel(target: Target, facts: PaneFacts) -> kernel.Terminal:
    """What the kernel knows about the pane's terminal: this machine's, or its host's."""
    return target.tmux.place.terminal(facts.pid, facts.tty)


def _secret(term: kernel.Terminal, snap: Snapshot, facts: PaneFacts, program: str | None,
            target: Target) -> State | None:
    """The state of a secret asked for, with its question: the screen was captured before the kernel
    was asked, so a question just printed may not be on it yet - then the screen is captured once
    more."""
    secret = human.asks_secret(term, snap, facts, program)
    if secret is not None and not snap.cursor_line.strip():
        snap, facts = panes.look(target.tmux, target.pane)
        secret = human.asks_secret(term, snap, facts, program)
    return secret


def _at_work(snap: Snapshot, term: kernel.Terminal) -> Snapshot:
    """The screen named after the process at work: tmux names the foreground group's leader, which
    may only wait for a child of its group (git for the editor of ``git merge``)."""
    if term.known and term.front and term.leader and term.front.pid != term.leader.pid:
        return replace(snap, program=term.front.comm)
    return snap


def _from_verdict(verdict: programs.Verdict, snap: Snapshot, facts: PaneFacts) -> State:
    return State(verdict.status, verdict.evidence, verdict.program, snap, facts,
                 question=verdict.question, options=tuple(verdict.options))
