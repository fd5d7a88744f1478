"""The real AI coding CLIs prepared for a test: a fresh HOME each, pointed at a scripted model server.

Every test gets its own model server on a free loopback port (``model_server``)
and, per CLI, a fresh HOME written by ``tests/e2e/clis/homes.py``
(``prepare``).  The HOME and the rest of the CLI's environment are set with
``monkeypatch`` in this process; the tool's ``start`` hands the caller's
environment to the program it launches, so nothing is typed into a shell.

tests/conftest.py loads this module as a plugin, so the end-to-end tests and
the page's (tests/browser) reach the same fixtures.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.clis import homes
from tests.e2e.model_server import ModelServer


@dataclass
class Cli:
    """One CLI prepared for a test: its launch (HOME, cwd, env) and its model server."""

    name: str
    launch: homes.Launch
    server: ModelServer

    @property
    def cwd(self) -> str:
        return str(self.launch.cwd)


def explain(res: dict) -> str:
    """A result as a reader of a failed assertion needs it: status, evidence, error, last screen rows."""
    tail = "\n".join((res.get("screen") or "").splitlines()[-25:])
    return (f"{res.get('action')} -> ok={res.get('ok')} status={res.get('status')} "
            f"evidence={res.get('evidence')!r} error={res.get('error')!r}\n{tail}")


def require_binary(name: str) -> None:
    path = homes.BIN_DIR / name
    assert path.exists(), f"{path} is missing: install the CLIs with tests/run.sh (npm ci in tests/e2e/clis)"


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    with ModelServer() as server:
        yield server


def stop_leftovers(launch: homes.Launch) -> None:
    """Run the launch's ``stop`` (what ends what the CLI leaves running after it exits: Cline's hub
    daemon), so a test's leftover serves no later test."""
    if launch.stop:
        subprocess.run(launch.stop, env=launch.env, cwd=launch.cwd, timeout=60, capture_output=True,
                       check=False)


@pytest.fixture
def prepare(private_socket: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
            model_server: ModelServer, request: pytest.FixtureRequest) -> Callable[..., Cli]:
    """``prepare(name, **flags)``: a fresh HOME for CLI ``name`` (flags as in homes.py),
    its environment set for this test, pointed at this test's model server
    (or at ``server=`` when several CLIs each need their own); what the CLI leaves running
    after the test is stopped (the launch's ``stop``)."""

    def make(name: str, *, server: ModelServer | None = None, **flags: bool) -> Cli:
        require_binary(name)
        target = server or model_server
        home = tmp_path / f"home-{name}"
        cwd = home / "project"
        cwd.mkdir(parents=True)
        launch = getattr(homes, name)(target.url, home, cwd, **flags)
        request.addfinalizer(lambda: stop_leftovers(launch))
        # CI runners set CI=true, and Gemini CLI then leaves its interactive UI out;
        # these tests drive the interactive UI, as a user's terminal does.
        monkeypatch.delenv("CI", raising=False)
        for key, value in launch.env.items():
            monkeypatch.setenv(key, value)
        return Cli(name, launch, target)

    return make
