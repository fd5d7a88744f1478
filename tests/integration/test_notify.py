"""The human hears of a prompt that needs them wherever they are: one notification per prompt.

``TMUX_TOOL_NOTIFY`` names an Apprise ``json://`` URL of a small HTTP server in
the test, which keeps every notification posted to it.  A real sudo (the
throwaway user of tests/accounts.py) asks its password in a private session and
in the shared terminal; the agent looks at it several times (``run`` or
``send``, ``status`` twice, a short ``wait``) and exactly one notification
arrives, naming the session and the page's address for it; the human types the
password (tmux send-keys, as a human's client does) and a "no longer needs you"
follows.  No notification holds the password.  A notifier that does not answer,
or cannot be reached, never holds up the agent's calls, and is logged once.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from python.helpers.tmux_tool.core import notify
from python.helpers.tmux_tool.judgement import human
from python.tools.tmux_tool import call

from ..conftest import REPO, SharedTerminal, poll

if TYPE_CHECKING:
    from ..accounts import SecretUser
    from ..notifications import Receiver

pytest_plugins = ["tests.accounts", "tests.notifications"]

PAGE = "http://127.0.0.1:7681/"
GETPASS = "python3 -c 'import getpass; getpass.getpass()'"


def _set_page(socket: str) -> None:
    """What the page's server does when it starts: its address in the shared server."""
    subprocess.run(["tmux", "-L", socket, "set-option", "-g", human.PAGE, PAGE], check=True, timeout=10)


def _type_as_the_human(socket: str, session: str, secret: str) -> None:
    for keys in (["-l", "--", secret], ["Enter"]):
        subprocess.run(["tmux", "-L", socket, "send-keys", "-t", f"={session}:", *keys], check=True, timeout=10)


def _looks_again(session: str | None = None) -> None:
    """The agent looks at the prompt again and again, as agents do."""
    where = {"session": session} if session else {}
    for _ in range(2):
        assert call("status", **where).get("needs_human"), call("status", **where)
    assert call("wait", timeout=0.5, **where).get("needs_human")


def _told_once(box: Receiver, session: str, where: str, secret: str) -> None:
    box.done()
    asked = box.asks()
    assert len(asked) == 1, box.posts
    assert asked[0]["title"].startswith(f"{session} on "), asked
    assert where in asked[0]["message"] and "password" in asked[0]["message"].lower(), asked
    assert all(secret not in json.dumps(p) for p in box.posts), box.posts


def test_a_private_sudo_is_told_once_and_its_answer_once(
        private_socket: str, shared_terminal: SharedTerminal, secret_user: SecretUser, receiver: Receiver,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(notify.ENV, receiver.url)
    _set_page(shared_terminal.socket)
    res = call("run", session="admin", command=secret_user.sudo_id(), timeout=30)
    assert res.get("needs_human") and res["where"] == f"{PAGE}#session=admin", res
    _looks_again("admin")
    _told_once(receiver, "admin", f"{PAGE}#session=admin", secret_user.password)

    _type_as_the_human(private_socket, "admin", secret_user.password)
    res = call("wait", session="admin", timeout=30)
    assert res["ok"] and res["exit_code"] == 0, res
    assert poll(receiver.answers, timeout=30), receiver.posts
    call("status", session="admin")
    receiver.done()
    assert [p["title"] for p in receiver.answers()] == [f"admin on {os.uname().nodename} no longer needs you"]
    assert len(receiver.asks()) == 1, receiver.posts
    assert all(secret_user.password not in json.dumps(p) for p in receiver.posts), receiver.posts


def test_a_sudo_in_the_shared_terminal_is_told_once(
        shared_terminal: SharedTerminal, secret_user: SecretUser, receiver: Receiver,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(notify.ENV, receiver.url)
    _set_page(shared_terminal.socket)
    assert call("send", text=secret_user.sudo_id(), timeout=10)["ok"]
    assert poll(lambda: call("status").get("needs_human"), timeout=10), call("status")
    _looks_again()
    _told_once(receiver, shared_terminal.session, PAGE, secret_user.password)

    shared_terminal.type(secret_user.password)
    shared_terminal.press("Enter")
    res = call("wait", timeout=30)
    assert res["ok"] and res["status"] == "ready", res
    assert poll(receiver.answers, timeout=30), receiver.posts
    receiver.done()
    assert all(secret_user.password not in json.dumps(p) for p in receiver.posts), receiver.posts


def test_a_notifier_that_does_not_answer_holds_up_no_call(
        private_socket: str, receiver: Receiver, monkeypatch: pytest.MonkeyPatch) -> None:
    """The receiver takes the notification's connection and answers nothing until the end: every call
    returns meanwhile, a new prompt's included."""
    monkeypatch.setenv(notify.ENV, receiver.url)
    receiver.gate.clear()
    assert call("run", session="pw", command=GETPASS, timeout=30).get("needs_human")
    assert receiver.entered.wait(timeout=30), "no notification reached the receiver"
    assert call("status", session="pw").get("needs_human")
    assert call("run", session="pw2", command=GETPASS, timeout=30).get("needs_human")
    assert not receiver.gate.is_set() and not receiver.posts and receiver.sending()  # all of it while held up
    receiver.gate.set()
    receiver.done()
    assert len(receiver.asks()) == 2, receiver.posts


def test_a_failing_notifier_is_logged_once_without_its_secrets(
        private_socket: str, receiver: Receiver, monkeypatch: pytest.MonkeyPatch) -> None:
    """A closed port and a URL no Apprise plugin takes, beside one that works: the working one is told,
    each failure is written once to the log (the password in a URL never), however many prompts fail."""
    with socket.socket() as probe:  # a port nobody listens on once closed
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    monkeypatch.setenv(notify.ENV, f"json://who:pw-in-url-123@127.0.0.1:{closed}/, nosuch://x {receiver.url}")
    for session in ("one", "two"):
        assert call("run", session=session, command=GETPASS, timeout=30).get("needs_human")
        receiver.done()
    assert len(receiver.asks()) == 2, receiver.posts
    log = (Path(os.environ["TMUX_TOOL_STATE_DIR"]) / notify.LOG).read_text()
    lines = log.splitlines()
    assert len(lines) == 2, log
    assert "item 2 of TMUX_TOOL_NOTIFY (nosuch://...) is no Apprise URL" in log, log
    assert "item 1 of TMUX_TOOL_NOTIFY (json://...) did not take the notification" in log, log
    assert "pw-in-url-123" not in log and str(closed) not in log, log


def test_a_command_line_call_that_exits_at_once_still_tells(
        private_socket: str, receiver: Receiver) -> None:
    """A command-line call answers itself (no resident) and its process exits right after its answer: the
    notification still arrives (the spawn is waited for at exit, the sending is the detached child's)."""
    assert call("run", session="pw", command=GETPASS, timeout=30).get("needs_human")  # not told: unset here
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    env.update({notify.ENV: receiver.url, "TMUX_TOOL_RESIDENT": "off"})
    done = subprocess.run([sys.executable, "-m", "python.tools.tmux_tool", "status", "--session", "pw", "--json"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert json.loads(done.stdout).get("needs_human"), done
    assert done.stderr == "", done.stderr
    assert poll(receiver.asks, timeout=60), "the notification did not outlive the call's process"
    assert receiver.asks()[0]["title"].startswith("pw on "), receiver.posts
