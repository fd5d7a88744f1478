"""The cases people get wrong: prompt-like text that is not a prompt, tall screens, typed text.

These screens are small and written by hand so each test isolates one rule;
the rules themselves are backed by the real captures that
test_classify_fixtures.py checks.
"""

from __future__ import annotations

from python.helpers.tmux_tool.programs import classify, detect
from python.helpers.tmux_tool.screen import Snapshot

PROMPT = "root@vm:~# "


def status(screen: str | list[str], **kw: object) -> str:
    return str(classify(screen, **kw)["status"])  # type: ignore[arg-type]


# --- prompt-like text anywhere but at the cursor never counts ---------------------------------


def test_prompt_like_output_above_the_cursor_is_not_a_prompt() -> None:
    screen = [PROMPT + "printf '$ \\n> \\n>>> \\nuser@host:~$ \\n'; sleep 30", "$", ">", ">>>", "user@host:~$", ""]
    assert status(screen, program="bash", cursor=(0, 5)) == "busy"


def test_the_echo_of_our_own_command_is_not_a_prompt() -> None:
    assert status([PROMPT + "make all", ""], program="bash", cursor=(0, 1)) == "busy"
    assert status([">>> import time; time.sleep(9)", ""], program="python3", cursor=(0, 1)) == "busy"
    assert status(["sqlite> select count(*) from big;", ""], program="sqlite3", cursor=(0, 1)) == "busy"


def test_a_prompt_must_start_the_row_for_a_repl() -> None:
    assert status(["Loading... "], program="python3", cursor=(11, 0)) == "busy"
    assert status(["result: > "], program="node", cursor=(10, 0)) == "busy"


def test_rows_below_the_cursor_must_be_empty_for_a_shell_prompt() -> None:
    assert status([PROMPT, "output printed below"], program="bash", cursor=(len(PROMPT), 0)) == "busy"


def test_a_fake_prompt_is_told_apart_by_the_foreground_program() -> None:
    screen = [PROMPT + "printf 'user@host:~$ '; sleep 30", "user@host:~$ "]
    assert status(screen, program="bash", cursor=(13, 1), pane_command="sleep") == "busy"
    # From the text alone the two are the same screen; this is the documented limit.
    assert status(screen, program="bash", cursor=(13, 1)) == "ready"


# --- tall terminals -----------------------------------------------------------------------------


def test_prompt_far_above_tall_padding_is_found() -> None:
    rows = ["Python 3.11.7", ">>> "] + [""] * 58
    assert status(rows, program="python3", cursor=(4, 1)) == "ready"
    assert status(rows, program="python3") == "ready"  # cursor defaults to the end of the last text row


def test_tall_snapshot_with_trimmed_padding() -> None:
    snap = Snapshot(lines=(PROMPT.rstrip(),), width=200, height=200, cursor=(len(PROMPT), 0), program="bash")
    v = detect(snap, program="bash")
    assert v.status == "ready"
    assert "root@vm:~#" in v.evidence


def test_pager_line_on_the_last_row_of_a_tall_screen() -> None:
    rows = [f"line {i}" for i in range(59)] + [":"]
    assert status(rows, program="less", cursor=(1, 59)) == "blocked"


# --- text typed after the prompt ---------------------------------------------------------------


def test_typed_text_is_not_ready() -> None:
    v = classify(PROMPT + "ls -la", program="bash")
    assert v["status"] == "busy"
    assert "ls -la" in str(v["evidence"])


def test_typed_text_that_ends_like_a_prompt() -> None:
    assert status(PROMPT + "echo price $ ", program="bash", cursor=(len(PROMPT) + 13, 0)) == "busy"
    assert status(PROMPT + "echo a >", program="bash") == "busy"


def test_cursor_moved_inside_typed_text() -> None:
    assert status(PROMPT + "echo hello world", program="bash", cursor=(len(PROMPT) + 5, 0)) == "busy"


def test_typed_text_at_repl_prompts() -> None:
    assert status(">>> import os", program="python3") == "busy"
    assert status("... x = 1", program="python3") == "busy"
    assert status(["> 1 + 1", "2"], program="node", cursor=(7, 0)) == "busy"


def test_right_prompt_is_not_typed_text() -> None:
    row = "vm# " + " " * 70 + "~ [0]"
    assert status([row], program="zsh", cursor=(4, 0)) == "ready"
    typed = "vm# ls" + " " * 68 + "~ [0]"
    assert status([typed], program="zsh", cursor=(6, 0)) == "busy"


def test_wide_characters_before_the_cursor() -> None:
    row = "root@vm:~/文档# "
    cells = 16  # the two CJK characters take two cells each
    assert status([row], program="bash", cursor=(cells, 0)) == "ready"
    assert status([row + "ls"], program="bash", cursor=(cells + 2, 0)) == "busy"


# --- prompts and questions ---------------------------------------------------------------------


def test_prompt_without_trailing_space_when_cursor_is_implied() -> None:
    assert status(PROMPT + "\n\n\n", program="bash") == "ready"
    assert status("$", program="sh") == "ready"


def test_shell_continuation_prompt_is_blocked_with_a_way_out() -> None:
    v = classify([PROMPT + 'echo "open', "> "], program="bash", cursor=(2, 1))
    assert v["status"] == "blocked"
    assert v["options"] == ["C-c"]
    assert status(["vm# cat <<EOF", "heredoc> "], program="zsh", cursor=(9, 1)) == "blocked"


def test_repl_continuation_prompts_are_ready() -> None:
    assert status([">>> for i in x:", "... "], program="python3", cursor=(4, 1)) == "ready"
    assert status(["sqlite> select 1", "   ...> "], program="sqlite3", cursor=(8, 1)) == "ready"


def test_question_shapes() -> None:
    cases = {
        "[sudo] password for alice: ": (),
        "Enter passphrase for key '/root/.ssh/id_ed25519': ": (),
        "Are you sure you want to continue connecting (yes/no/[fingerprint])? ": ("yes", "no", "fingerprint"),
        "Do you want to continue? [Y/n] ": ("Y", "n"),
        "Press any key to continue...": ("Enter",),
        "Username for 'https://example.com': ": (),
    }
    for text, options in cases.items():
        v = classify(text, program="bash", cursor=(len(text), 0), pane_command="tool")
        assert v["status"] == "blocked", text
        assert tuple(v["options"]) == options, text  # type: ignore[arg-type]
        assert v["question"] == text.strip()


def test_a_bare_label_is_not_taken_for_a_question() -> None:
    assert status("Name: ", program="bash", cursor=(6, 0), pane_command="tool") == "busy"


def test_a_typed_command_containing_a_question_shape_is_typed_text() -> None:
    text = PROMPT + "read -p 'Go on? [Y/n] ' a"
    assert status(text, program="bash") == "busy"


# --- tmux facts --------------------------------------------------------------------------------


def test_pipeline_into_a_pager_is_named_after_the_shell() -> None:
    rows = [str(i) for i in range(1, 24)] + [":"]
    assert status(rows, program="bash", cursor=(1, 23), pane_command="bash", alternate=True) == "blocked"


def test_unknown_full_screen_program() -> None:
    v = classify(["  GNU nano 7.2   notes.txt"], program="bash", cursor=(0, 1), pane_command="nano", alternate=True)
    assert v["status"] == "unknown"
    assert v["program"] == "nano"


def test_unknown_program_started_and_running() -> None:
    assert status(["working..."], program="mytool", cursor=(10, 0), pane_command="mytool") == "busy"


def test_started_program_exited_cleanly_leaves_the_shell_state() -> None:
    rows = [PROMPT + "python3", "Python 3.11.7", ">>> exit()", PROMPT]
    v = classify(rows, program="python3", pane_command="bash")
    assert v["status"] == "ready"
    assert v["program"] == "bash"
    assert "python3 has exited" in str(v["evidence"])


def test_started_program_that_crashed_is_an_error() -> None:
    rows = [PROMPT + "python3 job.py", "Segmentation fault (core dumped)", PROMPT]
    assert status(rows, program="python3", pane_command="bash") == "error"
    assert status(rows, program="python3") == "error"
    assert status(rows, program="mytool", pane_command="bash") == "error"


def test_the_session_program_is_a_shell_so_a_failed_command_is_just_the_shell() -> None:
    rows = [PROMPT + "ls /nope", "ls: cannot access '/nope': No such file or directory", PROMPT]
    assert status(rows, program="bash", pane_command="bash") == "ready"


def test_dead_pane() -> None:
    rows = ["exit", "", "Pane is dead (status 3, Sat Nov 21 05:22:05 2026)"]
    v = classify(rows, program="bash", pane_command="bash")
    assert v["status"] == "error"
    assert "Pane is dead" in str(v["evidence"])


# --- nothing known but the screen ------------------------------------------------------------


def test_screen_only() -> None:
    assert classify(">>> ")["program"] == "python3"
    assert classify("sqlite> ")["program"] == "sqlite3"
    assert classify(PROMPT)["status"] == "ready"
    top = classify(["top - 05:30:38 up 23 min,  0 user,  load average: 0.66", "Tasks: 59 total"], cursor=(80, 1))
    assert (top["status"], top["program"]) == ("busy", "top")
    assert status(["some output without a prompt"]) == "unknown"
    assert status([]) == "unknown"


def test_result_shape() -> None:
    ready = classify(PROMPT, program="bash")
    assert set(ready) == {"status", "program", "evidence"}
    blocked = classify("Password: ", program="bash")
    assert set(blocked) == {"status", "program", "evidence", "question", "options"}


def test_repl_prompt_in_a_shell_session_without_tmux_facts() -> None:
    v = classify([PROMPT + "python3", ">>> "], program="bash", cursor=(4, 1))
    assert (v["status"], v["program"]) == ("ready", "python3")
    assert status([PROMPT + "echo 'a", "> "], program="bash", cursor=(2, 1)) == "blocked"
