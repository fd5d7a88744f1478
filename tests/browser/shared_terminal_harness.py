"""Run one private install of the shared terminal for a test.

Each install gets its own tmux socket, session name, free port and runtime
directory, so tests never meet each other or the real `shared` server, and
cleanup can end exactly what the test started: the web server by the pid its
own pid file names (checked against its start time), the tmux server by its
socket.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from python.helpers.tmux_tool.shared.seen import KEY_GAP

REPO = Path(__file__).resolve().parents[2]
APP_DIR = REPO / "apps" / "shared-terminal"
TMUX_TIMEOUT = 5.0
SCRIPT_TIMEOUT = 300.0
"""start.sh may run setup.sh's installs on a fresh machine."""

T = TypeVar("T")


def wait_for(probe: Callable[[], T], what: str, timeout: float = 10.0, step: float = 0.05) -> T:
    """Poll `probe` until it returns something truthy; fail naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(step)


def free_port() -> int:
    """A port nothing listens on right now (the kernel's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def unique_name(prefix: str) -> str:
    """A tmux-safe name no other test run uses (no `.`, `:` or `$`)."""
    return f"{prefix}-{os.getpid()}-{secrets.token_hex(4)}"


def start_time(pid: int) -> str | None:
    """Field 22 of /proc/PID/stat, or None when the process is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    return None if fields[0] == "Z" else fields[19]


@dataclass
class SharedTerminalApp:
    """One install: its settings, its scripts, and its tmux server."""

    runtime_dir: Path
    socket: str = field(default_factory=lambda: unique_name("tt-web"))
    session: str = field(default_factory=lambda: unique_name("human"))
    port: int = field(default_factory=free_port)
    overrides: dict[str, str] = field(default_factory=dict)

    @property
    def env(self) -> dict[str, str]:
        """The environment the scripts (and the tool) run with for this install."""
        env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
        env.update(
            TMUX_TOOL_SHARED_SOCKET=self.socket,
            TMUX_TOOL_SHARED_SESSION=self.session,
            TMUX_TOOL_WEB_PORT=str(self.port),
            TMUX_TOOL_WEB_BACKEND="builtin",
            XDG_RUNTIME_DIR=str(self.runtime_dir),
            # Commands typed by tests stay out of the user's shell history.
            HISTFILE=os.devnull,
        )
        env.update(self.overrides)
        return env

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def state_dir(self) -> Path:
        return self.runtime_dir / f"tmux-tool-{os.getuid()}" / self.socket

    @property
    def target(self) -> str:
        """tmux target of the session's active pane (exact session name)."""
        return f"={self.session}:"

    def script(
        self, name: str, *args: str, timeout: float = SCRIPT_TIMEOUT
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(APP_DIR / name), *args],
            check=False,
            env=self.env,
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def start(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run start.sh and require success."""
        done = self.script("start.sh", *args)
        assert done.returncode == 0, f"start.sh failed:\n{done.stdout}\n{done.stderr}"
        return done

    def stop(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run stop.sh and require success."""
        done = self.script("stop.sh", *args, timeout=60)
        assert done.returncode == 0, f"stop.sh failed:\n{done.stdout}\n{done.stderr}"
        return done

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """One bounded tmux command on this install's socket."""
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            check=False,
            capture_output=True,
            text=True,
            timeout=TMUX_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        if check:
            assert done.returncode == 0, f"tmux {' '.join(args)} failed: {done.stderr}"
        return done

    def session_alive(self) -> bool:
        return self.tmux("has-session", "-t", f"={self.session}", check=False).returncode == 0

    def display(self, fmt: str) -> str:
        """A tmux format evaluated for the session's active pane."""
        return self.tmux("display-message", "-p", "-t", self.target, fmt).stdout.rstrip("\n")

    def capture(self) -> str:
        """The visible pane as plain text (what the tool reads)."""
        return self.tmux("capture-pane", "-p", "-t", self.target).stdout

    def send_text(self, text: str) -> None:
        """Type literal text into the session, as the tool would."""
        self.tmux("send-keys", "-t", self.target, "-l", text)

    def send_keys(self, *keys: str) -> None:
        """Press named keys (Enter, C-c, ...) in the session."""
        self.tmux("send-keys", "-t", self.target, *keys)

    def wait_for_prompt(self, timeout: float = 15.0) -> None:
        """Wait until the cursor line ends in a shell prompt and stays put.

        A new session's shell may still be reading its rc files; typing then
        loses keys. The prompt is judged at the cursor line only.
        """

        def settled() -> bool:
            first = self.display("#{cursor_y} #{cursor_x}")
            y = int(first.split()[0])
            lines = self.capture().split("\n")
            line = lines[y] if y < len(lines) else ""
            return (
                line.rstrip().endswith(("$", "#", "%", ">"))
                and self.display("#{cursor_y} #{cursor_x}") == first
            )

        wait_for(settled, f"a shell prompt in {self.session}", timeout)

    def wait_keys_quiet(self, timeout: float = 10.0) -> None:
        """Wait until no client of the session has sent input for the tool's key gap.

        A page that connects focuses its terminal, and tmux stamps the focus
        report as the client's activity, just as it stamps a key: for a moment
        the tool holds back as if the human were typing (``shared/seen.py``).
        A test that has the agent type at once starts from a human who opened
        the page and sits still, as its own precondition, not as luck.
        """

        def quiet() -> bool:
            rows = self.tmux("list-clients", "-t", f"={self.session}", "-F",
                             "#{client_activity} #{client_created}").stdout.split("\n")
            keys = [int(a) for a, c in (r.split() for r in rows if r.strip()) if int(a) > int(c)]
            return not keys or time.time() - max(keys) >= KEY_GAP

        wait_for(quiet, "the page's own start-up input to age past the key gap", timeout)

    def web_pid(self) -> int | None:
        """The pid the web server's pid file names, if any."""
        try:
            return int((self.state_dir / "web.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def cleanup(self) -> None:
        """End everything this install may have left, by pid file and socket."""
        pid_file = self.state_dir / "web.pid"
        recorded: list[str] = []
        if pid_file.exists():
            recorded = pid_file.read_text().split()
        self.script("stop.sh", "--kill-session", timeout=60)
        if len(recorded) >= 2 and start_time(int(recorded[0])) == recorded[1]:
            os.kill(int(recorded[0]), signal.SIGKILL)
        self.tmux("kill-server", check=False)
        # tmux leaves its socket file behind when the server ends.
        if not self.tmux("list-sessions", check=False).stdout:
            self.socket_path.unlink(missing_ok=True)

    @property
    def socket_path(self) -> Path:
        """Where tmux puts the socket of `tmux -L <socket>`."""
        return Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / self.socket
