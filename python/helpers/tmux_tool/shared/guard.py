"""Where the agent may type in the human's terminal, and what it may never type there.

The rules (docs/ARCHITECTURE.md, "The shared session"):

* text goes only into the top-level shell at its prompt, or into a shell or
  program the tool itself started there (recorded in tmux); a program the
  human opened - vim, a REPL, a pager, ssh, a nested shell - gets nothing
  unless the call says ``force`` (which the tool prompt reserves for when the
  human asked for it);
* keys that discard or end something (``C-c``, ``C-u``, ``C-d`` ...) only
  for what the tool typed or started;
* never end the human's shell: ``exit``, ``logout``, ``exec CMD`` and
  ``kill`` of the shell or of its parent (the tmux server) are refused while
  the top-level shell would run them;
* the agent's own command line is checked by the shell's own parser first
  (``bash -n`` ...): an unclosed quote or here-document would leave the
  shell at its continuation prompt, so it is refused with the reason.
"""

from __future__ import annotations

import re
import shlex
import shutil
from dataclasses import dataclass

from ..core.status import Status
from ..judgement import human
from ..judgement.state import State
from ..transport.process import run

DESTRUCTIVE_KEYS = frozenset({"C-c", "C-u", "C-d", "C-\\", "C-z", "C-w", "C-k"})
_PLAIN = re.compile(r"[A-Za-z0-9_./=:,+@%~ -]+")
# Words that open a construct the shell then waits to see closed (bash, zsh, fish, dash).
_RESERVED = frozenset(
    {
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "for",
        "while",
        "until",
        "do",
        "done",
        "case",
        "esac",
        "select",
        "function",
        "begin",
        "end",
        "switch",
        "repeat",
        "foreach",
        "coproc",
        "time",
    }
)
# Words after which the next word is still a command the shell runs: `builtin exit`, `{ exit; }`,
# `if true; then exit; fi`, `! exit`, `time exit`.
_LEADS = frozenset(
    {"builtin", "command", "{", "!", "if", "then", "else", "elif", "do", "while", "until", "time"}
)
_SEPARATORS = re.compile(r"\|\||&&|[;&|\n()]")
_CHECKERS = {
    "bash": ["bash", "-n"],
    "zsh": ["zsh", "-n"],
    "dash": ["dash", "-n"],
    "sh": ["sh", "-n"],
    "fish": ["fish", "--no-execute"],
    "ksh": ["ksh", "-n"],
    "mksh": ["mksh", "-n"],
}


@dataclass(frozen=True, slots=True)
class Leave:
    """Leave to type now, or not: go, hold (retry until the timeout), or refuse (waiting will not
    help)."""

    go: bool
    reason: str = ""
    final: bool = False


GO = Leave(True)


def ours(st: State) -> bool:
    """Is what runs or waits in front something the tool typed or started?"""
    if st.notes.owner == "agent" or st.notes.leftover:
        return True
    return bool(st.notes.pending)


def may_type(st: State, *, text: str, keys: tuple[str, ...], force: bool) -> Leave:
    """Decide from the session's state whether ``text``/``keys`` may be typed now."""
    if st.notes.copy_mode:
        return Leave(False, "the human is scrolling in copy mode")
    human_text = st.notes.human_text
    if human_text and (st.notes.in_program or not (keys and not text and ours(st))):
        # In a program, every key acts on the human's line: Enter submits it, C-c or C-u discards
        # it.
        where = f"in {st.program}" if st.notes.in_program else "at the prompt"
        return Leave(False, f"the human has typed {human_text!r} {where}")
    if (secret := human.refusal(st, text, keys)) is not None:
        return Leave(False, secret, final=True)
    if force:
        return GO
    owner = st.notes.owner
    if owner == "human":
        what = st.program or "a program"
        return Leave(False, f"the human is using {what}", final=True)
    destructive = sorted(set(keys) & DESTRUCTIVE_KEYS)
    if destructive and not ours(st):
        return Leave(
            False,
            f"{', '.join(destructive)} in the shared terminal is only sent to stop or clear "
            "what this tool typed, and nothing of ours is running or pending there",
            final=True,
        )
    if owner == "agent":
        if keys or st.status in (Status.READY, Status.BLOCKED) or st.notes.reading:
            return GO
        return Leave(False, f"our {st.program or 'program'} is {st.status}: {st.evidence}")
    if st.notes.leftover:
        return GO
    if st.notes.continuation:
        return Leave(
            False,
            "the shell waits for the rest of a command the human started; typing now would "
            "become part of it",
            final=True,
        )
    if st.status == Status.BLOCKED:
        if ours(st):
            return GO
        return Leave(
            False,
            f"a command the human ran asks a question ({st.question!r}); it is theirs to answer",
            final=True,
        )
    if st.status == Status.READY:
        return GO
    if keys and ours(st):
        return GO
    return Leave(False, f"the session is {st.status}: {st.evidence}")


def ends_shell(text: str) -> str | None:
    """Why ``text`` would end the shell it is typed into (None when it would not)."""
    for part in _SEPARATORS.split(text):
        try:
            words = shlex.split(part, comments=True)
        except ValueError:
            words = part.split()
        while words and ("=" in words[0] and not words[0].startswith("=") or words[0] in _LEADS):
            words = words[1:]
        if not words:
            continue
        head, args = words[0], words[1:]
        # `kill` after a command that runs it (sudo, env, nohup, timeout 5): the shell expands $$
        # first.
        at = next((i for i, word in enumerate(words) if word.rsplit("/", 1)[-1] == "kill"), None)
        if at is not None:
            head, args = "kill", words[at + 1:]
        if head in ("exit", "logout"):
            return f"`{head}` would end the human's shell, and with it the shared terminal"
        if head == "exec" and any(
            not re.match(r"^\d*[<>]", a) for a in args if not a.startswith("-")
        ):
            return (
                "`exec` would replace the human's shell, and end the shared terminal when it exits"
            )
        if head == "kill" and any(
            a in ("$$", "0", "-1", "%%", "%+") or a.endswith("$$") for a in args
        ):
            return "`kill` of the shell's own process would end the human's shell"
        if head == "kill" and any(a in ("$PPID", "${PPID}") for a in args):
            return ("`kill` of the shell's parent, the tmux server, would end the human's shell "
                    "and every pane")
    return None


def syntax_error(text: str, shell: str) -> str | None:
    """The shell's own parser on ``text``: its complaint, or None (also when it cannot be asked).

    A line of plain words (no quote, escape, operator, bracket or reserved word) is complete in
    every shell: it needs no parser process.
    """
    if _PLAIN.fullmatch(text) and not (set(text.split()) & _RESERVED):
        return None
    argv = _CHECKERS.get(shell.lstrip("-"))
    program = shutil.which(argv[0]) if argv else None
    if not argv or not program:
        return None
    try:
        code, _, stderr = run(argv, text.encode("utf-8", "surrogateescape"), 3, program)
    except (OSError, TimeoutError):
        return None
    detail = stderr.decode("utf-8", "replace").strip().splitlines()
    if code == 0:
        # bash accepts an unterminated here-document with only a warning, and a trailing backslash
        # silently: typed at a prompt, both leave the shell waiting for more lines.
        if any("here-document" in line for line in detail):
            return detail[-1]
        if _continued(text):
            return "the last line ends with a backslash, so the shell would wait for the next one"
        return None
    return detail[-1] if detail else f"{argv[0]} reports a syntax error"


def _continued(text: str) -> bool:
    """Does the last line end in an unescaped backslash (a line continuation)?"""
    last = text.rstrip("\n").rsplit("\n", 1)[-1]
    return (len(last) - len(last.rstrip("\\"))) % 2 == 1


def own_pid(text: str, shell_pid: int) -> bool:
    """Does ``text`` name the shell's pid in a ``kill``?"""
    return bool(shell_pid) and bool(re.search(rf"\bkill\b[^;&|\n]*\b{shell_pid}\b", text))
