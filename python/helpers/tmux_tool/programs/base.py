"""What every program profile is made of, and the verdict it gives.

A profile is the one place that knows how a program looks and how to drive
it: how it is launched (an argv list, never a shell string), how text reaches
it (bracketed paste or typed keys), which key submits, how to leave it, which
modal dialogs it may show at start-up, and how to tell from a rendered screen
whether it is ready, busy, blocked or dead.  The detector in
:mod:`programs` picks the profile that speaks for a pane and asks it.

Screen judgements here follow one rule: the program's state is read at the
cursor line and the bottom of the screen, never from a marker anywhere in the
buffer.  Text that scrolled past (an echoed command, output that happens to
look like a prompt) must never decide a state.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from ..core.status import Status
from ..screen.cells import char_width
from ..screen.snapshot import Snapshot
from . import menus

Kind = Literal["shell", "repl", "pager", "editor", "monitor", "ai", "program"]
Step = tuple[Literal["text", "keys"], str]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The state of a pane and the one signal that decided it.

    ``question`` and ``options`` are filled for ``blocked``: what is being
    asked, and the keys or answers that would move it on (as shown on the
    screen where possible), so the agent can decide or ask its human.
    """

    status: Status
    program: str | None
    evidence: str
    question: str | None = None
    options: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"status": str(self.status), "program": self.program,
                                  "evidence": self.evidence}
        if self.status == Status.BLOCKED:
            out["question"] = self.question
            out["options"] = list(self.options)
        return out


@dataclass(frozen=True, slots=True)
class Dialog:
    """A modal screen a program may show (trust prompt, swap file, ...).

    ``pattern`` is searched in the text the profile says the dialog lives in;
    ``accept`` are the key names that would accept it; ``safe`` says whether
    accepting can be done without asking anyone (it loses no data and grants
    nothing the user did not already choose).  ``choose``, when set, names
    the option that accepts it in a menu: :meth:`Profile.accept_keys` then
    moves to that option from wherever the marker is, since releases reorder
    options and change the default (Claude Code's trust question marks
    "Yes, I trust this folder" in one release and "No, exit" in the next).
    """

    name: str
    pattern: re.Pattern[str]
    accept: tuple[str, ...]
    safe: bool
    question: str
    choose: re.Pattern[str] | None = None


@dataclass(frozen=True, slots=True)
class CursorLine:
    """The cursor row split at the cursor: what is left of it and right of it."""

    row: int
    before: str
    after: str

    @property
    def text(self) -> str:
        return (self.before + self.after).rstrip()


def cursor_line(snap: Snapshot) -> CursorLine:
    """Split the cursor row at the cursor's cell column.

    Columns count cells, so wide characters (CJK, emoji) take two; a cursor
    beyond the row's text sits after padding spaces, which are kept in
    ``before`` so "prompt plus one space" can be told from "prompt, then text".
    """
    x, y = snap.cursor
    row = snap.lines[y] if 0 <= y < len(snap.lines) else ""
    cells = 0
    for i, ch in enumerate(row):
        if cells >= x:
            return CursorLine(y, row[:i], row[i:])
        cells += char_width(ch)
    return CursorLine(y, row + " " * max(0, x - cells), "")


def bottom_row(snap: Snapshot) -> int:
    """Index of the last visible screen row (padding rows included)."""
    return max(snap.height, len(snap.lines)) - 1


def last_text_row(snap: Snapshot) -> int:
    """Index of the last row that holds any text (-1 on an empty screen)."""
    return next(iter(snap.text_rows(1)), -1)


def row(snap: Snapshot, y: int) -> str:
    return snap.lines[y] if 0 <= y < len(snap.lines) else ""


def typed(command: str) -> tuple[Step, ...]:
    """The steps that type ``command`` and press Enter (``/exit`` in an AI CLI)."""
    return (("text", command), ("keys", "Enter"))


def quote(text: str, limit: int = 60) -> str:
    """Screen text for an evidence sentence: stripped, shortened, quoted."""
    text = text.strip()
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return repr(text)


@dataclass(frozen=True)
class Profile:
    """How one program looks and is driven.  Subclasses teach ``classify``.

    ``executables`` are the values of tmux ``#{pane_current_command}`` that
    mean this program is in the foreground (shell-style wildcards allowed,
    e.g. ``python3.*``).  ``rank`` orders profiles when nothing but the screen
    is known: programs with the most distinctive faces go first.
    ``launch_env`` is environment the program is started with where the
    caller's environment does not set the name itself.
    """

    name: str
    executables: tuple[str, ...]
    kind: Kind
    paste: bool
    submit: tuple[str, ...] = ("Enter",)
    exit_steps: tuple[Step, ...] = ()
    dialogs: tuple[Dialog, ...] = ()
    command: tuple[str, ...] = ()
    rank: int = 50
    skip_permission_args: tuple[str, ...] = field(default=())
    launch_env: tuple[tuple[str, str], ...] = ()
    # Whether its screen alone tells it from other programs.  A CLI read by the chat reader looks
    # like any other chat CLI: it speaks only for a pane known to run it, never claims a screen.
    OWN_FACE: ClassVar[bool] = True

    def launch(self, args: Sequence[str] = (), *, skip_permissions: bool = False) -> list[str]:
        """The argv that starts this program (never a shell string)."""
        base = list(self.command or (self.name,))
        extra = list(self.skip_permission_args) if skip_permissions else []
        return [*base, *extra, *args]

    def runs_as(self, executable: str | None) -> bool:
        """Whether ``#{pane_current_command}`` names this program."""
        if not executable:
            return False
        return any(fnmatch.fnmatchcase(executable, pat) for pat in self.executables)

    def verdict(self, status: Status, evidence: str, question: str | None = None,
                options: Sequence[str] = ()) -> Verdict:
        return Verdict(status, self.name, evidence, question, tuple(options))

    def classify(self, snap: Snapshot) -> Verdict | None:
        """The state this screen shows, or None when it shows none of this
        program's own signals (the detector then falls back to generic
        rules and :meth:`when_silent`)."""
        return None

    def when_silent(self, snap: Snapshot) -> Verdict:
        """The state when this program is known to be in the foreground but
        its screen shows none of its signals: a REPL or shell without its
        prompt is working; a pager always waits for a key; an editor waits
        for input; a monitor keeps redrawing."""
        if self.kind == "pager":
            return self.verdict(Status.BLOCKED,
                                f"{self.name} is in the foreground, waiting for a key",
                                "pager waiting for a key", ("q", "Space", "G", "/"))
        if self.kind == "editor":
            return self.verdict(Status.READY,
                                f"{self.name} is in the foreground and shows no question")
        if self.kind == "monitor":
            return self.verdict(Status.BUSY,
                                f"{self.name} is in the foreground and redraws by itself")
        if self.kind == "ai":
            return self.verdict(Status.UNKNOWN, f"{self.name} shows none of its known screens")
        return self.verdict(Status.BUSY,
                            f"{self.name} is running and shows no prompt at the cursor line")

    def pending_input(self, snap: Snapshot) -> str | None:
        """Text typed where this program takes input and not submitted yet ("" when there is
        none), or None when the screen shows no input line this profile knows."""
        return None

    def knows(self, snap: Snapshot) -> bool:
        """Whether ``snap`` shows this program's own face, not only signs any program shows (a
        menu): what several programs under one command name are told apart by."""
        return True

    def find_dialog(self, text: str) -> Dialog | None:
        """The first of this profile's dialogs whose pattern is in ``text``."""
        for dialog in self.dialogs:
            if dialog.pattern.search(text):
                return dialog
        return None

    def accept_keys(self, snap: Snapshot, dialog: Dialog) -> tuple[str, ...]:
        """The keys to press now toward accepting ``dialog`` as this screen shows it.

        A dialog that names its accepting option (``choose``) is answered one
        step at a time, each judged on a fresh look: Up or Down while another
        option is marked, Enter once the chosen one is - so a key the program
        swallowed, or a default that moved, is seen and corrected.  It is
        accepted when Enter was pressed.  Otherwise (or when no menu shows)
        the dialog's fixed ``accept`` keys.
        """
        menu = menus.find_menu(snap) if dialog.choose is not None else None
        if menu is None or dialog.choose is None:
            return dialog.accept
        wanted = next((i for i, o in enumerate(menu.options) if dialog.choose.search(o)), None)
        if wanted is None:
            return dialog.accept
        return menus.keys_to(menu, wanted)[:1]

    def extract_answer(self, lines: Sequence[str], prompt: str | None) -> str | None:
        """The output of the last submitted input, or None if it cannot be cut out."""
        return None
