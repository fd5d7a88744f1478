"""Replaying raw pane output: the gaps of pyte we cover, case by case.

Every expectation here is what tmux 3.3a shows for the same bytes (the
integration test ``test_screen_paths.py`` checks a selection of them against
a live tmux; the golden tests check whole real programs).
"""

from __future__ import annotations

from python.helpers.tmux_tool.screen import Span, Transcript, render_stream, render_transcript
from python.helpers.tmux_tool.screen.emulator import TmuxScreen
from python.helpers.tmux_tool.screen.stream import TerminalStream


def lines(data: bytes, width: int = 20, height: int = 5) -> tuple[str, ...]:
    return render_stream(data, width=width, height=height).lines


def test_alternate_screen_is_saved_and_restored() -> None:
    data = b"main 1\r\nmain 2\x1b[?1049h\x1b[H\x1b[2Jfull screen\x1b[5;5Hx"
    snap = render_stream(data, width=20, height=5)
    assert snap.alternate and snap.lines == ("full screen", "", "", "", "    x")
    back = render_stream(data + b"\x1b[?1049l", width=20, height=5)
    assert not back.alternate
    assert back.lines == ("main 1", "main 2") and back.cursor == (6, 1)


def test_alternate_screen_content_never_reaches_the_transcript() -> None:
    data = (b"before\r\n\x1b[?1049h" + b"".join(b"alt %d\r\n" % i for i in range(20))
            + b"\x1b[?1049lafter\r\n")
    assert render_transcript(data, 20, 5) == "before\nafter"


def test_modes_47_and_1047_do_not_restore_the_cursor() -> None:
    for mode in (b"47", b"1047"):
        snap = render_stream(b"abc\x1b[?" + mode + b"h\x1b[3;3Hzz\x1b[?" + mode + b"l!",
                             width=10, height=4)
        assert snap.lines == ("abc", "", "    !"), mode


def test_scroll_up_and_down() -> None:
    data = b"1\r\n2\r\n3\r\n4\r\n5\x1b[2S"
    assert lines(data) == ("3", "4", "5")
    assert lines(data + b"\x1b[H\x1b[1T") == ("", "3", "4", "5")
    t = Transcript(20, 5)
    t.feed(data)
    assert t.text() == "1\n2\n3\n4\n5"


def test_zero_width_joiner_and_variation_selectors_keep_the_rest_of_the_text() -> None:
    # pyte's own draw() stops at the first width-0 character that is not a
    # combining mark and silently drops the rest of the run.
    text = "a\u2764\ufe0fb \U0001F468\u200d\U0001F469\u200d\U0001F467c e\u0301nd x\u200dyz"
    assert lines(text.encode(), width=40) == (text.replace("x\u200dyz", "xyz"),)


def test_a_joiner_before_ascii_waits_for_the_next_non_ascii_character() -> None:
    # tmux 3.3a prints ASCII on a fast path that ignores a pending ZWJ; the
    # ZWJ is appended with the next non-ASCII character (checked on tmux).
    assert lines("x\u200dyz e\u0301nd".encode(), width=40) == ("xyz e\u200d\u0301nd",)


def test_joined_emoji_take_one_wide_cell() -> None:
    snap = render_stream("\U0001F468\u200d\U0001F469|".encode(), width=10, height=2)
    assert snap.cursor == (3, 0)


def test_a_joiner_with_nothing_to_join_keeps_the_character() -> None:
    assert lines("\u200d\U0001F600!".encode()) == ("\U0001F600!",)
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"
    assert "\U0001F466" in lines(family.encode())[0]


def test_wide_characters_wrap_whole_and_overwrites_blank_the_other_half() -> None:
    assert lines("abcd中".encode(), width=5) == ("abcd", "中")
    assert lines("中文\x1b[1Gx".encode(), width=6) == ("x 文",)
    assert lines("中文\x1b[4Gx".encode(), width=6) == ("中 x",)
    assert lines("中文\x1b[2G\u00e9".encode(), width=6) == (" \u00e9文",)


def test_tmux_quirks_with_cut_wide_characters_are_kept() -> None:
    # Checked on tmux 3.3a: an ASCII run starting on the right half of a
    # wide character in column 0 leaves the character; erasing never repairs.
    assert lines("中文\x1b[2Gx".encode(), width=6) == ("中x文",)
    assert lines("ab中cd\x1b[3G\x1b[X".encode(), width=8) == ("ab cd",)


def test_strings_are_dropped_and_link_text_kept() -> None:
    data = (b"a\x1bP+q544e\x1b\\b\x1b_Gi=1;AAAA\x1b\\c\x1b^pm\x1b\\d\x1bXsos\x1b\\e"
            b"\x1b]0;title\x07f\x1b]8;;https://example.org\x1b\\link\x1b]8;;\x1b\\g"
            b"\x1bkscreen title\x1b\\h")
    assert lines(data, width=40) == ("abcdeflinkgh",)


def test_unterminated_strings_swallow_only_until_their_end_across_chunks() -> None:
    t = Transcript(30, 3)
    for chunk in (b"x\x1bPdata", b" more data\x1b", b"\\y\x1b]2;ti", b"tle", b"\x07z"):
        t.feed(chunk)
    assert t.text() == "xyz"


def test_odd_csi_sequences_are_ignored_not_drawn() -> None:
    data = (b"\x1b[>4;1m" b"a" b"\x1b[<u" b"b" b"\x1b[=5u" b"c" b"\x1b[!p" b"d" b"\x1b[?2004$p" b"e"
            b"\x1b[2 q" b"f" b"\x1b[0\"q" b"g" b"\x1b[1;2;3+~" b"h" b"\x1b[?25;?1h" b"i")
    snap = render_stream(data, width=20, height=2)
    assert snap.lines == ("abcdefghi",)
    assert snap.styles == ((),)


def test_terminal_queries_are_never_answered() -> None:
    class NoReplies(TmuxScreen):
        def write_process_input(self, data: str) -> None:
            raise AssertionError(f"replied {data!r}")

    screen = NoReplies(20, 3)
    TerminalStream(screen).feed(b"\x1b[6n\x1b[c\x1b[>c\x1b[5n\x1b[>q\x1b[?u\x1b]11;?\x07"
                                b"\x1b[18t\x1bP$qm\x1b\\\x1b[?1$pok")
    assert screen.snapshot().lines == ("ok",)


def test_sgr_dim_256_and_truecolour_reach_the_spans() -> None:
    data = b"\x1b[2mdim\x1b[22m \x1b[38;5;244mgrey\x1b[0m \x1b[38;2;138;138;138mhex\x1b[m"
    snap = render_stream(data, width=20, height=2)
    assert snap.spans(0) == (
        Span(0, 3, dim=True), Span(4, 8, fg="38;5;244"), Span(9, 12, fg="8a8a8a"))


def test_erase_keeps_only_the_background() -> None:
    snap = render_stream(b"\x1b[1;31;44mab\x1b[Kcd", width=6, height=2)
    assert snap.spans(0) == (Span(0, 4, fg="red", bg="blue", bold=True),)


def test_clear_pushes_the_screen_into_the_transcript_and_3j_keeps_it() -> None:
    t = Transcript(20, 4)
    t.feed(b"one\r\ntwo\r\n\x1b[H\x1b[2J\x1b[3Jthree")
    assert t.text() == "one\ntwo\nthree"
    assert t.snapshot().lines == ("three",)


def test_home_then_erase_below_is_a_clear_too() -> None:
    t = Transcript(20, 4)
    t.feed(b"one\r\ntwo\r\n\x1b[H\x1b[Jthree")
    assert t.text() == "one\ntwo\nthree"


def test_carriage_return_progress_keeps_only_the_final_state() -> None:
    data = b"".join(b"\r\x1b[Kfetch %d%%" % i for i in range(0, 101, 5)) + b"\r\ndone\r\n"
    assert render_transcript(data, 30, 5) == "fetch 100%\ndone"


def test_lines_leaving_a_scroll_region_go_to_the_transcript() -> None:
    # apt-get's fancy progress: rows 1..4 scroll, row 5 is a status line.
    data = b"\x1b[1;4r\x1b[5;1HProgress: [ 50%]\x1b[1;1H" + b"".join(
        b"step %d\r\n" % i for i in range(8)) + b"\x1b[r\x1b[5;1H\x1b[K"
    assert render_transcript(data, 20, 5) == "\n".join(f"step {i}" for i in range(8))


def test_insert_and_delete_lines_move_rows_even_below_empty_ones() -> None:
    data = b"a\r\nb\r\nc\x1b[2;1H\x1b[M"
    assert lines(data) == ("a", "c")
    assert lines(data + b"\x1b[1;1H\x1b[2L") == ("", "", "a", "c")


def test_rep_repeats_the_last_ascii_character() -> None:
    assert lines(b"ab\x1b[3b|") == ("abbbb|",)


def test_invalid_utf8_is_dropped_like_tmux_does() -> None:
    assert lines(b"a\xffb\xe4\xb8c\xc3\xa9") == ("abcé",)


def test_cursor_may_sit_past_the_last_column_like_tmux_reports() -> None:
    snap = render_stream(b"12345", width=5, height=2)
    assert snap.cursor == (5, 0) and snap.lines == ("12345",)
    assert render_stream(b"12345\x1b[Dx", width=5, height=2).lines == ("1234x",)


def test_split_utf8_and_escapes_across_chunks() -> None:
    data = "\x1b[31m中\x1b[0m文 \x1b]0;t\x07ok\r\n".encode()
    whole = render_transcript(data, 20, 3)
    t = Transcript(20, 3)
    for byte in data:
        t.feed(bytes([byte]))
    assert t.text() == whole == "中文 ok"


def test_line_drawing_charset() -> None:
    assert lines(b"\x1b(0lqk\x1b(B x \x0emj\x0f \x1b)0\x0emj\x0fq") == ("┌─┐ x mj └┘q",)


def test_backspace_and_tabs() -> None:
    assert lines(b"abc\b\bX\tY\tZ", width=20) == ("aXc     Y       Z",)
    assert lines(b"a\t\t\t\t\tb", width=20) == ("a                  b",)
