"""Real accounts and a real sshd for tests where a human types a secret.

A test that proves a secret (sudo's password, an ssh password, a key
passphrase) is typed by a human and never reaches the tool's results needs
the real programs asking for it:

* :func:`secret_user` - a throwaway Linux user with a random password, who may
  run ``/usr/bin/id`` as root through sudo *with* a password prompt, every time.
* :func:`local_sshd` - an OpenSSH server of its own on 127.0.0.2 that accepts
  that user's password (and keys put in the user's ``authorized_keys``).
* :func:`passphrase_key` - an ed25519 key locked with a random passphrase.

The fixtures live here, not in a conftest: a test module that uses them says
``pytest_plugins = ["tests.accounts"]`` (pytest loads the plugin once, so the
session fixtures are shared by every such module; importing the fixture
functions instead would make one user and one sshd per importing module).

Secrets are handed to programs on stdin, never on a command line, so no
``/proc/*/cmdline`` of the set-up ever shows them.  Everything made is removed
at teardown; processes are ended by their PID, never by name.

Root gets no sudo prompt, so a test asks as the user::

    su NAME --session-command 'sudo -k; sudo id -u'     # SecretUser.as_user(...)

``su NAME -c CMD`` does *not* do: util-linux su puts ``-c`` commands in a new
session without a controlling terminal, and sudo then refuses ("a terminal is
required to read the password").  ``--session-command`` keeps the terminal.

Needs root, ``useradd``/``chpasswd``/``userdel`` (passwd), ``sudo``/``visudo``
(sudo), ``ssh``/``ssh-keygen`` (openssh-client) and ``/usr/sbin/sshd``
(openssh-server).
"""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import poll, require_root

SSHD = "/usr/sbin/sshd"
SSH_HOST = "127.0.0.2"
SUDOERS_DIR = Path("/etc/sudoers.d")

# program -> the Debian package that brings it
PACKAGES = {
    "useradd": "passwd", "chpasswd": "passwd", "userdel": "passwd", "su": "util-linux", "runuser": "util-linux",
    "sudo": "sudo", "visudo": "sudo", "ssh": "openssh-client", "ssh-keygen": "openssh-client",
    SSHD: "openssh-server", "zsh": "zsh",
}


def require(*programs: str) -> None:
    """Fail the test, naming the apt package, when a program it needs is missing (or we are not root)."""
    require_root(PACKAGES, "real accounts and sshd need root", *programs)


def new_secret(nbytes: int = 12) -> str:
    """A random secret of URL-safe characters (16 for 12 bytes) that does not begin with ``-``,
    so it is never taken for an option (``tmux send-keys -l``, ``ssh-keygen -N``)."""
    while (value := secrets.token_urlsafe(nbytes)).startswith("-"):
        pass
    return value


def _run(argv: Sequence[str], stdin: str | None = None, *, new_session: bool = False,
         retry_lock: bool = False) -> subprocess.CompletedProcess[str]:
    """Run a set-up command, raising with its output on failure.

    ``retry_lock``: the shadow tools give up at once when another process holds
    /etc/passwd's lock ("cannot lock ... try again later"); try again for a while.
    """
    tries: list[subprocess.CompletedProcess[str]] = []

    def settled() -> bool:
        tries.append(subprocess.run(list(argv), input=stdin, capture_output=True, text=True, timeout=60,
                                    check=False, start_new_session=new_session))
        return tries[-1].returncode == 0 or not (retry_lock and "lock" in tries[-1].stderr)

    poll(settled, timeout=20 if retry_lock else 0, step=0.2)
    done = tries[-1]
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} exited {done.returncode}: {done.stderr.strip() or done.stdout}")
    return done


def _processes_of(uid: int) -> list[int]:
    """PIDs whose real or effective uid is ``uid`` (from /proc/PID/status)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:  # gone meanwhile
            continue
        for line in status.splitlines():
            if line.startswith("Uid:"):
                real, effective = (int(x) for x in line.split()[1:3])
                if uid in (real, effective):
                    pids.append(int(entry.name))
                break
    return pids


def _end(pids: Sequence[int], timeout: float = 5.0) -> None:
    """SIGTERM ``pids``, then SIGKILL those still alive after ``timeout``."""
    def alive() -> list[int]:
        return [p for p in pids if Path(f"/proc/{p}").exists() and _state(p) != "Z"]

    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in alive():
            with suppress(ProcessLookupError):
                os.kill(pid, sig)
        if poll(lambda: not alive(), timeout=timeout, step=0.05):
            return


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return "Z"


# --------------------------------------------------------------------------- the user


@dataclass(frozen=True)
class SecretUser:
    """A throwaway user: type ``password`` where asked, then grep every result and log for it."""

    name: str
    password: str
    home: Path
    uid: int

    @property
    def sudo_prompt(self) -> str:
        """What sudo prints before it reads the password (its default ``passprompt``)."""
        return f"[sudo] password for {self.name}:"

    def as_user(self, command: str) -> str:
        """A shell line that runs ``command`` as this user *on the same terminal* (root's su asks nothing)."""
        return f"su {self.name} --session-command {shlex.quote(command)}"

    def sudo_id(self) -> str:
        """The shell line whose sudo always asks this user's password, then prints ``0``."""
        return self.as_user("sudo -k; sudo id -u")


@contextmanager
def account(home_base: Path = Path("/home"), login_shell: str = "/bin/bash") -> Iterator[SecretUser]:
    """Make a user ``tt-human-<6 hex>`` with a random password and a sudo rule that always asks;
    remove all of it (sudoers file, the user's processes, the user and home) afterwards."""
    require("useradd", "chpasswd", "userdel", "su", "sudo", "visudo")
    name = f"tt-human-{secrets.token_hex(3)}"
    home = home_base / name
    password = new_secret()
    sudoers = SUDOERS_DIR / name
    made, uid = False, -1
    try:
        _run(["useradd", "--create-home", "--home-dir", str(home), "--shell", login_shell, "--user-group",
              "--comment", "tmux_tool test human", name], retry_lock=True)
        made = True
        _run(["chpasswd"], stdin=f"{name}:{password}\n", retry_lock=True)
        uid = int(_run(["id", "-u", name]).stdout)
        # A password every time: no NOPASSWD, no cached credentials, nothing between the prompt and the test.
        rule = (f"Defaults:{name} timestamp_timeout=0, lecture=never, !mail_badpass\n"
                f"{name} ALL=(root) /usr/bin/id\n")
        draft = SUDOERS_DIR / f".{name}.draft"  # visudo checks it before sudo can see it (dot files are ignored)
        draft.write_text(rule)
        draft.chmod(0o440)
        try:
            _run(["visudo", "-cf", str(draft)])
            draft.rename(sudoers)
        finally:
            draft.unlink(missing_ok=True)
        yield SecretUser(name=name, password=password, home=home, uid=uid)
    finally:
        sudoers.unlink(missing_ok=True)
        if made:
            if uid >= 0:  # userdel refuses a user with processes left (su, sudo, an ssh session...)
                _end(_processes_of(uid))
            _run(["userdel", "--remove", name], retry_lock=True)


@pytest.fixture(scope="session")
def secret_user() -> Iterator[SecretUser]:
    """A non-root user with a random password; ``sudo id -u`` asks it every time (see :class:`SecretUser`)."""
    with account() as user:
        yield user


def authorize_key(user: SecretUser, public_key: str) -> None:
    """Let ``public_key`` (an ``ssh-ed25519 AAAA...`` line) log in as ``user`` (its ~/.ssh/authorized_keys)."""
    ssh_dir = user.home / ".ssh"
    ssh_dir.mkdir(mode=0o700, exist_ok=True)
    keys = ssh_dir / "authorized_keys"
    with keys.open("a") as out:
        out.write(public_key.strip() + "\n")
    for path in (ssh_dir, keys):
        os.chown(path, user.uid, user.uid)
    keys.chmod(0o600)


# --------------------------------------------------------------------------- the ssh server


@dataclass(frozen=True)
class LocalSshd:
    """A private sshd: ``argv``/``command_line`` give an ssh client that never asks about the host key."""

    host: str
    port: int
    known_hosts: Path
    pid: int
    log: Path  # sshd's own log (-e): connections, "Accepted password for ..."
    config: Path  # its sshd_config: :func:`restarted` starts it again with the same

    def argv(self, user: str, *command: str, key: Path | None = None) -> list[str]:
        """``ssh`` to ``user``: by password, or with ``key`` (whose passphrase ssh then asks) when given."""
        if key is None:
            auth = ["-o", "PreferredAuthentications=password", "-o", "PubkeyAuthentication=no"]
        else:
            auth = ["-i", str(key), "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none",
                    "-o", "PreferredAuthentications=publickey", "-o", "PubkeyAuthentication=yes"]
        return ["ssh", "-F", "none", "-p", str(self.port), "-o", f"UserKnownHostsFile={self.known_hosts}",
                "-o", "StrictHostKeyChecking=yes", "-o", "ConnectTimeout=20", *auth,
                f"{user}@{self.host}", *command]

    def command_line(self, user: str, *command: str, key: Path | None = None) -> str:
        """:meth:`argv` as one shell line, to type into a terminal."""
        return shlex.join(self.argv(user, *command, key=key))


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def _greets(host: str, port: int) -> bool:
    """Whether an SSH server answers on ``host:port`` (it sends its banner first)."""
    try:
        with socket.create_connection((host, port), timeout=2) as conn:
            return conn.recv(8).startswith(b"SSH-2.0-")
    except OSError:
        return False


@contextmanager
def sshd(folder: Path, users: Sequence[str], host: str = SSH_HOST) -> Iterator[LocalSshd]:
    """Run ``sshd -D -e`` with a config, host key and known_hosts of its own in ``folder``.

    Password logins of a ``chpasswd`` user work with ``UsePAM no``: sshd then
    checks /etc/shadow itself (UsePAM yes works too, but goes through the
    system's PAM stack, loginuid and motd for nothing).
    """
    require("ssh", "ssh-keygen", SSHD)
    folder.mkdir(parents=True, exist_ok=True)
    host_key = folder / "ssh_host_ed25519_key"
    _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tt-test-sshd", "-f", str(host_key)])
    public = (folder / "ssh_host_ed25519_key.pub").read_text().split()
    # sshd's privilege separation directory (the package's service would make it).
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
    log = folder / "sshd.log"
    proc: subprocess.Popen[bytes] | None = None
    try:
        for _attempt in range(5):  # another process may take the free port before sshd binds it
            port = _free_port(host)
            config = folder / "sshd_config"
            config.write_text("\n".join([
                f"ListenAddress {host}:{port}",
                f"HostKey {host_key}",
                "PasswordAuthentication yes",
                "KbdInteractiveAuthentication no",
                "PubkeyAuthentication yes",  # keys from ~/.ssh/authorized_keys (authorize_key)
                "UsePAM no",
                "PermitRootLogin no",
                f"AllowUsers {' '.join(users)}",
                "PidFile none",
                "StrictModes no",
                "PrintMotd no",
                "PrintLastLog no",
                "UseDNS no",
                "LogLevel VERBOSE",
                "",
            ]))
            _run([SSHD, "-t", "-f", str(config)])
            proc = _start(config, log, host, port)
            if proc is not None:
                break
        if proc is None:
            raise RuntimeError(f"sshd did not start on {host}: {log.read_text()[-2000:]}")
        known_hosts = folder / "known_hosts"
        known_hosts.write_text(f"[{host}]:{port} {public[0]} {public[1]}\n")
        yield LocalSshd(host=host, port=port, known_hosts=known_hosts, pid=proc.pid, log=log, config=config)
    finally:
        if proc is not None:
            _end(_children(proc.pid))
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def _children(pid: int) -> list[int]:
    """sshd's per-connection children ("sshd: USER [priv]"), by PID."""
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _parent(int(p.name)) == pid]


def stop(server: LocalSshd) -> None:
    """The host's sshd goes down: every connection's process, then the listener, ended by PID (a new
    connection is then refused)."""
    _end([*_children(server.pid), server.pid])


@contextmanager
def restarted(server: LocalSshd) -> Iterator[None]:
    """sshd started again (after :func:`stop`) with its config, on the same address and port; it and its
    connections are ended when the block ends."""
    proc = _start(server.config, server.log, server.host, server.port)
    if proc is None:
        raise RuntimeError(f"sshd did not start again on {server.host}:{server.port}: {server.log.read_text()[-2000:]}")
    try:
        yield
    finally:
        _end([*_children(proc.pid), proc.pid])
        proc.wait(timeout=10)


def _start(config: Path, log: Path, host: str, port: int) -> subprocess.Popen[bytes] | None:
    """Start sshd: the process once it greets on ``host:port``; None (nothing left running) if it ended first."""
    with log.open("ab") as err:
        proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdin=subprocess.DEVNULL,
                                stdout=err, stderr=err, start_new_session=True)
    if poll(lambda: proc.poll() is not None or _greets(host, port), timeout=20, step=0.05) \
            and proc.poll() is None:
        return proc
    proc.kill()
    proc.wait(timeout=10)
    return None


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, IndexError, ValueError):
        return None


@pytest.fixture(scope="session")
def local_sshd(secret_user: SecretUser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSshd]:
    """An sshd on 127.0.0.2 (a free port) that lets ``secret_user`` in by password or authorized key."""
    with sshd(tmp_path_factory.mktemp("sshd"), [secret_user.name]) as server:
        yield server


# --------------------------------------------------------------------------- the key


@dataclass(frozen=True)
class PassphraseKey:
    """An ed25519 key whose private half ``path`` opens with ``passphrase`` only."""

    path: Path
    passphrase: str
    public_key: str  # "ssh-ed25519 AAAA..." (type and key, no comment)

    @property
    def public_path(self) -> Path:
        return self.path.with_name(self.path.name + ".pub")


def make_key(path: Path, passphrase: str | None = None) -> PassphraseKey:
    """Make an ed25519 key at ``path`` locked with ``passphrase`` (random when None).

    The passphrase goes in on stdin, never argv: ssh-keygen reads it from stdin
    when it has no terminal, so it runs in a session of its own.
    """
    require("ssh-keygen")
    passphrase = new_secret() if passphrase is None else passphrase
    _run(["ssh-keygen", "-q", "-t", "ed25519", "-C", "tt-test-key", "-f", str(path)],
         stdin=f"{passphrase}\n{passphrase}\n", new_session=True)
    public = " ".join(path.with_name(path.name + ".pub").read_text().split()[:2])
    return PassphraseKey(path=path, passphrase=passphrase, public_key=public)


@pytest.fixture
def passphrase_key(tmp_path: Path) -> PassphraseKey:
    """A fresh ed25519 key with a random passphrase: ``ssh-keygen -y -f KEY`` and ``ssh-add KEY`` ask it."""
    return make_key(tmp_path / "id_ed25519")


__all__ = ["LocalSshd", "PassphraseKey", "SecretUser", "account", "authorize_key", "local_sshd", "make_key",
           "new_secret", "passphrase_key", "require", "restarted", "secret_user", "sshd", "stop"]


# --------------------------------------------------------------------------- a host to work on


@dataclass(frozen=True)
class RemoteHost:
    """Another machine for the tool: a user of its own (login shell zsh) behind the test's sshd, reached
    with a key; ``line`` declares it in a hosts file (``NAME ssh OPTIONS... user@host``)."""

    name: str
    user: SecretUser
    server: LocalSshd
    key: Path

    def ssh_options(self) -> list[str]:
        return ["-F", "none", "-p", str(self.server.port), "-i", str(self.key), "-o", "IdentitiesOnly=yes",
                "-o", "IdentityAgent=none", "-o", f"UserKnownHostsFile={self.server.known_hosts}",
                "-o", "StrictHostKeyChecking=yes", "-o", "ConnectTimeout=10"]

    @property
    def line(self) -> str:
        return shlex.join([self.name, "ssh", *self.ssh_options(), f"{self.user.name}@{self.server.host}"])

    def ssh(self, script: str, timeout: float = 20) -> str:
        """Run ``script`` there as the user (a separate connection: what a person's own ssh does)."""
        argv = ["ssh", *self.ssh_options(), "-o", "BatchMode=yes", f"{self.user.name}@{self.server.host}",
                script]
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=True).stdout


@pytest.fixture(scope="session")
def remote_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RemoteHost]:
    """A host reached over a real sshd on 127.0.0.2 by a user whose login shell is zsh, with a key
    (no passphrase) that the tool's ssh uses."""
    require("zsh", "ssh", "ssh-keygen", SSHD)
    folder = tmp_path_factory.mktemp("remote")
    with account(login_shell=shutil.which("zsh") or "/bin/zsh") as user:
        key = folder / "id_ed25519"
        _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tt-remote", "-f", str(key)])
        authorize_key(user, (folder / "id_ed25519.pub").read_text())
        with sshd(folder / "sshd", [user.name]) as server:
            yield RemoteHost(name="box", user=user, server=server, key=key)
