"""``quick_clean``: cheap cleaning of huge output for saving to a file."""

from __future__ import annotations

from pathlib import Path

from python.helpers.tmux_tool.screen import quick_clean

STREAMS = Path(__file__).resolve().parents[1] / "fixtures" / "streams"


def test_sgr_osc_dcs_apc_and_two_byte_escapes_are_dropped() -> None:
    data = (b"\x1b[1;31mred\x1b[0m \x1b]0;title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ "
            b"\x1bP+q544e\x1b\\\x1b_Gf=1;AAAA\x1b\\\x1b7\x1b(B\x1b=\x1b[?1049h\x1b[>4;1mend")
    assert quick_clean(data) == "red link end"


def test_carriage_return_overwrites_within_the_line() -> None:
    assert quick_clean(b"10%\r50%\r100%\nnext\n") == "100%\nnext\n"
    assert quick_clean(b"abcdef\rxy\n") == "xycdef\n"
    assert quick_clean(b"abcdef\r\x1b[Kxy\n") == "xy\n"
    assert quick_clean(b"abcdef\x1b[2K\rxy") == "xy"
    assert quick_clean(b"abc\x1b[1Kd") == "   d"
    assert quick_clean(b"abc\b\bX\r\n") == "aXc\n"


def test_crlf_becomes_newline_and_blanks_stay_where_written() -> None:
    assert quick_clean(b"a  \r\nb\t\r\n\r\n") == "a  \nb\t\n\n"


def test_a_rewritten_line_is_given_as_drawn_without_its_trailing_blanks() -> None:
    assert quick_clean(b"working...\r          \rdone  \nnext  \n") == "done\nnext  \n"


def test_controls_are_removed_but_tabs_and_newlines_kept() -> None:
    assert quick_clean(b"a\tb\x07\x00\x01\x7f\xc2\x9bc\n") == "a\tbc\n"


def test_invalid_utf8_becomes_replacement_characters() -> None:
    assert quick_clean(b"ok \xff\xfe done") == "ok \ufffd\ufffd done"


def test_str_input_is_accepted() -> None:
    assert quick_clean("\x1b[32m✔\x1b[0m passed") == "✔ passed"


def test_real_pip_progress_keeps_only_its_last_frame() -> None:
    text = quick_clean((STREAMS / "pip_download.bin").read_bytes())
    assert text.count("16.3/16.3 MB") == 1
    assert "0.0/16.3 MB" not in text and "\x1b" not in text


def test_ten_megabytes_are_cleaned() -> None:
    line = b"\x1b[32m[build]\x1b[0m compiling \x1b[1mmodule\x1b[22m \xe2\x9c\x94 ok\r\n"
    bar = b"".join(b"\r\x1b[K%3d%% [" % i + b"#" * (i // 4) + b"]" for i in range(101)) + b"\n"
    block = line * 100 + bar
    repeats = 10_000_000 // len(block) + 1
    data = block * repeats
    text = quick_clean(data)
    assert "\x1b" not in text and "\r" not in text
    assert text.count("[build] compiling module ✔ ok\n") == 100 * repeats
    assert text.count("100% [#########################]\n") == repeats
    assert " 99% [" not in text
