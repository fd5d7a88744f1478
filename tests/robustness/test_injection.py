"""Injection: no input ever runs a command the caller did not ask for.

Each payload hides ``touch CANARY`` in a place where some layer might run it:
the shell (``$(...)``, backticks, ``;``, ``&&``, newlines), tmux's own command
parser (an argument that is ``;`` or ends in ``;`` ends the command and the
next argument becomes a new command; ``#``, quotes, braces, ``~`` and ``$`` in
a command string) and tmux's format expander (``#(...)`` runs a shell command
wherever tmux expands a format, such as ``new-session -c``).  The proof is
the filesystem: the canary file never appears.  Where the caller's text is
meant to arrive somewhere (a key, a directory), the test also checks it
arrived exactly as given.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from python.helpers.tmux_tool.transport.tmux import Tmux
from python.tools.tmux_tool import call

from ..conftest import SharedTerminal, kill_server, unique
from .conftest import SLACK, assert_sentence, guard_allows, poll, start_shared, timed, tmux


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    """Where an injected ``touch`` would leave its mark (each test checks it)."""
    return tmp_path / "canary"


def payloads(canary: Path) -> list[str]:
    """Ways to smuggle ``touch CANARY`` into one string."""
    c = str(canary)
    q = shlex.quote(c)
    return [
        f"$(touch {q})",
        f"`touch {q}`",
        f"x; touch {q}",
        f"x && touch {q}",
        f"x\ntouch {q}\n",
        f"x | touch {q}",
        f"'; touch {q}; '",
        f'"; touch {q}; "',
        f"#(touch {q})",
        f"x; run-shell 'touch {c}'",
        f"x \\; run-shell \"touch {c}\"",
        f"#{{run-shell 'touch {c}'}}",
        ";",
        "x;",
    ]


def _no_canary(canary: Path) -> None:
    assert not canary.exists(), f"an injected command ran: {canary} was created"


# --- session names ------------------------------------------------------------
ACTIONS_WITH_SESSION = ("run", "send", "keys", "read", "wait", "status", "start", "ask", "exit", "interrupt",
                        "kill")


def test_session_names_never_reach_a_shell_or_tmux(private_socket: str, canary: Path) -> None:
    call("run", command="true")
    before = tmux(private_socket, "list-sessions", "-F", "#{session_name}").stdout.split()
    base = {"run": {"command": "true"}, "send": {"text": "true"}, "keys": {"keys": "Enter"},
            "wait": {"timeout": 0.2}, "start": {"program": "cat", "timeout": 0.5},
            "ask": {"prompt": "hi"}, "interrupt": {"timeout": 0.2}}
    for payload in payloads(canary):
        for action in ACTIONS_WITH_SESSION:
            res = call(action, session=payload, **base.get(action, {}))
            assert_sentence(res)
            assert "session name" in res["error"], (action, payload, res)
        res = call("wait", sessions=["scratch", payload], timeout=0.2)
        assert_sentence(res)
    _no_canary(canary)
    after = tmux(private_socket, "list-sessions", "-F", "#{session_name}").stdout.split()
    assert after == before


# --- keys ---------------------------------------------------------------------
def test_key_names_are_names_not_commands(private_socket: str, canary: Path) -> None:
    call("run", command="true")
    for payload in payloads(canary):
        for keys in (payload, [payload], ["Enter", payload], [payload, "Enter"]):
            res = call("keys", session="scratch", keys=keys, timeout=0.2)
            if res["ok"]:  # split on spaces into valid key names: typed, not run
                continue
            assert_sentence(res)
    _no_canary(canary)


PUNCTUATION = [";", "#", "'", '"', "{", "}", "\\", "~", "$", "%", "&", "|", "`", "(", ")", "<", ">", "*", "!"]


def _typed_after_prompt(screen: str) -> str:
    line = [row for row in screen.splitlines() if row.strip()][-1]
    return line.split("$ ", 1)[1] if "$ " in line else line.split("# ", 1)[1] if "# " in line else ""


def test_each_punctuation_key_is_typed_exactly_in_a_private_session(private_socket: str) -> None:
    call("run", command="true")
    for key in PUNCTUATION:
        res = call("keys", session="scratch", keys=[key, "a"], timeout=1)
        assert res["ok"], (key, res)
        screen = tmux(private_socket, "capture-pane", "-p", "-t", "=scratch:").stdout
        assert _typed_after_prompt(screen) == key + "a", (key, screen)
        assert call("keys", session="scratch", keys="C-u", timeout=1)["ok"]


@pytest.fixture
def planted(tmp_path: Path, canary: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SharedTerminal]:
    """A shared terminal whose PATH holds a program named like a key (``y``).

    If key names ever reach tmux's command parser unquoted, a sequence such
    as ``; i y y`` becomes ``if-shell y y``, and tmux runs ``y`` - this plant -
    through /bin/sh.  The plant only touches the canary.
    """
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    plant = bin_dir / "y"
    plant.write_text(f"#!/bin/sh\ntouch {shlex.quote(str(canary))}\n")
    plant.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    socket = unique("tt-rb-plant")
    monkeypatch.setenv("TMUX_TOOL_SHARED_SOCKET", socket)
    monkeypatch.setenv("TMUX_TOOL_SHARED_SESSION", "shared")
    monkeypatch.setenv("TMUX_TOOL_STATE_DIR", str(tmp_path / "state"))
    try:
        yield start_shared(socket, home, path=f"{bin_dir}:{os.environ.get('PATH', '')}")
    finally:
        kill_server(socket)


def _shared_line(term: SharedTerminal) -> str:
    return _typed_after_prompt(term.screen())


def _quiet(term: SharedTerminal) -> None:
    """Clear the prompt line as the human would, then wait until the guard lets us type."""
    term.press("C-u")
    assert poll(lambda: _shared_line(term) == "", 5)
    assert poll(lambda: call("status")["status"] == "ready", 5)
    guard_allows(term)


def test_shared_keys_never_become_tmux_commands(planted: SharedTerminal, canary: Path) -> None:
    """``; i y y`` would be ``if-shell y y``: tmux would run the program ``y``."""
    _quiet(planted)
    res, took = timed("keys", keys=[";", "i", "y", "y"], timeout=5)
    assert took < SLACK, took
    _no_canary(canary)
    assert res["ok"], res
    assert poll(lambda: _shared_line(planted) == ";iyy", 3), planted.screen()


def test_shared_keys_cannot_block_the_server(planted: SharedTerminal) -> None:
    """``; w x`` would be ``wait-for x``: the call would hang until tmux's timeout."""
    _quiet(planted)
    res, took = timed("keys", keys=[";", "w", "x"], timeout=5)
    assert took < SLACK, took
    assert res["ok"], res
    assert poll(lambda: _shared_line(planted) == ";wx", 3), planted.screen()


def test_punctuation_keys_are_typed_exactly_in_the_shared_session(planted: SharedTerminal) -> None:
    """tmux's parser would eat ``;`` ``#`` quotes braces ``\\`` and expand ``~``."""
    _quiet(planted)
    res = call("keys", keys=[*PUNCTUATION, "y"], timeout=5)
    assert res["ok"], res
    want = "".join(PUNCTUATION) + "y"
    assert poll(lambda: _shared_line(planted) == want, 3), (want, _shared_line(planted))


# --- the transport itself ----------------------------------------------------
def test_arguments_ending_in_semicolon_never_start_a_tmux_command(private_socket: str, canary: Path) -> None:
    """tmux 3.3a reads an argv argument ending in ``;`` as the end of the command."""
    call("run", command="true")
    t = Tmux(private_socket)
    c = str(canary)
    for tail in ([";", "run-shell", f"touch {c}"], ["a;", "run-shell", f"touch {c}"],
                 ["a\\;", "run-shell", f"touch {c}"], ["a;;", "run-shell", f"touch {c}"]):
        t.cmd("send-keys", "-l", "-t", "=scratch:", *tail)
        out = t.cmd("display-message", "-p", *tail[:1])
        assert out.rstrip("\n") == tail[0], (tail, out)
    _no_canary(canary)
    expected = "".join(["".join([";", "run-shell", f"touch {c}"]), "".join(["a;", "run-shell", f"touch {c}"]),
                        "".join(["a\\;", "run-shell", f"touch {c}"]), "".join(["a;;", "run-shell", f"touch {c}"])])

    def screen() -> str:
        # -J: the typed line is one line however the pane's width wraps it, with a blank that fell at a row's
        # end kept (where it falls depends on the prompt's working directory and the canary's path).
        return tmux(private_socket, "capture-pane", "-p", "-J", "-t", "=scratch:").stdout.replace("\n", "")

    assert poll(lambda: expected in screen(), 5), screen()  # typed exactly, once the shell has echoed it


# --- start: program, args, cwd --------------------------------------------------
def test_start_program_and_args_are_words_not_shell(private_socket: str, canary: Path, tmp_path: Path) -> None:
    out = tmp_path / "args.txt"
    for payload in payloads(canary):
        res = call("start", program="sh", args=["-c", f'printf "%s" "$1" > {shlex.quote(str(out))}', "sh", payload],
                   timeout=3)
        assert poll(lambda want=payload: out.exists() and out.read_text() == want, 5), (payload, res["error"])
        out.unlink()
        call("kill", session=res["session"])
        res = call("start", program=f"echo {payload}", timeout=1)
        if not res["ok"]:
            assert_sentence(res)
        if res["session"]:
            call("kill", session=res["session"])
    _no_canary(canary)


@pytest.mark.parametrize("index", range(len(payloads(Path("/c")))))
def test_start_cwd_is_a_directory_not_a_command(private_socket: str, canary: Path, tmp_path: Path,
                                                index: int) -> None:
    """A directory may be named anything, even ``#(touch ...)``; tmux must not expand it."""
    payload = payloads(canary)[index]
    where = tmp_path / "dirs" / payload.replace("\n", " ")
    where.mkdir(parents=True)
    res = call("start", program="python3", cwd=str(where), session="incwd", timeout=10)
    assert res["session"] == "incwd", res
    _no_canary(canary)
    path = tmux(private_socket, "display-message", "-p", "-t", "=incwd:", "#{pane_current_path}").stdout
    assert path.rstrip("\n") == str(where), (path, str(where))
    call("kill", session="incwd")


def test_cwd_kept_across_a_shell_exit_is_not_expanded(private_socket: str, canary: Path, tmp_path: Path) -> None:
    """After ``exit`` the next run respawns the shell in the last directory, literally."""
    where = tmp_path / f"#(touch {canary})"
    where.mkdir(parents=True)
    res = call("run", command=f"cd {shlex.quote(str(where))} && exit", session="resp", timeout=5)
    assert res["ok"] and "exited" in (res["hint"] or ""), res
    again = call("run", command="pwd", session="resp", timeout=5)
    _no_canary(canary)
    assert again["ok"] and again["output"] == str(where), again


# --- wait patterns, read lines, texts not submitted -------------------------
def test_wait_patterns_are_regular_expressions_only(private_socket: str, canary: Path) -> None:
    call("run", command="true")
    for payload in payloads(canary):
        res = call("wait", session="scratch", pattern=payload, timeout=0.2)
        if not res["ok"]:
            assert_sentence(res)
    _no_canary(canary)


def test_text_not_submitted_is_not_run(private_socket: str, shared_terminal: SharedTerminal,
                                       canary: Path) -> None:
    call("run", command="true")
    _quiet(shared_terminal)
    for payload in payloads(canary):
        one_line = payload.replace("\n", " ")
        res = call("send", session="scratch", text=one_line, enter=False, timeout=1)
        assert res["ok"], res
        assert call("keys", session="scratch", keys="C-u", timeout=1)["ok"]
        res = call("send", text=one_line, enter=False, timeout=5)
        assert res["ok"], res
        assert poll(lambda line=one_line: _shared_line(shared_terminal) == line.strip(), 3), shared_terminal.screen()
    _no_canary(canary)


def test_read_lines_is_a_number_only(private_socket: str, canary: Path) -> None:
    call("run", command="true")
    for payload in payloads(canary):
        res = call("read", session="scratch", lines=payload)
        assert_sentence(res)
    _no_canary(canary)


def test_canary_would_be_seen(tmp_path: Path) -> None:
    """The probe itself works: the same payload, run on purpose, does create the file."""
    canary = tmp_path / "canary"
    shell = shutil.which("bash") or "/bin/bash"
    os.spawnv(os.P_WAIT, shell, [shell, "-c", f"echo {payloads(canary)[0]}"])
    assert canary.exists()


def test_a_pattern_that_backtracks_without_end_cannot_hold_a_wait(private_socket: str) -> None:
    """``(a|aa)+$`` against a screen row of 60 ``a`` and a ``b`` tries every way to split the row (about
    10^12 of them) before it fails; the wait refuses it within its own timeout instead of searching on."""
    assert call("run", command="printf 'a%.0s' $(seq 60); echo b", timeout=10)["ok"]
    res, took = timed("wait", session="scratch", pattern=r"(a|aa)+$", timeout=2)
    assert_sentence(res)
    assert "backtracks" in res["error"], res
    assert took < 2 + SLACK, took
    # A sane pattern on the same screen is found at once, and the session works on.
    found = call("wait", session="scratch", pattern=r"a{60}b", timeout=2)
    assert found["ok"], found
