"""The accounts fixtures (tests/accounts.py) against the real programs, in a real terminal.

Each prompt for a secret is answered as a human would - typed into a tmux
pane - and, while it waits, the kernel facts the tool can read are checked:
the terminal's foreground process group (tpgid), the wchan of its members,
and the tty's termios (canonical mode on, echo off).
"""

from __future__ import annotations

import os
import re
import subprocess
import termios
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..conftest import kill_server, poll, unique

if TYPE_CHECKING:
    from ..accounts import LocalSshd, PassphraseKey, SecretUser

# The fixtures secret_user, local_sshd and passphrase_key: pytest imports the module as a plugin, once, so the
# session's user and sshd are shared with every other module naming it.  (Importing tests.accounts at the top
# of a module that names it would make pytest warn that it cannot rewrite its asserts.)
pytest_plugins = ["tests.accounts"]

# Where a process reading a terminal in canonical mode sleeps: n_tty_read waits in wait_woken
# (kernels >= 3.19); older kernels showed n_tty_read itself.
TTY_READ_WCHANS = {"wait_woken", "n_tty_read"}
PROMPT = "acct$ "
RC = re.compile(r"^rc=\d+$", re.MULTILINE)  # the line `echo rc=$?` prints, not the command line


@dataclass
class Pane:
    socket: str
    target: str = "=acct:"

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, timeout=10, check=True)
        return done.stdout.decode()

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-t", self.target)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-l", "-t", self.target, "--", text)

    def press(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.target, *keys)

    def run(self, line: str) -> None:
        self.type(line)
        self.press("Enter")

    @property
    def pid(self) -> int:
        return int(self.tmux("display-message", "-p", "-t", self.target, "#{pane_pid}"))

    @property
    def tty(self) -> str:
        return self.tmux("display-message", "-p", "-t", self.target, "#{pane_tty}").strip()


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[Pane]:
    """A bash in a tmux pane on a private socket, with a fixed prompt."""
    socket = unique("tt-accounts")
    rc = tmp_path / "bashrc"
    rc.write_text(f"PS1='{PROMPT}'\nHISTFILE=/dev/null\nunset SSH_AUTH_SOCK SSH_AGENT_PID\n")
    subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "acct", "-x", "160",
                    "-y", "40", "-c", str(tmp_path), "bash", "--noprofile", "--rcfile", str(rc), "-i"],
                   check=True, timeout=10)
    try:
        term = Pane(socket)
        assert poll(lambda: PROMPT.strip() in term.screen(), timeout=15), term.screen()  # tmux trims the space
        yield term
    finally:
        kill_server(socket)


# --------------------------------------------------------------------------- kernel facts


def _stat(pid: int) -> list[str]:
    """/proc/PID/stat fields after ``comm``: [state, ppid, pgrp, session, tty_nr, tpgid, ...]."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()


@dataclass(frozen=True)
class Waiting:
    """What the kernel says about a terminal: its foreground group's members and its line discipline."""

    tpgid: int
    front: tuple[tuple[int, str, str], ...]  # (pid, comm, wchan) of every process in the foreground group
    icanon: bool
    echo: bool

    def reader(self, comm: str) -> tuple[int, str, str] | None:
        """The foreground process named ``comm`` if it sleeps reading the terminal."""
        return next((p for p in self.front if p[1] == comm and p[2] in TTY_READ_WCHANS), None)


def terminal_facts(pane: Pane) -> Waiting:
    tpgid = int(_stat(pane.pid)[5])
    front = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if int(_stat(int(entry.name))[2]) != tpgid:
                continue
            front.append((int(entry.name), (entry / "comm").read_text().strip(),
                          (entry / "wchan").read_text().strip()))
        except (OSError, IndexError, ValueError):  # gone meanwhile
            continue
    fd = os.open(pane.tty, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        lflag = termios.tcgetattr(fd)[3]
    finally:
        os.close(fd)
    return Waiting(tpgid, tuple(sorted(front)), bool(lflag & termios.ICANON), bool(lflag & termios.ECHO))


def answer(pane: Pane, line: str, prompt: str, reader: str, secret: str) -> Waiting:
    """Run ``line``; once ``prompt`` shows and ``reader`` waits for the secret, check the terminal, type it.

    Returns what the kernel showed while the secret was awaited.
    """
    pane.run(f"{line}; echo rc=$?")

    def waiting() -> Waiting | None:
        facts = terminal_facts(pane)
        ready = prompt in pane.screen() and facts.reader(reader) and facts.icanon and not facts.echo
        return facts if ready else None

    facts = poll(waiting, timeout=30, step=0.05) or terminal_facts(pane)
    print(f"\n{reader} waits: {facts}")  # the observation, for -s runs
    assert prompt in pane.screen(), pane.screen()
    assert facts.reader(reader), facts  # in front, sleeping in the tty read
    assert facts.icanon and not facts.echo, facts  # a line is read, and not shown
    pane.type(secret)
    pane.press("Enter")
    assert poll(lambda: RC.search(pane.screen()), timeout=30), pane.screen()
    assert secret not in pane.screen()  # echo was off: the secret never showed
    return facts


def output(pane: Pane) -> list[str]:
    """The lines between the last secret prompt and ``rc=N``."""
    lines = pane.screen().splitlines()
    end = max(i for i, text in enumerate(lines) if RC.fullmatch(text))
    start = max(i for i, text in enumerate(lines[:end]) if text.startswith(PROMPT))
    return lines[start + 2:end + 1]  # after the command line and the prompt's line


# --------------------------------------------------------------------------- the smoke tests


def test_sudo_asks_the_users_password_and_runs_id_as_root(secret_user: SecretUser, pane: Pane) -> None:
    assert secret_user.name.startswith("tt-human-") and secret_user.uid != 0
    assert Path(f"/etc/sudoers.d/{secret_user.name}").stat().st_mode & 0o777 == 0o440
    facts = answer(pane, secret_user.sudo_id(), secret_user.sudo_prompt, "sudo", secret_user.password)
    assert {p[1] for p in facts.front} == {"su", "sudo"}  # su waits for its child; sudo reads
    assert output(pane) == ["0", "rc=0"], pane.screen()


def test_ssh_password_login(secret_user: SecretUser, local_sshd: LocalSshd, pane: Pane) -> None:
    line = local_sshd.command_line(secret_user.name, "id", "-u")
    answer(pane, line, f"{secret_user.name}@{local_sshd.host}'s password:", "ssh", secret_user.password)
    assert output(pane) == [str(secret_user.uid), "rc=0"], pane.screen()
    assert f"Accepted password for {secret_user.name}" in local_sshd.log.read_text()


def test_ssh_keygen_asks_the_passphrase(passphrase_key: PassphraseKey, pane: Pane) -> None:
    # ssh-keygen -y prints the key with its comment: compare type and key.
    answer(pane, f"ssh-keygen -y -f {passphrase_key.path}", "Enter passphrase", "ssh-keygen",
           passphrase_key.passphrase)
    shown = output(pane)
    assert shown[-1] == "rc=0" and " ".join(shown[0].split()[:2]) == passphrase_key.public_key, pane.screen()


def test_ssh_key_login_asks_the_keys_passphrase(secret_user: SecretUser, local_sshd: LocalSshd,
                                                passphrase_key: PassphraseKey, pane: Pane) -> None:
    from ..accounts import authorize_key

    authorize_key(secret_user, passphrase_key.public_key)
    line = local_sshd.command_line(secret_user.name, "id", "-u", key=passphrase_key.path)
    answer(pane, line, f"Enter passphrase for key '{passphrase_key.path}':", "ssh", passphrase_key.passphrase)
    assert output(pane) == [str(secret_user.uid), "rc=0"], pane.screen()


def test_teardown_leaves_nothing(tmp_path: Path) -> None:
    from ..accounts import account, sshd

    with account() as user, sshd(tmp_path / "sshd", [user.name]) as server:
        sleeper = subprocess.Popen(["setpriv", f"--reuid={user.uid}", f"--regid={user.uid}", "--init-groups",
                                    "sleep", "300"], start_new_session=True)
        assert user.home.is_dir() and Path(f"/etc/sudoers.d/{user.name}").exists()
    assert sleeper.wait(timeout=10) != 0  # ended by PID at teardown
    assert not Path(f"/proc/{server.pid}").exists()  # sshd ended (and reaped) by PID
    assert subprocess.run(["id", user.name], capture_output=True, check=False).returncode != 0
    assert not user.home.exists() and not Path(f"/etc/sudoers.d/{user.name}").exists()
