"""Program profiles and the status detector built on them.

Registry.  Every module of this package that defines ``PROFILES`` (a tuple of
:class:`Profile`) is registered when the package is imported; adding a
program is adding one module, with no list to edit elsewhere.  Names and
executables must be unique across modules - a clash is an import error, not
a silent override.

Detection (:func:`detect`, and :func:`classify` for recorded screens) reads
the facts tmux gives before the pixels: which program is in the foreground
(``#{pane_current_command}``, ``Snapshot.program``), whether the alternate
screen is on, where the cursor is.  Then the profile that speaks for the
foreground program reads the screen, at the cursor row and the bottom, never
anywhere else in the buffer:

1. tmux's "Pane is dead" line at the bottom: ``error``.
2. The program the session was started for, if it is (still) in the
   foreground; otherwise the profile of the foreground program.
3. A program that was started, with a shell back in the foreground showing
   its prompt: the program exited.  ``error`` when it left an error message
   or crash report right above the prompt (DESIGN); otherwise the shell's
   own state, since a clean exit is most likely one that was asked for.
4. A shell in the foreground without its prompt is running something: a
   pipeline into a pager or editor shows that program's face (tmux then names
   the shell, not ``less``); otherwise a question at the cursor, else busy.
5. An unknown foreground program: a question at the cursor is ``blocked``,
   a full-screen one is ``unknown``, anything else ``busy``.
6. Nothing known but the screen: the profiles try in rank order (REPLs and
   shells by their prompt at the cursor, then pagers, editors, monitors by
   their frame); failing all, a question, else ``unknown``.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Sequence

from ..screen.cells import char_width
from ..screen.snapshot import Snapshot
from .base import STATUSES, Dialog, Kind, Profile, Status, Step, Verdict, cursor_line, last_text_row, row
from .questions import ask
from .shell import split_prompt

__all__ = [
    "PROFILES",
    "STATUSES",
    "Dialog",
    "Kind",
    "Profile",
    "Status",
    "Step",
    "Verdict",
    "classify",
    "detect",
    "profile_for",
]

DEAD = re.compile(r"^Pane is dead \(")
# An exited program leaves the *user's* shell prompt, which ends in $, # or %;
# a bare "> " is as likely the program's own input prompt.
EXIT_PROMPT_END = ("$", "#", "%")
FULL_SCREEN_KINDS: tuple[Kind, ...] = ("pager", "editor", "monitor")
CRASH = re.compile(
    r"(?i)\b(?:killed|segmentation fault|core dumped|aborted|traceback|panic|fatal|terminated|bus error"
    r"|illegal instruction)\b|(?:error|exception)\b"
)
CRASH_ROWS = 4


def _discover() -> tuple[Profile, ...]:
    found: list[Profile] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.extend(getattr(module, "PROFILES", ()))
    names: set[str] = set()
    for p in found:
        if p.name in names:
            raise ImportError(f"two program profiles are named {p.name!r}")
        names.add(p.name)
    return tuple(sorted(found, key=lambda p: (p.rank, p.name)))


PROFILES: tuple[Profile, ...] = _discover()
_BY_NAME = {p.name: p for p in PROFILES}


def profile_for(name_or_executable: str | None) -> Profile | None:
    """The profile named so, or whose executables match (``python3.11``)."""
    if not name_or_executable:
        return None
    key = name_or_executable.rsplit("/", 1)[-1]
    if key in _BY_NAME:
        return _BY_NAME[key]
    return next((p for p in PROFILES if p.runs_as(key)), None)


def _dead(snap: Snapshot, program: str | None) -> Verdict | None:
    last = row(snap, last_text_row(snap))
    if DEAD.match(last):
        return Verdict("error", program, f"tmux reports {last.strip()!r}: the pane's program has ended")
    return None


def _recognise(snap: Snapshot, kinds: Sequence[Kind] | None = None) -> Verdict | None:
    """The first profile (in rank order) that sees its own signals."""
    for p in PROFILES:
        if (kinds is None or p.kind in kinds) and (v := p.classify(snap)):
            return v
    return None


def _crash_sign(snap: Snapshot) -> str | None:
    """An error or crash message the exited program left above the prompt.

    Only the few rows between the prompt at the cursor and the shell's
    previous prompt (the command that started the program) are read.
    """
    seen = 0
    for y in range(cursor_line(snap).row - 1, -1, -1):
        text = row(snap, y).strip()
        if not text:
            continue
        if CRASH.search(text):  # before the prompt test: "> Killed" reads like a prompt row
            return text
        split = split_prompt(text)
        if split and split[1]:
            break
        seen += 1
        if seen == CRASH_ROWS:
            break
    return None


def _after_exit(started: str, snap: Snapshot, shell: Verdict) -> Verdict:
    """DESIGN: a started program that exited to the shell with an error
    message or a crash is ``error``; one that left cleanly leaves the shell's
    own state (it was most likely told to exit)."""
    if sign := _crash_sign(snap):
        return Verdict("error", started, f"{started} exited to the shell after {sign!r}")
    return Verdict(shell.status, shell.program, f"{started} has exited without an error; {shell.evidence}",
                   shell.question, shell.options)


def _shell_in_front(shell: Profile, snap: Snapshot, started: Profile | None, started_name: str | None) -> Verdict:
    own = shell.classify(snap)
    # Without tmux's word on who is in front, a REPL's own prompt (">>> ",
    # "sqlite> ") outranks the shell reading it as a PS1 - but not the PS2 "> ".
    unsure = snap.program is None and not (own and own.status == "blocked")
    if unsure and (v := _recognise(snap, ("ai", "repl"))):
        return v
    if started_name and (started is None or started.kind != "shell"):
        if own is not None:
            return _after_exit(started_name, snap, own)
        # No prompt: the program may still be showing its own screen through
        # a pipeline, where tmux names the shell rather than the program.
        if started and (v := started.classify(snap)):
            return v
    if own is not None:
        return own
    if v := _recognise(snap, FULL_SCREEN_KINDS):
        return v
    return ask(snap, shell.name) or shell.when_silent(snap)


def _unknown_foreground(fg: str, snap: Snapshot) -> Verdict:
    if q := ask(snap, fg):
        return q
    if snap.alternate:
        if v := _recognise(snap, FULL_SCREEN_KINDS):
            return v
        return Verdict("unknown", fg, f"{fg} holds the full screen and no profile knows its screens")
    return Verdict("busy", fg, f"{fg} is running in the foreground with no question at the cursor")


def _screen_only(snap: Snapshot, started_name: str | None) -> Verdict:
    if v := _recognise(snap):
        return v
    if q := ask(snap, started_name):
        return q
    return Verdict("unknown", started_name, "no known prompt, question or program screen at the cursor")


def _exit_prompt(snap: Snapshot) -> Verdict | None:
    """A user's shell prompt at the cursor, judged by a shell profile."""
    cl = cursor_line(snap)
    split = split_prompt(cl.before.rstrip())
    if not (split and split[0].endswith(EXIT_PROMPT_END)):
        return None
    return _recognise(snap, ("shell",))


def detect(snap: Snapshot, *, program: str | None = None) -> Verdict:
    """The status of a pane from one snapshot.

    ``program`` is the program the session was started for (a profile name
    or an executable), or None to tell from ``snap.program`` and the screen.
    """
    started = profile_for(program)
    started_name = started.name if started else program
    if v := _dead(snap, started_name):
        return v
    fg = snap.program
    fg_profile = profile_for(fg)

    if started and (fg is None or started.runs_as(fg)):
        speaker: Profile = started
    elif fg_profile is not None:
        # Several programs run under one name (Codex and Gemini CLI as `node`, beside the
        # node REPL): the first, in rank order, that recognises its own screen speaks.
        if fg_profile.kind != "shell":
            for p in PROFILES:
                if p.kind != "shell" and p.runs_as(fg) and (v := p.classify(snap)):
                    return v
        speaker = fg_profile
    elif fg is not None:
        if started is None or started.kind == "shell":
            return _unknown_foreground(fg, snap)
        speaker = started  # a child of the started program (a build it runs, say)
    else:
        return _screen_only(snap, started_name)

    if speaker.kind == "shell":
        return _shell_in_front(speaker, snap, started, started_name)
    if v := speaker.classify(snap):
        return v
    if fg is None and (shell := _exit_prompt(snap)):
        return _after_exit(speaker.name, snap, Verdict(shell.status, None, shell.evidence))
    return ask(snap, speaker.name) or speaker.when_silent(snap)


def _snapshot(
    lines: list[str],
    *,
    ansi: str | None,
    cursor: tuple[int, int] | None,
    program: str | None,
    alternate: bool,
) -> Snapshot:
    height = len(lines)
    width = max([sum(char_width(c) for c in line) for line in lines] + [1])
    if cursor is None:
        y = max(0, max((i for i, line in enumerate(lines) if line.strip()), default=0))
        text = lines[y].rstrip() if lines else ""
        cursor = (sum(char_width(c) for c in text), y)
    width = max(width, cursor[0] + 1)
    if ansi is not None:
        from ..screen import snapshot_from_capture

        return snapshot_from_capture(ansi, width=width, height=height, cursor=cursor, alternate=alternate,
                                     program=program)
    kept = [line.rstrip() for line in lines]
    while kept and not kept[-1]:
        kept.pop()
    return Snapshot(tuple(kept), width, height, cursor, alternate, program)


def classify(
    screen: str | Sequence[str],
    *,
    program: str | None = None,
    ansi: str | None = None,
    cursor: tuple[int, int] | None = None,
    pane_command: str | None = None,
    alternate: bool = False,
) -> dict[str, object]:
    """Judge a recorded screen the way ``status`` judges a live pane.

    ``screen`` is the plain text (one string, or one string per row);
    ``ansi`` the same screen with SGR codes (adds styles); ``cursor`` is
    ``(x, y)`` in cells, by default the end of the last non-blank row;
    ``program`` the program the session was started for.  ``pane_command``
    and ``alternate`` are tmux's ``#{pane_current_command}`` and
    ``#{alternate_on}`` when they were recorded too: with them the result is
    exactly what :func:`detect` says on the live pane.
    """
    lines = screen.split("\n") if isinstance(screen, str) else list(screen)
    snap = _snapshot(lines, ansi=ansi, cursor=cursor, program=pane_command, alternate=alternate)
    return detect(snap, program=program).as_dict()
