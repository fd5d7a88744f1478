"""The heart of the shared session as tables: real looks judged, the guard asked, shell-ending text told.

The rules that protect the human (``shared/judge.py`` decides what a look
at the pane shows, ``shared/guard.py`` whether the agent may type there)
are pure functions of one look.  Each look here was taken from a real scene
(tests/fixtures/looks/, recorded by tests/fixtures/capture_looks.py with
its provenance), so a rule changed for one scene is held at once to every
other, in milliseconds and without a shell.

A row's expectation is what the human needs, never what today's code
happens to give.
"""

from __future__ import annotations

import json
from dataclasses import fields, replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from python.helpers.tmux_tool.judgement.state import State
from python.helpers.tmux_tool.shared import guard, judge
from python.helpers.tmux_tool.transport.kernel import Terminal
from tests import looks

LOOKS = Path(__file__).resolve().parents[1] / "fixtures" / "looks"
FIXTURES = {p.stem: json.loads(p.read_text()) for p in sorted(LOOKS.glob("*.json"))}
NOTES = ("owner", "human_text", "continuation", "leftover", "copy_mode")


@cache
def observed(name: str) -> State:
    """The look of fixture ``name`` judged at the moment it was taken, as ``judge.observe`` gives it to the
    guard: ``pending`` (our command still runs) is noted after the look's records were written, so a
    command whose prompt this look found back is no longer pending.  The guard only reads the state, so
    its rows share one judgement per look."""
    fx = FIXTURES[name]
    lk = looks.load(fx["look"])
    st = judge.judge(lk, now=fx["now"])
    st.notes = replace(st.notes, pending=lk.sent.pending and not st.notes.back)
    return st


def judged(st: State) -> dict[str, Any]:
    """The parts of a judgement a row checks."""
    return {"status": st.status.value, **{k: getattr(st.notes, k) for k in NOTES}, "needs_human": st.needs_human}


def wanted(expect: dict[str, Any]) -> dict[str, Any]:
    """A row's expectation in full: notes it does not name are off or empty."""
    return {"owner": "", "human_text": "", "continuation": False, "leftover": False, "copy_mode": False,
            "needs_human": False, **expect}


@pytest.mark.parametrize("name", FIXTURES)
def test_the_recorded_look_is_judged_as_its_scene_was(name: str) -> None:
    fx = FIXTURES[name]
    st = observed(name)
    assert judged(st) == wanted(fx["expect"]), f"{fx['scene']}: {st.evidence}"


@pytest.mark.parametrize("name", FIXTURES)
def test_a_look_survives_its_json(name: str) -> None:
    """Everything recorded comes back; a fact the kernel's terminal learned to tell after the look
    was recorded comes back as its default, "not known" (``keys_only``: False)."""
    data = FIXTURES[name]["look"]
    later = {f.name: f.default for f in fields(Terminal) if f.name not in data["term"]}
    assert later.keys() <= {"keys_only"}, later
    assert json.loads(json.dumps(looks.dump(looks.load(data)))) == {**data, "term": {**data["term"], **later}}


@pytest.mark.parametrize("name", FIXTURES)
def test_every_look_has_its_provenance_and_guard_row(name: str) -> None:
    fx = FIXTURES[name]
    assert {"shell", "shell_version", "tmux", "size", "kernel", "how", "date"} <= set(fx["provenance"])
    assert fx["scene"] and fx["now"] > 0
    assert name in GUARD, f"{name} has no row in the guard's table"


# --- the guard, per look ---------------------------------------------------------------------------
# What the agent asks for: (label, text, keys, force).  ``send`` passes its text (Enter is its own flag);
# ``keys`` passes key names.
PROBES = (
    ("text", "ls", (), False),
    ("text, force", "ls", (), True),
    ("Enter", "", ("Enter",), False),
    ("Enter, force", "", ("Enter",), True),
    ("C-c", "", ("C-c",), False),
    ("C-c, force", "", ("C-c",), True),
    ("C-u", "", ("C-u",), False),
    ("answer y", "y", (), False),
)
G, H, R = "go", "hold", "refuse"  # type now; wait and try again (not final); refused (final)
HUMAN_TYPING = (H,) * 8  # the human's line: nothing goes in, not even forced, until they submit or clear it
HUMANS_PROGRAM = (R, G, R, G, R, G, R, R)  # the human's: nothing unless the human asked for it (force)
IDLE = (G, G, G, G, R, G, R, G)  # the human's shell at its prompt: no C-c or C-u, nothing of ours to stop

GUARD: dict[str, tuple[str, ...]] = {
    "bash-idle-first": IDLE,
    "bash-idle": IDLE,
    "zsh-idle": IDLE,
    "fish-idle": IDLE,
    "bash-two-line-idle": IDLE,
    "bash-human-typed": HUMAN_TYPING,
    "zsh-human-typed": HUMAN_TYPING,
    "fish-human-typed": HUMAN_TYPING,
    "bash-two-line-human-typed": HUMAN_TYPING,
    "bash-agent-leftover-human-added": HUMAN_TYPING,
    "bash-agent-python-human-typed": HUMAN_TYPING,
    # Our command runs: keys reach it (C-c stops it), text waits for it to end (force types ahead).
    "bash-agent-sleep": (H, G, G, G, G, G, G, H),
    "fish-agent-sleep": (H, G, G, G, G, G, G, H),
    "fish-agent-prompt-computing": (H, G, G, G, G, G, G, H),  # our command is ending: as while it runs
    # The human typed ahead into the terminal while our command runs: Enter would submit their line, C-u
    # erase it, C-c flush it, forced text join it.
    "bash-agent-sleep-human-types-ahead": HUMAN_TYPING,
    "bash-agent-done-human-typed-ahead": HUMAN_TYPING,  # our command is over: Enter would run their line
    "bash-human-sleep": HUMANS_PROGRAM,
    "bash-human-vim": HUMANS_PROGRAM,
    "bash-human-less": HUMANS_PROGRAM,
    "bash-human-python": HUMANS_PROGRAM,
    "bash-human-rm-confirm": HUMANS_PROGRAM,
    "bash-human-yes-no": HUMANS_PROGRAM,
    "bash-human-continuation": HUMANS_PROGRAM,
    "zsh-human-continuation": HUMANS_PROGRAM,
    # The agent's own unfinished line (force skipped the parser): its C-c is refused too, since a human
    # may have started the continuation after a command of ours the tool did not yet see end.
    "bash-agent-continuation": HUMANS_PROGRAM,
    "bash-agent-python": (G,) * 8,
    "bash-agent-yes-no": (G,) * 8,
    # The human has typed `n` into our question: the line is theirs now.
    "bash-agent-yes-no-human-answering": HUMAN_TYPING,
    # Our own unsent text: ours to clear or submit, and text replaces it.
    "bash-agent-leftover": (G,) * 8,
    "zsh-agent-leftover": (G,) * 8,
    "bash-copy-mode": (H,) * 8,  # until the human leaves copy mode
    # A secret is the human's to type; only leaving keys (C-c) reach it, and only ours or forced.
    "bash-human-password": (R, R, R, R, R, G, R, R),
    "bash-agent-password": (R, R, R, R, G, G, R, R),
}


def _rows() -> list[Any]:
    rows = []
    for name, verdicts in GUARD.items():
        for (label, text, keys, force), verdict in zip(PROBES, verdicts, strict=True):
            rows.append(pytest.param(name, text, keys, force, verdict, id=f"{name}:{label}"))
    return rows


@pytest.mark.parametrize(("name", "text", "keys", "force", "verdict"), _rows())
def test_the_guard(name: str, text: str, keys: tuple[str, ...], force: bool, verdict: str) -> None:
    st = observed(name)
    leave = guard.may_type(st, text=text, keys=keys, force=force)
    got = G if leave.go else R if leave.final else H
    assert got == verdict, f"{name} ({st.status.value}: {st.evidence}): {leave.reason}"


# --- text that would end the human's shell --------------------------------------------------------
ENDS = {
    "exit": True, "exit 0": True, "  exit  ": True, "exit # bye": True, "logout": True,
    "exec bash": True, "exec zsh -l": True, "exec -a name bash": True,
    "kill -9 $$": True, "kill $$": True, 'kill -9 "$$"': True, "kill -s KILL $$": True, "kill -KILL -- $$": True,
    "kill 0": True, "kill -1": True, "kill %%": True, "kill $PPID": True, "kill -9 ${PPID}": True,
    "FOO=1 exit": True, "builtin exit": True, "command exit 3": True,
    "'exit'": True, '"exit"': True, "\\exit": True, "e\\xit": True,
    "true && exit": True, "false || exit": True, "ls; exit": True, "ls | exit": True, "ls && logout": True,
    "echo done; logout": True, "ls\nexit": True, "disown; exit": True,
    "{ exit; }": True, "if true; then exit; fi": True, "while true; do exit; done": True, "! exit": True,
    "time exit": True, "sudo kill $$": True, "sudo -u root kill -9 $$": True, "env kill $$": True,
    "/bin/kill -9 $$": True, "timeout 5 kill $PPID": True,
    # Refused though harmless: a subshell's exit, a commented or escaped separator, a signal 0 probe.
    "(exit)": True, "x=$(exit)": True, "echo hi # ; exit": True, "echo a\\;exit": True, "kill -0 $$": True,
    "echo kill $$": True,
    "echo exit": False, "echo 'exit'": False, "echo 'a;exit'": False, 'echo "a; exit"': False, "# exit": False,
    "EXIT": False, "exits": False, "exit_code=1": False, "env exit": False, "nohup exit": False,
    "exec >log 2>&1": False, "exec 2>/dev/null": False, "exec 3<file": False, "exec": False,
    "kill 1234": False, "trap 'echo bye' EXIT": False, "ls -l": False,
}


@pytest.mark.parametrize(("text", "ends"), ENDS.items())
def test_ends_shell(text: str, ends: bool) -> None:
    assert (guard.ends_shell(text) is not None) == ends, guard.ends_shell(text)


def test_a_shell_still_drawing_its_prompt_is_not_at_it() -> None:
    """fish runs its prompt function (here ``sleep 20``; a git prompt on a busy machine) with the terminal
    already set for its line editor and the cursor on an empty row.  The recorded look also holds a focus
    report the shell has not read; without it, the shell's own wait (on its threads, not for keys) must still
    say it is not at its prompt, or the empty row reads as a prompt that output followed."""
    fx = FIXTURES["fish-agent-prompt-computing"]
    lk = looks.load(fx["look"])
    lk = replace(lk, term=replace(lk.term, pending=0))
    st = judge.judge(lk, now=fx["now"])
    assert st.status.value == "busy", st.evidence
    assert "does not wait for keys" in st.evidence, st.evidence
