"""Agent-facing sentences kept as prompt files, so they can be tuned without code.

Agent Zero keeps what a tool tells the model in ``prompts/fw.*.md`` files that
a user can edit or override; the hints this tool gives (what a status means,
what to do next) belong there too.  :func:`message` reads
``prompts/fw.tmux_tool.<key>.md`` from the root of whatever tree the library
sits in - this repository and an Agent Zero v0.9.x install
(``<root>/python/helpers/tmux_tool`` → ``<root>/prompts``, with
``<root>/usr/prompts`` taking precedence as Agent Zero's user overrides do) or
an Agent Zero plugin (``usr/plugins/tmux_tool/helpers/tmux_tool`` →
``usr/plugins/tmux_tool/prompts``) - and fills its ``{{name}}`` placeholders,
the placeholder syntax of Agent Zero's own prompt files.  Files are read on
every call (they are a few hundred bytes), so an edit takes effect at once.
A missing or unreadable file falls back to the built-in text below, so a
partial install still speaks.
"""

from __future__ import annotations

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
    "blocked": (
        "{{program}} is waiting on a question: read the question and options, answer with keys "
        "(or send for text); if the answer needs the human's decision, ask the human first"
    ),
    "human_typing": (
        "the human has typed {{text}} at the prompt and has not finished; nothing was typed"
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
        "the shared session {{session}} (tmux socket {{socket}}) is not running; the human starts it "
        "with apps/shared-terminal/start.sh from the tmux_tool checkout"
    ),
    "no_session_hint": "create one with run (a shell) or start (a program); list shows what exists",
    "mcp_instructions": (
        "Terminals through tmux. run: one shell command in a private scratch session, exact output "
        "and exit code. The shared session is the human's terminal: read it freely; send/keys there "
        "are guarded, never erase or submit what the human typed, and never Ctrl+C the human's work. "
        "Interactive programs (REPLs, AI CLIs) go in private sessions: start, ask, exit. Status busy "
        "after a timeout means still running: wait again or interrupt. Status blocked means a question "
        "is on screen: answer it with keys, or ask the human when it is their decision."
    ),
}


def _roots() -> list[Path]:
    """Folders that may hold this install's prompt files, most specific first."""
    pkg = Path(__file__).resolve().parents[1]  # the library package, above core/
    plugin_root, tree_root = pkg.parents[1], pkg.parents[2]
    return [plugin_root / "prompts", tree_root / "usr" / "prompts", tree_root / "prompts"]


def template(key: str) -> str:
    """The raw text for ``key``: the first prompt file found, else the built-in."""
    if key not in DEFAULTS:
        raise KeyError(f"no message named {key!r}")
    for folder in _roots():
        try:
            return (folder / f"{PREFIX}{key}.md").read_text(encoding="utf-8").strip()
        except (FileNotFoundError, NotADirectoryError, PermissionError, UnicodeDecodeError):
            continue
    return DEFAULTS[key]


def message(key: str, **values: object) -> str:
    """The text for ``key`` with its ``{{name}}`` placeholders filled in."""
    text = template(key)
    for name, value in values.items():
        text = text.replace("{{" + name + "}}", str(value))
    return text
