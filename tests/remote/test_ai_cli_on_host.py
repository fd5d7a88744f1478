"""AI CLIs on another host: Claude Code, Codex, Gemini CLI and OpenCode started, asked and ended there.

The host is the test's sshd (a separate user whose login shell is zsh); the
user's own start-up file puts the CLI on its PATH and points it at the
scripted model server, as a person's configured account would.  The CLI's
record is on the host, so the answer is read from its screen and the result
says so.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from python.tools.tmux_tool import call
from tests.e2e.clis import homes
from tests.e2e.model_server import ModelServer, Reply

from .conftest import declare

if TYPE_CHECKING:
    from ..accounts import RemoteHost

pytest_plugins = ["tests.accounts"]

ANSWER = ("The far side answers in plain words.\n"
          "A second line, with non-ASCII text: é ü 日本.\n"
          "The last line of the answer.")


@pytest.fixture(params=["claude", "codex", "gemini", "opencode"])
def cli_there(request: pytest.FixtureRequest, remote_host: RemoteHost, private_socket: str, tmp_path: Path,
              monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, ModelServer, Path]]:
    """The CLI configured in the host user's home, against a model server of this test."""
    name = request.param
    declare(tmp_path, monkeypatch, remote_host.line)
    home = remote_host.user.home
    with ModelServer() as server:
        cwd = home / "project"
        cwd.mkdir(exist_ok=True)
        launch = getattr(homes, name)(server.url, home, cwd)
        exports = "".join(f"export {key}={shlex.quote(value)}\n" for key, value in launch.env.items()
                          if key != "HOME")
        (home / ".bashrc").write_text(exports)
        subprocess.run(["chown", "-R", f"{remote_host.user.name}:", str(home)], check=True, timeout=30)
        yield name, server, cwd
        remote_host.ssh(f"tmux -L {private_socket} kill-server 2>/dev/null; rm -rf ~/.tmux_tool ~/.bashrc "
                        "~/.claude ~/.claude.json ~/.codex ~/.gemini ~/.config ~/.local ~/.cache ~/project; true")


def test_an_ai_cli_on_a_host_is_started_asked_and_ended(cli_there: tuple[str, ModelServer, Path]) -> None:
    name, server, cwd = cli_there
    res = call("start", program=name, session="cc", cwd=str(cwd), host="box", timeout=90)
    assert res["ok"] and res["status"] == "ready", (res.get("error"), res.get("evidence"), res.get("screen"))
    server.script.push(Reply(ANSWER))
    res = call("ask", session="cc", prompt="Answer from the far side, please.", host="box", timeout=90)
    assert res["ok"] and res["status"] == "ready", (res.get("error"), res.get("evidence"), res.get("screen"))
    assert res["output"] == ANSWER, (res["output"], res.get("screen"))
    assert res["answer_source"] == "screen", res
    assert server.calls(), "the CLI on the host never reached the model server"
    res = call("exit", session="cc", host="box", timeout=30)
    assert res["ok"], res
