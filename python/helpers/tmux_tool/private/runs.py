"""``run``: one shell command in a private session, exactly.

The command is pasted as one unit (bracketed paste into readline, via
``load-buffer``/``paste-buffer`` so neither the 16 KB ``send-keys`` limit nor
tmux's ``;`` parsing can touch it) and submitted with a real Enter key.  The
shell's own prompt machinery then marks where the output starts and ends and
with which exit code (see :mod:`markers`), so the result holds exactly this
command's output: no echo, no marker, no prompt.  A command still running at
the timeout is left running and reported ``busy``; ``wait`` collects it later.

The end of a run is an event: the shell's marker lands in the pane log, and
the waiting thread, asleep on the log (:mod:`logwatch`), wakes and reads only
what is new, cleaning the output as it arrives (:mod:`output`).  Two tmux
commands make a run - a look at the pane, and the line that records the run
and types it - both over the process's persistent connection.  What a run is
(its command, where its output starts in the log, whether its result was
delivered) lives in tmux user options, since the next call may come from
another process.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from ..core.clock import Deadline
from ..core.errors import NoServer, NoTarget
from ..core.masking import Masker
from ..core.messages import message
from ..core.result import Extra, Result, failure
from ..core.status import Status
from ..transport import keyboard, process
from ..transport.hosts import HostError
from ..transport.logwatch import LogWatch
from ..transport.mirror import Mirror
from . import markers
from .markers import Mark
from .output import RunOutput
from .run_record import COLLECTED_OPTION, RUN_OPTION, RunRecord, describe, running_record, short
from .server import PrivateServer, Shell

SLICE = 1.0  # at least this often while waiting, the pane is checked (gone? dead?)
ASK_EVERY = 0.25  # this often, ``on_slice`` is asked whether the command waits for something
ASK_HOST_EVERY = 1.0  # on another host, where asking costs a command there
STARTED_WITHIN = 2.0  # a run is reported only once the shell has taken it (its start marker)
LOG_ROTATE = 8 << 20  # a log this big is emptied between commands
KEEP_OUTPUTS = 20
# The command is wrapped in bracketed-paste codes by us, not by ``paste-buffer -p``:
# tmux adds them only once bash has announced the mode with its prompt, and the
# next command can arrive in the instant between the end marker and that prompt.
# Readline reads the codes from its input whenever it gets there.
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
# characters of the command kept in its record (a tmux command line holds 16 KB)
RECORDED_COMMAND = 2000
LOG_SETTLE = 0.2  # seconds a dead shell's last output is given to reach the log
HELD_LINE = 4096  # bytes of an unfinished last line held back (it may turn out to be the prompt)


def _pane(srv: PrivateServer, name: str) -> str | None:
    """``"1"`` if the session's shell has died (remain-on-exit keeps its pane), ``"0"`` if it lives,
    None if there is no such session; :class:`NoServer` if there is no server.

    (``display-message`` answers a missing target with empty values, not an error.)
    """
    try:
        session, _, dead = srv.tmux.display(f"={name}:", "#{session_id} #{pane_dead}").partition(
            " "
        )
    except NoTarget:
        return None
    return dead if session else None


def _ensure_shell(srv: PrivateServer, name: str) -> tuple[Shell, Mark | None]:
    """The session's shell at its prompt: created, or respawned if it exited."""
    shell = srv.shell(name)
    try:
        pane = _pane(srv, name) if shell is not None else None
    except NoServer:
        pane = None
    if shell is None or pane is None:
        shell = srv.create(name)
        pane = "0"
    mark = srv.last_mark(shell)
    if (mark is not None and mark.kind == "X") or pane == "1":
        srv.respawn(shell, mark.cwd if mark else None)
        mark = srv.last_mark(shell)
    if shell.program is not None and mark is not None and mark.kind == "E":
        srv.set_program(name, None)  # the program ended: the shell is back
        shell = srv.shell(name) or shell
    return shell, mark


def run(
    srv: PrivateServer,
    name: str,
    command: str,
    deadline: Deadline,
    on_slice: Callable[[float], Result | None] | None = None,
) -> Result:
    """Run ``command`` in private session ``name`` and report how it ended."""
    command = command.rstrip("\n")
    try:
        shell, mark = _ensure_shell(srv, name)
    except (NoServer, NoTarget):
        shell, mark = _ensure_shell(srv, name)  # the server died between two calls: once more
    if shell.program is not None:
        return failure(
            f"session {name!r} runs {shell.program}, not a shell prompt",
            session=name,
            status=Status.UNKNOWN,
            hint=f"use ask or send for {shell.program}, or run without a session to use the "
                 "scratch shell",
        )
    if mark is not None and mark.kind == "S" and unmarked(srv, name) is not None:
        # The last command (run, or typed with send) replaced the prompt hooks and ended unseen:
        # finish it, then go on.
        ended = collect(srv, shell, running_record(srv, name, mark), Deadline(SLICE * 3))
        if not ended.ok:
            return ended
        mark = srv.last_mark(shell)
    if mark is not None and mark.kind == "S":
        return failure(
            f"session {name!r} is still running {describe(running_record(srv, name, mark))}",
            session=name,
            status=Status.BUSY,
            hint=message("session_busy_hint"),
        )
    try:
        return _type_and_collect(srv, shell, command, deadline, on_slice)
    except Unstarted:
        # The shell died (killed, or its server went) before it began the command: nothing of it
        # ran.
        shell, _mark = _ensure_shell(srv, name)
        try:
            return _type_and_collect(srv, shell, command, deadline, on_slice)
        except Unstarted as again:
            return failure(
                f"{again} twice before the command began",
                session=name,
                hint="look at what ends the session's shell (its rc files, the host), then run "
                     "again",
            )


class Unstarted(Exception):
    """The shell or its session ended before the shell began the command just typed: nothing of it
    ran, so it may be typed again into a fresh shell."""


def _type_and_collect(srv: PrivateServer, shell: Shell, command: str, deadline: Deadline,
                      on_slice: Callable[[float], Result | None] | None) -> Result:
    """Record the run, type it, and wait for it."""
    size = srv.log_size(shell)
    if size > LOG_ROTATE:
        srv.empty_log(shell)
        size = 0
    rec = RunRecord(id=os.urandom(4).hex(), command=command, offset=size, started=time.time())
    record = {**asdict(rec), "command": short(command, RECORDED_COMMAND)}
    del record["collected"]
    try:
        _submit(
            srv,
            shell.name,
            command,
            ["set-option", "-t", f"={shell.name}:", RUN_OPTION, json.dumps(record)],
        )
    except (NoServer, NoTarget) as gone:  # the server or session ended with its shell, as we typed
        raise Unstarted(f"session {shell.name!r} ended") from gone
    except HostError as lost:
        raise _lost(srv, shell.name, lost, typed=False) from lost
    try:
        return collect(srv, shell, rec, deadline, on_slice=on_slice, typed_now=True)
    except HostError as lost:
        raise _lost(srv, shell.name, lost, typed=True) from lost


def _lost(srv: PrivateServer, name: str, error: HostError, *, typed: bool) -> HostError:
    """The host's failure once the command was (being) typed there: the command runs on in tmux on
    the host, and running it again would run it twice."""
    return srv.place.lost(error, name, typed=typed)


def _submit(srv: PrivateServer, name: str, command: str, *first: list[str]) -> None:
    """Type ``command`` at the shell's prompt as one paste and press Enter (after the ``first``
    commands)."""
    pane = f"={name}:"
    keyboard.paste(
        srv.tmux,
        pane,
        PASTE_START + command + PASTE_END,
        bracketed=False,
        then=("Enter",),
        first=[*first, ["send-keys", "-t", pane, "C-u"]],
    )


def unmarked(srv: PrivateServer, name: str) -> str | None:
    """The session's own shell, when it waits at its prompt though its last command left no end
    mark.

    A command that replaces the prompt hooks (``PROMPT_COMMAND=``, ``source
    ~/.bashrc``, ``exec bash``) ends without a mark; the kernel still sees
    the pane's shell in front, its line editor waiting for keys.  Returns the
    shell's name (``bash``, or what ``exec`` made of it), None while anything
    else is the case (a program or nested shell in front, a command running,
    bash's ``read`` asking a question).
    """
    try:
        pid, _, tty = srv.tmux.display(f"={name}:", "#{pane_pid} #{pane_tty}").partition(" ")
    except NoTarget:
        return None
    if not pid.isdigit():
        return None
    term = srv.place.terminal(int(pid), tty)
    sh = term.shell
    if not (term.known and sh and sh.shell and term.shell_in_front):
        return None
    name_ = sh.comm.lstrip("-")
    waits = term.editing if name_ == "bash" else term.editing or term.reading
    return name_ if waits else None


class _Feed:
    """Output on its way to :class:`RunOutput`, its unfinished last line held back.

    When a command ends without a mark, the shell's prompt is that last
    line: it is dropped instead of delivered.  Everything else is delivered
    by :meth:`flush`.
    """

    def __init__(self, out: RunOutput) -> None:
        self.out = out
        self.held = b""
        self.closed = False

    def __call__(self, raw: bytes) -> None:
        if self.closed:
            return
        data = self.held + raw
        cut = data.rfind(b"\n") + 1
        if len(data) - cut > HELD_LINE:
            cut = len(data)
        if cut:
            self.out.feed(data[:cut])
        self.held = data[cut:]

    def flush(self) -> None:
        if self.held and not self.closed:
            self.out.feed(self.held)
        self.held = b""

    def close(self) -> None:
        """Nothing more is output: the prompt held back, and what the shell echoes after it."""
        self.held, self.closed = b"", True


def collect(srv: PrivateServer, shell: Shell, rec: RunRecord, deadline: Deadline, *,
            on_slice: Callable[[float], Result | None] | None = None, typed_now: bool = False) -> Result:
    """Wait until ``deadline`` for the run to end, then shape its result.

    Even with no time to wait, the result waits for the shell to take the
    command (its start marker, within ``STARTED_WITHIN``): until then the
    session still looks like the prompt before it.  ``on_slice`` is asked
    every ``ASK_EVERY`` seconds, given how long the output has been quiet; a
    result from it (the command is asking a question, say) ends the wait
    early.  ``typed_now``: this call typed the command, and :class:`Unstarted`
    is raised if the shell or its session ends before the shell began it (a
    shell killed just before: tmux may not have seen it die when the command
    was typed).
    """
    cfg = srv.cfg
    output = RunOutput(cap=cfg.output_cap, width=cfg.width, masker=Masker(),
                       path=srv.dir / "outputs" / f"{shell.name}-{rec.id}.txt")
    feed = _Feed(output)
    rearmed = False
    died: tuple[int | None, int | None] | None = None
    follow = markers.Follow(shell.log_path, shell.nonce, rec.offset)
    start = time.monotonic()
    started_by = deadline.at_least(STARTED_WITHIN)
    next_look = next_ask = grew = start
    ask_every = ASK_HOST_EVERY if srv.place.round_trip else ASK_EVERY
    try:
        with srv.watch(shell) as watch:
            while True:
                pos = follow.pos
                end = follow.read(feed)
                now = time.monotonic()
                if follow.pos != pos:
                    grew = now
                if follow.continued and not follow.started:
                    return _incomplete(srv, shell, rec, follow, watch, deadline)
                if end is not None or (now >= deadline.at and (follow.started or now >= started_by.at)):
                    break
                look_due = now >= next_look + SLICE
                ask_due = on_slice is not None and follow.started and now >= next_ask + ask_every
                if look_due:
                    next_look = now
                    if isinstance(gone := _pane_gone(srv, shell.name, follow, feed, watch, typed_now), Result):
                        return gone
                    if gone is not None:
                        died = gone
                        break
                # Before anything judges the screen: the pane's own shell back at its editor, unmarked.
                quiet = now - grew >= SLICE
                if (look_due or ask_due) and quiet and follow.started and not rearmed and (
                        sh := unmarked(srv, shell.name)):
                    if (end := follow.read(feed)) is not None:
                        break  # the mark was on its way after all
                    if sh != "bash":
                        return _replaced(shell.name, sh)
                    # The command replaced the prompt hooks: it is over; put them back (the
                    # line keeps its exit code) and take the end mark that line prints.  Its own
                    # end mark may yet be on its way to the log: the log tells which came first.
                    follow.relaunch(feed.close)
                    _submit(srv, shell.name, markers.rearm_line(srv.hooks()))
                    rearmed = True
                    continue
                if ask_due:
                    assert on_slice is not None
                    next_ask = now
                    if (early := on_slice(now - grew)) is not None:
                        return early
                wake = min(next_look + SLICE, next_ask + ask_every if on_slice is not None else math.inf)
                watch.wait(min(deadline.at if follow.started else started_by.at, wake) - now)
            if follow.trailing and end is not None:
                _pass_typed_line(shell, end, watch)
    except NoServer:
        if typed_now and not _began(follow, feed):
            raise Unstarted("the private tmux server stopped") from None
        return failure("the private tmux server stopped while the command ran", session=shell.name,
                       hint="run the command again; a new server and shell start by themselves")
    feed.flush()
    return _shaped(srv, shell.name, rec, output, end, died, deadline)


def _shaped(
    srv: PrivateServer,
    name: str,
    rec: RunRecord,
    output: RunOutput,
    end: markers.Mark | None,
    died: tuple[int | None, int | None] | None,
    deadline: Deadline,
) -> Result:
    """The result of a run whose wait is over: ended (its end mark), died under its shell, or still
    running at the timeout; its output as the agent reads it, the whole of a long one saved to a
    file."""
    text, extra = output.finish()
    if "output_file" in extra:
        _prune(output.path.parent, name)
    if died is not None:
        return _died(srv, name, rec, died, text, extra)
    if end is None:
        return Result(session=name, status=Status.BUSY, output=text,
                      hint=message("busy_after_timeout", timeout=f"{deadline.seconds:g}"),
                      extra=Extra(command=rec.command, **extra))
    _delivered(srv, name, rec)
    extra["cwd"] = end.cwd
    hint = message("shell_exited") if end.kind == "X" else None
    return Result(session=name, status=Status.READY, exit_code=end.exit_code,
                  output=text, hint=hint, extra=Extra(command=rec.command, **extra))


def _pane_gone(
    srv: PrivateServer,
    name: str,
    follow: markers.Follow,
    feed: _Feed,
    watch: LogWatch | Mirror,
    typed_now: bool,
) -> Result | tuple[int | None, int | None] | None:
    """What became of the run's pane, looked at now: None while its shell lives; the status the
    kernel reported when the shell died (what it printed read to the end first); a failure when the
    session is gone.  :class:`Unstarted` when this call typed the command and the shell never began
    it."""
    pane = _pane(srv, name)
    if pane in (None, "1") and typed_now and not _began(follow, feed, watch):
        raise Unstarted(f"the shell of session {name!r} ended")
    if pane is None:
        return failure(f"session {name!r} was closed while the command ran", session=name,
                       hint="run the command again in a new session")
    if pane == "1":
        _read_to_the_end(follow, feed, watch)
        return _dead_status(srv, name)
    return None


def _replaced(name: str, sh: str) -> Result:
    """The answer when the command replaced the session's bash with another shell (``exec zsh``)."""
    return failure(f"the shell of session {name!r} is now {sh} (the command replaced bash with "
                   "it), where runs cannot be timed", session=name, status=Status.UNKNOWN,
                   hint="use send, keys and read there, or kill the session for a fresh bash; exit "
                        f"{sh} to get the old shell back if it was not an exec")


def _incomplete(srv: PrivateServer, shell: Shell, rec: RunRecord, follow: markers.Follow,
                watch: LogWatch | Mirror, deadline: Deadline) -> Result:
    """The shell asks for the rest of the command (its continuation prompt): nothing of it ran, and
    whatever is typed next would become part of it.  The unfinished line is ours: Ctrl+C discards
    it, and the wait goes on to the mark of the prompt that follows (for the run's time, at least a
    slice), so the session is left ready: a mark still on its way would end the next run as soon as
    it began."""
    keyboard.press(srv.tmux, f"={shell.name}:", ["C-c"])
    until = deadline.at_least(SLICE)
    while (back := follow.read(lambda _output: None)) is None and (left := until.left()) > 0:
        watch.wait(left)
    _delivered(srv, shell.name, rec)
    then = ("the session is at its prompt" if back is not None else
            "the shell has not shown its prompt again yet: check with status before the next run")
    return failure("the command is incomplete, so the shell waited for the rest of it; nothing of "
                   f"it ran ({_parser_says(rec.command)})", session=shell.name,
                   hint="close what it opens (a quote, a bracket, a here-document, a final "
                        f"backslash) and run it again; {then}", command=rec.command)


def _parser_says(command: str) -> str:
    """bash's own parser on ``command`` (read from stdin, never a command line): its complaint, or
    what an incomplete command it accepts lacks (a here-document's end, a final backslash's next
    line)."""
    try:
        _code, _out, err = process.run(
            ["bash", "-n"],
            command.encode("utf-8", "surrogateescape"),
            3,
            shutil.which("bash") or "/bin/bash",
        )
    except (OSError, TimeoutError):
        err = b""
    said = "; ".join(line for line in err.decode("utf-8", "replace").splitlines() if line.strip())
    return said or "bash: an unclosed here-document or a line ending in a backslash"


def _delivered(srv: PrivateServer, name: str, rec: RunRecord) -> None:
    """Record that the run's result was given, so that no later wait gives it again."""
    if rec.collected:
        return
    try:
        srv.tmux.cmd("set-option", "-t", f"={name}:", COLLECTED_OPTION, rec.id)
    except (NoServer, NoTarget):
        pass  # the session went away with its record: nothing is pending there any more


def _dead_status(srv: PrivateServer, name: str) -> tuple[int | None, int | None]:
    """How the pane's shell ended: its exit status, or the signal that killed it.  tmux calls the
    pane dead when its terminal closes, and knows how its process ended once it has reaped it, which
    may come later (or, tmux 3.3a, not until another child of the server ends); until then the
    kernel still holds the unreaped process and its status.  Asked until one of them knows,
    ``SLICE`` at most."""
    for _ in Deadline(SLICE).ticks(0.005):
        try:
            status, signal, pid = srv.tmux.display(
                f"={name}:", "#{pane_dead_status} #{pane_dead_signal} #{pane_pid}").split(" ")
        except (NoServer, NoTarget, ValueError):
            break
        if status.isdigit() or signal.isdigit():
            return (int(status) if status.isdigit() else None), (
                int(signal) if signal.isdigit() else None
            )
        waited = srv.place.zombie_status(int(pid)) if pid.isdigit() else None
        if waited is not None:
            return (
                (os.waitstatus_to_exitcode(waited), None)
                if os.WIFEXITED(waited)
                else (None, os.WTERMSIG(waited))
            )
    return None, None


def _read_to_the_end(follow: markers.Follow, feed: _Feed, watch: LogWatch | Mirror) -> None:
    """Read what a dead shell wrote: tmux has read all of it, but its way through ``pipe-pane`` to
    the log may take a moment, so the log is read until it has not grown for ``LOG_SETTLE``
    (``SLICE`` at most: a pane log is not written once its pane is dead)."""
    follow.read(feed)
    quiet, most = Deadline(LOG_SETTLE), Deadline(SLICE)
    while (left := min(quiet.left(), most.left())) > 0:
        watch.wait(left)
        pos = follow.pos
        follow.read(feed)
        if follow.pos != pos:
            quiet = Deadline(LOG_SETTLE)


def _died(
    srv: PrivateServer,
    name: str,
    rec: RunRecord,
    died: tuple[int | None, int | None],
    text: str,
    extra: Extra,
) -> Result:
    """The result of a run whose shell ended under it without a mark: a command that replaced the
    shell (``exec``) and ended, or a signal (``kill -9 $$``, an interrupted ``exec``).  Its output
    and the exit status the kernel reported are the run's; the next run gets a fresh shell."""
    _delivered(srv, name, rec)
    status, signal = died
    extra = Extra(command=rec.command, **extra)
    if status is not None:
        return Result(session=name, status=Status.READY, exit_code=status, output=text,
                      hint="the command replaced the shell (exec) and has ended; the next run "
                           "starts a fresh shell in the session", extra=extra)
    how = f"killed by signal {signal}" if signal is not None else "killed or crashed"
    return Result(
        ok=False,
        session=name,
        status=Status.ERROR,
        exit_code=None if signal is None else 128 + signal,
        output=text,
        error=f"the shell of session {name!r} died while the command ran ({how})",
        hint="the next run starts a fresh shell in the session",
        extra=extra,
    )


def _began(follow: markers.Follow, feed: _Feed, watch: LogWatch | Mirror | None = None) -> bool:
    """Did the shell begin the command (its start marker, read to the log's end)?  The log is
    written through a pipe after tmux read the pane, so what a dead shell wrote may still be on its
    way: it is given ``LOG_SETTLE`` to arrive."""
    follow.read(feed)
    if not follow.started and watch is not None:
        watch.wait(LOG_SETTLE)
        follow.read(feed)
    return follow.started


def _pass_typed_line(shell: Shell, end: Mark, watch: LogWatch | Mirror) -> None:
    """Wait, at most ``SLICE``, for the end mark of the line typed after a run that had ended after
    all, so that the next run does not take that line's marks for its own."""
    after = markers.Follow(shell.log_path, shell.nonce, end.end)
    deadline = Deadline(SLICE)
    while after.read(lambda _: None) is None and (left := deadline.left()) > 0:
        watch.wait(left)


def _prune(out_dir: Path, name: str) -> None:
    files = sorted(out_dir.glob(f"{name}-*.txt"), key=lambda p: p.stat().st_mtime)
    for old in files[:-KEEP_OUTPUTS]:
        old.unlink(missing_ok=True)
