"""One injection into the human's terminal: typed only if nothing changed since the look.

The look that allowed it and the keystroke are apart in time; the human may
press a key, scroll or resize in between.  So the paste (or keys) runs inside
one ``if-shell -F`` whose condition (:func:`unchanged`) tmux checks at the
keystroke against what the look saw, with the human's pause and
synchronize-panes read at that moment too.  What is typed is recorded
(:func:`about_to_type`) in the same tmux command, and told to the page.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import replace

from .. import programs
from ..core.config import Config
from ..judgement.state import State
from ..transport import kernel, keyboard
from ..transport.panes import PaneFacts
from ..transport.target import Target
from ..transport.tmux import Tmux
from . import audit, control, judge, output, prompt, records, seen, where
from .look import Look
from .records import Sent

MIN_GAP = 0.02  # between two injections: at most 50 a second
# Before text at a shell's prompt: a line left in vi command mode (bash `set -o vi`, zsh `bindkey
# -v`, fish's vi bindings) would take every letter of it as an editing command - `k` fetches
# history, Enter runs the result.  `i` enters insert mode there; anywhere else it is a letter, which
# BSpace takes back.
INSERT_MODE = ("i", "BSpace")
# With synchronize-panes on, tmux sends every key pressed in a pane to all panes of its window: the
# human's half-typed lines and open editors there would get them.  Nothing is typed then (checked at
# the keystroke).
UNSYNCHRONIZED = "#{!=:#{synchronize-panes},1}"


def unchanged(facts: PaneFacts) -> str:
    """The condition tmux checks at the keystroke: nothing changed since the look that allowed it.

    No key of the human's since the look (where their keys can go), no cursor
    move, no scroll, no resize; the human has not paused the agent, the window
    does not synchronize its panes; and the pane's process is alive: tmux 3.3a
    crashes, the human's whole server with it, on a paste into a dead pane
    that remain-on-exit keeps.
    """
    keys_seen = f"{facts.session_activity}/" if facts.focused else "not-focused/"
    keys_now = (
        "#{session_activity}/"
        if facts.focused
        else "#{?#{&&:#{pane_active},#{window_active}},,not-focused/}"
    )
    seen_then = (
        f"{keys_seen}{facts.cursor[0]}/{facts.cursor[1]}/{facts.history_size}/"
        f"{facts.width}x{facts.height}"
    )
    now = keys_now + "#{cursor_x}/#{cursor_y}/#{history_size}/#{pane_width}x#{pane_height}"
    return (
        "#{&&:#{&&:#{&&:#{==:"
        + now
        + ","
        + seen_then
        + "},"
        + control.ALLOWED
        + "},"
        + UNSYNCHRONIZED
        + "},#{?pane_dead,0,1}}"
    )


def too_soon(cfg: Config) -> bool:
    """Was the last injection less than :data:`MIN_GAP` ago?  Then wait that long (rate limit)."""
    gap = MIN_GAP - (time.time() - seen.last_injection(cfg.shared_dir))
    if gap > 0:
        time.sleep(min(gap, MIN_GAP))
    return gap > 0


def type_now(
    cfg: Config,
    target: Target,
    st: State,
    lk: Look,
    text: str,
    enter: bool,
    keys: tuple[str, ...],
    audit_as: str,
) -> tuple[Sent, str] | None:
    """Type, if nothing changed since ``lk`` (checked by tmux at the keystroke): what was typed and
    its entry in the audit trail, or None when the moment was lost."""
    log = cfg.shared_dir / "audit.log"
    what = text or " ".join(keys)
    editor = not (lk.term.front and lk.term.front.comm.lstrip("-") in judge.NO_EDITOR)
    lead = INSERT_MODE if text and st.notes.prompt and editor else ()
    sent = about_to_type(st, lk, text, enter, keys, lead)
    told = audit.injection_telling(target.pane, log, what, submitted=sent.submitted)
    if not inject(
        target, lk, text, enter, keys, sent, lead, bracketed=pastes(st.program), also=told
    ):
        return None
    entry = audit.record_injection(
        target.tmux,
        target.pane,
        log,
        {
            "time": time.time(),
            "action": audit_as,
            "session": target.name,
            "text": text,
            "keys": list(keys),
            "enter": enter,
        },
        submitted=sent.submitted,
        told=True,
    )
    return sent, entry


def clear_leftover(tmux: Tmux, pane: str, lk: Look) -> None:
    """Clear our own unsent text (``C-u``) before typing anew: only ours is ever cleared."""
    keyboard.press(tmux, pane, ["C-u"])
    records.save(tmux, pane, records.SENT, replace(lk.sent, text=""))


def pastes(program: str | None) -> bool:
    """Does text go to ``program`` as a bracketed paste?  Not to Vim, where it would insert
    ``:wq``."""
    profile = programs.profile_for(program) if program else None
    return profile.paste if profile is not None else True


def inject(target: Target, lk: Look, text: str, enter: bool, keys: tuple[str, ...],
           sent: Sent, lead: tuple[str, ...] = (), *, bracketed: bool = True,
           also: Sequence[Sequence[str]] = ()) -> bool:
    """Paste/press only if nothing changed since we looked - atomically, inside tmux - and record
    it.

    ``lead`` keys go first (:data:`INSERT_MODE` before text typed at a shell's prompt);
    ``bracketed`` says whether the text is a bracketed paste (when the program asked for those) or
    plain keys; ``also`` are tmux commands that run with the keystrokes (telling the page), only if
    they do.
    """
    pane = target.pane
    facts = lk.facts
    buf = f"tt-{os.getpid()}-{int(time.time() * 1e6) % 10**9}"
    actions = []
    if lead:
        actions.append(f"send-keys -t {pane} " + " ".join(_word(k) for k in lead))
    if text:
        actions.append(f"paste-buffer {'-p ' if bracketed else ''}-d -b {buf} -t {pane}")
    if keys:
        actions.append(f"send-keys -t {pane} " + " ".join(_word(k) for k in keys))
    if enter:
        actions.append(f"send-keys -t {pane} Enter")
    actions.append(f"set-option -p -t {pane} {records.SENT} {_word(records.dump(sent))}")
    if sent.submitted and not sent.back:
        actions.append(
            f"set-option -t {pane} {where.BOUND} "
            f"{_word(where.bind(facts.pane_id or pane, facts, sent.text or ' '.join(keys)))}"
        )
    actions.extend(" ".join(_word(arg) for arg in command) for command in also)
    steps: list[list[str]] = []
    if text:
        steps.append(["load-buffer", "-b", buf, "-"])
    refused = (
        f"delete-buffer -b {buf} ; display-message -p tt-refused"
        if text
        else "display-message -p tt-refused"
    )
    steps.append(["if-shell", "-F", "-t", pane, unchanged(facts), " ; ".join(actions), refused])
    out = target.tmux.chain(*steps, input=text.encode("utf-8", "surrogateescape") if text else None)
    return "tt-refused" not in out


def _word(key: str) -> str:
    """A key name as one literal word of a tmux command string (no ``;``, ``#``, ``~``, ``$``
    magic)."""
    if "'" not in key:
        return f"'{key}'"
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


def about_to_type(st: State, lk: Look, text: str, enter: bool, keys: tuple[str, ...],
                  lead: tuple[str, ...] = ()) -> Sent:
    """What we are about to type: a submitted command is pending until its prompt is back."""
    ends_line = enter or any(k in ("Enter", "C-m", "C-j", "C-c", "C-d") for k in keys)
    front = lk.term.front
    size = len(text.encode("utf-8", "surrogateescape")) + (1 if enter else 0) + len(lead)
    # Read from the kernel's own clock, not converted from wall time later: a process this command
    # starts has a start tick at least this one however long the judgement that compares them is
    # delayed.
    tick = kernel.started_ticks(0, lk.kernel)
    if keys and not text:
        # Keys keep our unsent text ours (End, Left) unless they clear or end the line; they never
        # turn a submitted command back into unsent text, so a line the human recalls later is never
        # taken for ours.
        sent = replace(
            lk.sent,
            text="" if "C-u" in keys or ends_line else lk.sent.text,
            at=time.time(),
            tick=tick,
            submitted=lk.sent.submitted or ends_line,
            back=lk.sent.back and not ends_line,
            rchar=-1,
            size=0,
        )
    else:
        head = (
            st.notes.prompt
            or prompt.candidate(lk.snap.cursor_line, lk.snap.cursor[0], lk.snap.width)
            or ""
        )
        sent = Sent(
            text=text,
            submitted=ends_line,
            at=time.time(),
            tick=tick,
            shell=front.pid if front else 0,
            rchar=lk.rchar if front and front.shell else -1,
            size=size,
            back=not ends_line,
            head=head.strip(),
            row=lk.facts.abs_cursor_line,
            width=lk.facts.width,
            above=tuple(
                lk.snap.lines[max(0, lk.snap.cursor[1] - output.HEAD_ROWS) : lk.snap.cursor[1]]
            ),
            history=lk.facts.history_size,
        )
    return sent


