"""The human's say over the agent in the shared terminal: pause, approval, and what the agent is
doing.

Three programs that never talk to each other directly have to agree: the
tool typing into the shared session, the web page's server, and
``apps/shared-terminal/agent.sh``.  They agree through user options of the
shared tmux session, which all three can reach, which tmux changes
atomically, and which live exactly as long as the session:

====================  ===========  ==========================================
option                written by   value
====================  ===========  ==========================================
``@tmux_tool_paused``    page, script "1" while the human has paused the agent
``@tmux_tool_approve``   page, script "1" while every injection needs approval
``@tmux_tool_activity``  tool        JSON {state, text, since, reason}
``@tmux_tool_pending``   tool        JSON {id, text, keys, enter, expires}
``@tmux_tool_approval``  page        JSON {id, verdict, digest}
``@tmux_tool_audit``     tool        path of the audit trail, for the page
``@tmux_tool_activity_line`` tool    the activity in words, for tmux's status line
====================  ===========  ==========================================

A pause is enforced inside tmux: :data:`ALLOWED` is a format fragment the
shared send adds to the ``if-shell -F`` condition that guards every
injection, so a pause set between the tool's last look and its keystroke
still stops the keystroke.

Every injection is also written to the audit trail (:mod:`.audit`), which the
page's activity panel reads.

An approval names the random id of one pending injection and a digest of that
id with the exact text, keys and Enter.  The tool takes it only for its own
pending injection, only before it expires, and clears both options once it
has read the answer, so an answer can neither be replayed for a later
injection nor stretched to other text.  tmux's ``set-option -o`` (refused
when the option is already set) makes the first answer the only one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core import masking
from ..core.errors import NoTarget, TmuxError
from ..transport import options
from ..transport.tmux import SEP, Tmux

PAUSED_OPTION, APPROVE_OPTION = options.PAUSED, options.APPROVE
ACTIVITY_OPTION, PENDING_OPTION, APPROVAL_OPTION = (
    options.ACTIVITY,
    options.PENDING,
    options.APPROVAL,
)
AUDIT_OPTION, LINE_OPTION = options.AUDIT, options.ACTIVITY_LINE
_OPTIONS = (
    PAUSED_OPTION,
    APPROVE_OPTION,
    ACTIVITY_OPTION,
    PENDING_OPTION,
    APPROVAL_OPTION,
    AUDIT_OPTION,
)
_FORMAT = SEP.join(f"#{{{name}}}" for name in ("session_name", *_OPTIONS))

ALLOWED = f"#{{!=:#{{{PAUSED_OPTION}}},1}}"
"""tmux format, true ("1") while the agent may type: add it to the injection's condition."""

PAUSED = "the human has paused the agent in the shared terminal"
PAUSED_HINT = ("wait until the human resumes (status shows it); read and wait still work; "
               "do not try to resume yourself")
VERDICTS = ("approve", "reject")
APPROVAL_POLL = 0.05
TEXT_LIMIT = 400
"""Characters of the agent's text kept in the activity (the page shows one line)."""


@dataclass(frozen=True, slots=True)
class Control:
    """The control options of the shared session at one moment."""

    paused: bool = False
    approve: bool = False
    activity: dict[str, Any] | None = None
    pending: dict[str, Any] | None = None
    approval: dict[str, Any] | None = None
    audit: str = ""


def _json(raw: str) -> dict[str, Any] | None:
    try:
        value = json.loads(raw) if raw else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def read(tmux: Tmux, target: str) -> Control:
    """All control options of ``target``'s session in one tmux call (raises TmuxError)."""
    raw = tmux.display(target, _FORMAT)
    fields = (raw.split(SEP) + [""] * len(_OPTIONS))[: len(_OPTIONS) + 1]
    name, paused, approve, activity, pending, approval, audit = fields
    if not name:  # display-message answers a missing target with empty fields, not an error
        raise NoTarget(f"no session {target}")
    return Control(
        paused == "1", approve == "1", _json(activity), _json(pending), _json(approval), audit
    )


def paused(tmux: Tmux, target: str) -> bool:
    """Whether the human has paused the agent (an unreadable session counts as not paused)."""
    try:
        return tmux.display(target, f"#{{{PAUSED_OPTION}}}") == "1"
    except TmuxError:
        return False


def _switch(tmux: Tmux, target: str, option: str, on: bool) -> None:
    if on:
        tmux.cmd("set-option", "-t", target, option, "1")
    else:
        tmux.cmd("set-option", "-u", "-t", target, option)


def set_paused(tmux: Tmux, target: str, on: bool) -> None:
    """Pause (or resume) the agent in the shared session."""
    _switch(tmux, target, PAUSED_OPTION, on)


def set_approve(tmux: Tmux, target: str, on: bool) -> None:
    """Turn approve mode on or off; a request already waiting still needs its answer."""
    _switch(tmux, target, APPROVE_OPTION, on)


STATUS_RIGHT = ("#{?#{==:#{" + PAUSED_OPTION + "},1},#[reverse] agent paused #[default],"
                "#{" + LINE_OPTION + "}}")


def set_status_line(tmux: Tmux, target: str, on: bool) -> None:
    """Show the agent's activity in tmux's own status line, for people attached with plain tmux.

    Off by default: the status line takes a row from the pane, for the page too.
    """
    if on:
        tmux.chain(["set-option", "-t", target, "status", "on"],
                   ["set-option", "-t", target, "status-right", STATUS_RIGHT],
                   ["set-option", "-t", target, "status-right-length", "100"])
    else:
        tmux.chain(["set-option", "-u", "-t", target, "status"],
                   ["set-option", "-u", "-t", target, "status-right"],
                   ["set-option", "-u", "-t", target, "status-right-length"])


# --- what the agent is doing ----------------------------------------------------
_announced: dict[tuple[str, str], tuple[str, str, str]] = {}


def announce(tmux: Tmux, target: str, state: str, text: str = "", reason: str = "") -> None:
    """Tell the page what the agent is doing: typing, waiting, held (and why), idle.

    Writing the same thing again is skipped, so ``since`` keeps the moment the
    state began (the page counts "waiting for the prompt (12 s)" from it) and a
    polling caller costs no tmux call per look.  A lost announcement never
    fails the action that made it.
    """
    if _announced.get((tmux.key, target)) == (state, text, reason):
        return
    _tell(tmux, target, state, text, reason)


def _tell(tmux: Tmux, target: str, state: str, text: str, reason: str,
          *also: list[str]) -> None:
    """Set the activity options (and the ``also`` commands) in one tmux call; remember what was
    said."""
    try:
        tmux.chain(*telling(target, state, text, reason, *also))
    except TmuxError:
        return
    said(tmux, target, state, text, reason)


def said(tmux: Tmux, target: str, state: str, text: str = "", reason: str = "") -> None:
    """Remember an announcement made (by :func:`telling`'s commands, run by the caller): saying it
    again is skipped."""
    _announced[(tmux.key, target)] = (state, text, reason)


def telling(
    target: str, state: str, text: str = "", reason: str = "", *also: list[str]
) -> list[list[str]]:
    """The tmux commands that set the activity options, for a caller that runs them with its own
    (every option a command sets redraws every attached client, so one call for all of them costs
    one redraw)."""
    shown = masking.mask(text) or ""
    value = {"state": state, "text": shown[:TEXT_LIMIT], "since": time.time(), "reason": reason}
    return [["set-option", "-t", target, ACTIVITY_OPTION, json.dumps(value)],
            ["set-option", "-t", target, LINE_OPTION, headline(value).replace("#", "##")], *also]


_SAID_TO_THE_HUMAN = (
    (re.compile(r"^the human (has typed|pressed a key).*$"), "you are typing"),
    (re.compile(r"^the human is scrolling.*$"), "you are scrolling (copy mode)"),
    (re.compile(r"^the human is using (.*?); nothing was typed$"), r"you are using \1"),
    (re.compile(r"^the screen changed a moment ago.*$"), "the screen is still changing"),
    (re.compile(r"^the human\b"), "you"),
)


def for_the_human(reason: str) -> str:
    """Why the agent holds back, said to the person at the page ("you are typing")."""
    for pattern, said in _SAID_TO_THE_HUMAN:
        if pattern.search(reason):
            return pattern.sub(said, reason, count=1)
    return reason


def headline(activity: dict[str, Any] | None, now: float | None = None) -> str:
    """The activity in the page's words: a wait counts its seconds up to ``now``, else says since
    when.

    (tmux's status line cannot count, so it shows the start time.)
    """
    if not activity or activity.get("state") in (None, "idle"):
        return "agent idle"
    state, reason = str(activity.get("state")), str(activity.get("reason") or "")
    text = " ".join(str(activity.get("text") or "").split())
    text = text if len(text) <= 60 else text[:59] + "…"
    if state == "typing":
        return f"agent typing `{text}`"
    if state == "held":
        return f"agent held back: {reason}" if reason else "agent held back"
    started = float(activity.get("since") or 0)
    when = f"({max(0, int(now - started))} s)" if now is not None else \
        "since " + time.strftime("%H:%M:%S", time.localtime(started))
    return " ".join(part for part in ("agent", state, reason, when) if part)


# --- approval -------------------------------------------------------------------
def digest(request_id: str, text: str, keys: Sequence[str], enter: bool) -> str:
    """The fingerprint an approval must carry: this request, this exact text, keys and Enter."""
    body = json.dumps([request_id, text, list(keys), bool(enter)], ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


def pending_digest(pending: dict[str, Any]) -> str:
    """The digest of a pending request as stored (what the page sends back)."""
    keys = pending.get("keys")
    return digest(
        str(pending.get("id", "")),
        str(pending.get("text", "")),
        [str(k) for k in keys] if isinstance(keys, list) else [],
        bool(pending.get("enter")),
    )


def describe(text: str, keys: Sequence[str], enter: bool) -> str:
    """How an injection is named in sentences: ``'git status' and Enter``."""
    parts = [repr(masking.mask(text) or "")] if text else []
    parts += [" ".join(keys)] if keys else []
    if enter:
        parts.append("Enter")
    return " and ".join(parts) or "nothing"


def await_approval(tmux: Tmux, target: str, text: str, keys: Sequence[str], enter: bool,
                   timeout: float) -> str | None:
    """Ask the human first when approve mode is on.

    Returns None to go ahead, or the sentence that says why nothing may be
    typed: paused, rejected, or no answer before ``timeout`` seconds.  While
    waiting, the page shows the request with Approve and Reject.
    """
    try:
        now = read(tmux, target)
    except TmuxError:
        return None  # the send's own look reports a missing session
    if now.paused:
        return PAUSED
    if not now.approve:
        return None
    what = describe(text, keys, enter)
    request_id = secrets.token_hex(12)
    want = digest(request_id, text, keys, enter)
    expires = time.time() + max(0.0, timeout)
    pending = {
        "id": request_id,
        "text": text,
        "keys": list(keys),
        "enter": bool(enter),
        "expires": expires,
    }
    try:
        tmux.chain(["set-option", "-u", "-t", target, APPROVAL_OPTION],
                   ["set-option", "-t", target, PENDING_OPTION, json.dumps(pending)])
    except TmuxError as exc:
        return f"could not ask the human to approve typing {what}: {exc}"
    announce(tmux, target, "held", text, "waiting for your approval")
    try:
        while True:
            try:
                now = read(tmux, target)
            except TmuxError as exc:
                return f"the shared session went away while waiting for approval: {exc}"
            answer = now.approval
            if answer is not None and answer.get("id") == request_id and time.time() <= expires \
                    and hmac.compare_digest(str(answer.get("digest", "")), want):
                if answer.get("verdict") == "approve":
                    return None
                return (
                    f"the human rejected typing {what} into the shared terminal; nothing was typed"
                )
            if now.paused:
                return PAUSED
            if now.pending is None or now.pending.get("id") != request_id:
                return (f"the request to type {what} was withdrawn before the human answered; "
                        "nothing was typed")
            if time.time() >= expires:
                return (f"the human did not approve typing {what} within {timeout:g} s; nothing "
                        "was typed")
            time.sleep(min(APPROVAL_POLL, max(0.0, expires - time.time())))
    finally:
        try:
            tmux.chain(["set-option", "-u", "-t", target, PENDING_OPTION],
                       ["set-option", "-u", "-t", target, APPROVAL_OPTION])
        except TmuxError:
            pass


def answer(tmux: Tmux, target: str, request_id: str, verdict: str, given_digest: str) -> str | None:
    """The human's answer to the pending request; None when recorded, else why not.

    Only the request waiting right now, only before it expires, only with the
    digest of its exact text, and only once.
    """
    if verdict not in VERDICTS:
        return f"the verdict must be one of {', '.join(VERDICTS)}"
    now = read(tmux, target)
    pending = now.pending
    if pending is None or pending.get("id") != request_id:
        return "no such request is waiting: it was answered, withdrawn or has expired"
    if time.time() > float(pending.get("expires", 0)):
        return "the request has expired"
    if not hmac.compare_digest(given_digest, pending_digest(pending)):
        return "the answer does not match the text waiting for approval"
    commands: list[list[str]] = []
    if now.approval is not None:
        if now.approval.get("id") == request_id:
            return "this request has already been answered"
        # left from an old request
        commands.append(["set-option", "-u", "-t", target, APPROVAL_OPTION])
    record = {"id": request_id, "verdict": verdict, "digest": given_digest}
    commands.append(["set-option", "-o", "-t", target, APPROVAL_OPTION, json.dumps(record)])
    try:
        tmux.chain(*commands)
    except TmuxError as exc:
        if "already set" in str(exc):
            return "this request has already been answered"
        raise
    return None
