"""A private shell is a terminal of the user, not of the program that runs the tool.

Agent Zero runs in a virtual environment of its own (``/opt/venv-a0`` in its
image, activated for the framework process), while the user's ``~/.bashrc``
activates the agent's ``/opt/venv``.  A private shell must look like a terminal
the user opened: their start-up files read, the host's virtual environment
gone, so ``python``/``pip`` typed by the agent are the user's.  Real virtual
environments, a real tmux server and real bash.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from python.tools.tmux_tool import call


def make_venv(path: Path) -> Path:
    """A real virtual environment (without pip: this test only resolves names)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120,
                   capture_output=True)
    return path


def test_private_shell_reads_the_users_rc_files_and_drops_the_hosts_venv(
        private_socket: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = make_venv(tmp_path / "venv-host")  # the framework's runtime, activated for the tool's process
    user = make_venv(tmp_path / "venv-user")  # what the user's ~/.bashrc activates
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text(f"source {user}/bin/activate\nalias ll='ls -l'\nexport FROM_BASHRC=yes\n"
                                  "HISTFILE=/dev/null\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("VIRTUAL_ENV", str(host))
    monkeypatch.setenv("PATH", f"{host}/bin{os.pathsep}{os.environ['PATH']}")

    res = call("run", command="command -v python; python -c 'import sys; print(sys.prefix)'; "
                              "echo \"$VIRTUAL_ENV|$FROM_BASHRC\"; type -t ll; echo \":$PATH:\"")
    assert res["ok"] and res["exit_code"] == 0, res
    lines = res["output"].splitlines()
    assert len(lines) == 5, res["output"]
    where, prefix, env, alias, path = lines
    assert where == f"{user}/bin/python" and prefix == str(user)
    assert env == f"{user}|yes" and alias == "alias"
    assert f":{host}/bin:" not in path  # the host's venv is gone from PATH, not just shadowed

    # the markers still work after the user's start-up files ran
    assert call("run", command="(exit 4)")["exit_code"] == 4


def test_private_shell_without_rc_files_still_drops_the_hosts_venv(
        private_socket: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = make_venv(tmp_path / "venv-host")
    home = tmp_path / "empty-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("VIRTUAL_ENV", str(host))
    monkeypatch.setenv("PATH", f"{host}/bin{os.pathsep}{os.environ['PATH']}")

    res = call("run", command="echo \"[$VIRTUAL_ENV]\"; command -v python3")
    assert res["ok"], res
    env, python3 = res["output"].splitlines()
    assert env == "[]" and not python3.startswith(str(host))
