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
import os
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from python.helpers.tmux_tool import journals
from python.helpers.tmux_tool.journals.claude import ClaudeReading
from python.helpers.tmux_tool.journals.cline import ClineReading, turn_of
from python.helpers.tmux_tool.journals.cline import sessions_folder as cline_sessions
from python.helpers.tmux_tool.journals.cn import CnJournal, CnReading, dotenv
from python.helpers.tmux_tool.journals.cn import sessions_folder as cn_sessions
from python.helpers.tmux_tool.journals.codex import CodexReading
from python.helpers.tmux_tool.journals.copilot import CopilotReading, _sessions
from python.helpers.tmux_tool.journals.gemini import TRIMMED, GeminiReading
from python.helpers.tmux_tool.journals.journal import (
    Feed,
    Process,
    Rewritten,
    Turn,
    last_event,
    program,
    same_prompt,
)
from python.helpers.tmux_tool.journals.kimi import KimiReading, _wires
from python.helpers.tmux_tool.journals.opencode import KILO_DATABASE, OpencodeReading
from python.helpers.tmux_tool.journals.pi import PiReading, session_files
from python.helpers.tmux_tool.journals.qwen import QwenReading, chat_of
from tests.conftest import poll

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
    assert _cn("p", path, tmp_path).turn() == Turn()
    assert ClineReading("p", 0, tmp_path, 0.0, messages=Rewritten(path),
                        manifest=Rewritten(path)).turn() == Turn()


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


def _cn(prompt: str, path: Path, folder: Path, held: int = 0) -> CnReading:
    """A reading of cn's session file ``path`` that held ``held`` messages when the ask began."""
    return CnReading(prompt, str(path.parent), folder, frozenset([str(path)]),
                     {str(path): (Rewritten(path), held)})


@pytest.mark.parametrize("want", _turns("cn"), ids=lambda w: w["prompt"])
def test_cn_turn_from_its_session_file(want: dict[str, Any], tmp_path: Path) -> None:
    """The exact text of the prompt's last step, which ends the turn (a step with a tool call, or a
    request cn tried again, is not it); a failed request cn writes nothing of: the prompt alone, no
    end, the failure is the screen's."""
    turn = _cn(want["prompt"], RECORDS / "cn" / want["file"], tmp_path).turn()
    if want.get("error"):
        assert turn == Turn(started=True), turn
    else:
        assert turn == Turn(started=True, ended=True, answer=want["answer"]), (turn.answer, want["answer"])
    assert json.loads((tmp_path / "record.json").read_text())["session"] == str(RECORDS / "cn" / want["file"])


def test_cn_turn_not_answered_yet_has_no_answer(tmp_path: Path) -> None:
    """The file as it was in the middle of a stalled answer: cn adds a step whole once its stream
    is complete, so the prompt is there and nothing of the answer."""
    unanswered = json.loads((RECORDS / "cn" / "provenance.json").read_text(encoding="utf-8"))["unanswered"]
    turn = _cn(unanswered["prompt"], RECORDS / "cn" / unanswered["file"], tmp_path).turn()
    assert turn == Turn(started=True), turn


def test_cn_step_waiting_for_its_tool_names_the_call(tmp_path: Path) -> None:
    """While cn asks permission, the step's call is still ``generated``: the turn goes on, asking
    about that call; once the call ran and the last step came, the turn is over."""
    asking = json.loads((RECORDS / "cn" / "provenance.json").read_text(encoding="utf-8"))["asking"]
    path = tmp_path / "session.json"
    path.write_bytes((RECORDS / "cn" / asking["file"]).read_bytes())
    reading = _cn(asking["prompt"], path, tmp_path)
    assert reading.turn() == Turn(started=True, asking=asking["tool"])
    whole = json.loads((RECORDS / "cn" / "session.json").read_text(encoding="utf-8"))
    path.write_text(json.dumps({**whole, "history": whole["history"][:4]}), encoding="utf-8")
    assert reading.turn() == Turn(started=True)  # the call ran; the next step is not there yet
    path.write_text(json.dumps({**whole, "history": whole["history"][:5]}), encoding="utf-8")
    assert reading.turn() == Turn(started=True, ended=True, answer="The file was created.")


def test_cn_prompt_written_before_the_ask_is_not_this_turn(tmp_path: Path) -> None:
    """The file held every message when the ask began: its "Try again" is an earlier turn's; the same
    prompt added after them is this one."""
    path = tmp_path / "session.json"
    whole = json.loads((RECORDS / "cn" / "session.json").read_text(encoding="utf-8"))
    path.write_text(json.dumps(whole), encoding="utf-8")
    reading = _cn("Try again", path, tmp_path, held=len(whole["history"]))
    assert reading.turn() == Turn()
    again = [{"message": {"role": "user", "content": "Try again"}, "contextItems": []},
             {"message": {"role": "assistant", "content": "A new answer."}, "contextItems": []}]
    path.write_text(json.dumps({**whole, "history": whole["history"] + again}), encoding="utf-8")
    assert reading.turn() == Turn(started=True, ended=True, answer="A new answer.")


def test_cn_half_written_file_keeps_the_last_whole_reading(tmp_path: Path) -> None:
    """cn truncates its file, then writes it: a read in between says what the last whole one said,
    and an end once proved stays (a history rewritten later does not undo it)."""
    path = tmp_path / "session.json"
    text = (RECORDS / "cn" / "session-unanswered.json").read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    reading = _cn("Answer with a stall", path, tmp_path)
    assert reading.turn() == Turn(started=True)
    for cut in ("", text[: len(text) // 2]):
        path.write_text(cut, encoding="utf-8")
        assert reading.turn() == Turn(started=True)
    path.write_text((RECORDS / "cn" / "session.json").read_text(encoding="utf-8"), encoding="utf-8")
    done = reading.turn()
    assert done.ended and done.answer == "First part of a stalled answer.\n\nAfter the stall, the rest."
    path.write_text('{"history": []}', encoding="utf-8")
    assert reading.turn() == done


def test_cn_history_rewritten_under_the_turn_leaves_it_to_the_screen(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_bytes((RECORDS / "cn" / "session-unanswered.json").read_bytes())
    reading = _cn("Answer with a stall", path, tmp_path)
    assert reading.turn() == Turn(started=True)
    summary = {"message": {"role": "assistant", "content": "A summary."}, "conversationSummary": "A summary."}
    path.write_text(json.dumps({"history": [summary]}), encoding="utf-8")
    assert reading.turn() == Turn()


def test_cn_sessions_folder_is_where_cn_itself_saves(tmp_path: Path) -> None:
    """``~/.continue`` of the process's HOME; ``CONTINUE_GLOBAL_DIR`` of a ``.env`` in its working
    directory (taken against it); of its environment, over the ``.env``."""
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    env = {"HOME": str(home)}
    assert cn_sessions(Process(["cn"], env, str(cwd))) == f"{home}/.continue/sessions"
    (cwd / ".env").write_text('OTHER=1\nexport CONTINUE_GLOBAL_DIR = "kept" # a comment\n', encoding="utf-8")
    assert cn_sessions(Process(["cn"], env, str(cwd))) == f"{cwd}/kept/sessions"
    chosen = {**env, "CONTINUE_GLOBAL_DIR": "/var/cn"}
    assert cn_sessions(Process(["cn"], chosen, str(cwd))) == "/var/cn/sessions"
    unset = {**env, "CONTINUE_GLOBAL_DIR": ""}  # set, though empty: the .env does not override it
    assert cn_sessions(Process(["cn"], unset, str(cwd))) == f"{home}/.continue/sessions"


@pytest.mark.parametrize(("text", "value"), [
    ("CONTINUE_GLOBAL_DIR=a\nCONTINUE_GLOBAL_DIR=b\n", "b"), ("CONTINUE_GLOBAL_DIR='x # y'", "x # y"),
    ('CONTINUE_GLOBAL_DIR="a\\nb"', "a\nb"), ("CONTINUE_GLOBAL_DIR: c\r\n", "c"), ("# CONTINUE_GLOBAL_DIR=d", None),
    ("CONTINUE_GLOBAL_DIR=", ""), ("\x00\xff=\n'\"`", None), ("", None)])
def test_dotenv_reads_a_value_as_cn_does_and_never_raises(text: str, value: str | None) -> None:
    assert dotenv(text, "CONTINUE_GLOBAL_DIR") == value


def test_cn_session_found_from_the_process_by_the_prompt(tmp_path: Path) -> None:
    """``begin`` under a shell whose program runs with ``CONTINUE_GLOBAL_DIR``: the session file made
    after the ask began is read from its start; the next turn follows the file found, from where it
    stood."""
    home = tmp_path / "continue"
    (home / "sessions").mkdir(parents=True)
    old = home / "sessions" / "old.json"
    old.write_bytes((RECORDS / "cn" / "session.json").read_bytes())  # another session, with this prompt
    shell = subprocess.Popen(["sh", "-c", "sleep 30; :"], cwd=tmp_path,
                             env={"PATH": "/usr/bin:/bin", "CONTINUE_GLOBAL_DIR": str(home)})
    try:
        assert poll(lambda: program(shell.pid) is not None, 10)
        reading = CnJournal().begin(tmp_path, "Try again", shell.pid)
        assert reading is not None and reading.turn() == Turn()
        new = home / "sessions" / "new.json"
        turns = [{"message": {"role": "user", "content": "Try again"}},
                 {"message": {"role": "assistant", "content": "Found."}}]
        new.write_text(json.dumps({"history": turns}), encoding="utf-8")
        assert reading.turn() == Turn(started=True, ended=True, answer="Found.")
        assert reading.watched() == new
        later = CnJournal().begin(tmp_path, "Try again", shell.pid)
        assert later is not None and later.watched() == new and later.turn() == Turn()
        new.write_text(json.dumps({"history": [*turns, *turns[:1]]}), encoding="utf-8")
        assert later.turn() == Turn(started=True)
    finally:
        shell.kill()
        shell.wait()
    assert CnJournal().begin(tmp_path, "Try again", shell.pid) is None  # no program: the screen answers


_ASKED = {"message": {"role": "user", "content": "p"}}
ODD_SESSIONS = [b"", b"{", b"[1]", b"null", b'{"history": 3}', b'\xff\xfe{"history": []}',
                *(json.dumps({"history": h}).encode() for h in (
                    [1, "x", {"message": 3}], [{"message": {"role": "user", "content": 5}}],
                    [{"message": {"role": "user", "content": [{"type": "text", "text": "p"}, 3]}},
                     {"message": {"role": "assistant", "toolCalls": [1], "content": None},
                      "toolCallStates": [3, {"toolCall": 5}, {"status": "generated", "toolCall": {"function": {"name": 7}}}]}],
                    [_ASKED, {"message": {"role": "assistant", "content": {"a": 1}}}],
                    [_ASKED, {"message": {"role": "assistant", "toolCalls": "x"}, "toolCallStates": "y"}]))]


@pytest.mark.parametrize("raw", ODD_SESSIONS, ids=range(len(ODD_SESSIONS)))
def test_odd_cn_sessions_never_raise(raw: bytes, tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_bytes(raw)
    turn = _cn("p", path, tmp_path).turn()
    assert turn in (Turn(), Turn(started=True), Turn(started=True, asking="a tool"), Turn(started=True, ended=True)), turn


def _cline(tmp_path: Path, prompt: str, messages: str = "messages.json", manifest: str = "manifest.json",
           since: float = 0.0) -> ClineReading:
    """A reading of the Cline fixture's files as the session already found."""
    return ClineReading(prompt, 0, tmp_path, since, messages=Rewritten(RECORDS / "cline" / messages),
                        manifest=Rewritten(RECORDS / "cline" / manifest))


@pytest.mark.parametrize("want", _turns("cline"), ids=lambda w: w["prompt"])
def test_cline_turn_from_its_session_files(want: dict[str, Any], tmp_path: Path) -> None:
    """The model's text exactly (fences and a block quote kept; the words before a tool call are not
    the answer, the last step's are); a failed request's error message; over as the manifest says."""
    turn = _cline(tmp_path, want["prompt"], want["file"]).turn()
    _check(turn, want)
    if want.get("error"):
        assert turn.error == want["error"] and turn.answer is None, turn


def test_cline_turn_not_answered_yet_gives_nothing(tmp_path: Path) -> None:
    """The files in the middle of a stalled answer: Cline writes the prompt with the first whole
    response, so neither is there yet."""
    unanswered = json.loads((RECORDS / "cline" / "provenance.json").read_text())["unanswered"]
    assert _cline(tmp_path, unanswered["prompt"], unanswered["file"], unanswered["manifest"]).turn() == Turn()


def test_cline_turn_is_not_over_while_the_manifest_says_running(tmp_path: Path) -> None:
    """The answer written, the manifest not yet turned idle: not ended, and no answer given early."""
    turn = _cline(tmp_path, "Try again", manifest="manifest-unanswered.json").turn()
    assert turn == Turn(started=True), turn


def test_cline_permission_asked_is_read_from_the_manifest(tmp_path: Path) -> None:
    asking = json.loads((RECORDS / "cline" / "provenance.json").read_text())["asking"]
    turn = _cline(tmp_path, asking["prompt"], asking["file"], asking["manifest"]).turn()
    assert turn == Turn(started=True, asking=asking["asking"]), turn


def test_cline_turn_cancelled_before_an_answer_ends_without_one() -> None:
    """Esc before the model's first whole response: the prompt alone, the session idle again."""
    data = json.loads((RECORDS / "cline" / "messages.json").read_text(encoding="utf-8"))
    asked = next(i for i, m in enumerate(data["messages"]) if "Answer with a stall" in json.dumps(m))
    data["messages"] = data["messages"][:asked + 1]
    assert turn_of(data, "Answer with a stall", 0.0, "idle") == Turn(started=True, ended=True)


def test_cline_prompt_written_before_the_ask_is_not_this_turn(tmp_path: Path) -> None:
    assert _cline(tmp_path, "Try again", since=4_000_000_000.0).turn() == Turn()


def test_cline_prompt_after_a_mode_switch_is_still_this_prompt() -> None:
    typed = ('<user_input mode="plan"><mode_notice>The user switched from act mode to plan mode before '
             'sending this message.</mode_notice>Plan it</user_input>')
    data = {"messages": [{"role": "user", "content": [{"type": "text", "text": typed}], "ts": 5},
                         {"role": "assistant", "content": [{"type": "text", "text": "A plan."}]}]}
    assert turn_of(data, "Plan it", 0.0, "idle") == Turn(started=True, ended=True, answer="A plan.")


def test_cline_half_written_messages_say_nothing_until_whole(tmp_path: Path) -> None:
    """Cline writes its files again in place: a look in the middle of a write reads a part, which
    says nothing; the next look reads the file again."""
    whole = (RECORDS / "cline" / "messages.json").read_bytes()
    path = tmp_path / "s.messages.json"
    path.write_bytes(whole[: len(whole) // 2])
    reading = ClineReading("Try again", 0, tmp_path, 0.0, messages=Rewritten(path),
                           manifest=Rewritten(RECORDS / "cline" / "manifest.json"))
    assert reading.turn() == Turn(started=True)
    path.write_bytes(whole)
    assert reading.turn().answer == "Back to normal after the failed turn."


def test_cline_messages_caught_half_written_are_not_taken_with_an_idle_manifest(tmp_path: Path) -> None:
    """The messages last read whole at a tool call, then caught half-written while the manifest
    already says idle: the two are not one moment, so the turn is not over on what was read before."""
    whole = json.loads((RECORDS / "cline" / "messages.json").read_text(encoding="utf-8"))
    path = tmp_path / "s.messages.json"
    path.write_text(json.dumps({**whole, "messages": whole["messages"][:5]}), encoding="utf-8")
    reading = ClineReading("Create a file", 0, tmp_path, 0.0, messages=Rewritten(path),
                           manifest=Rewritten(RECORDS / "cline" / "manifest-unanswered.json"))
    assert reading.turn() == Turn(started=True)
    path.write_text(json.dumps(whole)[:100], encoding="utf-8")
    reading.manifest = Rewritten(RECORDS / "cline" / "manifest.json")  # idle
    assert reading.turn() == Turn(started=True)
    path.write_text(json.dumps(whole), encoding="utf-8")
    assert reading.turn() == Turn(started=True, ended=True, answer="The file was created.")


ODD_CLINE = [b'{"messages": "x"}', b'{"messages": [1, null, {"role": "user", "content": 5}]}', b"[]",
             (b'{"messages": [{"role": "user", "content": [{"type": "text", "text": "<user_input>p</user_input>"}],'
              b' "ts": true}]}'),
             (b'{"messages": [{"role": "user", "content": "<user_input>p</user_input>", "ts": 1},'
              b' {"role": "assistant", "content": [{"type": "tool_use", "name": 3, "input": {"commands": [1]}}],'
              b' "metadata": 4}, {"role": "assistant", "content": {"type": "text"}, "metadata": []}]}'),
             (b'{"messages": [{"role": "user", "content": "<user_input>p</user_input>", "ts": 1},'
              b' {"role": "assistant", "content": [{"type": "tool_use", "name": 3, "input": {"commands": [1, "x"]}},'
              b' {"type": "tool_use", "input": []}]}]}'),
             b'{"mess']


@pytest.mark.parametrize("content", ODD_CLINE, ids=range(len(ODD_CLINE)))
@pytest.mark.parametrize("status", ["idle", "pending", None, 3])
def test_odd_cline_files_never_raise(content: bytes, status: object, tmp_path: Path) -> None:
    messages, manifest = tmp_path / "s.messages.json", tmp_path / "s.json"
    messages.write_bytes(content)
    manifest.write_text(json.dumps({"status": status}), encoding="utf-8")
    turn = ClineReading("p", 0, tmp_path, 0.0, messages=Rewritten(messages), manifest=Rewritten(manifest)).turn()
    assert turn.answer in (None, "") and turn.error is None, turn


def _cline_session(sessions: Path, ident: str, pid: int, prompt: str) -> Path:
    """A session folder as Cline writes it: a manifest naming the process that runs it, and the
    messages holding ``prompt``, written now."""
    folder = sessions / ident
    folder.mkdir(parents=True)
    (folder / f"{ident}.json").write_text(json.dumps({"session_id": ident, "pid": pid, "status": "idle"}))
    typed = [{"type": "text", "text": f'<user_input mode="act">{prompt}</user_input>'}]
    said = [{"type": "text", "text": f"Answer to {prompt}"}]
    (folder / f"{ident}.messages.json").write_text(json.dumps({"messages": [
        {"role": "user", "content": typed, "ts": int(time.time() * 1000)},
        {"role": "assistant", "content": said}]}))
    return folder / f"{ident}.json"


def test_cline_session_found_from_the_process_that_runs_it(tmp_path: Path) -> None:
    """The sessions folder of the TUI's environment; a session whose manifest names the TUI (it runs
    its own) or a hub daemon (it runs the TUI's) is this one's where the prompt appears; one run by
    another process is not, though it holds the same prompt."""
    home = tmp_path / "home"
    sessions = home / ".cline" / "data" / "sessions"
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    shell = subprocess.Popen(["sh", "-c", "sleep 30 & wait"], env=env, cwd=tmp_path)
    hub = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "--cline-hub-daemon"])
    other = subprocess.Popen(["sleep", "30"])
    try:
        children = Path(f"/proc/{shell.pid}/task/{shell.pid}/children")
        tui = int(poll(lambda: children.read_text().split())[0])  # the shell's child stands for the TUI
        since = time.time() - 0.5
        own = _cline_session(sessions, "1_own", tui, "run by the TUI")
        hubs = _cline_session(sessions, "2_hub", hub.pid, "run by the hub")
        _cline_session(sessions, "3_other", other.pid, "run by another")
        reading = ClineReading("run by the TUI", shell.pid, tmp_path, since)
        assert reading.turn() == Turn(started=True, ended=True, answer="Answer to run by the TUI")
        assert reading.watched() == own
        assert json.loads((tmp_path / "record.json").read_text())["session"] == str(own)
        assert ClineReading("run by the hub", shell.pid, tmp_path, since).watched() is None  # before a look
        reading = ClineReading("run by the hub", shell.pid, tmp_path, since)
        assert reading.turn().answer == "Answer to run by the hub" and reading.watched() == hubs
        assert ClineReading("run by another", shell.pid, tmp_path, since).turn() == Turn()
    finally:
        for proc in (shell, hub, other):
            proc.kill()
            proc.wait()


def test_cline_sessions_folder_is_where_cline_itself_would_save(tmp_path: Path) -> None:
    """``~/.cline/data/sessions``, moved by ``CLINE_DIR`` or ``--config``, ``CLINE_DATA_DIR``,
    ``CLINE_SESSION_DATA_DIR``; a sandbox (``--data-dir``, ``CLINE_SANDBOX``) keeps its own."""
    home, cwd = str(tmp_path / "home"), "/work/project"
    env = {"HOME": home}
    assert cline_sessions(Process(["cline"], env, cwd)) == f"{home}/.cline/data/sessions"
    assert cline_sessions(Process(["cline"], {**env, "CLINE_DIR": "/c"}, cwd)) == "/c/data/sessions"
    assert cline_sessions(Process(["cline", "--config", "conf"], {**env, "CLINE_DIR": "/c"}, cwd)) == \
        "/work/project/conf/data/sessions"
    data = {**env, "CLINE_DATA_DIR": "/d"}
    assert cline_sessions(Process(["cline"], data, cwd)) == "/d/sessions"
    assert cline_sessions(Process(["cline"], {**data, "CLINE_SESSION_DATA_DIR": "/s"}, cwd)) == "/s"
    assert cline_sessions(Process(["cline", "-c", "/w", "--data-dir=box"], data, cwd)) == "/w/box/sessions"
    sandbox = {**env, "CLINE_SANDBOX": "1", "TMPDIR": "/t"}
    assert cline_sessions(Process(["cline"], sandbox, cwd)) == "/t/cline-sandbox/sessions"


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
