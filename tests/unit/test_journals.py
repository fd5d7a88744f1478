"""The readers of the AI CLIs' own records, on records the real CLIs wrote (tests/fixtures/records).

Each fixture folder holds what one CLI wrote while it answered the scripted
model server, and ``provenance.json`` says how it was made and what the model
was scripted to send for each prompt.  A reader given the whole record must
find each prompt's turn and give back exactly that text, or the failure.
The end-to-end tests (tests/e2e/test_records.py) follow records as they grow.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from python.helpers.tmux_tool import journals
from python.helpers.tmux_tool.journals.claude import ClaudeReading
from python.helpers.tmux_tool.journals.codex import CodexReading
from python.helpers.tmux_tool.journals.copilot import CopilotReading, _sessions
from python.helpers.tmux_tool.journals.gemini import TRIMMED, GeminiReading
from python.helpers.tmux_tool.journals.journal import Feed, Turn, last_event, same_prompt
from python.helpers.tmux_tool.journals.kimi import KimiReading, _wires
from python.helpers.tmux_tool.journals.opencode import KILO_DATABASE, OpencodeReading
from python.helpers.tmux_tool.journals.pi import PiReading, Process, session_files
from python.helpers.tmux_tool.journals.qwen import QwenReading, chat_of

RECORDS = Path(__file__).resolve().parents[1] / "fixtures" / "records"


def _turns(cli: str) -> list[dict[str, Any]]:
    return list(json.loads((RECORDS / cli / "provenance.json").read_text(encoding="utf-8"))["turns"])


def _check(turn: Turn, want: dict[str, Any]) -> None:
    assert turn.started and turn.ended, turn
    if want.get("error"):
        assert turn.error, turn
    else:
        assert turn.error is None and turn.answer == want["answer"], (turn.answer, want["answer"])


@pytest.mark.parametrize("want", _turns("codex"), ids=lambda w: w["prompt"])
def test_codex_turn_from_its_rollout(want: dict[str, Any], tmp_path: Path) -> None:
    reading = CodexReading(want["prompt"], 0, tmp_path, 0.0, [Feed(RECORDS / "codex" / want["file"])])
    _check(reading.turn(), want)


def test_codex_turn_of_a_prompt_written_before_the_ask_is_not_this_one(tmp_path: Path) -> None:
    reading = CodexReading("prompt B tool", 0, tmp_path, 4_000_000_000.0,
                           [Feed(RECORDS / "codex" / "rollout-failure-tool-empty.jsonl")])
    assert reading.turn() == Turn()


@pytest.mark.parametrize("want", _turns("copilot"), ids=lambda w: w["prompt"])
def test_copilot_turn_from_its_session_events(want: dict[str, Any], tmp_path: Path) -> None:
    """The exact text of the prompt's last message (a tool call's message before it is not the
    answer); a failed request's session.error, which Copilot CLI writes after the call's end."""
    reading = CopilotReading(want["prompt"], 0, tmp_path, 0.0,
                             [Feed(RECORDS / "copilot" / want["file"])])
    turn = reading.turn()
    _check(turn, want)
    if want.get("error"):
        assert turn.error == want["error"], turn


def test_copilot_turn_not_yet_answered_gives_none(tmp_path: Path) -> None:
    unanswered = json.loads((RECORDS / "copilot" / "provenance.json").read_text())["unanswered"]
    reading = CopilotReading(unanswered["prompt"], 0, tmp_path, 0.0,
                             [Feed(RECORDS / "copilot" / unanswered["file"])])
    assert reading.turn() == Turn(started=True)


def test_copilot_call_ended_without_a_message_waits_for_its_error(tmp_path: Path) -> None:
    """The failed turn cut before its session.error: not ended yet (the error is on its way)."""
    lines = (RECORDS / "copilot" / "events.jsonl").read_text(encoding="utf-8").splitlines(True)
    cut = next(n for n, line in enumerate(lines) if '"session.error"' in line)
    path = tmp_path / "events.jsonl"
    path.write_text("".join(lines[:cut]), encoding="utf-8")
    reading = CopilotReading("Fail please", 0, tmp_path, 0.0, [Feed(path)])
    assert reading.turn() == Turn(started=True, ending=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(lines[cut])
    assert reading.turn() == Turn(started=True, ended=True, error="400 scripted failure")


def test_copilot_tool_call_turn_is_not_over_at_its_first_call(tmp_path: Path) -> None:
    """Cut at the first call's end (it asked for a tool): still under way, asking meanwhile."""
    lines = (RECORDS / "copilot" / "events.jsonl").read_text(encoding="utf-8").splitlines(True)
    asked = next(n for n, line in enumerate(lines) if '"permission.requested"' in line)
    path = tmp_path / "events.jsonl"
    path.write_text("".join(lines[:asked + 1]), encoding="utf-8")
    reading = CopilotReading("Create a file", 0, tmp_path, 0.0, [Feed(path)])
    assert reading.turn() == Turn(started=True, asking="touch scripted-file.txt")


def test_copilot_turn_of_a_prompt_written_before_the_ask_is_not_this_one(tmp_path: Path) -> None:
    reading = CopilotReading("Again", 0, tmp_path, 4_000_000_000.0,
                             [Feed(RECORDS / "copilot" / "events.jsonl")])
    assert reading.turn() == Turn()


def test_copilot_session_is_the_one_whose_hold_file_its_process_keeps_open(tmp_path: Path) -> None:
    folder = tmp_path / ".copilot" / "session-state" / "d8cabc87"
    folder.mkdir(parents=True)
    holds = "import sys; f = open(sys.argv[1], 'a'); print(1, flush=True); sys.stdin.read()"
    holder = subprocess.Popen(["python3", "-c", holds, str(folder / "inuse.4242.hold")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"1\n"
        assert _sessions(holder.pid) == [str(folder / "events.jsonl")]
    finally:
        holder.kill()
        holder.wait()
    assert _sessions(holder.pid) == []


@pytest.mark.parametrize("want", _turns("gemini"), ids=lambda w: w["prompt"])
def test_gemini_turn_from_its_saved_chat(want: dict[str, Any], tmp_path: Path) -> None:
    reading = GeminiReading(want["prompt"], 0, tmp_path, 0.0, record=Feed(RECORDS / "gemini" / want["file"]))
    turn = reading.turn()
    assert turn.started and not turn.ended and turn.note == TRIMMED, turn  # its end is the screen's to tell
    if want.get("error"):
        assert turn.error and "400" in turn.error, turn
    else:
        assert turn.error is None and turn.answer == want["answer"], turn


@pytest.mark.parametrize("want", _turns("qwen"), ids=lambda w: w["prompt"])
def test_qwen_turn_from_its_saved_chat(want: dict[str, Any], tmp_path: Path) -> None:
    """The model's text exactly (fences, an HTML comment, trailing blank lines kept); a failed
    request is the turn's error; the end is the screen's to tell."""
    reading = QwenReading(want["prompt"], 0, tmp_path, 0.0, record=Feed(RECORDS / "qwen" / want["file"]))
    turn = reading.turn()
    assert turn.started and not turn.ended and turn.note is None, turn
    if want.get("error"):
        assert turn.answer is None and turn.error == "400 scripted failure", turn
    else:
        assert turn.error is None and turn.answer == want["answer"], (turn.answer, want["answer"])


def _qwen_lines(before: str) -> list[bytes]:
    """The fixture's lines before the prompt ``before``'s own."""
    lines = (RECORDS / "qwen" / "chat.jsonl").read_bytes().splitlines(keepends=True)
    return lines[:next(i for i, line in enumerate(lines) if f'"text":"{before}"'.encode() in line)]


def test_qwen_turn_not_answered_yet_has_no_answer(tmp_path: Path) -> None:
    """Up to the tool call's result the record holds only the words before the tool call: no
    answer is final until the screen says the turn is over, and the prompt alone gives none."""
    path = tmp_path / "chat.jsonl"
    lines = _qwen_lines("fail please")
    asked = next(i for i, line in enumerate(lines) if b'"text":"list files"' in line)
    path.write_bytes(b"".join(lines[:asked + 1]))
    reading = QwenReading("list files", 0, tmp_path, 0.0, record=Feed(path))
    assert reading.turn() == Turn(started=True)
    with path.open("ab") as fh:
        fh.write(b"".join(lines[asked + 1:]))
    assert reading.turn().answer == "Done:\n\n```\nfiles\n```\n"


def test_qwen_prompt_written_before_the_ask_is_not_this_turn(tmp_path: Path) -> None:
    reading = QwenReading("again", 0, tmp_path, 4_000_000_000.0, record=Feed(RECORDS / "qwen" / "chat.jsonl"))
    assert reading.turn() == Turn()


def test_qwen_chat_found_by_the_process_that_runs_it(tmp_path: Path) -> None:
    """``sessions/<pid>.json`` names the session, the ``runtime.json`` beside the chat the same
    pid; another pid's session, or a runtime file of another pid, names no chat."""
    session = json.loads((RECORDS / "qwen" / "session.json").read_text(encoding="utf-8"))
    runtime = json.loads((RECORDS / "qwen" / "runtime.json").read_text(encoding="utf-8"))
    pid, ident = session["pid"], session["sessionId"]
    home, runs = tmp_path / "home", tmp_path / "runtime"
    (home / "sessions").mkdir(parents=True)
    (home / "sessions" / f"{pid}.json").write_text(json.dumps(session), encoding="utf-8")
    chats = runs / "projects" / "-tmp-project" / "chats"
    chats.mkdir(parents=True)
    (chats / f"{ident}.runtime.json").write_text(json.dumps(runtime), encoding="utf-8")
    bases = [str(runs), str(home)]
    assert chat_of(bases, [1, pid]) == chats / f"{ident}.jsonl"  # before its first prompt too
    assert chat_of(bases, [pid + 1]) is None
    (chats / f"{ident}.runtime.json").write_text(json.dumps({**runtime, "pid": pid + 1}), encoding="utf-8")
    assert chat_of(bases, [pid]) is None


def _claude_events(tmp_path: Path) -> Path:
    """The fixture's events with the transcript named where it lies now."""
    lines = []
    for line in (RECORDS / "claude" / "events.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        item["event"]["transcript_path"] = str(RECORDS / "claude" / "transcript.jsonl")
        lines.append(json.dumps(item, ensure_ascii=False))
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("want", _turns("claude"), ids=lambda w: w["prompt"])
def test_claude_turn_from_its_hooks_and_transcript(want: dict[str, Any], tmp_path: Path) -> None:
    reading = ClaudeReading(want["prompt"], Feed(_claude_events(tmp_path)), None)
    turn = reading.turn()
    _check(turn, want)
    assert turn.note is None  # the transcript's copy, not the Stop hook's trimmed one
    assert want["answer"].endswith("\n\n")


def test_claude_without_its_prompt_in_the_events_has_no_turn(tmp_path: Path) -> None:
    assert ClaudeReading("another prompt", Feed(_claude_events(tmp_path)), None).turn() == Turn()


def test_claude_last_event_is_read_from_the_end(tmp_path: Path) -> None:
    events = _claude_events(tmp_path)
    assert (last_event(tmp_path) or {}).get("hook_event_name") == "Stop"
    events.write_bytes(events.read_bytes() + b'{"at": 1, "event": {"hook_event_name": "Stop", "tr')
    assert last_event(tmp_path) is None  # a line still being written is no event


def test_a_feed_gives_only_whole_lines_and_skips_garbage(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\nnot json\n[1, 2]\n\xff\xfe\n{"b": ')
    feed = Feed(path)
    assert list(feed) == [{"a": 1}]
    with path.open("ab") as fh:
        fh.write(b'2}\n')
    assert list(feed) == [{"b": 2}]
    assert list(feed) == []
    path.unlink()
    assert list(feed) == []  # a record taken away reads as nothing new


@pytest.mark.parametrize("recorded", [None, 3, ["a"], "", "  say   it \n"])
def test_same_prompt_never_raises(recorded: object) -> None:
    assert same_prompt(recorded, "say it") == (recorded == "  say   it \n")


@pytest.mark.parametrize("want", _turns("gemini"), ids=lambda w: w["prompt"])
def test_gemini_chat_found_with_its_answer_in_the_same_read(want: dict[str, Any], tmp_path: Path) -> None:
    """The chat file is found by this prompt; the lines read with it (the answer may be among them)
    are taken too, not dropped once the prompt is seen."""
    feed = Feed(RECORDS / "gemini" / want["file"])
    reading = GeminiReading(want["prompt"], 0, tmp_path, 0.0, feeds=[feed])
    turn = reading.turn()
    assert reading.record is feed and turn.started, turn
    assert (turn.error is not None) if want.get("error") else (turn.answer == want["answer"]), turn
    assert json.loads((tmp_path / "record.json").read_text())["chat"] == str(feed.path)


ODD_LINES = [b'{"type": "user", "promptId": "p", "message": "not a dict"}', b'{"type": "assistant", "message": [1]}',
             b'{"hook_event_name": "Stop", "prompt_id": 5, "last_assistant_message": {"a": 1}}',
             b'{"type": "response_item", "payload": "x"}', b'{"type": "gemini", "content": 7}', b'{"$set": []}',
             b'{"$set": {"messages": "x"}}', b'{"event": 3}', b'{"event": {"hook_event_name": null}}',
             b'{"type": "user", "message": {"parts": "x"}}', b'{"type": "assistant", "message": {"parts": [3]}}',
             b'{"type": "system", "systemPayload": {"uiEvent": {"event.name": 5}}}',
             b'{"type": "user.message", "data": "x"}',
             b'{"type": "user.message", "data": {"content": 1}}',
             b'{"type": "permission.requested", "data": {"permissionRequest": 3}}']


@pytest.mark.parametrize("line", ODD_LINES, ids=range(len(ODD_LINES)))
def test_odd_record_lines_never_raise(line: bytes, tmp_path: Path) -> None:
    path = tmp_path / "record.jsonl"
    path.write_bytes(line + b"\n")
    assert ClaudeReading("p", Feed(path), Feed(path)).turn() == Turn()
    assert CodexReading("p", 0, tmp_path, 0.0, [Feed(path)]).turn() == Turn()
    assert GeminiReading("p", 0, tmp_path, 0.0, record=Feed(path)).turn() == Turn()
    assert QwenReading("p", 0, tmp_path, 0.0, record=Feed(path)).turn() == Turn()
    assert CopilotReading("p", 0, tmp_path, 0.0, [Feed(path)]).turn() == Turn()
    assert PiReading("p", 0, tmp_path, 0.0, record=Feed(path)).turn() == Turn()


@pytest.mark.parametrize("line", ODD_LINES, ids=range(len(ODD_LINES)))
def test_odd_transcript_lines_after_a_stop_never_raise(line: bytes, tmp_path: Path) -> None:
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_bytes(b'{"type": "user", "promptId": "x", "message": {"content": "p"}}\n' + line + b"\n")
    events = tmp_path / "events.jsonl"
    said = [{"hook_event_name": "UserPromptSubmit", "prompt": "p", "prompt_id": "x"},
            {"hook_event_name": "Stop", "prompt_id": "x", "last_assistant_message": "done"}]
    events.write_text("".join(json.dumps({"at": 0, "event": e}) + "\n" for e in said), encoding="utf-8")
    turn = ClaudeReading("p", Feed(events), Feed(transcript)).turn()
    assert turn.started and turn.ending and turn.answer is None, turn  # the transcript may still come


@pytest.mark.parametrize("want", _turns("kimi"), ids=lambda w: f"{w['file']}:{w['prompt']}")
def test_kimi_turn_from_its_wire_file(want: dict[str, Any], tmp_path: Path) -> None:
    reading = KimiReading(want["prompt"], 0, tmp_path, 0.0, wire=Feed(RECORDS / "kimi" / want["file"]))
    _check(reading.turn(), want)


def test_kimi_turn_of_a_prompt_written_before_the_ask_is_not_this_one(tmp_path: Path) -> None:
    reading = KimiReading("Say something short", 0, tmp_path, 4_000_000_000.0,
                          wire=Feed(RECORDS / "kimi" / "wire.jsonl"))
    assert reading.turn() == Turn()


def test_kimi_wire_files_are_found_from_the_log_its_process_holds_open(tmp_path: Path) -> None:
    """Kimi CLI blanks its environment in /proc; the log it holds open names its share folder, and its
    working directory the project (md5 of the path)."""
    share, project = tmp_path / "share", tmp_path / "project"
    (share / "logs").mkdir(parents=True)
    project.mkdir()
    holds = "import sys; f = open(sys.argv[1], 'a'); print(1, flush=True); sys.stdin.read()"
    holder = subprocess.Popen(["python3", "-c", holds, str(share / "logs" / "kimi.log")],
                              cwd=project, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    shell = subprocess.Popen(["sleep", "30"])  # stands for the shell whose child the CLI is
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"1\n"
        digest = hashlib.md5(str(project).encode(), usedforsecurity=False).hexdigest()
        assert _wires(holder.pid) == f"{share}/sessions/{digest}/*/wire.jsonl"
        assert _wires(shell.pid) is None
    finally:
        holder.kill()
        shell.kill()
        holder.wait()
        shell.wait()


@pytest.mark.parametrize("want", _turns("pi"), ids=lambda w: w["prompt"])
def test_pi_turn_from_its_session_file(want: dict[str, Any], tmp_path: Path) -> None:
    feed = Feed(RECORDS / "pi" / want["file"])
    reading = PiReading(want["prompt"], 0, tmp_path, 0.0, record=feed)
    turn = reading.turn()
    assert turn.started and not turn.ended, turn  # pi records no end of a turn: the screen tells it
    if want.get("error"):
        assert turn.error == want["error"] and turn.answer is None, turn
    else:
        assert turn.error is None and turn.answer == want["answer"], (turn.answer, want["answer"])


@pytest.mark.parametrize("want", _turns("pi"), ids=lambda w: w["prompt"])
def test_pi_session_found_by_the_prompt_with_its_answer_in_the_same_read(want: dict[str, Any],
                                                                         tmp_path: Path) -> None:
    """pi writes its session file first with the first answer: the prompt and the answer come in
    one read, and both are taken."""
    feed = Feed(RECORDS / "pi" / want["file"])
    reading = PiReading(want["prompt"], 0, tmp_path, 0.0, feeds=[feed])
    turn = reading.turn()
    assert reading.record is feed and turn.started, turn
    assert (turn.error is not None) if want.get("error") else (turn.answer == want["answer"]), turn
    assert json.loads((tmp_path / "record.json").read_text())["session"] == str(feed.path)


def test_pi_turn_not_answered_yet_has_no_answer(tmp_path: Path) -> None:
    """The file as it was in the middle of a stalled answer: pi writes a message whole once it is
    complete, so the prompt is there and nothing of the answer."""
    provenance = json.loads((RECORDS / "pi" / "provenance.json").read_text(encoding="utf-8"))
    unanswered = provenance["unanswered"]
    feed = Feed(RECORDS / "pi" / unanswered["file"])
    turn = PiReading(unanswered["prompt"], 0, tmp_path, 0.0, record=feed).turn()
    assert turn == Turn(started=True), turn


def test_pi_step_with_tools_leaves_the_turn_open(tmp_path: Path) -> None:
    lines = (RECORDS / "pi" / "session.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "session.jsonl"
    path.write_text("".join(lines[:7]), encoding="utf-8")  # up to the step that calls bash
    reading = PiReading("Create a file", 0, tmp_path, 0.0, record=Feed(path))
    assert reading.turn() == Turn(started=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(lines[7:9])  # its tool result, then the last step
    assert reading.turn() == Turn(started=True, answer="The file was created.")


def test_pi_failed_step_tried_again_is_replaced_by_the_retry(tmp_path: Path) -> None:
    """pi tries an overloaded or 5xx request again itself: the failed step stays in the file, the
    retried one follows it and answers the turn."""
    lines = (RECORDS / "pi" / "session.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    failed, answered = lines[12], json.loads(lines[14])
    answered["message"]["content"] = [{"type": "text", "text": "Answered on the retry."}]
    path = tmp_path / "session.jsonl"
    path.write_text(lines[11] + failed, encoding="utf-8")
    reading = PiReading("This turn fails", 0, tmp_path, 0.0, record=Feed(path))
    assert reading.turn().error == "400 scripted failure"
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(answered) + "\n")
    assert reading.turn() == Turn(started=True, answer="Answered on the retry.")


def test_pi_turn_of_a_prompt_written_before_the_ask_is_not_this_one(tmp_path: Path) -> None:
    reading = PiReading("Try again", 0, tmp_path, 4_000_000_000.0,
                        record=Feed(RECORDS / "pi" / "session.jsonl"))
    assert reading.turn() == Turn()


def test_pi_session_folder_is_where_pi_itself_would_save(tmp_path: Path) -> None:
    """The default folder (the working directory with / as -), ``PI_CODING_AGENT_DIR``, then what
    overrides it: a setting, ``PI_CODING_AGENT_SESSION_DIR``, ``--session-dir``."""
    home, cwd = str(tmp_path / "home"), "/work/my:project"
    env = {"HOME": home}
    assert session_files(Process(["pi"], env, cwd)) == \
        f"{home}/.pi/agent/sessions/--work-my-project--/*.jsonl"
    agent = {**env, "PI_CODING_AGENT_DIR": "~/agent"}
    assert session_files(Process(["pi"], agent, cwd)) == \
        f"{home}/agent/sessions/--work-my-project--/*.jsonl"
    (tmp_path / "home" / "agent").mkdir(parents=True)
    (tmp_path / "home" / "agent" / "settings.json").write_text('{"sessionDir": "~/kept"}')
    assert session_files(Process(["pi"], agent, cwd)) == f"{home}/kept/*.jsonl"
    chosen = {**agent, "PI_CODING_AGENT_SESSION_DIR": "/var/pi[1]"}
    assert session_files(Process(["pi"], chosen, cwd)) == "/var/pi[[]1]/*.jsonl"
    assert session_files(Process(["pi", "--session-dir", "rel"], chosen, cwd)) == \
        "/work/my:project/rel/*.jsonl"


def _kilo_database(tmp_path: Path, file: str) -> Path:
    """A database file named as Kilo CLI names its own, made from one of the fixture's SQL files (its
    message and part tables as Kilo wrote them)."""
    path = tmp_path / file.removesuffix(".sql") / KILO_DATABASE
    path.parent.mkdir()
    with closing(sqlite3.connect(path)) as db:
        db.executescript((RECORDS / "kilo" / file).read_text(encoding="utf-8"))
    return path


@pytest.mark.parametrize("want", _turns("kilo"), ids=lambda w: w["prompt"])
def test_kilo_turn_from_its_database(want: dict[str, Any], tmp_path: Path) -> None:
    """The text of the turn's last step, exactly (the tool call's step before it is not the answer);
    the failed turn's error, from the database as it was before the next prompt."""
    database = _kilo_database(tmp_path, want["file"])
    turn = OpencodeReading(want["prompt"], 0, tmp_path, 0, str(database), filename=KILO_DATABASE).turn()
    _check(turn, want)
    assert turn.error == want.get("error"), turn


def test_kilo_turn_not_answered_yet_has_no_answer(tmp_path: Path) -> None:
    """The database in the middle of a stalled answer: the prompt, an open step, its text part
    written empty (Kilo writes a text part whole only at its end)."""
    unanswered = json.loads((RECORDS / "kilo" / "provenance.json").read_text(encoding="utf-8"))["unanswered"]
    database = _kilo_database(tmp_path, unanswered["file"])
    turn = OpencodeReading(unanswered["prompt"], 0, tmp_path, 0, str(database)).turn()
    assert turn == Turn(started=True), turn


def test_kilo_failed_turn_read_after_the_next_prompt_is_open_not_the_next_answer(tmp_path: Path) -> None:
    """Kilo deletes a failed turn's step, its error with it, when the next prompt is sent: read then,
    the failed turn has started and not ended, and the next turn's answer is not its."""
    database = _kilo_database(tmp_path, "kilo.sql")
    assert OpencodeReading("This turn fails", 0, tmp_path, 0, str(database)).turn() == Turn(started=True)


def test_kilo_turn_of_a_prompt_written_before_the_ask_is_not_this_one(tmp_path: Path) -> None:
    database = _kilo_database(tmp_path, "kilo.sql")
    with closing(sqlite3.connect(database)) as db:
        (last,) = db.execute("select max(time_created) from message").fetchone()
    assert OpencodeReading("Try again", 0, tmp_path, last + 1, str(database)).turn() == Turn()


def test_kilo_database_is_the_one_its_process_holds_open(tmp_path: Path) -> None:
    """Kilo CLI's journal finds ``kilo.db`` among the files the process holds open and keeps its path
    for the session's next turns; OpenCode's journal looks for ``opencode.db`` there and finds none."""
    database = _kilo_database(tmp_path, "kilo.sql")
    holds = "import sys; f = open(sys.argv[1], 'rb'); print(1, flush=True); sys.stdin.read()"
    holder = subprocess.Popen(["python3", "-c", holds, str(database)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    kilo, opencode = tmp_path / "kilo-session", tmp_path / "opencode-session"
    kilo.mkdir()
    opencode.mkdir()
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"1\n"
        journal = journals.for_program("kilo")
        assert journal is not None and journal.cli == "Kilo CLI"
        reading = journal.begin(kilo, "Try again", holder.pid)
        assert isinstance(reading, OpencodeReading)
        assert reading.turn() == Turn()  # the fixture's prompt is older than this ask
        assert reading.database == str(database)
        assert json.loads((kilo / "record.json").read_text())["database"] == str(database)
        later = journal.begin(kilo, "Try again", 0)  # the next turn: the database kept, no search
        assert isinstance(later, OpencodeReading) and later.database == str(database)
        found = OpencodeReading("Try again", holder.pid, kilo, 0, filename=KILO_DATABASE).turn()
        assert found.answer == "Back to normal after the failed turn.", found
        other = journals.for_program("opencode")
        assert other is not None
        theirs = other.begin(opencode, "Try again", holder.pid)
        assert isinstance(theirs, OpencodeReading)
        assert theirs.turn() == Turn() and theirs.database is None
    finally:
        holder.kill()
        holder.wait()


ODD_ROWS: list[str | bytes] = [
    "not json", b"\xff\x00", "[1, 2]", "null", "{}", '{"role": "user", "time": 3}',
    '{"parentID": "msg_odd", "time": "x", "finish": 3}', '{"parentID": "msg_odd", "error": "x"}',
    '{"parentID": "msg_odd", "error": {"name": 5, "data": [1]}}',
    '{"parentID": "msg_odd", "time": {"completed": 1}, "finish": "stop"}',
    '{"type": "text", "text": 5}', '{"type": "text", "text": ["a"], "synthetic": "no"}']


@pytest.mark.parametrize("data", ODD_ROWS, ids=range(len(ODD_ROWS)))
def test_odd_database_rows_never_raise_nor_hide_the_other_turns(data: str | bytes, tmp_path: Path) -> None:
    """A turn whose step and part rows are odd (no JSON, no object, fields of the wrong type) reads
    as started, never raises; the real turns beside it read as before (a row that is no JSON fails
    no query)."""
    database = _kilo_database(tmp_path, "kilo.sql")
    with closing(sqlite3.connect(database)) as db, db:
        db.execute("insert into message values ('msg_odd', 's', 1, 1, ?)", ('{"role": "user"}',))
        db.execute("insert into part values ('prt_odd', 'msg_odd', 's', 1, 1, ?)",
                   ('{"type": "text", "text": "odd"}',))
        db.execute("insert into message values ('msg_row', 's', 2, 2, ?)", (data,))
        db.execute("insert into part values ('prt_row', 'msg_row', 's', 2, 2, ?)", (data,))
    assert OpencodeReading("odd", 0, tmp_path, 0, str(database)).turn().started
    turn = OpencodeReading("Try again", 0, tmp_path, 0, str(database)).turn()
    assert turn.answer == "Back to normal after the failed turn.", turn


def test_a_kilo_db_that_is_no_database_gives_no_turn(tmp_path: Path) -> None:
    path = tmp_path / KILO_DATABASE
    path.write_bytes(b"not a database\n" * 100)
    assert OpencodeReading("Try again", 0, tmp_path, 0, str(path)).turn() == Turn()
