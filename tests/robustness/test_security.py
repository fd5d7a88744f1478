"""Security: private sockets and state, the human's session untouchable, secrets masked, audited.

Checked on the real artefacts: directory and file modes on disk, the shared
pane's identity in tmux before and after every action, the exact strings
that come back to the agent and that land in saved outputs and the audit
trail.
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest

from python.helpers.tmux_tool.actions import ACTIONS
from python.helpers.tmux_tool.core import config
from python.tools.tmux_tool import call

from ..conftest import SharedTerminal
from .conftest import assert_sentence, poll, tmux


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


# --- sockets and state on disk ------------------------------------------------
def _socket_path(socket: str) -> Path:
    return Path(tmux(socket, "display-message", "-p", "#{socket_path}", check=True).stdout.strip())


def test_tmux_sockets_live_in_a_directory_only_the_user_can_open(private_socket: str,
                                                                  shared_terminal: SharedTerminal) -> None:
    assert call("run", command="true")["ok"]
    for socket in (private_socket, shared_terminal.socket):
        path = _socket_path(socket)
        folder = path.parent
        base = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        assert folder == base, (folder, base)
        assert os.lstat(folder).st_uid == os.getuid() and _mode(folder) == 0o700, oct(_mode(folder))
        assert stat.S_ISSOCK(os.lstat(path).st_mode) and _mode(path) & 0o007 == 0, oct(_mode(path))


def test_state_directory_and_files_are_private(private_socket: str, shared_terminal: SharedTerminal,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMUX_TOOL_OUTPUT_CAP", "1000")
    assert call("run", command="seq 5000")["output_file"]  # a saved output
    assert call("run", command="sleep 5", session="other", timeout=0.1)["status"] == "busy"
    assert call("start", program="python3", session="repl", timeout=20)["ok"]
    assert call("send", text="true", timeout=10)["ok"]  # audit trail and memory of the shared screen
    root = config.load().state_root
    found = {p: _mode(p) for p in [root, *root.rglob("*")]}
    kinds = {"dirs": [p for p in found if p.is_dir()], "files": [p for p in found if p.is_file()]}
    assert len(kinds["files"]) >= 8, found
    loose = {str(p.relative_to(root.parent)): oct(m) for p, m in found.items()
             if m != (0o700 if p.is_dir() else 0o600)}
    print(f"\n{len(kinds['dirs'])} directories, {len(kinds['files'])} files in the state directory")
    assert not loose, f"not 0700/0600: {loose}"


# --- the shared session is the human's ---------------------------------------
def _identity(term: SharedTerminal) -> str:
    fmt = "#{session_id} #{session_created} #{window_id} #{pane_id} #{pane_pid} #{pane_dead} " \
          "#{window_width}x#{window_height}"
    return term.tmux("list-panes", "-a", "-F", fmt)


def test_no_action_ends_resizes_or_respawns_the_shared_session(shared_terminal: SharedTerminal) -> None:
    before = _identity(shared_terminal)
    refused = {}
    harmless = {"run": {"command": "true"}, "send": {"text": "true", "timeout": 5}, "keys": {"keys": "End"},
                "wait": {"timeout": 1}, "start": {"program": "bash"}, "ask": {"prompt": "true", "timeout": 2},
                "exit": {}, "interrupt": {"timeout": 1}, "kill": {}, "read": {}, "status": {}}
    assert set(harmless) == set(ACTIONS) - {"list"}, "a new action needs a case here"
    for action, args in harmless.items():
        res = call(action, session="shared", **args)
        if action in ("run", "start", "ask", "exit", "kill", "interrupt"):
            assert_sentence(res)
            refused[action] = res["error"]
    assert call("list")["ok"]
    assert call("start", program="bash", session="shared", cwd="/", args=["-c", "true"])["ok"] is False
    assert _identity(shared_terminal) == before
    assert shared_terminal.tmux("list-sessions", "-F", "#{session_name}").split() == ["shared"]
    assert "human" in refused["kill"] or "shared" in refused["kill"], refused


# --- secrets --------------------------------------------------------------------
def _secrets() -> dict[str, str]:
    """Fake credentials of the common shapes (built here, never real)."""
    return {
        "OPENAI_API_KEY": "sk-proj-" + "Ab3" * 16,
        "ANTHROPIC_API_KEY": "sk-ant-api03-" + "Zy9_" * 10,
        "GITHUB_TOKEN": "ghp_" + "a1B2" * 9,
        "GITLAB_TOKEN": "glpat-" + "x7Y8z9" * 4,
        "AWS_ACCESS_KEY_ID": "AKIA" + "QWERTYUIOPASDFGH",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz" + "EXAMPLEK",
        "SLACK_BOT_TOKEN": "xoxb-" + "1234567890-" * 2 + "abcdef",
        "GOOGLE_API_KEY": "AIza" + "Sy" + "0123456789abcdefghijklmnopqrstuvw",
        "DB_PASSWORD": "correct-horse-battery-7",
        "PASSWORD": "plainpass123",
        "MY_SERVICE_SECRET": "s3cr3t-value-for-service",
        "STRIPE_KEY": "sk_live_" + "51Hx" * 6,
        "HF_TOKEN": "hf_" + "QwErTy" * 6,
    }


def _env_file(secrets: dict[str, str], where: Path) -> Path:
    lines = [f"{k}={v}" for k, v in secrets.items()]
    lines += [
        f'export QUOTED_TOKEN="{secrets["GITHUB_TOKEN"][::-1]}"',
        'password: yaml-style-secret-42',
        '{"api_key": "json-style-secret-43", "client_secret": "json-style-secret-44"}',
        "DATABASE_URL=postgres://app:url-style-secret-45@db.internal:5432/app",
        "Authorization: Bearer " + "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".sig" + "n" * 20,
    ]
    path = where / ".env"
    path.write_text("\n".join(lines) + "\n")
    return path


def _values(secrets: dict[str, str]) -> list[str]:
    return [*secrets.values(), secrets["GITHUB_TOKEN"][::-1], "yaml-style-secret-42", "json-style-secret-43",
            "json-style-secret-44", "url-style-secret-45", "eyJzdWIiOiIxMjM0NTY3ODkwIn0"]


def _leaks(text: str, values: list[str]) -> list[str]:
    return [v for v in values if v in text]


def test_secrets_are_masked_in_everything_returned(private_socket: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = _secrets()
    values = _values(secrets)
    env = _env_file(secrets, tmp_path)
    exports = "; ".join(f"export {k}='{v}'" for k, v in secrets.items())
    results = {
        "run cat .env": call("run", command=f"cat {env}"),
        "run env": call("run", command=f"{exports}; env | sort"),
        "read": call("read", session="scratch"),
        "read lines": call("read", session="scratch", lines=200),
        "status": call("status", session="scratch"),
    }
    busy = call("run", command=f"{exports}; cat {env}; sleep 5", session="busy", timeout=0.3)
    results |= {"busy run": busy, "list": call("list"),
                "wait sessions": call("wait", sessions=["busy", "scratch"], mode="all", timeout=0.2),
                "status busy": call("status", session="busy")}
    monkeypatch.setenv("TMUX_TOOL_OUTPUT_CAP", "1000")
    capped = call("run", command=f"cat {env}; seq 3000")
    results["capped"] = capped
    saved = Path(capped["output_file"]).read_text()
    leaks = {name: _leaks(json.dumps(res, ensure_ascii=False), values) for name, res in results.items()}
    leaks["saved output file"] = _leaks(saved, values)
    assert "[masked]" in results["run cat .env"]["output"]
    assert {k: v for k, v in leaks.items() if v} == {}


def test_secrets_are_masked_in_the_shared_session_and_its_audit(shared_terminal: SharedTerminal,
                                                                 tmp_path: Path) -> None:
    secrets = _secrets()
    values = _values(secrets)
    env = _env_file(secrets, tmp_path)
    typed = f"export GITHUB_TOKEN={secrets['GITHUB_TOKEN']} PASSWORD={secrets['PASSWORD']}"
    results = {"send export": call("send", text=typed, timeout=10),
               "send cat": call("send", text=f"cat {env}", timeout=10)}
    results |= {"read": call("read"), "read lines": call("read", lines=100), "status": call("status"),
                "list": call("list")}
    assert results["send cat"]["ok"] and "[masked]" in results["send cat"]["output"], results["send cat"]
    assert secrets["PASSWORD"] in shared_terminal.screen()  # the human still sees their terminal as is
    audit = config.load().shared_dir / "audit.log"
    leaks = {name: _leaks(json.dumps(res, ensure_ascii=False), values) for name, res in results.items()}
    leaks["audit.log"] = _leaks(audit.read_text(), values)
    assert {k: v for k, v in leaks.items() if v} == {}


def test_audit_trail_records_every_injection(shared_terminal: SharedTerminal, tmp_path: Path) -> None:
    audit = config.load().shared_dir / "audit.log"
    started = time.time()
    done = [
        ("send", call("send", text="echo one", timeout=10)),
        ("send", call("send", text="echo unsent", enter=False, timeout=10)),
        ("keys", call("keys", keys=["End"], timeout=5)),
        ("send", call("send", text="sleep 30", timeout=2)),
        ("interrupt", call("interrupt", timeout=10)),
    ]
    assert all(res["ok"] for _, res in done), [(a, r["ok"], r["status"], r["error"], r.get("evidence")) for a, r in done]
    shared_terminal.type("echo typed by the human")  # the guard must refuse now
    assert poll(lambda: "typed by the human" in shared_terminal.screen(), 5)
    refused = call("send", text="echo never", timeout=1)
    assert not refused["ok"], refused
    entries = [json.loads(line) for line in audit.read_text().splitlines()]
    print(f"\naudit trail: {len(entries)} entries for {len(done)} injections")
    assert [e["action"] for e in entries] == [a for a, _ in done], entries
    assert all(started - 1 <= e["time"] <= time.time() for e in entries), entries
    assert [e.get("text") for e in entries[:2]] == ["echo one", "echo unsent"]
    assert entries[0]["enter"] is True and entries[1]["enter"] is False
    assert entries[2]["keys"] == ["End"] and entries[4]["keys"] == ["C-c"]
    assert all(e.get("session") == "shared" for e in entries)


def test_text_with_undecodable_bytes_is_typed_and_audited_or_refused(shared_terminal: SharedTerminal) -> None:
    """A command line carries a Latin-1 byte as U+DCE9 (surrogateescape): audited like any other."""
    audit = config.load().shared_dir / "audit.log"
    res = call("send", text="echo caf\udce9 > /dev/null", timeout=10)
    typed = poll(lambda: "echo caf" in shared_terminal.screen(), 3)
    entries = audit.read_text().splitlines() if audit.exists() else []
    if res["ok"]:
        assert len(entries) == 1 and json.loads(entries[0])["action"] == "send", entries
    else:
        assert_sentence(res)
        assert not typed, f"typed, yet reported as failed: {res['error']}"
    assert typed == bool(entries), (typed, entries)
