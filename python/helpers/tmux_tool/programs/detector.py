"""The status detector: which profile speaks for a pane, and what it says.

:func:`detect` (and :func:`classify` for recorded screens) reads the facts
tmux gives before the pixels: which program is in the foreground
(``#{pane_current_command}``, ``Snapshot.program``), whether the alternate
screen is on, where the cursor is.  Then the profile that speaks for the
foreground program reads the screen, at the cursor row and the bottom, never
anywhere else in the buffer:

1. tmux's "Pane is dead" line at the bottom: ``error``.
2. The program the session was started for, if it is (still) in the
   foreground; a program without a profile speaks through the generic one
   (its script may run under an interpreter: ``pip`` shows as ``python3``).
3. A program that was started, with a shell back in the foreground showing
   its prompt: the program exited.  ``error`` when it left an error message
   or crash report right above the prompt; otherwise the shell's own state,
   since a clean exit is most likely one that was asked for.
4. A shell in the foreground without its prompt is running something: a
   pipeline into a pager or editor shows that program's face (tmux then names
   the shell, not ``less``); otherwise a question at the cursor, else busy.
5. An unknown foreground program speaks through the generic profile: a
   question or dialog is ``blocked``, a spinner or progress ``busy``, a full
   screen it cannot read ``unknown``, anything else ``busy``.
6. Nothing known but the screen: the profiles try in rank order (REPLs and
   shells by their prompt at the cursor, then pagers, editors, monitors by
   their frame), then the generic signs; failing all, ``unknown``.

With an earlier look at the same pane, a screen that changed only in a
spinner glyph or a timer's digits is ``busy`` even where one look says
nothing: two looks tell what one cannot.

Both functions are total: any input - odd types, a cursor off the screen or
``(None, None)``, garbage escape sequences - gives a verdict (``unknown`` with
the reason, at worst), never an exception.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import get_args

from ..core.status import Status
from ..screen.cells import char_width
from ..screen.snapshot import Snapshot
from . import chat, registry, signs
from .base import Kind, Profile, Verdict, cursor_line, last_text_row, quote, row
from .generic import generic
from .questions import ask
from .registry import profile_for
from .shell import split_prompt

DEAD = re.compile(r"^Pane is dead \(")
# An exited program leaves the *user's* shell prompt, which ends in $, # or %;
# a bare "> " is as likely the program's own input prompt.
EXIT_PROMPT_END = ("$", "#", "%")
FULL_SCREEN_KINDS: tuple[Kind, ...] = ("pager", "editor", "monitor")
CRASH_ROWS = 8
TUI_CRASH_ROWS = 4
MAX_ROWS = 2000
MAX_COLUMNS = 2000


def _recognise(snap: Snapshot, kinds: Sequence[Kind] | None = None) -> Verdict | None:
    """The first profile (in rank order) that sees its own signals."""
    for p in registry.PROFILES:
        if p.OWN_FACE and (kinds is None or p.kind in kinds) and (v := p.classify(snap)):
            return v
    return None


def _exit_sign(snap: Snapshot, rows: int) -> str | None:
    """An error or crash message the exited program left above the prompt.

    Only the rows between the prompt at the cursor and the shell's previous
    prompt (the command that started the program) are read, at most ``rows``
    of them: a full-screen program leaves its last frame above its goodbye,
    and what that frame showed says nothing about how it ended.
    """
    seen = 0
    for y in range(cursor_line(snap).row - 1, -1, -1):
        line = row(snap, y).rstrip()  # indentation kept: a stack frame is "    at f (file:1:2)"
        text = line.strip()
        if not text:
            continue
        if signs.exit_error(line):  # before the prompt test: "> Killed" reads like a prompt row
            return text
        split = split_prompt(text)
        if split and split[1]:
            break
        seen += 1
        if seen == rows:
            break
    return None


def _after_exit(started: str, snap: Snapshot, shell: Verdict) -> Verdict:
    """A started program that exited to the shell with an error message or a crash
    is ``error``; one that left cleanly leaves the shell's own state (it was most
    likely told to exit)."""
    profile = profile_for(started)
    # A CLI that leaves its last frame (its input area, status rows) above the prompt: only the rows
    # right above the prompt are its goodbye.
    tui = (profile and profile.kind == "ai") or chat.input_area(snap) is not None
    if sign := _exit_sign(snap, TUI_CRASH_ROWS if tui else CRASH_ROWS):
        return Verdict(Status.ERROR, started,
                       f"{started} exited to the shell after {quote(sign, 80)}")
    return Verdict(shell.status, shell.program,
                   f"{started} has exited without an error; {shell.evidence}",
                   shell.question, shell.options)


def _shell_in_front(shell: Profile, snap: Snapshot, started: Profile | None,
                    started_name: str | None) -> Verdict:
    own = shell.classify(snap)
    # Without tmux's word on who is in front, a REPL's own prompt (">>> ",
    # "sqlite> ") outranks the shell reading it as a PS1 - but not the PS2 "> ".
    unsure = snap.program is None and not (own and own.status == Status.BLOCKED)
    if unsure and (v := _recognise(snap, ("ai", "repl"))):
        return v
    if started_name and (started is None or started.kind != "shell"):
        if own is not None and own.status != Status.BLOCKED:
            return _after_exit(started_name, snap, own)
        # No prompt: the program may still be showing its own screen through
        # a pipeline, where tmux names the shell rather than the program.
        if own is None and (v := (started or generic(started_name)).classify(snap)):
            return v
        cl = cursor_line(snap)
        if own is None and (word := signs.died_under_prompt(snap, cl.before, cl.row)):
            return Verdict(Status.ERROR, started_name, f"{started_name} has ended: {word!r} above "
                           "the shell's prompt, which is back at the cursor inside its last frame")
    if own is not None:
        return own
    if v := _recognise(snap, FULL_SCREEN_KINDS):
        return v
    return ask(snap, shell.name) or shell.when_silent(snap)


def _unknown_foreground(fg: str, snap: Snapshot) -> Verdict:
    speaker = generic(fg)
    if v := speaker.classify(snap):
        return v
    if snap.alternate and (v := _recognise(snap, FULL_SCREEN_KINDS)):
        return v
    return speaker.when_silent(snap)


NOT_REPL: tuple[Kind, ...] = tuple(k for k in get_args(Kind) if k != "repl")


def _screen_only(snap: Snapshot) -> Verdict:
    """Neither the program nor tmux says who is in front: the screen alone.

    A prompt of one symbol (``> ``) names no program: a shell's continuation
    line, a picker's query line and Node's REPL all draw it, so no REPL may
    claim it here.
    """
    bare = len(cursor_line(snap).before.strip()) == 1
    if v := _recognise(snap, NOT_REPL if bare else None):
        return v
    if v := generic(None).classify(snap):
        return v
    return Verdict(Status.UNKNOWN, None,
                   "no known prompt, question or program screen at the cursor")


def _exit_prompt(snap: Snapshot) -> Verdict | None:
    """A user's shell prompt at the cursor, judged by a shell profile."""
    cl = cursor_line(snap)
    split = split_prompt(cl.before.rstrip())
    if not (split and split[0].endswith(EXIT_PROMPT_END)):
        return None
    return _recognise(snap, ("shell",))


def _speaking(speaker: Profile, snap: Snapshot) -> Verdict:
    """The started (or foreground) program's own verdict; without one, a shell prompt back
    at the cursor (tmux did not say who is in front) means it exited."""
    if v := speaker.classify(snap):
        return v
    if snap.program is None and (shell := _exit_prompt(snap)):
        return _after_exit(speaker.name, snap, Verdict(shell.status, None, shell.evidence))
    if q := ask(snap, speaker.name):
        return q
    # A full screen the program's profile does not know is most likely a program it runs
    # under its own name (git's editor): the signs every program shows speak for it.
    if snap.alternate and speaker.kind != "program" and (v := generic(speaker.name).classify(snap)):
        return v
    return speaker.when_silent(snap)


def _detect(snap: Snapshot, program: str | None) -> Verdict:
    started = profile_for(program)
    started_name = started.name if started else program
    last = row(snap, last_text_row(snap))
    if DEAD.match(last):
        return Verdict(Status.ERROR, started_name,
                       f"tmux reports {last.strip()!r}: the pane's program has ended")
    fg = snap.program
    fg_profile = profile_for(fg)

    if started and (fg is None or started.runs_as(fg)):
        speaker: Profile = started
    elif started is None and program and (fg is None or (fg_profile is None
                                                         or fg_profile.kind != "shell")):
        # a program without a profile, or its interpreter (pip as python3)
        speaker = generic(program)
    elif fg_profile is not None:
        # Several programs run under one name (Codex and Gemini CLI as `node`, beside the
        # node REPL): the first, in rank order, that recognises its own screen speaks.
        # A verdict from signs any program shows (a menu) is no face: with no program knowing
        # the screen as its own, those signs are read for the command tmux names.
        if fg_profile.kind != "shell":
            claimed = False
            for p in registry.PROFILES:
                if p.OWN_FACE and p.kind != "shell" and p.runs_as(fg) and (v := p.classify(snap)):
                    if p.knows(snap):
                        return v
                    claimed = True
            if claimed and fg:
                return _unknown_foreground(fg, snap)
        speaker = fg_profile
    elif fg is not None:
        if started is None or started.kind == "shell":
            return _unknown_foreground(fg, snap)
        speaker = started  # a child of the started program (a build it runs, say)
    else:
        return _screen_only(snap)

    if speaker.kind == "shell":
        return _shell_in_front(speaker, snap, started, started_name)
    return _speaking(speaker, snap)


def detect(snap: Snapshot, *, program: str | None = None,
           before: Snapshot | None = None) -> Verdict:
    """The status of a pane from one snapshot (and, when given, an earlier one).

    ``program`` is the program the session was started for (a profile name
    or an executable), or None to tell from ``snap.program`` and the screen.
    ``before`` is an earlier look at the same pane: a screen that since
    changed only in a spinner glyph or a timer is busy.
    """
    try:
        verdict = _detect(snap, program if isinstance(program, str) and program else None)
        moved = signs.moving(before, snap) if before is not None else None
        if moved and verdict.status in (Status.READY, Status.UNKNOWN) and _animated(verdict):
            return Verdict(Status.BUSY, verdict.program, f"{quote(moved)} changed between two "
                           "looks only in a spinner glyph or a timer's digits")
        return verdict
    # a judge of screens answers; it never raises into the agent
    except Exception as exc:  # noqa: BLE001
        return Verdict(Status.UNKNOWN, program if isinstance(program, str) else None,
                       f"this screen could not be judged ({type(exc).__name__}: {exc}); read it")


def _animated(verdict: Verdict) -> bool:
    """Whether a spinner may stand on this program's screen (a shell prompt's clock is no
    spinner)."""
    speaker = profile_for(verdict.program)
    return speaker is None or speaker.kind in ("ai", "program")


def _snapshot(lines: list[str], *, ansi: str | None, cursor: tuple[int, int] | None,
              program: str | None, alternate: bool) -> Snapshot:
    lines = [line[:MAX_COLUMNS] for line in lines[:MAX_ROWS]]
    height = len(lines)
    width = max([sum(char_width(c) for c in line) for line in lines] + [1])
    if cursor is None:
        y = max(0, max((i for i, line in enumerate(lines) if line.strip()), default=0))
        text = lines[y].rstrip() if lines else ""
        cursor = (sum(char_width(c) for c in text), y)
    width = max(width, cursor[0] + 1)
    if ansi is not None:
        from ..screen import snapshot_from_capture

        return snapshot_from_capture(ansi, width=width, height=height, cursor=cursor,
                                     alternate=alternate, program=program)
    kept = [line.rstrip() for line in lines]
    while kept and not kept[-1]:
        kept.pop()
    return Snapshot(tuple(kept), width, height, cursor, alternate, program)


def _cursor(value: object) -> tuple[int, int] | None:
    """``(x, y)`` as two non-negative ints, or None (then the end of the last text row)."""
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2:
        return None
    x, y = value
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (x, y)):
        return None
    return (min(max(x, 0), MAX_COLUMNS), min(max(y, 0), MAX_ROWS))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def classify(
    screen: str | Sequence[str],
    *,
    program: str | None = None,
    ansi: str | None = None,
    cursor: tuple[int, int] | None = None,
    pane_command: str | None = None,
    alternate: bool = False,
    before: str | Sequence[str] | None = None,
) -> dict[str, object]:
    """Judge a recorded screen the way ``status`` judges a live pane.

    ``screen`` is the plain text (one string, or one string per row);
    ``ansi`` the same screen with SGR codes (adds styles); ``cursor`` is
    ``(x, y)`` in cells, by default the end of the last non-blank row;
    ``program`` the program the session was started for.  ``pane_command``
    and ``alternate`` are tmux's ``#{pane_current_command}`` and
    ``#{alternate_on}`` when they were recorded too: with them the result is
    exactly what :func:`detect` says on the live pane.  ``before`` is an
    earlier look at the same screen (plain text), if one was taken.

    Never raises: input it cannot use (a cursor of ``(None, None)``, rows
    that are not text) is left out or gives ``unknown`` with the reason.

    >>> classify("root@vm:~# ", program="bash")["status"]
    'ready'
    >>> classify("package name: (demo-app) ", program="npm")["status"]
    'blocked'
    """
    try:
        lines = _lines(screen)
        if lines is None:
            return Verdict(Status.UNKNOWN, _text(program), "the screen is not text: give a string "
                           "or a list of strings").as_dict()
        snap = _snapshot(lines, ansi=_text(ansi) if ansi != "" else None, cursor=_cursor(cursor),
                         program=_text(pane_command), alternate=alternate is True)
        earlier = _lines(before) if before is not None else None
        look = _snapshot(earlier, ansi=None, cursor=snap.cursor, program=_text(pane_command),
                         alternate=alternate is True) if earlier is not None else None
        return detect(snap, program=_text(program), before=look).as_dict()
    except Exception as exc:  # noqa: BLE001 - see detect
        return Verdict(Status.UNKNOWN, _text(program), "this screen could not be judged "
                       f"({type(exc).__name__}: {exc})").as_dict()


def _lines(screen: object) -> list[str] | None:
    """The rows of a screen given as one string or as a list of strings."""
    if isinstance(screen, str):
        return screen.split("\n")
    if isinstance(screen, (list, tuple)) and all(isinstance(r, str) for r in screen):
        return [r.replace("\n", " ") for r in screen]
    return None
