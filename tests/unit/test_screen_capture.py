"""Parsing ``capture-pane -p -e`` text: text, cell columns and styles.

The inputs are written the way tmux 3.3a writes them (``grid_string_cells``):
style codes only on change, carried from one row to the next, ``4:3``-style
colon forms, SO/SI around line-drawing cells, trailing blanks kept when a
code follows them.  The golden tests check the same on real captures.
"""

from __future__ import annotations

from python.helpers.tmux_tool.screen import Span, clean_scrollback, snapshot_from_capture


def snap(ansi: str, width: int = 40, height: int = 10, **kw: object):
    return snapshot_from_capture(ansi, width=width, height=height, **kw)  # type: ignore[arg-type]


def test_plain_rows_are_trimmed_and_blank_tail_dropped() -> None:
    s = snap("hello   \n\nworld \n\n\n\n")
    assert s.lines == ("hello", "", "world")
    assert s.styles == ((), (), ())
    assert s.text == "hello\n\nworld"


def test_cursor_alternate_and_program_pass_through() -> None:
    s = snap("x\n", cursor=(40, 9), alternate=True, program="vim")
    assert (s.cursor, s.alternate, s.program, s.width, s.height) == ((40, 9), True, "vim", 40, 10)
    assert s.cursor_line == ""


def test_spans_carry_colours_and_attributes() -> None:
    ansi = ("\x1b[1mbold\x1b[0m\x1b[39m\x1b[49m \x1b[2mdim\x1b[0m\x1b[39m\x1b[49m "
            "\x1b[38;5;208mor\x1b[39m \x1b[38;2;255;105;180mpk\x1b[48;2;0;0;1mbg\x1b[39m\x1b[49m "
            "\x1b[3;4;7mIUR\x1b[0m \x1b[91mbr\x1b[104mbb\x1b[0m\n")
    s = snap(ansi)
    assert s.lines == ("bold dim or pkbg IUR brbb",)
    assert s.spans(0) == (
        Span(0, 4, bold=True),
        Span(5, 8, dim=True),
        Span(9, 11, fg="38;5;208"),
        Span(12, 14, fg="ff69b4"),
        Span(14, 16, fg="ff69b4", bg="000001"),
        Span(17, 20, italic=True, underline=True, reverse=True),
        Span(21, 23, fg="brightred"),
        Span(23, 25, fg="brightred", bg="brightblue"),
    )


def test_style_carries_over_to_the_next_row() -> None:
    s = snap("ab\x1b[31mcd\nef\x1b[39mgh\n")
    assert s.spans(0) == (Span(2, 4, fg="red"),)
    assert s.spans(1) == (Span(0, 2, fg="red"),)


def test_colon_forms_and_underline_styles() -> None:
    s = snap("\x1b[38:2::1:2:3mA\x1b[4:3mB\x1b[4:0mC\x1b[38:5:9mD\n")
    assert s.spans(0) == (
        Span(0, 1, fg="010203"),
        Span(1, 2, fg="010203", underline=True),
        Span(2, 3, fg="010203"),
        Span(3, 4, fg="38;5;9"),
    )


def test_background_256_is_named_like_tmux_writes_it() -> None:
    assert snap("\x1b[48;5;24mX\n").spans(0) == (Span(0, 1, bg="48;5;24"),)


def test_wide_combining_and_zwj_cells() -> None:
    # 中 and 文 take two cells each, é is e + U+0301 in one cell, a ZWJ
    # sequence sits in one two-cell cell (tmux 3.3a joins it).
    ansi = "中文\x1b[31mX\x1b[39m e\u0301\x1b[32mY\x1b[39m \U0001F468\u200d\U0001F469\x1b[33mZ\n"
    s = snap(ansi)
    assert s.lines == ("中文X e\u0301Y \U0001F468\u200d\U0001F469Z",)
    assert s.spans(0) == (
        Span(4, 5, fg="red"),
        Span(7, 8, fg="green"),
        Span(11, 12, fg="yellow"),
    )


def test_line_drawing_cells_become_box_characters() -> None:
    s = snap("\x0elqqk\x0f top\n\x0ex\x0f mid \x0ex\x0f\n")
    assert s.lines == ("┌──┐ top", "│ mid │")


def test_spans_stop_at_the_trimmed_text() -> None:
    s = snap("\x1b[7mab   \x1b[0m   \n\x1b[44m     \n")
    assert s.lines == ("ab",)
    assert s.spans(0) == (Span(0, 2, reverse=True),)


def test_stray_escapes_and_controls_never_come_out() -> None:
    s = snap("a\x1b]0;title\x07b\x07c\x1b[5Cd\x00e\x9bf\n")
    assert s.lines == ("abcdef",)


def test_clean_scrollback_drops_styles_and_trailing_blanks() -> None:
    ansi = ("\x1b[32mline 1\x1b[39m     \n\x1b[1mline 2\x1b[0m\n\n"
            "\x0eqq\x0f x\x1b]8;;u\x07\n\n\n")
    assert clean_scrollback(ansi) == ["line 1", "line 2", "", "── x"]


def test_clean_scrollback_of_many_coloured_lines() -> None:
    ansi = "".join(
        f"\x1b[32m{i:5d}\x1b[39m \x1b[1;34mword\x1b[0m some text {'x' * 40} \x1b[2mdim\x1b[0m     \n"
        for i in range(2000)
    )
    lines = clean_scrollback(ansi)
    assert len(lines) == 2000 and lines[7].endswith("dim")


def test_capture_of_a_densely_coloured_screen() -> None:
    # 1250 style runs: denser than any real screen recorded (bench/render_bench.py times it).
    rows = []
    for y in range(50):
        rows.append("".join(f"\x1b[38;5;{(x * 7 + y) % 256}m\x1b[48;5;{(x + y) % 256}mcell{x:04d}"
                            for x in range(25)))
    ansi = "\n".join(rows) + "\n"
    s = snap(ansi, width=200, height=50)
    assert len(s.lines) == 50 and len(s.spans(0)) == 25
    assert s.lines[3].startswith("cell0000cell0001") and s.spans(3)[1].fg == "38;5;10"