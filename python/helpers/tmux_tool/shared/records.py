"""What the tool remembers about the human's session, kept in tmux user options.

Agent Zero may build a new tool object per call and the command line is a
new process every time, so memory lives in the tmux session itself:

* ``@tmux_tool_prompt``: the learned prompt pattern of each shell process
  (``{"<pid>": "<regex>"}``, the newest few);
* ``@tmux_tool_sent``: what the tool last typed into a pane (:class:`Sent`), an
  option of that pane, so another pane of the session never inherits it;
* ``@tmux_tool_owned``: the foreground process groups the tool's commands
  started (``"<pgrp>:<start tick>"``), the only programs it may type into;
* ``@tmux_tool_upper``: the upper rows of each shell's prompt (``{"<pid>":
  [rows]}``, ``[]`` for a prompt of one row), once proven (:mod:`.output`).

A record never outlives what it describes: :class:`Sent` is "pending" only
until the shell is seen back at its prompt, and an owned group is matched by
its start time, so a recycled process id never inherits it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from ..core.errors import TmuxError
from ..transport import options
from ..transport.tmux import Tmux
from .prompt import MAX_PROMPTS

PROMPTS, SENT, OWNED, UPPER = options.PROMPTS, options.SENT, options.OWNED, options.UPPER
KEEP_OWNED = 8
GRACE = 2.0  # seconds the shell may take to read what we typed before we stop counting on it


def _json(text: str, kind: type) -> Any:
    try:
        value = json.loads(text) if text else kind()
    except ValueError:
        return kind()
    return value if isinstance(value, kind) else kind()


@dataclass(frozen=True, slots=True)
class Sent:
    """The tool's last injection: its text, whether it was submitted, and the shell's read count
    then."""

    text: str = ""
    submitted: bool = False
    at: float = 0.0
    # the kernel's boot clock tick then: a process started since has a start tick at least this
    tick: int = 0
    shell: int = 0  # pid of the shell that was in front when we typed
    rchar: int = -1  # that shell's bytes read before we typed (-1: unknown)
    size: int = 0  # bytes we typed
    back: bool = True  # the shell was seen at its prompt again after this
    head: str = ""  # the cursor line left of the cursor when we typed (the prompt or question)
    row: int = -1  # the cursor row when we typed, counted from the top of history (-1: unknown)
    width: int = 0  # the pane's width then (a resize rewraps the rows)
    history: int = 0  # the history's size then (it shrinks only when cleared)
    # the rows right above the cursor's row then: a multi-line prompt's upper rows
    above: tuple[str, ...] = ()
    # the command's output, prompt back, was given to the agent (send or wait)
    delivered: bool = False

    @classmethod
    def parse(cls, text: str) -> Sent:
        data = _json(text, dict)
        fields = {k: data[k] for k in cls.__slots__ if k in data}
        if isinstance(fields.get("above"), list):
            fields["above"] = tuple(str(row) for row in fields["above"])
        try:
            return cls(**fields)
        except TypeError:
            return cls()

    @property
    def pending(self) -> bool:
        """Our submitted command has not given the prompt back yet (as far as we have seen)."""
        return self.submitted and not self.back

    @property
    def owed(self) -> bool:
        """A command we submitted whose output, once its prompt is back, has not been given to the
        agent."""
        return self.submitted and bool(self.text) and not self.delivered

    @property
    def leftover(self) -> str:
        """Text we typed without Enter: the only line content the tool may clear."""
        return self.text if self.text and not self.submitted else ""

    def unread(self, rchar: int, now: float) -> bool:
        """The shell has not yet read all we typed (within the grace period)."""
        return (self.rchar >= 0 and rchar >= 0 and rchar - self.rchar < self.size
                and now - self.at < GRACE)


def prompts(text: str) -> dict[str, str]:
    """The learned prompt patterns, by shell pid."""
    return {str(k): str(v) for k, v in _json(text, dict).items()}


def uppers(text: str) -> dict[str, list[str]]:
    """The proven upper rows of each shell's prompt, by shell pid."""
    return {
        str(k): [str(r) for r in v] for k, v in _json(text, dict).items() if isinstance(v, list)
    }


def owned(text: str) -> list[str]:
    """The foreground groups our commands started."""
    return [str(v) for v in _json(text, list)]


def dump(value: Any) -> str:
    """A record as the JSON kept in its option (ASCII only, so it is safe in a tmux command
    string)."""
    return json.dumps(asdict(value) if isinstance(value, Sent) else value).replace("'", "\\u0027")


def save(tmux: Tmux, target: str, option: str, value: Any) -> None:
    """Write one record (:data:`SENT` on the pane, the others on the session); a vanished session is
    not an error worth raising here."""
    scope = ["-p"] if option == SENT else []
    try:
        tmux.cmd("set-option", *scope, "-t", target, option, dump(value))
    except TmuxError:
        pass


def learn(tmux: Tmux, target: str, book: dict[str, str], pid: int, pattern: str) -> None:
    """Remember ``pattern`` as the prompt of shell ``pid`` (the newest few shells are kept)."""
    book = {k: v for k, v in book.items() if k != str(pid)}
    book[str(pid)] = pattern
    save(tmux, target, PROMPTS, dict(list(book.items())[-MAX_PROMPTS:]))


def claim(tmux: Tmux, target: str, groups: list[str], owner: str) -> None:
    """Record a foreground group as started by the tool."""
    if owner and owner not in groups:
        save(tmux, target, OWNED, [*groups, owner][-KEEP_OWNED:])
