"""One tap's guard in real tmux: the answer is typed only if the question is still on screen at the keystroke.

The page's press reaches :func:`tap.answer` with a look taken a moment
before.  Here the question is redrawn in place between the look and the
press (same row, same cursor, same history: only the words differ), so only
tmux's own check of the screen at the keystroke can refuse it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from python.helpers.tmux_tool.core import config
from python.helpers.tmux_tool.sessions import tap
from python.helpers.tmux_tool.sessions.context import Context
from python.helpers.tmux_tool.transport import panes
from python.helpers.tmux_tool.transport.target import Target
from python.tools.tmux_tool import call

from ..conftest import poll

# Asks, takes one key, then asks another question over the first, in the same cells.
REDRAWN = ("printf 'Continue? [y/N] '; read -n1 x; printf '\\r\\033[KProceed?? [y/N] '; read a; "
           "echo \"answer=$a\"")


def _screen(target: Target) -> str:
    return target.tmux.cmd("capture-pane", "-p", "-t", target.pane)


def test_a_question_redrawn_in_place_since_the_look_takes_no_keys(private_socket: str, tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    assert call("run", session="tap", command="true")["ok"]
    first = call("send", session="tap", text=REDRAWN, timeout=30)
    assert first["status"] == "blocked" and first["question"] == "Continue? [y/N]", first
    ctx = Context(config.load())
    target = Target("tap", False, ctx.private.tmux)
    looked = ctx.open(target).state()
    assert looked.question == "Continue? [y/N]" and looked.facts is not None

    target.tmux.cmd("send-keys", "-t", target.pane, "x")
    assert poll(lambda: "\nProceed?? [y/N]" in _screen(target), 10), _screen(target)  # a row of its own
    now = ctx.open(target).state()
    assert now.facts is not None and (now.facts.cursor, now.facts.history_size) == (
        looked.facts.cursor, looked.facts.history_size), "the redraw must keep the cursor: only the words differ"
    before = _screen(target)
    refused = tap.answer(target, looked, "Continue? [y/N]", "y", log, look=ctx.open(target).state)
    assert not refused.typed and refused.why == tap.CHANGED, refused
    assert _screen(target) == before, "nothing was typed"
    assert not log.exists()
    assert "answered_by_human" not in call("status", session="tap")

    typed = tap.answer(target, now, "Proceed?? [y/N]", "y", log, look=ctx.open(target).state)
    assert typed.typed and (typed.text, typed.keys) == ("y", ("Enter",)), typed
    done = call("wait", session="tap", timeout=30)
    assert done["status"] == "ready" and "answer=y" in (done["output"] or done["screen"]), done
    assert done["answered_by_human"] == "y", done
    assert '"option": "y"' in log.read_text()


def test_a_secrets_question_has_no_tap(private_socket: str, tmp_path: Path) -> None:
    assert call("run", session="secret", command="true")["ok"]
    asked = call("send", session="secret", text="read -s -p 'Password: ' p; echo done", timeout=30)
    assert asked["status"] == "blocked" and asked.get("needs_human") is True, asked
    ctx = Context(config.load())
    target = Target("secret", False, ctx.private.tmux)
    st = ctx.open(target).state()
    refused = tap.answer(target, st, st.question or "", "y", tmp_path / "audit.log", look=ctx.open(target).state)
    assert not refused.typed and "secret" in refused.why, refused
    call("keys", session="secret", keys=["C-c"])


def test_the_check_reads_every_character_tmux_formats_and_regexes_treat_specially(private_socket: str,
                                                                                   tmp_path: Path) -> None:
    """Rows holding ``# , } { $ ^ | \\ ( ) [ ] . * + ?`` are found as they are, and a row changed by one
    character is not."""
    rows = ["a}b,c#d {x} $1 ^ | \\ (y) [z] . * + ?", "#{session_name} ##", "  indented"]
    shown = tmp_path / "rows.txt"
    shown.write_text("\n".join(rows) + "\n")
    assert call("run", session="odd", command="true")["ok"]
    target = Target("odd", False, Context(config.load()).private.tmux)
    target.tmux.cmd("respawn-pane", "-k", "-t", target.pane, "cat", str(shown), "-")
    assert poll(lambda: _screen(target).splitlines()[:3] == rows, 10), _screen(target)
    snap, facts = panes.look(target.tmux, target.pane)
    condition = tap.still_asked(snap, facts, (0, 1, 2))
    assert condition.count("#{C/r:") == 3
    assert target.tmux.display(target.pane, condition) == "1"
    changed = replace(snap, lines=tuple(line.replace("[z]", "[Z]") for line in snap.lines))
    assert target.tmux.display(target.pane, tap.still_asked(changed, facts, (0, 1, 2))) == "0"
