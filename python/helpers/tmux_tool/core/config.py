"""Where things live and how big they may get, read from the environment.

Every knob has a default so a bare install works, and every knob is an
environment variable so several installs and test runs can live side by side
on one machine without touching each other's tmux servers or files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    try:
        return int(raw) if raw else default
    except ValueError:
        return default


@dataclass(frozen=True, slots=True)
class Config:
    """The settings of one tool instance (see README, "Configuration")."""

    shared_socket: str
    shared_session: str
    private_socket: str
    web_port: int
    scratch_session: str
    output_cap: int
    width: int
    height: int
    state_root: Path

    @property
    def private_dir(self) -> Path:
        """Per-socket state of the private server: logs, run records, outputs."""
        return self.state_root / self.private_socket

    @property
    def shared_dir(self) -> Path:
        """Per-socket state kept about the shared server (audit trail, memory)."""
        return self.state_root / f"shared-{self.shared_socket}"


def load() -> Config:
    """Read the configuration now (cheap; callers may call it on every action)."""
    runtime = os.environ.get("TMUX_TOOL_STATE_DIR") or os.path.join(
        os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("TMUX_TMPDIR") or "/tmp",
        f"tmux-tool-{os.getuid()}",
    )
    return Config(
        shared_socket=os.environ.get("TMUX_TOOL_SHARED_SOCKET") or "shared",
        shared_session=os.environ.get("TMUX_TOOL_SHARED_SESSION") or "shared",
        private_socket=os.environ.get("TMUX_TOOL_PRIVATE_SOCKET") or "agent",
        web_port=_int("TMUX_TOOL_WEB_PORT", 7681),
        scratch_session=os.environ.get("TMUX_TOOL_SCRATCH_SESSION") or "scratch",
        output_cap=max(1000, _int("TMUX_TOOL_OUTPUT_CAP", 30_000)),
        width=max(20, _int("TMUX_TOOL_WIDTH", 200)),
        height=max(5, _int("TMUX_TOOL_HEIGHT", 50)),
        state_root=Path(runtime),
    )


def private_path(path: Path) -> Path:
    """Create ``path`` (and parents) readable by this user only; return it.

    Logs and outputs can hold secrets a command printed, so nobody else on the
    machine may list or read them.
    """
    for missing in reversed([p for p in (path, *path.parents) if not p.exists()]):
        missing.mkdir(mode=0o700, exist_ok=True)
    if path.stat().st_mode & 0o077:
        path.chmod(0o700)
    return path


def write_private(path: Path, text: str, *, append: bool = False, errors: str = "strict") -> None:
    """Write a file only this user can read (0600), whatever the umask."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC), 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", errors=errors) as fh:
        fh.write(text)
