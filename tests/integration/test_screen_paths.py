"""Capture path and stream path agree with tmux on real screens, live.

Each case runs in its own tmux server (``-L`` with a unique name, killed by
that name).  The pane's bytes are recorded with ``pipe-pane`` from its first
byte; when the screen has settled we compare three pictures of the same
moment:

1. tmux's own ``capture-pane -p`` (the truth),
2. :func:`snapshot_from_capture` of ``capture-pane -p -e`` (the fast path),
3. :func:`render_stream` of the recorded bytes (the pyte path),

and the transcript of the bytes with tmux's ``capture-pane -S - -E -``.
The byte cases are the ones the unit tests make claims about; the program
cases are real programs driven by keys.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from python.helpers.tmux_tool.screen import (
    Transcript,
    render_stream,
    snapshot_from_capture,
)
from tests.fixtures.streams.recorder import SAMPLE_PY, PrivateTmux, private_tmux, trimmed

BYTE_CASES: dict[str, bytes] = {
    "zwj_vs16_combining": "a\u2764\ufe0fb \U0001F468\u200d\U0001F469\u200d\U0001F467c e\u0301nd "
                          "x\u200dyz e\u0301nd \u200d\U0001F600!\r\n".encode(),
    "wide_wrap_and_overwrite": "abcdefghijklmnopqrstuvwxyz0123456789ABC中\r\n中文\x1b[2Gx\r\n"
                               "中文\x1b[1Gy\r\n中文\x1b[4G\u00e9\r\n中文\x1b[2G\u00e9\r\n"
                               "ab中cd\x1b[3G\x1b[X\r\nab中cd\x1b[4G\x1b[K\r\n".encode(),
    "scroll_up_down": b"1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n8\x1b[2S\x1b[H\x1b[1T",
    "alternate_1049": b"main 1\r\nmain 2\x1b[?1049h\x1b[H\x1b[2Jfull screen\x1b[5;5Hx\x1b[?1049l!",
    "alternate_47_1047": b"abc\x1b[?47h\x1b[3;3Hzz\x1b[?47l!\r\ndef\x1b[?1047h\x1b[4;4Hzz\x1b[?1047l?",
    "strings_and_links": b"a\x1bP+q544e\x1b\\b\x1b_Gi=1;AAAA\x1b\\c\x1b^pm\x1b\\d\x1bXsos\x1b\\e"
                         b"\x1b]0;title\x07f\x1b]8;;https://example.org\x1b\\link\x1b]8;;\x1b\\g"
                         b"\x1bkscreen title\x1b\\h\r\n",
    "odd_csi": b"\x1b[>4;1ma\x1b[<ub\x1b[=5uc\x1b[!pd\x1b[?2004$pe\x1b[2 qf\x1b[0\"qg\x1b[1;2;3+~h"
               b"\x1b[?25;?1hi\r\n",
    "queries": b"\x1b[6n\x1b[c\x1b[>c\x1b[5n\x1b[>q\x1b]11;?\x07\x1b[18tok\r\n",
    "sgr_styles": b"\x1b[2mdim\x1b[22m \x1b[38;5;244mgrey\x1b[0m \x1b[38;2;138;138;138mhex\x1b[m "
                  b"\x1b[1;31;44mab\x1b[Kcd\x1b[0m\r\n\x1b[38:2::1:2:3mA\x1b[4:3mB\x1b[4:0mC\x1b[0m\r\n",
    "clear_and_3j": b"one\r\ntwo\r\n\x1b[H\x1b[2Jthree\r\n\x1b[H\x1b[Jfour\r\n",
    "progress": b"".join(b"\r\x1b[Kfetch %d%%" % i for i in range(0, 101, 5)) + b"\r\ndone\r\n",
    "scroll_region": b"\x1b[1;5r\x1b[6;1HProgress: [ 50%]\x1b[1;1H"
                     + b"".join(b"step %d\r\n" % i for i in range(12)) + b"\x1b[r\x1b[6;1H\x1b[K",
    "insert_delete_lines": b"a\r\nb\r\nc\x1b[2;1H\x1b[M\x1b[1;1H\x1b[2L",
    "rep_tabs_backspace": b"ab\x1b[3b|\r\nabc\b\bX\tY\tZ\r\na\t\t\t\t\t\t\tb\r\n",
    "invalid_utf8": b"a\xffb\xe4\xb8c\xc3\xa9\r\n",
    # Widths where the C library (tmux) and the wcwidth package disagree,
    # and an unassigned code point tmux drops.
    "libc_widths": "A\u0903X|\u3164Y|\u0378Z|\u2630W|\u0cf3V|\x1b[31m\u0903\x1b[0m|\r\n".encode(),
    "pending_wrap": b"0123456789012345678901234567890123456789\x1b[Dx",
    "pending_wrap_moves": b"\r\n" + b"0123456789" * 4 + b"\x1b[AU" + b"\r\n\n" + b"9876543210" * 4
                          + b"\x1b[BD" + b"\x1b[1;40H12\x1b[C3",
    "autowrap_off_insert_mode": "\x1b[?7l0123456789012345678901234567890123456789XYZ\r\n"
                                "abcdef\x1b[3G\x1b[4hXY\x1b[4l\r\n"
                                "\x1b[1;2;39H中\x1b[3;38H中\x1b[?7h!".encode(),
    "origin_mode": b"\x1b[3;6r\x1b[?6h\x1b[1;1HA\x1b[10;1HB\x1b[2dC\x1b[?6l\x1b[r\x1b[8;1HD",
    "save_restore": b"\x1b[2;3H\x1b7\x1b[5;5H\x1b7\x1b[1;1H\x1b8X\x1b8Y\x1b[s\x1b[7;7H\x1b[uZ",
    "index_reverse_next_line": b"a\r\nb\x1bMc\x1bDd\x1bEe\x1b[H\x1bMtop",
    "tabs_and_back_tab": b"\tA\t\tB\x1b[ZC\x1b[2ZD\r\n\x1b[3g\tE\x1b[1;17H\x1bH\r\n\t\tF",
    "full_reset": b"before\r\n\x1b[31mred\x1bcafter",
    "deccolm": b"text\r\nmore\x1b[?3hX",
    "ech_dch_ich": b"abcdefgh\x1b[3G\x1b[2P\x1b[2@\x1b[3X\r\n\x1b[44mabcdefgh\x1b[3G\x1b[2P\x1b[0m",
    "erase_display_variants": b"line1\r\nline2\r\nline3\x1b[2;3H\x1b[1J\x1b[3;2H\x1b[0J",
    "absolute_moves": b"\x1b[3Ea\x1b[2Fb\x1b[10Gc\x1b[5dd\x1b[5`e\x1b[99;99Hf\x1b[0;0Hg",
    "lines_outside_region": b"1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\x1b[2;4r\x1b[6;1H\x1b[L"
                            b"\x1b[7;1H\x1b[M\x1b[1;1H\x1b[10Bx\x1b[8;1H\x1b[10Ay\x1b[r",
    "reverse_index_region": b"1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[2;1H\x1bM\x1bMz\x1b[r",
}

def compare(pane: PrivateTmux, *, transcript: bool) -> None:
    """Assert the three pictures (and optionally the transcript) agree."""
    pane.wait_stable()
    info = pane.info()
    plain = trimmed(pane.capture().split("\n")[: pane.height])
    ansi = pane.capture("-e")
    data = pane.record.read_bytes()
    captured = snapshot_from_capture(ansi, width=pane.width, height=pane.height,
                                     cursor=tuple(info["cursor"]), alternate=info["alternate"])
    replayed = render_stream(data, width=pane.width, height=pane.height)
    assert list(captured.lines) == plain
    assert list(replayed.lines) == plain
    assert list(replayed.cursor) == info["cursor"]
    assert replayed.alternate is info["alternate"]
    assert replayed.styles == captured.styles
    if transcript:
        history = "\n".join(trimmed(pane.capture("-S", "-", "-E", "-").split("\n")))
        t = Transcript(pane.width, pane.height)
        t.feed(data)
        assert t.text() == history


def test_line_drawing_reads_as_box_characters(tmp_path: Path) -> None:
    # tmux's plain capture prints line-drawing cells as the ASCII letters
    # the program sent ("lqk"); -e marks them with SO/SI, so both of our
    # paths can show what the human sees.
    case = tmp_path / "case.bin"
    case.write_bytes(b"\x1b(0lqk\x1b(B x \x0emj\x0f \x1b)0\x0emj\x0fq\r\n")
    with private_tmux(40, 8, command=f"stty -onlcr; cat {shlex.quote(str(case))}; exec sleep 600") as pane:
        pane.wait_for(lambda: pane.record.stat().st_size >= 20, "bytes written")
        pane.wait_stable()
        assert trimmed(pane.capture().split("\n")) == ["lqk x mj mjq"]
        ansi = pane.capture("-e")
        assert "\x0e" in ansi
        expected = ("┌─┐ x mj └┘q",)
        assert snapshot_from_capture(ansi, width=40, height=8).lines == expected
        assert render_stream(pane.record.read_bytes(), width=40, height=8).lines == expected


@pytest.mark.parametrize("name", sorted(BYTE_CASES))
def test_bytes_render_like_tmux(name: str, tmp_path: Path) -> None:
    case = tmp_path / "case.bin"
    case.write_bytes(BYTE_CASES[name])
    command = f"stty -onlcr; cat {shlex.quote(str(case))}; exec sleep 600"
    with private_tmux(40, 8, command=command) as pane:
        pane.wait_for(lambda: pane.record.stat().st_size >= len(BYTE_CASES[name]), "bytes written")
        compare(pane, transcript=name not in ("clear_and_3j",))


def test_python_repl_live() -> None:
    with private_tmux(80, 24) as pane:
        pane.wait_shell_prompt()
        pane.type("python3 -q")
        pane.keys("Enter")
        pane.wait_cursor_line(r"^>>>$")
        for line in ('print("\\033[2mdim\\033[0m ✅ 中文")', "for i in range(40): print(i)", ""):
            pane.type(line)
            pane.keys("Enter")
        pane.wait_cursor_line(r"^>>>$")
        compare(pane, transcript=True)


def test_vim_and_less_live() -> None:
    with private_tmux(100, 30) as pane:
        (pane.workdir / "sample.py").write_text(SAMPLE_PY)
        pane.shell("ls --color=always -la")
        pane.type("vim -N -u NONE -i NONE -c 'syntax on' -c 'set number' sample.py")
        pane.keys("Enter")
        pane.wait_text(r'"sample.py" \d+L')
        compare(pane, transcript=False)
        pane.keys("G", "o")
        pane.type("# added ✅ 中文")
        pane.keys("Escape")
        pane.wait_text("added")
        compare(pane, transcript=False)
        pane.type(":q!")
        pane.keys("Enter")
        pane.wait_shell_prompt()
        compare(pane, transcript=True)
        pane.type("less sample.py")
        pane.keys("Enter")
        pane.wait_text(r"^sample\.py")
        pane.keys("Space")
        compare(pane, transcript=False)
        pane.keys("q")
        pane.wait_shell_prompt()
        compare(pane, transcript=True)
