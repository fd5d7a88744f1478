"""Pure functions of the core: names, arguments, keys, markers, prompts, caps, masking."""

from __future__ import annotations

import math
import re
import time
from pathlib import Path

import pytest

from python.helpers.tmux_tool.actions import ACTIONS, dispatch
from python.helpers.tmux_tool.core import args, capping, masking, names
from python.helpers.tmux_tool.core.errors import BadKeys, BadName
from python.helpers.tmux_tool.core.status import Status
from python.helpers.tmux_tool.private import markers, runs
from python.helpers.tmux_tool.shared import prompt
from python.helpers.tmux_tool.transport import keyboard
from python.helpers.tmux_tool.transport.tmux import escape_arg


@pytest.mark.parametrize("good", ["scratch", "build-1", "a_b", "X", "x" * 64])
def test_good_session_names(good: str) -> None:
    assert names.check(good) == good


@pytest.mark.parametrize(("bad", "why"), [
    ("a.b", "'.'"), ("a:b", "':'"), ("$1", "'$'"), ("%3", "'%'"), ("-x", "starts with '-'"),
    ("a b", "' '"), ("ünï", "'ü'"), ("x" * 65, "limit is 64"), ("", "empty"), ("a;b", "';'"),
])
def test_bad_session_names_say_why(bad: str, why: str) -> None:
    with pytest.raises(BadName, match=why.replace("$", r"\$").replace(".", r"\.")):
        names.check(bad)


def test_generated_names_are_valid_and_distinct() -> None:
    """Six random hex digits: 200 names hold a repeat in about one run of 840 (a CI run saw one).  A
    repeat is drawn again, so 5,000 names from one process are all distinct."""
    made = [names.generate("claude code.v2") for _ in range(5000)]
    assert len(set(made)) == len(made)
    for name in made[:200]:
        assert names.check(name) == name and name.startswith("claude-code-v2-")


def test_a_generated_name_in_use_is_drawn_again() -> None:
    asked: list[str] = []

    def taken(name: str) -> bool:
        asked.append(name)
        return len(asked) <= 3  # the first three are in use

    name = names.generate("build", taken)
    assert len(asked) == 4 and name == asked[-1] and name not in asked[:3]


def test_trailing_semicolon_is_escaped_for_tmux() -> None:
    assert escape_arg("echo hi;") == "echo hi\\;"
    assert escape_arg(";") == "\\;"
    assert escape_arg("a\\;") == "a\\\\;"
    assert escape_arg("no semicolon") == "no semicolon"


def test_argument_coercion_and_errors() -> None:
    spec = (args.Arg("timeout", "float", "t", default=5.0), args.Arg("keys", "list", "k"),
            args.Arg("enter", "bool", "e", default=True), args.Arg("lines", "int", "n"))
    assert args.bind("x", spec, {"timeout": "2.5", "keys": "C-c Enter", "enter": "false", "lines": "3"}) == {
        "timeout": 2.5, "keys": ["C-c", "Enter"], "enter": False, "lines": 3}
    assert args.bind("x", spec, {"keys": '["a", "b"]'})["keys"] == ["a", "b"]
    for bad, message in [({"timeout": "abc"}, "must be a number"), ({"timeout": -1}, "negative"),
                         ({"timeout": math.inf}, "finite"), ({"timeout": 99999}, "longest allowed"),
                         ({"lines": 1.5}, "whole number"), ({"enter": "maybe"}, "true or false"),
                         ({"junk": 1}, "does not take 'junk'"), ({"keys": {"a": 1}}, "list of names")]:
        with pytest.raises(args.BadArgs, match=message):
            args.bind("x", spec, bad)


def test_a_huge_wait_pattern_is_refused_before_the_wait_begins() -> None:
    """A 1 MiB pattern once made a wait of 0.5 s answer after 4 s; checking the arguments refuses it."""
    started = time.monotonic()
    res = dispatch("wait", {"session": "no-such-session", "pattern": "x" * (1 << 20), "timeout": 0.5})
    assert time.monotonic() - started < 3
    assert not res.ok and res.status == Status.UNKNOWN
    assert res.error == ("argument 'pattern' of wait is 1048576 characters long; the limit is 4096: "
                         "wait for a short, distinctive part of the line you expect")
    longest = "x" * args.MAX_PATTERN
    assert args.bind("wait", ACTIONS["wait"].args, {"pattern": longest})["pattern"] == longest


@pytest.mark.parametrize(("raw", "name"), [
    ("C-c", "C-c"), ("ctrl+c", "C-c"), ("^D", "C-d"), ("esc", "Escape"), ("Return", "Enter"),
    ("pgdn", "PageDown"), ("f5", "F5"), ("M-x", "M-x"), ("y", "y"), (";", ";"), ("S-Tab", "S-Tab"),
])
def test_key_names(raw: str, name: str) -> None:
    assert keyboard.key_name(raw) == name


@pytest.mark.parametrize("bad", ["", "Nope", "C-", "two words", "F99"])
def test_unknown_keys_are_refused(bad: str) -> None:
    with pytest.raises(BadKeys):
        keyboard.key_name(bad)


def test_control_characters_in_text_are_refused() -> None:
    assert keyboard.check_text("tab\tand\nnewline ok") == "tab\tand\nnewline ok"
    for bad in ("\x00", "\x1b[31m", "\x03", "\x7f"):
        with pytest.raises(BadKeys, match="keys action"):
            keyboard.check_text(f"a{bad}b")


def test_markers_are_found_and_never_in_the_echo() -> None:
    nonce = "abc123"
    echo = b"$ printf '\\033]7771;tt;E;abc123;0;/x\\007'\r\n"
    stream = echo + b"\x1b]7771;tt;S;abc123\x07out\r\n\x1b]7771;tt;E;abc123;3;/tmp\x07$ "
    found = markers.scan(stream, nonce)
    assert [m.kind for m in found] == ["S", "E"]
    assert found[1].exit_code == 3 and found[1].cwd == "/tmp"
    assert markers.scan(stream, "other") == []


def test_a_run_is_followed_in_a_growing_log_whatever_the_cuts(tmp_path: Path) -> None:
    nonce = "abc123"
    stream = (b"$ printf '\\033]7771;tt;E;abc123;0;/x\\007'\r\n\x1b]7771;tt;S;abc123\x07out\r\n"
              b"more\r\n\x1b]7771;tt;E;abc123;3;/tmp\x07$ ")
    for cut in range(len(stream) + 1):
        log = tmp_path / f"pane{cut}.log"
        log.write_bytes(stream[:cut])
        follow, got = markers.Follow(log, nonce, 0), []
        first = follow.read(got.append)
        with log.open("ab") as fh:
            fh.write(stream[cut:])
        end = first or follow.read(got.append)
        assert end is not None and end.kind == "E" and end.exit_code == 3 and end.cwd == "/tmp", cut
        assert b"".join(got) == b"out\r\nmore\r\n", (cut, got)  # no echo, no mark, no prompt


RUN_START = b"/w# sleep 1; echo slept\r\n\x1b]7771;tt;S;abc123\x07"
TYPED_LINE = b"/w# . hooks.sh\r\n\x1b]7771;tt;S;abc123\x07\x1b]7771;tt;E;abc123;7;/w\x07/w# "


@pytest.mark.parametrize(("after", "code", "trailing"), [
    # The run's own end mark was still on its way to the log when the shell was seen waiting.
    (b"slept\r\n\x1b]7771;tt;E;abc123;0;/w\x07/w# " + TYPED_LINE, 0, True),
    # The run replaced the prompt hooks: its prompt, then the typed line's marks.
    (b"slept\r\nuser$ " + TYPED_LINE, 7, False),
])
def test_a_line_typed_after_a_run_is_told_from_the_runs_own_end(
        tmp_path: Path, after: bytes, code: int, trailing: bool) -> None:
    class Out:
        def __init__(self) -> None:
            self.data = b""

        def feed(self, data: bytes) -> None:
            self.data += data

    for cut in range(len(after) - len(TYPED_LINE) + 1):  # the line is typed once the log went quiet
        log = tmp_path / f"pane{cut}.log"
        log.write_bytes(RUN_START + after[:cut])
        out = Out()
        feed = runs._Feed(out)  # type: ignore[arg-type]
        follow = markers.Follow(log, "abc123", 0)
        if follow.read(feed) is not None:
            continue  # the end was in the log before the shell was seen waiting
        follow.relaunch(feed.close)
        with log.open("ab") as fh:
            fh.write(after[cut:])
        end = follow.read(feed)
        feed.flush()
        assert end is not None and end.exit_code == code and follow.trailing == trailing, cut
        # The output's last complete line was delivered before; a line still open is dropped as a prompt.
        whole = b"slept\r\n" if trailing or cut >= len(b"slept\r\n") else b""
        assert out.data == whole, (cut, out.data)


def test_prompt_template_survives_cd_and_clocks() -> None:
    pattern = prompt.template("user@host:~/src$ ", "/home/user/src")
    import re

    assert re.fullmatch(pattern, "user@host:~/other/dir$ ")
    assert not re.fullmatch(pattern, "$ ")
    clock = prompt.template("[12:30:01] ~ % ", "/root")
    assert re.fullmatch(clock, "[09:05:59] ~ % ")


def test_cap_keeps_head_and_tail_on_line_breaks() -> None:
    text = "\n".join(f"line {i}" for i in range(10_000))
    capped = capping.cap_text(text, 2000, "/tmp/x.txt")
    assert len(capped) <= 2100
    assert capped.startswith("line 0\n") and capped.endswith("line 9999")
    assert "cut; full output in /tmp/x.txt" in capped


def test_masking_common_secret_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-1234567890abcdef")
    text = ("ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345 "
            "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 AKIAIOSFODNN7EXAMPLE "
            "PASSWORD: hunter2hunter2 plain words stay; tok-1234567890abcdef")
    out = masking.mask(text)
    for secret in ("sk-ant", "ghp_", "AKIA", "hunter2", "tok-1234"):
        assert secret not in out
    assert "plain words stay" in out and out.count(masking.MASK) == 5


def test_a_failure_never_nests_its_fields_under_extra() -> None:
    """Fields given to ``failure`` are fields of the result, and no caller passes a dict named ``extra``."""
    from python.helpers.tmux_tool.core.result import failure

    data = failure("nothing was typed", evidence="the human is typing", program="bash").to_dict()
    assert data["evidence"] == "the human is typing" and data["program"] == "bash" and "extra" not in data
    library = Path(__file__).resolve().parents[2] / "python"
    callers = [f"{p}:{i}" for p in library.rglob("*.py") for i, line in enumerate(p.read_text().splitlines(), 1)
               if re.search(r"failure\(.*\bextra=", line)]
    assert not callers, callers


@pytest.mark.parametrize(("name", "parts"), [
    ("shared", ("shared", "")), ("shared:1.0", ("shared", "1.0")), ("shared:2", ("shared", "2")),
    ("%3", ("", "%3")), ("shared:%12", ("shared", "%12")), ("build", ("build", "")),
])
def test_a_session_name_may_name_a_pane_as_tmux_writes_it(name: str, parts: tuple[str, str]) -> None:
    from python.helpers.tmux_tool.shared import where

    assert where.split(name) == parts


@pytest.mark.parametrize("name", ["shared:", "shared:a.b", "shared:1.", "shared:1.0.0", "shared:;kill", "shared:-1"])
def test_a_pane_that_tmux_would_not_read_is_refused_with_a_sentence(name: str) -> None:
    from python.helpers.tmux_tool.shared import where

    with pytest.raises(BadName, match="names no pane"):
        where.split(name)
