"""Which pane of the human's session a call is about.

The human's session is a tmux session with windows and panes that the human
opens, closes and rearranges at will; the page is one client among several.
So a call is bound to one pane by tmux's pane id (``%N``, which never moves
to another pane), resolved once at the start of the call:

* a pane the agent names: ``shared:WINDOW.PANE`` or ``shared:WINDOW`` as
  tmux writes them, or a pane id (``%3``, ``shared:%3``);
* else the pane of the agent's command (:data:`BOUND`, written in the same
  tmux command that presses Enter), while that pane's own record
  (:class:`.records.Sent`) says the command runs, or that its output has not
  been given to the agent yet: ``wait``, ``status``, ``read``, ``interrupt``
  and the answer to its question follow it, whatever window the human is
  looking at; a new command goes there only until the prompt is back;
* else the pane the human is looking at: the active pane of the session's
  current window.

A bound pane that was closed is reported once (:attr:`Target.lost`), never
replaced by another pane; a new command goes on to the pane the human looks
at, and its result notes the closure (:attr:`Target.closed`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.errors import BadName, NoServer, NoTarget, TmuxError
from ..transport import options
from ..transport.panes import PaneFacts
from ..transport.target import Target
from ..transport.tmux import SEP, Tmux
from .records import SENT, Sent

BOUND = options.BOUND
_SPEC = re.compile(r"(?:(?P<window>\d{1,6})(?:\.(?P<pane>\d{1,6}))?|(?P<id>%\d{1,9}))")


def split(name: str) -> tuple[str, str]:
    """A session name and the pane it names (tmux's words), e.g. ``shared:1.0`` -> ``("shared",
    "1.0")``.

    A bare pane id (``%3``) names no session: the caller's shared session is meant.
    """
    if name.startswith("%"):
        return "", name
    session, sep, pane = name.partition(":")
    if sep and not _SPEC.fullmatch(pane):
        raise BadName(f"session name {name!r} names no pane: write shared:WINDOW.PANE (e.g. "
                      "shared:1.0), shared:WINDOW, or a pane id such as %3")
    return session, pane


def bind(pane: str, facts: PaneFacts, text: str) -> str:
    """The value of :data:`BOUND` for a command submitted in ``pane``."""
    return json.dumps({"pane": pane, "window": facts.window, "name": facts.window_name,
                       "text": text[:80]}).replace("'", "\\u0027")


def _bound(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) and isinstance(value.get("pane"), str) else {}


def resolve(tmux: Tmux, session: str, spec: str, *, fresh: bool = False) -> Target:
    """The target of a call in the shared session, pinned to one pane (see the module's docstring).

    ``fresh``: the call types a new command, which goes to the pane the human
    looks at once the bound command's prompt is back (its output unread or
    not).  Naming a window (``shared:1``) means the pane of the agent's
    command there, else that window's active pane.  A session or server that
    is not there is left for the action to report: the target then has no pane
    id, and names the session's active pane.
    """
    base = Target(session, True, tmux)
    try:
        out = tmux.chain(
            ["display-message", "-p", "-t", f"={session}:", f"#{{pane_id}}{SEP}#{{{BOUND}}}"],
            [
                "list-panes",
                "-s",
                "-t",
                f"={session}",
                "-F",
                SEP.join(
                    [
                        "#{pane_id}",
                        "#{window_index}",
                        "#{pane_index}",
                        "#{pane_active}",
                        f"#{{{SENT}}}",
                    ]
                ),
            ],
        )
    except (NoServer, NoTarget):
        return base
    head, _, rest = out.partition("\n")
    active, _, raw = head.partition(SEP)
    rows = [(line.split(SEP, 4) + [""] * 5)[:5] for line in rest.splitlines()]
    bound = _bound(raw)
    ours = next((r for r in rows if r[0] == bound.get("pane")), None)
    follow = ours is not None and (
        Sent.parse(ours[4]).pending or (Sent.parse(ours[4]).owed and not fresh)
    )
    if spec:
        window, _, index = spec.partition(".")
        if follow and ours is not None and window == ours[1] and not index:
            return Target(session, True, tmux, ours[0])
        for pane, w, i, is_active, _sent in rows:
            if pane == spec or (w == window and (i == index if index else is_active == "1")):
                return Target(session, True, tmux, pane)
        raise BadName(f"there is no pane {spec} in the session {session!r} (panes: "
                      f"{', '.join(f'{r[1]}.{r[2]}' for r in rows)}); without a pane, {session!r} "
                      "means the pane the human is looking at")
    if not bound:
        return Target(session, True, tmux, active)
    if ours is not None:
        # Bound while the command runs, and for any call but a new command until its output was
        # given.
        return Target(session, True, tmux, ours[0] if follow else active)
    unbind(tmux, session)
    lost = (f"the pane {bound['pane']} (window {bound.get('window')} {bound.get('name', '')!r}) "
            f"where the agent's command {bound.get('text', '')!r} ran was closed; its output and "
            "end cannot be known")
    if fresh:  # a new command goes to the pane the human looks at, as any new command does
        return Target(session, True, tmux, active, closed=lost)
    return Target(session, True, tmux, active, lost)


def panes(tmux: Tmux, session: str) -> list[dict[str, Any]]:
    """Every pane of the session as the agent may name it: ``session:WINDOW.PANE``, id, window name,
    the program in front, and whether the human is looking at it."""
    try:
        out = tmux.cmd(
            "list-panes",
            "-s",
            "-t",
            f"={session}",
            "-F",
            SEP.join(
                [
                    "#{pane_id}",
                    "#{window_index}",
                    "#{pane_index}",
                    "#{window_name}",
                    "#{pane_current_command}",
                    "#{window_active}#{pane_active}",
                ]
            ),
        )
    except TmuxError:
        return []
    rows = []
    for line in out.splitlines():
        pane, window, index, name, command, active = (line.split(SEP) + [""] * 6)[:6]
        rows.append(
            {
                "name": f"{session}:{window}.{index}",
                "id": pane,
                "window_name": name,
                "command": command,
                "looked_at": active == "11",
            }
        )
    return rows


def unbind(tmux: Tmux, session: str) -> None:
    """Forget the bound pane: it is gone."""
    try:
        tmux.cmd("set-option", "-u", "-t", f"={session}:", BOUND)
    except TmuxError:
        pass


def unbind_if(pane: str, target: str = "") -> list[str]:
    """A tmux command that forgets the bound pane if it is ``pane`` (its output was given, or it is
    gone), decided inside tmux; ``target`` names the session when the pane is gone."""
    return _if_bound(pane, target or pane, f"set-option -u -t {target or pane} {BOUND}")


def _if_bound(pane: str, where: str, then: str) -> list[str]:
    return ["if-shell", "-F", "-t", where, f'#{{m:{{"pane": "{pane}"*,#{{{BOUND}}}}}', then]
