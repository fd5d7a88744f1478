"""The secret judgement on real screens and on the kernel's facts.

A secret's question taken for anything else could let the agent type into
it, and an ordinary question taken for one hands the human a terminal for
nothing; so :func:`secrets.question` is held to real captures of both
(tests/fixtures/screens/secrets/, made by tests/fixtures/capture_secrets.py,
and the earlier password screens), each with the question it must find or
none.  :func:`human.asks_secret` is held to the kernel's facts each capture
recorded with its screen, and to the fact sets of the cases a capture as
root cannot show: a setuid read this user cannot see, a relay's own
terminal, no facts at all, a line editor, a program at work.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from python.helpers.tmux_tool.core.status import Status
from python.helpers.tmux_tool.judgement import human
from python.helpers.tmux_tool.screen import Snapshot, secrets, snapshot_from_capture
from python.helpers.tmux_tool.transport import kernel
from python.helpers.tmux_tool.transport.panes import PaneFacts

SCREENS = Path(__file__).resolve().parents[1] / "fixtures" / "screens"
SIZES = ("80x24", "200x50")

# The captures of tests/fixtures/screens/secrets/ by detail, with the question each asks.
ASKED = {
    "sudo": "[sudo] password for ttsecret:",
    "sudo-de": "[sudo] Passwort für ttsecret:",
    "su": "Password:",
    "su-de": "Passwort:",
    "passwd": "Current password:",
    "passwd-de": "Geben Sie das aktuelle Passwort ein:",
    "ssh-password": "ttsecret@127.0.0.1's password:",
    "ssh-keygen": "Enter passphrase:",
    "ssh-add": "Enter passphrase for key:",
    "openssl": "Enter pass phrase for enc.pem:",
    "gpg-pinentry-curses": "Passphrase:",
    "gpg-pinentry-tty": "Passphrase:",
    "git-credential-password": "Password for 'https://demo@example.com':",
    "mysql": "Enter password:",
    "psql": "Password:",
    "python-getpass": "Password:",
    "python-getpass-token": "Token:",
    "read-api-key": "API key:",
}
# ... and those that ask for no secret.
CONTROLS = ("read-yes-no", "read-username", "git-credential-username", "python-repl", "shell-in-secrets-folder",
            "vim-yaml-password", "less-password-lines")
# Earlier captures of other folders that ask for a secret, or ask something else at the cursor.
ASKED_ELSEWHERE = {
    "unprofiled/question-{}-sudo-password": "[sudo] password for nobody:",
    "unprofiled/question-{}-ssh-password": "root@127.0.0.1's password:",
    "unprofiled/question-{}-git-credential-password": "Password for 'https://demo@example.com':",
    "bash/question-{}-password-read": "Password:",
    "bash/question-{}-password-openssl": "Password:",
}
CONTROLS_ELSEWHERE = ("unprofiled/question-{}-apt-remove", "unprofiled/question-{}-ssh-host-key",
                      "unprofiled/question-{}-ssh-keygen-file", "unprofiled/question-{}-npm-init-name",
                      "bash/question-{}-yes-no", "bash/question-{}-rm-confirm", "bash/idle-{}",
                      "bash/running-{}-cat-fake-prompt", "vim/insert-{}", "less/first-page-{}")


def load(name: str) -> dict[str, Any]:
    fixture: dict[str, Any] = json.loads((SCREENS / f"{name}.json").read_text())
    return fixture


def snapshot(name: str) -> Snapshot:
    """The capture as the live tool sees it: rendered from its SGR text, with tmux's cursor and mode."""
    fx = load(name)
    w, h = fx["size"]
    return snapshot_from_capture(fx["ansi"], width=w, height=h, cursor=tuple(fx["cursor"]),
                                 alternate=fx["alternate"], program=fx["pane_current_command"])


def facts(name: str) -> PaneFacts:
    """tmux's facts of the pane the capture was made in (no process ids: they are the kernel's part)."""
    fx = load(name)
    w, h = fx["size"]
    return PaneFacts(cursor=tuple(fx["cursor"]), alternate=fx["alternate"], in_mode=False, dead=False, width=w,
                     height=h, attached=0, window_activity=0,
                     command=fx["pane_current_command"], pid=0)


def secret(detail: str, size: str = "80x24") -> str:
    return f"secrets/secret-{size}-{detail}"


def control(detail: str, size: str = "80x24") -> str:
    return f"secrets/control-{size}-{detail}"


SECRET_ROWS = [pytest.param(secret(d, s), q, id=f"{d}-{s}") for d, q in ASKED.items() for s in SIZES] + [
    pytest.param(n.format(s), q, id=n.format(s)) for n, q in ASKED_ELSEWHERE.items() for s in SIZES]
CONTROL_ROWS = [pytest.param(control(d, s), id=f"{d}-{s}") for d in CONTROLS for s in SIZES] + [
    pytest.param(n.format(s), id=n.format(s)) for n in CONTROLS_ELSEWHERE for s in SIZES]


def test_the_table_names_every_capture_of_the_folder_at_every_size() -> None:
    """A capture added without its row here would be judged by nothing."""
    found = {p.stem for p in (SCREENS / "secrets").glob("*.json")}
    named = {Path(secret(d, s)).name for d in ASKED for s in SIZES} | {
        Path(control(d, s)).name for d in CONTROLS for s in SIZES}
    assert found == named


@pytest.mark.parametrize(("name", "asked"), SECRET_ROWS)
def test_a_secret_question_is_found(name: str, asked: str) -> None:
    assert secrets.question(snapshot(name)) == asked


@pytest.mark.parametrize("name", CONTROL_ROWS)
def test_no_secret_question_on_a_control(name: str) -> None:
    snap = snapshot(name)
    assert secrets.question(snap) is None, snap.cursor_line


def test_a_secret_question_needs_the_cursor_right_after_it() -> None:
    """The same row with the cursor elsewhere (an answer typed, the question scrolled up) is no question."""
    snap = snapshot(secret("sudo"))
    x, y = snap.cursor
    assert secrets.question(snap) is not None
    assert secrets.question(Snapshot(snap.lines, snap.width, snap.height, (x - 4, y))) is None
    assert secrets.question(Snapshot(snap.lines, snap.width, snap.height, (0, y + 1))) is None
    typed = (*snap.lines[:y], snap.lines[y] + " abcdef", *snap.lines[y + 1:])
    assert secrets.question(Snapshot(typed, snap.width, snap.height, (x + 7, y))) is None


def test_pinentrys_dialog_counts_on_the_alternate_screen_and_a_bare_row_does_not() -> None:
    """On the alternate screen only a question inside a dialog's border is one: pinentry-curses draws its
    field in a box, an editor shows a ``password:`` key without one."""
    snap = snapshot(secret("gpg-pinentry-curses"))
    assert snap.alternate and secrets.question(snap) == "Passphrase:"
    bare = snapshot(secret("su"))
    assert secrets.question(Snapshot(bare.lines, bare.width, bare.height, bare.cursor, alternate=True)) is None


# ---------------------------------------------------------------------------------------- the kernel's facts

SHELL = kernel.Proc(100, "bash", "S", 1, 100, 100, 1000, 100)


def member(pid: int, comm: str, state: str = "S", ppid: int = 100) -> kernel.Proc:
    """A process of the foreground group ``pid`` leads, started in the pane's session."""
    return kernel.Proc(pid, comm, state, ppid, pid, pid, 2000 + pid, 100)


PYTHON = member(200, "python3")
SUDO = member(300, "sudo")
RELAY = member(400, "sudo")  # sudo with use_pty: the secret is read on its own pty
SSH = member(500, "ssh")
CAT = member(600, "cat", "R")

CASES = [
    # (id, terminal, screen, program, the reader expected or None for no secret)
    ("readable: a tty read, cooked, echo off",
     kernel.Terminal(True, SHELL, PYTHON, PYTHON, "n_tty_read", raw=False, echo=False, asker=PYTHON,
                     asker_seen=True, waits=True), secret("python-getpass"), "python3", PYTHON.pid),
    ("readable: the kernel decides whatever the question's words",
     kernel.Terminal(True, SHELL, SHELL, SHELL, "n_tty_read", raw=False, echo=False, asker=SHELL,
                     asker_seen=True, waits=True), control("read-yes-no"), None, SHELL.pid),
    ("unreadable: a setuid sleeper, cooked, echo off",
     kernel.Terminal(True, SHELL, SUDO, SUDO, "", raw=False, echo=False, asker=SUDO, asker_seen=False,
                     waits=True), secret("sudo"), "sudo", SUDO.pid),
    ("relay: raw pane, nobody reads it, the question on screen",
     kernel.Terminal(True, SHELL, RELAY, RELAY, "do_select", raw=True, echo=False, waits=True),
     secret("sudo"), "sudo", RELAY.pid),
    ("relay: ssh -t asks on the far side",
     kernel.Terminal(True, SHELL, SSH, SSH, "do_sys_poll", raw=True, echo=False, waits=True),
     secret("ssh-password"), "ssh", SSH.pid),
    ("relay: a question for a name",
     kernel.Terminal(True, SHELL, RELAY, RELAY, "do_select", raw=True, echo=False, waits=True),
     control("read-username"), None, None),
    ("relay: a question for a user name (git's)",
     kernel.Terminal(True, SHELL, SSH, SSH, "do_sys_poll", raw=True, echo=False, waits=True),
     control("git-credential-username"), "git", None),
    ("no kernel facts: the screen's question decides",
     kernel.Terminal(False), secret("su"), None, human.UNKNOWN_READER),
    ("no kernel facts, no secret's question",
     kernel.Terminal(False), control("read-yes-no"), None, None),
    ("a line editor at an ordinary prompt",
     kernel.Terminal(True, SHELL, SHELL, SHELL, "wait_woken", raw=True, echo=False, asker=SHELL, asker_seen=True,
                     waits=True), control("shell-in-secrets-folder"), "bash", None),
    ("a program at work with 'Password:' printed at the cursor",
     kernel.Terminal(True, SHELL, CAT, CAT, "", raw=False, echo=True, waits=False), secret("su"), None, None),
    ("a program at work, its terminal set as for a secret but nobody asleep",
     kernel.Terminal(True, SHELL, CAT, CAT, "", raw=False, echo=False, waits=False), secret("su"), None, None),
]


@pytest.mark.parametrize(("term", "name", "program", "reader"), [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_asks_secret(term: kernel.Terminal, name: str, program: str | None, reader: int | None) -> None:
    st = human.asks_secret(term, snapshot(name), facts(name), program)
    if reader is None:
        assert st is None, st and st.evidence
        return
    assert st is not None
    assert st.status == Status.BLOCKED and st.needs_human
    assert st.secret_reader == reader
    assert st.question and st.evidence


def recorded(name: str) -> kernel.Terminal:
    """The kernel's facts capture_secrets.py read from the pane when the screen was taken."""
    k = dict(load(name)["kernel"])
    for who in ("shell", "front", "leader", "asker"):
        k[who] = kernel.Proc(**k[who]) if k[who] else None
    k["size"] = tuple(k["size"]) if k["size"] else None
    return kernel.Terminal(**k)


CAPTURED = [pytest.param(secret(d, s), True, id=f"secret-{d}-{s}") for d in ASKED for s in SIZES] + [
    pytest.param(control(d, s), False, id=f"control-{d}-{s}") for d in CONTROLS for s in SIZES]


@pytest.mark.parametrize(("name", "asks"), CAPTURED)
def test_asks_secret_on_the_facts_and_screen_of_a_real_run(name: str, asks: bool) -> None:
    fx = load(name)
    st = human.asks_secret(recorded(name), snapshot(name), facts(name), fx["program"])
    assert (st is not None and st.needs_human) == asks, st and st.evidence


@pytest.mark.parametrize("detail", ["gpg-pinentry-curses", "gpg-pinentry-tty"])
def test_only_the_screen_tells_pinentrys_question(detail: str) -> None:
    """gpg-agent starts pinentry outside the pane's process group, so no member reads the terminal (gpg
    waits on the agent's socket); pinentry-curses even sets it raw.  The kernel alone sees no secret: the
    question on the screen is the evidence, and without it nothing is judged a secret."""
    term, name = recorded(secret(detail)), secret(detail)
    assert term.known and term.waits and not term.secret and not term.secret_unseen
    assert human.asks_secret(term, snapshot(name), facts(name), "gpg") is not None
    snap = snapshot(name)
    blank = Snapshot(("",) * snap.height, snap.width, snap.height, snap.cursor, snap.alternate)
    assert human.asks_secret(term, blank, facts(name), "gpg") is None


# ---------------------------------------------------------------------------------------- any input at all

_rows = st.lists(st.text(max_size=40) | st.sampled_from(["Password: ", "│ Passphrase: ___ │", "密码：", "語: ",
                                                          "[sudo] Passwort für x: ", "\x00", "\u200d", ""]),
                 max_size=6)
_int = st.integers(-10**6, 10**6)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=_rows, x=_int, y=_int, width=st.integers(0, 300), height=st.integers(0, 100), alternate=st.booleans())
def test_question_never_raises(rows: list[str], x: int, y: int, width: int, height: int, alternate: bool) -> None:
    """The screen may hold anything and the cursor point anywhere: the answer is a short question or None."""
    asked = secrets.question(Snapshot(tuple(rows), width, height, (x, y), alternate))
    assert asked is None or (asked.endswith((":", "：")) and len(asked) <= secrets.QUESTION_LIMIT)
