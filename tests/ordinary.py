"""The tool run by an ordinary user, as on every laptop, ssh login and MCP client.

Root reads every process's facts; an ordinary user does not: sudo and su are
setuid, so their kernel waits read ``0``, and a program behind another
user's relay is out of sight.  Tests that run the tool as root never meet
that world, so the fixture here runs it as the throwaway user of
:mod:`tests.accounts` (root only makes the account).

The tool runs as that user from a copy of the library in a folder the user
can read, under the system's Python 3.11 with the three packages the tool
needs at run time (pyte, wcwidth, regex) copied beside it: the repository's
virtualenv may sit under a home only root can enter.  Each call is one
command line (``python -m python.tools.tmux_tool ACTION --json``) run with
``runuser``, in a clean environment of the user's own.

A test module that uses it says ``pytest_plugins = ["tests.accounts",
"tests.ordinary"]``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from .accounts import SecretUser, require

REPO = Path(__file__).resolve().parent.parent
SYSTEM_PYTHON = "/usr/bin/python3"
RUNTIME = ("pyte", "wcwidth", "regex")  # what the tool imports outside the standard library (MCP aside)
SOCKET = "agent"  # the tool's default private socket, as an ordinary user has it
SHARED = "shared"  # and the shared terminal's, as apps/shared-terminal/start.sh names it


@dataclass(frozen=True)
class Ordinary:
    """The tool as ``user``: ``call`` an action, and ``tmux`` on its private server (as the human's
    client would type there)."""

    user: SecretUser
    root: Path  # the library's copy and its packages
    SHARED: ClassVar[str] = SHARED

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.user.home), "USER": self.user.name, "LOGNAME": self.user.name,
                "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "SHELL": "/bin/bash",
                "PYTHONPATH": f"{self.root}:{self.root / 'site'}", "PYTHONDONTWRITEBYTECODE": "1",
                "TMUX_TOOL_RESIDENT": "off"}

    def _as_user(self, argv: Sequence[str], timeout: float) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["runuser", "-u", self.user.name, "--", "env", "-i",
                               *(f"{k}={v}" for k, v in self.env().items()), *argv],
                              cwd=self.root, capture_output=True, text=True, timeout=timeout, check=False)

    def call(self, action: str, **args: Any) -> dict[str, Any]:
        """One action through the command line, as the user; its JSON result."""
        argv = [SYSTEM_PYTHON, "-m", "python.tools.tmux_tool", action, "--json"]
        for key, value in args.items():
            flag = f"--{key.replace('_', '-')}"
            if isinstance(value, bool):
                argv += [flag] if value else []
            elif isinstance(value, list):
                argv += [flag, *map(str, value)]
            else:
                argv += [flag, str(value)]
        done = self._as_user(argv, float(args.get("timeout", 10)) + 30)
        try:
            result: dict[str, Any] = json.loads(done.stdout)
        except json.JSONDecodeError:
            raise AssertionError(f"{action} as {self.user.name} printed no result: {done.stdout!r} {done.stderr!r}")
        return result

    def tmux(self, *args: str, check: bool = True, socket: str = SOCKET) -> str:
        done = self._as_user(["tmux", "-L", socket, *args], 20)
        if check and done.returncode:
            raise AssertionError(f"tmux {' '.join(args)} as {self.user.name}: {done.stderr}")
        return done.stdout

    def type_secret(self, session: str, secret: str, socket: str = SOCKET) -> None:
        """The human's keys into ``session``: tmux reads them from a buffer fed on stdin, so the secret is
        on no command line."""
        done = subprocess.run(["runuser", "-u", self.user.name, "--", "env", "-i",
                               *(f"{k}={v}" for k, v in self.env().items()),
                               "tmux", "-L", socket, "load-buffer", "-b", "tt-human", "-", ";",
                               "paste-buffer", "-d", "-b", "tt-human", "-t", f"={session}:", ";",
                               "send-keys", "-t", f"={session}:", "Enter"],
                              input=secret, text=True, capture_output=True, timeout=20, check=False)
        assert done.returncode == 0, done.stderr


def _copy_runtime(root: Path) -> None:
    """The library and its run-time packages, readable by anyone."""
    shutil.copytree(REPO / "python", root / "python",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    site = Path(next(p for p in sys.path if p.endswith("site-packages")))
    for name in RUNTIME:
        shutil.copytree(site / name, root / "site" / name, ignore=shutil.ignore_patterns("__pycache__"))
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o755)
        for f in files:
            os.chmod(os.path.join(folder, f), 0o644)


@pytest.fixture(scope="session")
def ordinary(secret_user: SecretUser) -> Iterator[Ordinary]:
    """The tool as :func:`tests.accounts.secret_user`; its tmux server ends with the session."""
    require("runuser")
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.fail(f"{SYSTEM_PYTHON} is missing: apt-get install python3 (tests/run.sh does)")
    root = Path(tempfile.mkdtemp(prefix="tt-ordinary-"))
    try:
        root.chmod(0o755)
        _copy_runtime(root)
        user = Ordinary(secret_user, root)
        yield user
        for socket in (SOCKET, SHARED):
            user.tmux("kill-server", check=False, socket=socket)
    finally:
        shutil.rmtree(root, ignore_errors=True)
