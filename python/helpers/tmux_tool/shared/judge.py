"""The human's terminal: reading it, judging it, and typing into it politely.

Rules this module enforces (DESIGN.md, seed 004):

* no markers, ever: completion is judged from the screen and tmux's facts -
  the shell is the pane's foreground process again, its own prompt (learned
  from the screen when idle, not a generic ``[$#>]``) is back at the cursor
  line below where our input was echoed, and the screen holds still;
* the session is never created or destroyed here;
* text the human typed is never erased, typed into or submitted: we type only
  at an empty prompt, clear only our own leftovers, and otherwise wait and
  finally report what the human has on the line;
* we never type while the human is active (a key in the last moments, screen
  changes we did not cause, copy mode); the last check and the paste run in
  one tmux command (``if-shell -F``), so no keystroke can slip between them;
* every injection is rate-limited and written to an audit trail.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import wcwidth

from .. import programs, screen
from ..core import masking
from ..core.config import private_path, write_private
from ..core.messages import message
from ..core.result import Result, failure
from ..core.state import READY_STABLE, State
from ..private.runs import cap_text
from ..screen.snapshot import Snapshot
from ..sessions.context import Context, Target
from ..transport import keyboard, panes
from ..transport.panes import PaneFacts
from ..transport.tmux import NoServer, NoTarget, Tmux

SHELLS = frozenset({"bash", "zsh", "sh", "dash", "fish", "ksh", "mksh", "tcsh", "csh", "ash", "busybox"})
# A prompt-looking end of the cursor line, only used to learn the real prompt.
_GENERIC_PROMPT = re.compile(r"[$#%>❯➜»λ]\s?$")
_FIRST_PROMPT_END = re.compile(r"[$#%>❯➜»λ] ")
QUIET = 0.5  # a screen change we did not cause must be this old before we type
KEY_GAP = 1.0  # no human key (tmux's session_activity, whole seconds) for this long
MIN_GAP = 0.1  # between two injections


def poll_step(elapsed: float) -> float:
    """Look often right after typing (most commands end fast), then back off."""
    return 0.01 if elapsed < 0.2 else 0.025 if elapsed < 1.0 else 0.05


def missing(session: str, socket: str) -> str:
    """Why the shared session cannot be used, and how the human starts it."""
    return message("shared_missing", session=repr(session), socket=repr(socket))


# --- the prompt -----------------------------------------------------------
def template(prompt: str, cwd: str) -> str:
    """A regex for a learned prompt that survives ``cd`` and clocks.

    The directory shown in the prompt (full, ``~``-abbreviated or basename)
    becomes a wildcard and digit runs become ``\\d+``; everything else must
    match literally, so ``$ `` inside output never passes for ``user@host:~$ ``.
    """
    home = os.path.expanduser("~")
    forms = [cwd]
    if cwd.startswith(home):
        forms.append("~" + cwd[len(home):])
    forms.append(os.path.basename(cwd.rstrip("/")) or "/")
    for form in sorted({f for f in forms if f}, key=len, reverse=True):
        i = prompt.find(form)
        if i >= 0 and (len(form) > 1 or form in "~/"):
            return _literal(prompt[:i]) + ".*?" + _literal(prompt[i + len(form):])
    return _literal(prompt)


def _literal(text: str) -> str:
    return "".join(r"\d+" if part.isdigit() else re.escape(part) for part in re.split(r"(\d+)", text) if part)


def _cells_to_index(line: str, cells: int) -> int:
    """The string index at cell column ``cells`` (wide characters take two)."""
    col = 0
    for i, ch in enumerate(line):
        if col >= cells:
            return i
        col += max(0, wcwidth.wcwidth(ch))
    return len(line)


@dataclass(frozen=True, slots=True)
class PromptLine:
    """The cursor line split into the shell's prompt and what follows it."""

    found: bool
    prompt: str = ""
    typed: str = ""


def split_prompt(snap: Snapshot, learned: str) -> PromptLine:
    """Find the shell's prompt at the start of the cursor line."""
    line = snap.cursor_line
    cut = _cells_to_index(line, snap.cursor[0])
    if learned:
        # The last occurrence counts: output without a final newline (a program's
        # fake prompt, say) can sit on the same row to the left of the real prompt.
        try:
            found = [m for m in re.finditer(learned, line) if m.end() > m.start()]
        except re.error:
            found = []
        if found:
            m = found[-1]
            return PromptLine(True, line[: m.end()], line[m.end():].strip())
        return PromptLine(False)
    head = line[:cut].ljust(cut) if cut >= len(line) else line[:cut]
    if _GENERIC_PROMPT.search(head) and not line[cut:].strip():
        return PromptLine(True, head, "")
    # Nothing learned yet and text after a prompt-looking mark: assume it is typed
    # text, so that a human's half-typed line is never mistaken for an empty prompt.
    if m := _FIRST_PROMPT_END.search(line):
        return PromptLine(True, line[: m.end()], line[m.end():].strip())
    return PromptLine(False)


# --- state -----------------------------------------------------------------
def sent_record(facts: PaneFacts) -> dict:
    """What this tool last typed into the pane (kept in a tmux user option)."""
    try:
        data = json.loads(facts.sent) if facts.sent else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def state(ctx: Context, target: Target) -> State:
    """Judge the shared session from one look."""
    try:
        snap, facts = panes.look(target.tmux, target.pane)
    except (NoServer, NoTarget):
        return State("error", missing(target.name, target.tmux.socket))
    if facts.in_mode:
        return State("blocked", "the pane is in copy mode: the human is scrolling", facts.command,
                     snap, facts, question="wait until the human leaves copy mode",
                     options=("wait",))
    if facts.dead:
        return State("error", "the shared pane's shell has exited", facts.command, snap, facts)
    if facts.command not in SHELLS:
        verdict = programs.detect(snap, program=facts.command)
        return State(verdict.status, verdict.evidence, verdict.program or facts.command, snap, facts,
                     question=verdict.question, options=tuple(verdict.options))
    line = split_prompt(snap, facts.learned_prompt)
    if not line.found:
        if facts.learned_prompt and split_prompt(snap, "").found:
            line = split_prompt(snap, "")  # the prompt changed shape (new PS1): judge generically
        else:
            # tmux names the shell when a pipeline's first process has exited (``seq | less``):
            # the screen may still show the program that runs.
            verdict = programs.detect(snap, program=None)
            named = verdict.program not in (None, *SHELLS)
            if verdict.status == "blocked" or (named and verdict.status in ("ready", "busy")):
                return State(verdict.status, verdict.evidence, verdict.program or facts.command, snap,
                             facts, question=verdict.question, options=tuple(verdict.options))
            return State("busy", "the shell is in the foreground but its prompt is not at the "
                         "cursor (a builtin is running or it is reading input)", facts.command, snap, facts)
    if not line.typed and _shell_not_reading(facts.pid):
        return State("busy", "the shell is between the commands of a list (it is not reading input), "
                     "beside text that looks like its prompt", facts.command, snap, facts)
    if not line.typed and not _matches(facts.learned_prompt, snap.cursor_line):
        learn_prompt(target.tmux, target.pane, snap, facts)  # only while the shell reads input
    sent = sent_record(facts)
    if line.typed:
        ours = sent.get("text") and not sent.get("submitted") and line.typed == sent["text"].strip()
        if ours:
            return State("ready", "our own unsent text is at the prompt", facts.command, snap, facts,
                         extra={"leftover": True})
        return State("busy", f"the human is typing at the prompt: {line.typed!r}", facts.command,
                     snap, facts, extra={"human_text": line.typed})
    if (sent.get("submitted") and facts.history_size >= int(sent.get("history", 0))
            and facts.abs_cursor_line <= int(sent.get("line", -1))):
        return State("busy", "our command was submitted and its prompt has not come back yet",
                         facts.command, snap, facts)
    return State("ready", f"the shell's prompt {line.prompt.strip()!r} is at the cursor line",
                 facts.command, snap, facts, extra={"prompt": line.prompt})


def _shell_not_reading(pid: int) -> bool:
    """The kernel says the shell is running or waiting for a child, not reading input.

    Output can leave a perfect copy of the prompt at the cursor (a program
    printing it without a newline); between that program's end and the next
    command of a list, the shell is in the foreground beside it.  A shell at
    its prompt sleeps reading the terminal; ``/proc/PID/wchan`` tells the two
    apart (``0`` = running, ``do_wait`` = waiting for a child).  Where it
    cannot be read, this signal is simply absent.
    """
    try:
        wchan = Path(f"/proc/{pid}/wchan").read_text().strip()
    except OSError:
        return False
    return wchan in ("0", "do_wait")


def _matches(pattern: str, line: str) -> bool:
    try:
        return bool(pattern) and re.match(pattern, line) is not None
    except re.error:
        return False


def learn_prompt(tmux: Tmux, target: str, snap: Snapshot, facts: PaneFacts) -> None:
    """Remember the real prompt once the shell is idle at a prompt-looking line."""
    line = split_prompt(snap, "")
    if facts.command in SHELLS and line.found and not line.typed:
        pattern = template(line.prompt, facts.path or os.getcwd())
        if pattern != facts.learned_prompt:
            tmux.cmd("set-option", "-t", target, "@tmux_tool_prompt", pattern)


# --- what we last saw --------------------------------------------------------
def _seen_file(ctx: Context) -> Path:
    return private_path(ctx.cfg.shared_dir) / "seen.json"


def note_screen(ctx: Context, digest: str, *, ours: bool = False) -> float:
    """Remember when this screen first appeared; return how long it has been up.

    A screen our own action produced counts as old at once: only changes we
    did not cause make us wait for quiet.
    """
    path = _seen_file(ctx)
    now = time.time()
    try:
        seen = json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        seen = {}
    if ours:
        seen = {"digest": digest, "since": 0.0}
    elif seen.get("digest") != digest:
        seen = {"digest": digest, "since": now}
    else:
        return now - float(seen.get("since", now))
    tmp = path.with_suffix(".tmp")
    write_private(tmp, json.dumps(seen))
    tmp.replace(path)
    return now - float(seen["since"])


# --- typing ----------------------------------------------------------------
def _audit(dir_: Path, entry: dict) -> None:
    path = private_path(dir_) / "audit.log"
    entry = {k: masking.mask(v) if isinstance(v, str) else v for k, v in entry.items()}
    write_private(path, json.dumps(entry) + "\n", append=True)


def _last_injection(dir_: Path) -> float:
    try:
        return (dir_ / "audit.log").stat().st_mtime
    except FileNotFoundError:
        return 0.0


def send(ctx: Context, target: Target, text: str, *, enter: bool, timeout: float, force: bool, action: str = "send",
         keys: tuple[str, ...] = ()) -> Result:
    """Type ``text`` (then Enter) or press ``keys`` in the shared session, politely."""
    tmux: Tmux = target.tmux
    if len(text) > 64 * 1024:
        return failure(action, f"{len(text)} characters is too much to type into the human's terminal "
                       "(the limit is 65536)", session=target.name, status="unknown",
                       hint="write the text to a file and send a short command that uses it")
    started = time.monotonic()
    deadline = started + timeout
    reason, human_text = "", ""
    while True:
        st = state(ctx, target)
        if st.facts is None or st.snap is None:
            return failure(action, st.evidence, session=target.name)
        snap, facts = st.snap, st.facts
        still_for = note_screen(ctx, snap.digest)
        human_text = st.extra.get("human_text", "")
        reason = _hold_reason(st, facts, still_for, force, keys)
        if reason is None and st.extra.get("leftover") and (text or enter):
            keyboard.press(tmux, target.pane, ["C-u"])  # only our own unsent text
            _set_sent(tmux, target, {"text": "", "submitted": False})
            continue
        if reason is None:
            wait_gap = MIN_GAP - (time.time() - _last_injection(ctx.cfg.shared_dir))
            if wait_gap > 0:
                time.sleep(min(wait_gap, MIN_GAP))
                continue
            if _inject(tmux, target, facts, text, enter, keys):
                break
            reason = "the human pressed a key at the last moment"
        if time.monotonic() >= deadline:
            if human_text:
                return failure(action, message("human_typing", text=repr(human_text)), session=target.name,
                               status="busy", hint=message("human_typing_hint"))
            return failure(action, f"nothing was typed: {reason}", session=target.name,
                           status=st.status, hint="wait a moment and try again, or check with status")
        time.sleep(0.05)
    _audit(ctx.cfg.shared_dir, {"time": time.time(), "action": action, "session": target.name,
                                "text": text, "keys": list(keys), "enter": enter})
    after = _post(tmux, target, facts, text, enter, keys)
    return _finish(ctx, target, after, text, enter, keys, timeout=max(0.0, deadline - time.monotonic()),
                   action=action)


def key_time(facts: PaneFacts) -> int:
    """When the human last pressed a key (tmux's whole seconds), 0 if unknown.

    Attaching a client also sets ``session_activity``; the tool's own watch
    client records the value its attach produced, and that one is no key.
    """
    return 0 if facts.session_activity == facts.watch_attached else facts.session_activity


def _hold_reason(st: State, facts: PaneFacts, still_for: float, force: bool,
                 keys: tuple[str, ...]) -> str | None:
    """Why we must not type now (None = go)."""
    if facts.in_mode:
        return "the human is scrolling in copy mode"
    if st.extra.get("human_text"):
        return f"the human has typed {st.extra['human_text']!r} at the prompt"
    if force:
        return None
    if time.time() - key_time(facts) < KEY_GAP:
        return "the human pressed a key in the last moments"
    sent_at = float(sent_record(facts).get("at", 0))
    no_key_since_ours = sent_at > 0 and key_time(facts) < int(sent_at)
    if still_for < QUIET and not no_key_since_ours:
        return "the screen changed a moment ago and we did not cause it"
    if st.extra.get("leftover"):
        return None
    if keys:
        return None if st.status in ("ready", "blocked") else f"the session is {st.status}: {st.evidence}"
    if st.status != "ready":
        return f"the session is {st.status}: {st.evidence}"
    return None


def _inject(tmux: Tmux, target: Target, facts: PaneFacts, text: str, enter: bool,
            keys: tuple[str, ...]) -> bool:
    """Paste/press only if nothing changed since we looked - atomically, inside tmux."""
    pane = target.pane
    buf = f"tt-{os.getpid()}-{int(time.time() * 1e6) % 10**9}"
    seen = f"{facts.session_activity}/{facts.cursor[0]}/{facts.cursor[1]}/{facts.history_size}"
    cond = "#{==:#{session_activity}/#{cursor_x}/#{cursor_y}/#{history_size}," + seen + "}"
    actions = []
    if text:
        actions.append(f"paste-buffer -p -d -b {buf} -t {pane}")
    if keys:
        actions.append(f"send-keys -t {pane} " + " ".join(_word(k) for k in keys))
    if enter:
        actions.append(f"send-keys -t {pane} Enter")
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


def _set_sent(tmux: Tmux, target: Target, record: dict) -> None:
    tmux.cmd("set-option", "-t", target.pane, "@tmux_tool_sent", json.dumps(record))


def _post(tmux: Tmux, target: Target, before: PaneFacts, text: str, enter: bool,
          keys: tuple[str, ...]) -> dict:
    """Record what we typed: our own unsent text may later be cleared by us."""
    ends_line = enter or any(k in ("Enter", "C-m", "C-j", "C-c", "C-d") for k in keys)
    if keys and not text:
        prior = sent_record(before)
        text = "" if "C-u" in keys or ends_line else str(prior.get("text", ""))
    record = {"text": text, "submitted": ends_line, "line": before.abs_cursor_line,
              "history": before.history_size, "prompt_cells": before.cursor[0], "at": time.time()}
    _set_sent(tmux, target, record)
    return record


def _finish(ctx: Context, target: Target, record: dict, text: str, enter: bool, keys: tuple[str, ...], *,
            timeout: float, action: str) -> Result:
    """After typing: wait (if asked) for the prompt to come back; return the output."""
    started = time.monotonic()
    deadline = started + timeout
    last, since = None, started
    while True:
        st = state(ctx, target)
        now = time.monotonic()
        digest = st.snap.digest if st.snap else None
        if digest != last:
            last, since = digest, now
        settled = st.status in ("ready", "blocked", "error") and now - since >= READY_STABLE
        if settled or now >= deadline or not record["submitted"]:
            break
        time.sleep(poll_step(now - started))
    if st.snap is not None:
        note_screen(ctx, st.snap.digest, ours=True)
    output = ""
    if record["submitted"] and text and st.facts:
        output = _output_since(target.tmux, target.pane, record, st.facts, text)
    if len(output) > ctx.cfg.output_cap:
        saved = private_path(ctx.cfg.shared_dir / "outputs") / f"shared-{time.time_ns()}.txt"
        write_private(saved, masking.mask(output) or "")
        output = cap_text(output, ctx.cfg.output_cap, str(saved))
    done = st.status in ("ready", "blocked", "error")
    hint = None
    if text and not record["submitted"]:
        hint = message("not_submitted")
    elif not done:
        hint = message("still_running")
    return Result(action=action, session=target.name, status=st.status, output=output,
                  screen=st.snap.text if st.snap else None, hint=hint,
                  extra={"evidence": st.evidence, "program": st.program})


def _output_since(tmux: Tmux, pane: str, record: dict, facts: PaneFacts, text: str) -> str:
    """The rows printed below our echoed input, up to (not including) the cursor row."""
    if facts.history_size < int(record.get("history", 0)):
        return ""  # the history was cleared: the rows are gone
    width = max(1, facts.width)
    prompt_cells = int(record.get("prompt_cells", 0))
    echo_rows = 0
    for i, part in enumerate(text.split("\n")):
        cells = wcwidth.wcswidth(part)
        cells = len(part) if cells < 0 else cells
        echo_rows += 1 + max(0, (cells + (prompt_cells if i == 0 else 2) - 1) // width)
    first = int(record.get("line", 0)) + echo_rows - facts.history_size
    last = facts.cursor[1] - 1
    if last < first:
        return ""
    out = tmux.cmd("capture-pane", "-p", "-e", "-S", str(first), "-E", str(last), "-t", pane)
    rows = screen.clean_scrollback(out)
    while rows and not rows[-1].strip():
        rows.pop()
    return "\n".join(rows)
