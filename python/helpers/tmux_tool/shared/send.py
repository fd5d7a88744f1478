"""Typing into the human's terminal, politely, and reading back what our command printed.

* We type only when :mod:`.guard` allows it, never while the human is
  active (a key in the last moments, a screen change we did not cause), and
  the last check and the paste run in one tmux command (``if-shell -F``), so
  no keystroke of the human's can slip between them.
* Only our own unsent text is ever cleared (``C-u``), and only while the
  line still holds exactly that text.
* After Enter we wait for the shell to be back at its prompt (the kernel's
  facts plus the prompt at the cursor, held still for ``READY_STABLE``), then
  cut the output from the scrollback (:mod:`.output`).
* Every injection is rate-limited and written to the audit trail.
* The human has the last word (:mod:`.control`): while paused nothing is
  typed (checked again inside the injecting tmux command), in approve mode
  each injection waits for Approve, and the page hears what the agent does.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import replace

from .. import programs
from ..core import trace
from ..core.clock import Deadline
from ..core.config import Config
from ..core.messages import message
from ..core.result import Result, failure
from ..core.status import Status
from ..judgement.state import State, pane_info, reported
from ..judgement.stillness import Stillness
from ..transport import kernel, keyboard
from ..transport.panes import PaneFacts
from ..transport.target import Target
from ..transport.tmux import Tmux
from . import audit, control, guard, judge, output, prompt, records, seen, where
from .look import Look
from .records import Sent

MIN_GAP = 0.02  # between two injections: at most 50 a second
TRANSIENT = 0.2  # seconds a send looks for its moment, whatever its timeout
MAX_TEXT = 64 * 1024
# Before text at a shell's prompt: a line left in vi command mode (bash `set -o vi`, zsh `bindkey -v`,
# fish's vi bindings) would take every letter of it as an editing command - `k` fetches history, Enter
# runs the result.  `i` enters insert mode there; anywhere else it is a letter, which BSpace takes back.
INSERT_MODE = ("i", "BSpace")
# With synchronize-panes on, tmux sends every key pressed in a pane to all panes of its window: the human's
# half-typed lines and open editors there would get them.  Nothing is typed then (checked at the keystroke).
UNSYNCHRONIZED = "#{!=:#{synchronize-panes},1}"
SYNCHRONIZED = ("the window has synchronize-panes on: tmux would send every key the agent typed to all of its "
                "panes, into what the human has open there")
SYNCHRONIZED_HINT = ("ask the human to turn it off (prefix key, then `:setw synchronize-panes off`), or name a "
                     "pane in another window (session shared:WINDOW.PANE)")


def poll_step(elapsed: float) -> float:
    """Look often right after typing (most commands end within milliseconds), then back off."""
    return 0.002 if elapsed < 0.05 else 0.01 if elapsed < 0.2 else 0.025 if elapsed < 1.0 else 0.05


def state(target: Target, *, deliver: bool = False, also: Sequence[Sequence[str]] = ()) -> State:
    """The shared session's state (what ``status`` and ``wait`` report); ``deliver``, ``also``: see
    :func:`judge.observe`."""
    return judge.observe(target.tmux, target.pane, target.name, deliver=deliver, also=also)[0]


# --- typing ------------------------------------------------------------------
def _shell_checks(st: State, lk: Look, text: str, enter: bool, force: bool) -> str | None:
    """A command line for a shell at its prompt: would it end the shell, is it complete?"""
    front = lk.term.front
    if front is None or not (text and front.shell and st.status == Status.READY and st.notes.owner != "human"):
        return None
    top = lk.term.shell_in_front
    if top and (why := guard.ends_shell(text) or ("`kill` of the shell's own process would end the human's "
                                                   "shell" if guard.own_pid(text, front.pid) else None)):
        return why
    if enter and not force and (err := guard.syntax_error(text, front.comm)):
        return f"the command is incomplete or invalid for {front.comm.lstrip('-')} ({err}); typed as it is, " \
               "it would leave the shell waiting for the rest"
    return None


def send(cfg: Config, target: Target, text: str, *, enter: bool, timeout: float, force: bool, audit_as: str = "send",
         keys: tuple[str, ...] = ()) -> Result:
    """Type ``text`` (then Enter) or press ``keys`` in the shared session, politely."""
    try:
        return _send(cfg, target, text, enter=enter, timeout=timeout, force=force, audit_as=audit_as, keys=keys)
    finally:
        control.announce(target.tmux, target.pane, "idle")


def _send(cfg: Config, target: Target, text: str, *, enter: bool, timeout: float, force: bool, audit_as: str,
          keys: tuple[str, ...]) -> Result:
    tmux: Tmux = target.tmux
    what = text or " ".join(keys)
    if len(text) > MAX_TEXT:
        return failure(f"{len(text)} characters is too much to type into the human's terminal "
                       f"(the limit is {MAX_TEXT})", session=target.name, status=Status.UNKNOWN,
                       hint="write the text to a file and send a short command that uses it")
    deadline = Deadline(timeout)
    # A moment that passes by itself (the shell has yet to read bytes just typed, or a terminal's
    # reply to the query its prompt made) never refuses a send, even one that may not wait.
    quiet_by = Deadline(max(timeout, TRANSIENT))
    checked = approved = False
    resizing: Deadline | None = None
    while True:
        st, lk = judge.observe(tmux, target.pane, target.name)
        if lk is None:
            return failure(st.evidence, session=target.name)
        if lk.facts.paused:
            return failure(control.PAUSED, session=target.name, status=st.status,
                           hint=control.PAUSED_HINT)
        if lk.facts.synchronized:
            return failure(f"nothing was typed: {SYNCHRONIZED}", session=target.name, status=st.status,
                           hint=SYNCHRONIZED_HINT, pane=pane_info(lk.facts))
        if not checked and (why := _shell_checks(st, lk, text, enter, force)):
            return failure(f"nothing was typed: {why}", session=target.name, status=st.status,
                           hint="change the command; to leave a shell the agent started, exit only that one")
        checked = checked or bool(text and st.status == Status.READY)
        verdict = guard.may_type(st, text=text, keys=keys, force=force)
        if verdict.go:
            verdict = seen.human_quiet(cfg, lk, force)
        if verdict.go and seen.size_untold(lk):
            resizing = resizing or Deadline(seen.RESIZE_WAIT)
            if not resizing.passed:
                verdict = guard.Leave(False, "the window is being resized and the shell has not been told its "
                                             "new size yet")
        if verdict.go and not approved and lk.facts.approve:
            refusal = control.await_approval(tmux, target.pane, text, keys, enter, deadline.left())
            if refusal is not None:
                hint = control.PAUSED_HINT if refusal == control.PAUSED else "ask the human what to do instead"
                return failure(refusal, session=target.name, status=st.status, hint=hint)
            approved = True
            continue  # the screen may have changed while the human decided
        if not verdict.go:
            control.announce(tmux, target.pane, "held", what, control.for_the_human(verdict.reason))
        if verdict.go and st.notes.leftover and (text or enter):
            keyboard.press(tmux, target.pane, ["C-u"])  # only our own unsent text
            records.save(tmux, target.pane, records.SENT, replace(lk.sent, text=""))
            continue
        if verdict.go:
            gap = MIN_GAP - (time.time() - seen.last_injection(cfg.shared_dir))
            if gap > 0:
                time.sleep(min(gap, MIN_GAP))
                continue
            editor = not (lk.term.front and lk.term.front.comm.lstrip("-") in judge.NO_EDITOR)
            lead = INSERT_MODE if text and st.notes.prompt and editor else ()
            sent = _record(st, lk, text, enter, keys, lead)
            told = audit.injection_telling(target.pane, cfg.shared_dir / "audit.log", what, submitted=sent.submitted)
            if _inject(tmux, target, lk, text, enter, keys, sent, lead, bracketed=_pastes(st.program), also=told):
                break
            if control.paused(tmux, target.pane):
                return failure(control.PAUSED, session=target.name, status=st.status,
                               hint=control.PAUSED_HINT)
            verdict = guard.Leave(False, "the human pressed a key at the last moment")
        if verdict.final or quiet_by.passed:
            return _refusal(target, st, verdict)
        time.sleep(0.05)
    log = cfg.shared_dir / "audit.log"
    entry = audit.record_injection(tmux, target.pane, log, {
        "time": time.time(), "action": audit_as, "session": target.name, "text": text, "keys": list(keys),
        "enter": enter}, submitted=sent.submitted, told=True)
    result = _finish(cfg, target, sent, text, timeout=deadline.left())
    audit.record_result(log, entry, result.status, result.screen)
    return result


def owed_output(target: Target, st: State) -> output.Cut:
    """The output of our command that outlived its send: once its prompt is back (``ready``) it is given,
    once, and its pane is let go; while it asks a question (``blocked``), what it printed so far."""
    facts = output.screen_with_output(st)
    if facts is None or not Sent.parse(facts.sent).owed:
        return output.Cut()
    cut = output.output_of(target, st)
    if st.status == Status.READY:
        _delivered(target, facts)
    return cut


def _delivered(target: Target, facts: PaneFacts) -> None:
    """Record that the agent has the output of the command last submitted in this pane: calls no longer
    follow the pane for it."""
    records.save(target.tmux, facts.pane_id or target.pane, records.SENT,
                 replace(Sent.parse(facts.sent), back=True, delivered=True))


def _refusal(target: Target, st: State, verdict: guard.Leave) -> Result:
    trace.event("refused", session=target.name, pane=target.pane, reason=verdict.reason, final=verdict.final)
    human_text = st.notes.human_text
    if human_text and not verdict.final:
        return failure(message("human_typing", text=f"{human_text!r} " + (
            f"in {st.program}" if st.notes.in_program else "at the prompt")), session=target.name,
                       status=st.status, hint=message("human_typing_hint"), pane=pane_info(st.facts))
    hint = ("ask the human; type there only if the human asked you to (force)" if verdict.final
            else "wait a moment and try again, or check with status")
    secret = ({"needs_human": True, "question": st.question, "secret_reader": st.secret_reader}
              if st.needs_human else {})
    return failure(f"nothing was typed: {verdict.reason}", session=target.name, status=st.status,
                   hint=hint, evidence=st.evidence, program=st.program, pane=pane_info(st.facts), **secret)


def _pastes(program: str | None) -> bool:
    """Does text go to ``program`` as a bracketed paste?  Not to Vim, where it would insert ``:wq``."""
    profile = programs.profile_for(program) if program else None
    return profile.paste if profile is not None else True


def _inject(tmux: Tmux, target: Target, lk: Look, text: str, enter: bool, keys: tuple[str, ...],
            sent: Sent, lead: tuple[str, ...] = (), *, bracketed: bool = True,
            also: Sequence[Sequence[str]] = ()) -> bool:
    """Paste/press only if nothing changed since we looked - atomically, inside tmux - and record it.

    ``lead`` keys go first (:data:`INSERT_MODE` before text typed at a shell's prompt); ``bracketed``
    says whether the text is a bracketed paste (when the program asked for those) or plain keys;
    ``also`` are tmux commands that run with the keystrokes (telling the page), only if they do.
    """
    pane = target.pane
    facts = lk.facts
    buf = f"tt-{os.getpid()}-{int(time.time() * 1e6) % 10**9}"
    # No key of the human's since the look (where their keys can go), no cursor move, no scroll, no resize.
    keys_seen = f"{facts.session_activity}/" if facts.focused else "not-focused/"
    keys_now = "#{session_activity}/" if facts.focused else "#{?#{&&:#{pane_active},#{window_active}},,not-focused/}"
    seen = f"{keys_seen}{facts.cursor[0]}/{facts.cursor[1]}/{facts.history_size}/{facts.width}x{facts.height}"
    # ... and the pane's process alive: tmux 3.3a crashes, the human's whole server with it, on a paste into
    # a dead pane that remain-on-exit keeps.
    cond = ("#{&&:#{&&:#{&&:#{==:" + keys_now + "#{cursor_x}/#{cursor_y}/#{history_size}/#{pane_width}x#{pane_height},"
            + seen + "},"
            + control.ALLOWED + "}," + UNSYNCHRONIZED + "},#{?pane_dead,0,1}}")
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
        actions.append(f"set-option -t {pane} {where.BOUND} {_word(where.bind(facts.pane_id or pane, facts, sent.text or ' '.join(keys)))}")
    actions.extend(" ".join(_word(arg) for arg in command) for command in also)
    steps: list[list[str]] = []
    if text:
        steps.append(["load-buffer", "-b", buf, "-"])
    refused = f"delete-buffer -b {buf} ; display-message -p tt-refused" if text else "display-message -p tt-refused"
    steps.append(["if-shell", "-F", "-t", pane, cond, " ; ".join(actions), refused])
    out = tmux.chain(*steps, input=text.encode("utf-8", "surrogateescape") if text else None)
    return "tt-refused" not in out


def _word(key: str) -> str:
    """A key name as one literal word of a tmux command string (no ``;``, ``#``, ``~``, ``$`` magic)."""
    if "'" not in key:
        return f"'{key}'"
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


def _record(st: State, lk: Look, text: str, enter: bool, keys: tuple[str, ...],
            lead: tuple[str, ...] = ()) -> Sent:
    """What we are about to type: a submitted command is pending until its prompt is back."""
    ends_line = enter or any(k in ("Enter", "C-m", "C-j", "C-c", "C-d") for k in keys)
    front = lk.term.front
    size = len(text.encode("utf-8", "surrogateescape")) + (1 if enter else 0) + len(lead)
    # Read from the kernel's own clock, not converted from wall time later: a process this command starts has
    # a start tick at least this one however long the judgement that compares them is delayed.
    tick = kernel.started_ticks(0, lk.kernel)
    if keys and not text:
        # Keys keep our unsent text ours (End, Left) unless they clear or end the line; they never turn a
        # submitted command back into unsent text, so a line the human recalls later is never taken for ours.
        sent = replace(lk.sent, text="" if "C-u" in keys or ends_line else lk.sent.text, at=time.time(), tick=tick,
                       submitted=lk.sent.submitted or ends_line, back=lk.sent.back and not ends_line,
                       rchar=-1, size=0)
    else:
        head = st.notes.prompt or prompt.candidate(lk.snap.cursor_line, lk.snap.cursor[0], lk.snap.width) or ""
        sent = Sent(text=text, submitted=ends_line, at=time.time(), tick=tick, shell=front.pid if front else 0,
                    rchar=lk.rchar if front and front.shell else -1, size=size, back=not ends_line,
                    head=head.strip(), row=lk.facts.abs_cursor_line, width=lk.facts.width,
                    above=tuple(lk.snap.lines[max(0, lk.snap.cursor[1] - output.HEAD_ROWS):lk.snap.cursor[1]]),
                    history=lk.facts.history_size)
    return sent


def _finish(cfg: Config, target: Target, sent: Sent, text: str, *, timeout: float) -> Result:
    """After typing: wait (if asked) for the prompt to come back; return the output."""
    started = time.monotonic()
    deadline = Deadline(timeout)
    still = Stillness()
    idle = control.telling(target.pane, "idle")  # told with the record of the command's end: one redraw
    while True:
        st = state(target, deliver=bool(text and sent.submitted), also=idle)
        if st.notes.delivered:
            control.said(target.tmux, target.pane, "idle")
        now = time.monotonic()
        still.see(st.snap.digest if st.snap else "", now)
        settled = still.settled(st, now)
        drawn = not sent.submitted and (st.notes.leftover or not text)  # unsent text: once it is shown
        if settled or drawn or now >= deadline.at:
            break
        time.sleep(poll_step(now - started))
    if st.snap is not None:
        seen.note_screen(cfg, st.facts.pane_id if st.facts else "", st.snap.digest, ours=True)
    cut = output.Cut()
    facts = output.screen_with_output(st)
    if sent.submitted and text and facts is not None and st.status != Status.ERROR:
        cut = output.command_output(target.tmux, target.pane, sent, facts, st.notes.before)
        if st.status == Status.READY and not st.notes.delivered:
            _delivered(target, facts)
    shown, hint, notes = output.deliver(cfg, cut, facts)
    done = st.status in (Status.READY, Status.BLOCKED, Status.ERROR)
    if text and not sent.submitted:
        hint = message("not_submitted")
    elif not done:
        hint = message("still_running")
    return reported(st, target.name, output=shown, hint=hint, pane=True, **notes)
