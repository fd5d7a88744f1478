"""Agent-facing sentences kept as prompt files, found the way Agent Zero finds prompts.

Agent Zero keeps what a tool tells the model in ``fw.*.md`` prompt files that
a user can edit or override; the hints this tool gives (what a status means,
what to do next) are ``fw.tmux_tool.<key>.md`` files beside its tool prompt.

Which copy of a file counts is Agent Zero's decision, not ours: inside Agent
Zero the tool hands its agent's own prompt reader (``agent.read_prompt``) to
:func:`reading_with`, so a file in a project's ``.a0proj/prompts/``, an agent
profile's ``prompts/``, ``usr/prompts/`` or another enabled plugin overrides
ours exactly as it overrides Agent Zero's own prompts.  Everywhere else
(command line, MCP server) the ``prompts`` folder of the tree this library
belongs to is read: the nearest folder above it that holds the tool prompt.

The reader gives the file's text; the ``{{name}}`` placeholders (Agent Zero's
syntax) are filled here, so a value such as the human's typed text is never
read as a template instruction.  Files are read on every call (a few hundred
bytes), so an edit takes effect at once; a file no one can find or read falls
back to the built-in text below, so a partial install still speaks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

PREFIX = "fw.tmux_tool."

# The built-in texts; prompts/fw.tmux_tool.<key>.md start as exact copies.
DEFAULTS: dict[str, str] = {
    "busy_after_timeout": (
        "still running after {{timeout}}s and left running: wait again with wait, look with read, "
        "answer with send/keys, or stop it with interrupt"
    ),
    "question": (
        "the command is waiting for an answer: reply with send or keys, or stop it with interrupt"
    ),
    "opened_program": (
        "the command is waiting in {{program}}, which takes input until it is left: drive it with "
        "keys or send (Vim: Escape : w q Enter saves and quits, Escape : c q Enter cancels), or "
        "stop it with interrupt"
    ),
    "blocked": (
        "{{program}} is waiting on a question: read the question and options, answer with keys "
        "(or send for text); if the answer needs the human's decision, ask the human first"
    ),
    "needs_human": (
        "{{program}} asks for a secret: the human types it, never you (never ask for it in chat). "
        "Tell the human in one sentence to type it at {{where}}, then call wait: it returns once "
        "it is answered"
    ),
    "human_holds": "the human has session {{session}}: nothing was typed",
    "human_holds_hint": (
        "wait until the human hands it back (wait, read and status work meanwhile), or ask the "
        "human"
    ),
    "human_typing": (
        "the human took over: they have typed {{text}} and not finished; nothing was typed"
    ),
    "human_typing_hint": "wait and try again, or ask the human; their text is never erased",
    "session_busy_hint": (
        "wait for it with wait, look with read, stop it with interrupt, or run in another session"
    ),
    "shared_run_refused": "run works in private sessions; the shared terminal is the human's",
    "shared_run_refused_hint": (
        "use send to type a command into the shared terminal, or run without session"
    ),
    "shell_exited": (
        "the shell itself exited (exit, or a failure under set -e/-u); the next run starts a fresh "
        "shell in the same directory"
    ),
    "wait_timeout_hint": "wait again, read the screen, or interrupt",
    "not_submitted": "the text is at the prompt, not submitted; press Enter with keys when ready",
    "still_running": "still running; wait for it with wait, read the screen, or interrupt it",
    "shared_keys_refused_hint": "ask the human, or use force: true only if the human asked for it",
    "shared_interrupt_refused": (
        "nothing this tool started is running in the shared terminal; Ctrl+C there would hit the "
        "human's work"
    ),
    "shared_missing": (
        "the shared session {{session}} (tmux socket {{socket}}) is not running; the human starts "
        "it with apps/shared-terminal/start.sh from the tmux_tool checkout"
    ),
    "no_session_hint": "create one with run (a shell) or start (a program); list shows what exists",
    "mcp_instructions": (
        "Terminals through tmux. run: one shell command in a private scratch session, exact output "
        "and exit code. The shared session is the human's terminal: read it freely; send/keys "
        "there are guarded, never erase or submit what the human typed, and never Ctrl+C the "
        "human's work. Interactive programs (REPLs, AI CLIs) go in private sessions: start, ask, "
        "exit. Status busy after a timeout means still running: wait again or interrupt. Status "
        "blocked means a question is on screen: answer it with keys, or ask the human when it is "
        "their decision."
    ),
}


MAIN_PROMPT = "agent.system.tool.tmux_tool.md"

Reader = Callable[[str], str]
"""Gives the text of a prompt file by its name; raises when it cannot."""

_reader: ContextVar[Reader | None] = ContextVar("tmux_tool_prompt_reader", default=None)


@contextmanager
def reading_with(reader: Reader) -> Iterator[None]:
    """Let ``reader`` find the prompt files for everything done inside the block.

    A context variable, so it follows the call into the worker thread that
    runs the action and never leaks to another agent's concurrent call.
    """
    token = _reader.set(reader)
    try:
        yield
    finally:
        _reader.reset(token)


@cache
def own_prompts() -> Path | None:
    """The ``prompts`` folder of the tree the library belongs to, if there is one.

    The nearest folder above the library holding our tool prompt: the
    repository, an Agent Zero plugin folder (``usr/plugins/tmux_tool``) or an
    Agent Zero v0.9.x ``usr`` folder.
    """
    for folder in Path(__file__).resolve().parents:
        if (folder / "prompts" / MAIN_PROMPT).is_file():
            return folder / "prompts"
    return None


def template(key: str) -> str:
    """The raw text for ``key``: the prompt file that counts, else the built-in."""
    if key not in DEFAULTS:
        raise KeyError(f"no message named {key!r}")
    name = f"{PREFIX}{key}.md"
    reader = _reader.get()
    if reader is not None:
        try:
            return reader(name).strip()
        except Exception:  # noqa: BLE001, S110
            # the host's reader failing must not silence the tool
            pass
    folder = own_prompts()
    if folder is not None:
        try:
            return (folder / name).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            pass
    return DEFAULTS[key]


def message(key: str, **values: object) -> str:
    """The text for ``key`` with its ``{{name}}`` placeholders filled in."""
    text = template(key)
    for name, value in values.items():
        text = text.replace("{{" + name + "}}", str(value))
    return text
