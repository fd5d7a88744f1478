"""``agent.sh sessions`` and ``agent.sh take NAME``: the agent's terminals for a person without the page.

Real agent.sh in a real pty (the human's terminal), a real tmux client
attached to the agent's server, real keys, a real detach.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import ptyprocess

from python.helpers.tmux_tool.judgement import human
from python.tools.tmux_tool import call

from ..conftest import poll

AGENT_SH = Path(__file__).resolve().parents[2] / "apps" / "shared-terminal" / "agent.sh"


def _held(socket: str, session: str) -> str:
    return subprocess.run(["tmux", "-L", socket, "show-options", "-qv", "-t", f"={session}:", human.HELD],
                          capture_output=True, text=True, check=False, timeout=10).stdout.strip()


def test_sessions_lists_the_agents_terminals(private_socket: str) -> None:
    assert call("run", session="build", command="echo built")["ok"]
    assert call("run", session="slow", command="sleep 30", timeout=0.2)["status"] == "busy"
    out = subprocess.run([str(AGENT_SH), "sessions"], capture_output=True, text=True, check=True, timeout=60,
                         env=os.environ).stdout
    rows = {line.split("\t")[0]: line.split("\t") for line in out.splitlines()}
    assert rows["build"][2] == "ready", out
    assert rows["slow"][2] == "busy" and "sleep 30" in rows["slow"][3], out
    call("interrupt", session="slow")


def test_take_gives_the_human_the_keyboard_until_detach(private_socket: str) -> None:
    assert call("run", session="work", command="echo ready")["ok"]
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")} | {"TERM": "xterm-256color"}
    person = ptyprocess.PtyProcess.spawn([str(AGENT_SH), "take", "work"], env=env, dimensions=(30, 100))
    try:
        assert poll(lambda: _held(private_socket, "work") == "agent.sh", 20), "take did not hold the session"
        assert poll(lambda: subprocess.run(["tmux", "-L", private_socket, "list-clients", "-t", "=work"],
                                           capture_output=True, text=True, check=False, timeout=10).stdout, 10)
        refused = call("send", session="work", text="echo from-agent")
        assert not refused["ok"] and "the human has session work" in refused["error"], refused
        person.write(b"echo from-human\r")
        assert poll(lambda: "from-human" in (call("read", session="work").get("screen") or ""), 10)
        person.write(b"\x02d")  # the prefix key, then d: detach
        assert poll(lambda: not person.isalive(), 20), "agent.sh take did not end on detach"
        assert _held(private_socket, "work") == "", "the session was not handed back"
        res = call("run", session="work", command="echo agent-again")
        assert res["ok"] and res["output"] == "agent-again", res
    finally:
        if person.isalive():
            person.terminate(force=True)
