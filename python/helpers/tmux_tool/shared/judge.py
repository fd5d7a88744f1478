"""The state of the human's session, decided from what the kernel and tmux know, then the screen.

One look gathers three kinds of evidence (docs/ARCHITECTURE.md):

1. tmux: the screen, the cursor, copy mode, a dead pane, the records the
   tool keeps in user options (:mod:`.records`);
2. the kernel (:mod:`..transport.kernel`): which process group owns the
   terminal, whether it runs, and whether a shell's line editor waits for
   keys;
3. the screen: the learned prompt at the cursor line, a continuation prompt,
   a question, a program's face (:mod:`..programs`).

"Busy" is only ever said with something behind it: a process that runs or
waits for a child, or keys the shell has not read yet (for at most a couple
of seconds).  No recorded screen position keeps a session busy, so clearing,
resizing, the alternate screen or the human's own commands cannot lock it.

:func:`judge` only reads; what a look teaches (a prompt to learn, a program
our command started, our command being over) is returned in the state's
``notes`` and written by :func:`observe`, the one place that remembers.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from .. import programs
from ..core.errors import NoServer, NoTarget, TmuxError
from ..core.messages import message
from ..core.status import Status
from ..judgement import human
from ..judgement.state import Notes, State
from ..programs import waiting
from ..screen.snapshot import Snapshot
from ..transport import kernel
from ..transport.kernel import Proc
from ..transport.tmux import Tmux
from . import guard, prompt, records, where
from .look import Look, key_time, take

# Programs that give a shell a terminal of their own (a new pty, a remote host): the shell is out of
# the kernel's sight from here.
RELAYS = frozenset(
    {
        "sudo",
        "su",
        "ssh",
        "mosh-client",
        "script",
        "docker",
        "podman",
        "kubectl",
        "poetry",
        "pipenv",
        "nix-shell",
        "distrobox",
        "toolbox",
        "machinectl",
        "telnet",
        "lxc",
        "tmux: client",
        "screen",
    }
)  # a multiplexer's client draws its own panes' shells
# Shells whose questions (fish's `read`, zsh's `vared`) share the prompt's terminal modes, or that
# have no line editor: for them the screen, not the kernel, tells a question from the prompt.
_READ_LIKE_PROMPT = frozenset({"zsh", "fish", "dash", "sh", "ash", "busybox", "ksh", "mksh"})
# Shells without a line editor: their prompt is read in cooked mode like any question.
NO_EDITOR = frozenset({"dash", "sh", "ash", "busybox"})


def missing(session: str, socket: str) -> str:
    """Why the shared session cannot be used, and how the human starts it."""
    return message("shared_missing", session=repr(session), socket=repr(socket))


def closed(pane: str) -> str:
    """Why a pane the call was bound to cannot be judged: it is gone, and no other pane stands in
    for it."""
    return (f"the pane {pane} was closed (the human closed it, or its shell exited); what ran "
            "there can no longer be read")


def _state(lk: Look, status: Status, evidence: str, program: str | None, notes: Notes | None = None,
           *, question: str | None = None, options: Sequence[str] = ()) -> State:
    return State(
        status,
        evidence,
        program,
        lk.snap,
        lk.facts,
        question=question,
        options=tuple(options),
        notes=notes or Notes(),
    )


def judge(lk: Look, now: float | None = None) -> State:
    """The session's state from one look (pure: nothing is written)."""
    now = time.time() if now is None else now
    facts, term = lk.facts, lk.term
    if facts.dead:
        return _state(lk, Status.ERROR, "the shared pane's shell has exited", facts.command)
    base = Notes(copy_mode=facts.in_mode)
    if (secret := human.asks_secret(term, lk.snap, facts, None)) is not None:
        secret.notes = (
            base if not term.known or term.shell_in_front else replace(base, owner=_owner(lk, now))
        )
        return secret  # the human's to type, whoever asked
    if not term.known:
        return _by_screen(lk, base)
    front = term.front
    assert front is not None and term.shell is not None
    if term.shell_in_front:
        return _shell(lk, front, base, top=True, now=now)
    notes = replace(base, owner=_owner(lk, now))
    if (ahead := _typed_ahead(lk, notes)) is not None:
        return _state(
            lk,
            Status.BUSY,
            f"the human typed while our {front.comm} runs: {ahead!r} may be on the "
            "terminal's line, unread (the kernel keeps a line being typed out of sight)",
            front.comm,
            replace(notes, human_text=ahead, in_program=True),
        )
    if front.shell and not term.working:
        return _shell(lk, front, notes, top=False, now=now)
    if front.state in ("R", "D"):
        return _state(
            lk,
            Status.BUSY,
            f"{front.comm} is running (the kernel has it on the CPU or in I/O)",
            front.comm,
            notes,
        )
    if term.working:
        # Whatever its screen shows (a row like a menu, a prompt, a percentage), it is not waiting
        # for keys.
        return _state(
            lk,
            Status.BUSY,
            f"{front.comm} is running (the kernel has it waiting for a child, a pipe or a "
            "timer, not for keys)",
            front.comm,
            notes,
        )
    # tmux names the group's leader; the kernel found the process at work in it (git's editor or
    # pager).
    snap = (
        lk.snap
        if term.leader is None or front.pid == term.leader.pid
        else replace(lk.snap, program=front.comm)
    )
    verdict = waiting.heard(programs.detect(snap, program=front.comm), term, snap, started=False)
    if front.comm in RELAYS and verdict.status not in (Status.BLOCKED, Status.ERROR):
        return _relayed(lk, front, notes)
    name = verdict.program or front.comm
    if (
        notes.owner == "agent"
        and (typed := _typed_in(snap, name))
        and typed != lk.sent.leftover.strip()
    ):
        # The program is ours, but the line it takes input on is not: a person is typing there.
        return _state(lk, Status.BUSY, f"the human is typing in {name}: {typed!r}", name,
                      replace(notes, human_text=typed, in_program=True))
    # Asleep on the terminal: it takes keys now.
    return _state(lk, verdict.status, verdict.evidence, name, replace(notes, reading=term.reading),
                  question=verdict.question, options=verdict.options)


def _typed_in(snap: Snapshot, program: str) -> str:
    """What is typed, not yet submitted, on the input line of ``program`` (a REPL's, an AI CLI's
    box)."""
    profile = programs.profile_for(program)
    return (profile.pending_input(snap) or "") if profile is not None else ""


def _relayed(lk: Look, front: Proc, notes: Notes) -> State:
    """A program that runs a shell on a terminal of its own (``sudo -i``, ssh): only its screen can
    tell.

    The kernel sees the relay, not the shell behind it, so the prompt is learned
    from the screen alone, and only in a shape prompts commonly have; every
    judgement needs the screen to hold still.
    """
    snap = lk.snap
    line, x, width = snap.cursor_line, snap.cursor[0], snap.width
    found = prompt.split(line, x, lk.book.get(str(front.pid), ""), width)
    inside = f"the shell inside {front.comm}"
    if found.found and found.typed:
        return _state(
            lk,
            Status.BUSY,
            f"the human is typing at the prompt of {inside}: {found.typed!r}",
            front.comm,
            replace(notes, human_text=found.typed, prompt=found.prompt),
        )
    if found.found:
        return _state(
            lk,
            Status.READY,
            f"the prompt {found.prompt.strip()!r} of {inside} is at the cursor line",
            front.comm,
            replace(notes, prompt=found.prompt, before=found.before),
        )
    text = prompt.candidate(line, x, width)
    if text is not None and prompt.common_end(text):
        return _state(
            lk,
            Status.READY,
            f"{inside} waits at its prompt {text.strip()!r}",
            front.comm,
            replace(notes, prompt=text, learn=(front.pid, prompt.template(text, "/"))),
        )
    return _state(
        lk, Status.BUSY, f"{front.comm} runs, and no prompt is at the cursor", front.comm, notes
    )


def _typed_ahead(lk: Look, notes: Notes) -> str | None:
    """What the human may have typed ahead while our program runs in front, or None.

    A terminal in line mode keeps a line being typed in its buffer, unread and
    uncounted (the unread count covers only whole lines), while its echo
    shows it at the cursor.  Our Enter would submit it, C-u erase it, C-c
    flush it with our program.  So text left of the cursor in line mode with
    echo, in the pane the human's keys go to, after a key of theirs since our
    command was typed (the same second counts), is taken for theirs: output
    without a newline looks the same, and only a key of the human's makes it
    doubtful.  A key in the very second its client attached is taken for the
    attach (:func:`.look.key_time`): nobody types a line in the second they
    open the terminal, and a page opened beside our program's question must
    not lock the agent out of answering it.
    """
    term = lk.term
    if notes.owner != "agent" or term.raw or not term.echo:
        return None
    return _keyed_since_ours(lk).strip() or None


def _keyed_since_ours(lk: Look) -> str:
    """The text left of the cursor once a key of the human's reached this pane since our command was
    typed (the same second counts), else "": where the human may have typed into what our command
    runs."""
    facts, sent, snap = lk.facts, lk.sent, lk.snap
    if not facts.focused or sent.at <= 0 or key_time(facts) < int(sent.at):
        return ""
    return snap.cursor_line[:snap.cursor[0]]


def _answering(lk: Look, ours: bool) -> str:
    """What the human has begun to type at our command's ``read`` question, or "".

    The answer sits in the terminal's line buffer, unread and uncounted, so
    only the screen shows it: text at the cursor after the question, once a
    key of the human's came since our command was typed.  The question is
    what our command printed, so the longest start of the cursor's row found
    in our command's text is the question; the rest is theirs.  A question
    our text does not hold (a script's) leaves the whole row theirs: the
    line is not ours to submit or erase either way.
    """
    sent = lk.sent
    left = _keyed_since_ours(lk) if ours and sent.pending else ""
    asked = next(
        (k for k in range(len(left), 0, -1) if left[:k].strip() and left[:k] in sent.text), 0
    )
    return left[asked:].strip()


def _owner(lk: Look, now: float) -> str:
    """Who started the program in front: ``agent`` (recorded, or started by our pending command) or
    ``human``."""
    tag = lk.term.owner
    if tag in lk.owned:
        return "agent"
    sent, front = lk.sent, lk.term.front
    # a record written before ticks
    since = sent.tick or kernel.started_ticks(now - sent.at, lk.kernel) - 1
    started_since = front is not None and front.started >= since
    if sent.pending and started_since and key_time(lk.facts) <= int(sent.at):
        return "agent"
    return "human"


def _shell(lk: Look, sh: Proc, notes: Notes, *, top: bool, now: float) -> State:
    """A shell owns the terminal: at its prompt, at a continuation, asked a question, or working."""
    snap, term, sent = lk.snap, lk.term, lk.sent
    name = sh.comm.lstrip("-")
    where = "" if top else f" (a nested {name}, pid {sh.pid})"
    ours = sent.shell == sh.pid
    if (ours and sent.unread(lk.rchar, now)) or term.pending:
        return _state(lk, Status.BUSY, f"the shell{where} has not read all that was typed yet", name, notes)
    if term.working:
        return _state(lk, Status.BUSY, f"the shell{where} is running a command (a builtin, a loop or $(…))",
                      name, notes)
    if not term.editing and not term.reading:
        return _state(lk, Status.BUSY, f"the shell{where} is starting or ending a command (it does not wait for "
                      "keys)", name, notes)
    line, x, width = snap.cursor_line, snap.cursor[0], snap.width
    if not term.editing and name not in NO_EDITOR:
        # A shell with a line editor reads its `read` builtin's answer in cooked mode or with echo on: a
        # question - unless it waits with a time limit (`read -t`, a loop polling for keys), which ends
        # by itself.
        if term.wchan.startswith("poll_"):
            return _state(lk, Status.BUSY, f"the shell{where} reads with a time limit (read -t): it goes on by "
                          "itself", name, notes)
        answer = _answering(lk, ours)
        return _state(lk, Status.BLOCKED, f"the shell{where} asks a question (the read builtin)"
                      + (f", and the human has begun to answer: {answer!r}" if answer else ""), name,
                      replace(notes, human_text=answer, in_program=bool(answer)), question=line.strip() or "input")
    if term.editing and (mode := prompt.editor_mode(snap.lines, snap.cursor[1], name)):
        # Not the prompt: the keys typed now would go into the mode, and Enter would accept what it found.
        return _state(lk, Status.BUSY, f"the human is {mode} in the shell{where}", name, notes)
    back = ours and sent.pending
    learned = lk.book.get(str(sh.pid), "")
    found = prompt.split(line, x, learned, width)
    if found.found:
        if found.typed and found.typed == sent.leftover.strip() and ours:
            return _state(lk, Status.READY, "our own unsent text is at the prompt", name,
                          replace(notes, leftover=True, prompt=found.prompt, back=back))
        if found.typed and ours and sent.leftover.strip().startswith(found.typed) and now - sent.at < records.GRACE:
            return _state(lk, Status.BUSY, "our own text is still being drawn at the prompt", name, notes)
        if found.typed:
            # Busy for the agent: the line is the human's until they submit or clear it.
            return _state(lk, Status.BUSY, f"the human is typing at the prompt{where}: {found.typed!r}", name,
                          replace(notes, human_text=found.typed, prompt=found.prompt, back=back))
        st = _state(lk, Status.READY, f"the shell's prompt {found.prompt[len(found.before):].strip()!r} is at the "
                    f"cursor line{where}", name,
                    replace(notes, prompt=found.prompt, before=found.before, back=back))
        # The editor draws the prompt before it sleeps for keys, and the prompt is drawn: nothing of the
        # shell's is still to come, so no stillness window is needed.
        st.exact = term.editing
        return st
    text = prompt.candidate(line, x, width)
    if text is not None and prompt.continuation(text) and _unfinished_above(snap, learned, name):
        return _state(lk, Status.BLOCKED, f"the shell{where} waits for the rest of a command "
                      f"(continuation prompt {text.strip()!r})", name, replace(notes, continuation=True),
                      question=line.strip(), options=("finish the command", "C-c"))
    if text is not None and not text.strip() and term.editing:
        return _state(lk, Status.READY, f"the shell{where} waits at its prompt (output was printed after it)",
                      name, replace(notes, back=back))
    # fish's `read` and zsh's `vared` draw their question with the prompt's own line editor: after our
    # command, a line the learned prompt does not match may be a question - unless it is the prompt our
    # command was typed at, in another state (a status glyph, a vi mode).
    question_likely = (name in _READ_LIKE_PROMPT and ours and sent.pending and bool(learned)
                       and not (text is not None and prompt.kin(text, sent.head)))
    if text is not None and prompt.looks_like_prompt(text) and not question_likely:
        pattern = prompt.template(text, lk.facts.path or "/")
        return _state(lk, Status.READY, f"the shell{where} waits at its prompt {text.strip()!r}", name,
                      replace(notes, prompt=text, learn=(sh.pid, pattern), back=back))
    if term.editing and not question_likely:
        typed = line.strip()
        return _state(lk, Status.BUSY, f"the shell{where} waits for keys with {typed!r} on its line: the human "
                      "is typing, or output follows the prompt (not told apart yet)", name,
                      replace(notes, human_text=typed))
    return _state(lk, Status.BLOCKED, f"the shell{where} waits for an answer", name, notes,
                  question=line.strip() or "input")


def _unfinished_above(snap: Snapshot, learned: str, shell: str) -> bool:
    """Is the ``> `` at the cursor a continuation prompt, rather than a main prompt that looks like
    one?

    A continuation prompt only ever follows a line that was submitted
    unfinished: the rows above are the command so far (continuation rows, up
    to the prompt row it began on), and the shell's own parser finds it
    incomplete.  Output right above (``PS1='> '`` after a command that
    printed something), nothing above, or a complete command above: it is the
    main prompt.
    """
    lines: list[str] = []
    for y in range(min(snap.cursor[1], len(snap.lines)) - 1, -1, -1):
        row = snap.lines[y]
        rest = prompt.after_continuation(row)
        if rest is not None:
            lines.insert(0, rest)
            continue
        found = prompt.split(row, len(row), learned, snap.width + len(row))
        first = found.typed if found.found else prompt.after_common_end(row)
        if first is not None:
            lines.insert(0, first)
        break
    command = "\n".join(lines)
    return bool(command.strip()) and guard.syntax_error(command, shell) is not None


def _by_screen(lk: Look, notes: Notes) -> State:
    """Without the kernel's facts (no /proc): the learned prompt, else the program profiles."""
    facts, snap = lk.facts, lk.snap
    learned = lk.book.get(str(facts.pid), "")
    found = prompt.split(snap.cursor_line, snap.cursor[0], learned, snap.width)
    if facts.command in kernel.SHELLS and found.found:
        return _state(
            lk,
            Status.READY,
            f"the shell's prompt {found.prompt.strip()!r} is at the cursor line",
            facts.command,
            replace(notes, prompt=found.prompt, human_text=found.typed),
        )
    verdict = programs.detect(
        snap, program=None if facts.command in kernel.SHELLS else facts.command
    )
    return _state(lk, verdict.status, verdict.evidence, verdict.program or facts.command,
                  replace(notes, owner="human"), question=verdict.question, options=verdict.options)


def observe(tmux: Tmux, pane: str, name: str, now: float | None = None, *, deliver: bool = False,
            also: Sequence[Sequence[str]] = ()) -> tuple[State, Look | None]:
    """Look, judge, and remember what the look taught (a prompt, our program, our command's end);
    ``deliver``: the caller gives our command's output if this look finds it over, and ``also`` are
    tmux commands to run with that record (``delivered`` is then noted in the state)."""
    try:
        lk = take(tmux, pane)
        st = judge(lk, now)
        if (
            st.status == Status.ERROR
            and lk.term.known
            and not lk.term.shell_in_front
            and not lk.facts.dead
        ):
            # The screen is captured after the kernel's facts: a program that ended in between (ls
            # after its error message) is still named in front while the prompt is back under its
            # last words. A program's end is the shell's to tell: look again.
            lk = take(tmux, pane)
            st = judge(lk, now)
    except NoTarget:
        if pane.startswith("%") and tmux.has_session(name):
            try:
                # reported now: the next call is not bound to it
                tmux.chain(where.unbind_if(pane, f"={name}:"))
            except TmuxError:
                pass
            return State(Status.ERROR, closed(pane)), None
        return State(Status.ERROR, missing(name, tmux.socket)), None
    except NoServer:
        return State(Status.ERROR, missing(name, tmux.socket)), None
    if st.notes.copy_mode:
        st.evidence += " (the human is scrolling in copy mode)"
    back = remember(tmux, pane, lk, st, deliver, also)
    if lk.facts.dead:
        try:
            # its shell is gone: reported now, once
            tmux.chain(where.unbind_if(lk.facts.pane_id or pane))
        except TmuxError:
            pass
    st.notes = replace(st.notes, pending=lk.sent.pending and not back)
    return st, lk


def remember(tmux: Tmux, pane: str, lk: Look, st: State, deliver: bool = False,
             also: Sequence[Sequence[str]] = ()) -> bool:
    """Write what a judgement learned into the session's records; True when our command is over."""
    learn = st.notes.learn
    if learn and lk.book.get(str(learn[0])) != learn[1]:
        records.learn(tmux, pane, lk.book, learn[0], learn[1])
    if st.notes.owner == "agent" and lk.term.owner not in lk.owned:
        records.claim(tmux, pane, lk.owned, lk.term.owner)
    if st.notes.back:
        # A caller that gives the output now (send, wait) records it as given in the same write.
        given = deliver and st.status == Status.READY
        record = ["set-option", "-p", "-t", pane, records.SENT,
                  records.dump(replace(lk.sent, back=True, delivered=lk.sent.delivered or given))]
        try:
            tmux.chain(record, *(also if given else ()))
            st.notes = replace(st.notes, delivered=given)
        except TmuxError:
            pass  # a vanished pane: nothing left to record
        return True
    return False
