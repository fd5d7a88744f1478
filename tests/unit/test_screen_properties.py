"""Properties that must hold for any input, found by hypothesis.

* No byte stream or escape sequence crashes a renderer or leaks ESC, BEL or
  any other control character into what callers get.
* Printable text mixed with SGR codes, zero width joiners and variation
  selectors is never silently dropped: every visible character comes out, in
  order.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from python.helpers.tmux_tool.screen import (
    Transcript,
    clean_scrollback,
    quick_clean,
    render_stream,
    snapshot_from_capture,
)
from python.helpers.tmux_tool.screen.cells import char_width, text_width

CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
CONTROL_BUT_TAB = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

# -- arbitrary terminal output ----------------------------------------------

_finals = st.sampled_from(list("@ABCDEFGHIJKLMPSTXZ`bcdfghlmnqrstu~pSx"))
_params = st.lists(st.integers(0, 10050).map(str) | st.sampled_from(["", "38:2::1:2:3", "4:3"]),
                   max_size=6).map(";".join)
_csi = st.builds(
    lambda prefix, params, inter, final: f"\x1b[{prefix}{params}{inter}{final}",
    st.sampled_from(["", "?", ">", "<", "=", "?>"]), _params,
    st.sampled_from(["", " ", "$", "!", '"', "+"]), _finals,
)
_private_modes = st.builds(
    lambda mode, on: f"\x1b[?{mode}{'h' if on else 'l'}",
    st.sampled_from([1, 3, 6, 7, 25, 47, 1047, 1049, 2004]), st.booleans(),
)
_strings = st.builds(
    lambda opener, body, end: f"\x1b{opener}{body}{end}",
    st.sampled_from(["]", "P", "_", "^", "X", "k", "]8;;"]),
    st.text(max_size=20),
    st.sampled_from(["", "\x07", "\x1b\\", "\x18", "\x1b"]),
)
_esc = st.builds(lambda tail: "\x1b" + tail,
                 st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=3))
_controls = st.text(alphabet=st.characters(max_codepoint=0x1F) | st.characters(
    min_codepoint=0x7F, max_codepoint=0x9F), min_size=1, max_size=4)
_text = st.text(max_size=30)
_piece = st.one_of(_csi, _private_modes, _strings, _esc, _controls, _text,
                   st.sampled_from(["\r\n", "\n", "\r", "\b", "\t", "\u200d", "\ufe0f", "中"]))
TERMINAL_OUTPUT = st.lists(_piece, max_size=40).map("".join)


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@SETTINGS
@given(TERMINAL_OUTPUT, st.integers(1, 30), st.integers(1, 8))
# a wide mark (U+302E, width 2) pushed off the right edge by an insert (CSI @): erased, not half kept
@example("\u302e\x1b\r\x1b[@", 2, 1)
@example("\u4e2dab\x1b[1G\x1b[P", 4, 1)  # its lead deleted from under its stub
def test_terminal_output_never_crashes_or_leaks_controls(text: str, width: int, height: int) -> None:
    data = _encode(text)
    snap = render_stream(data, width=width, height=height)
    assert not CONTROL.search(snap.text)
    assert all(text_width(row) <= width for row in snap.lines)
    assert 0 <= snap.cursor[0] <= width and 0 <= snap.cursor[1] < height
    transcript = Transcript(width, height)
    transcript.feed(data[: len(data) // 2])
    transcript.feed(data[len(data) // 2:])
    assert not CONTROL.search(transcript.text())
    assert not CONTROL_BUT_TAB.search(quick_clean(data))


@SETTINGS
@given(st.binary(max_size=400), st.integers(1, 30), st.integers(1, 8))
def test_arbitrary_bytes_never_crash_or_leak_controls(data: bytes, width: int, height: int) -> None:
    assert not CONTROL.search(render_stream(data, width=width, height=height).text)
    transcript = Transcript(width, height)
    transcript.feed(data)
    assert not CONTROL.search(transcript.text())
    assert not CONTROL_BUT_TAB.search(quick_clean(data))
    text = data.decode("utf-8", "replace")
    assert not CONTROL.search(snapshot_from_capture(text, width=width, height=height).text)
    assert not any(CONTROL.search(row) for row in clean_scrollback(text))


# -- visible text survives --------------------------------------------------

def _visible(ch: str) -> bool:
    return char_width(ch) >= 1 and not ch.isspace()


_visible_chars = st.characters(categories=["L", "N", "P", "S"]).filter(_visible) | st.sampled_from(
    ["中", "文", "😀", "👨", "👩", "❤", "✅", "é", "│", "─", "⠋"])
_word = st.text(alphabet=_visible_chars, min_size=1, max_size=12)
_glue = st.sampled_from(["\u200d", "\ufe0f", "\ufe0e", "\u0301", " ", "  "])
_sgr = st.builds(lambda p: f"\x1b[{p}m", st.sampled_from(
    ["", "0", "1", "2", "22", "31", "38;5;208", "38;2;1;2;3", "48;5;24", "7", "27", "4:3", "39;49"]))
MIXED = st.lists(st.one_of(_word, _glue, _sgr), max_size=40).map("".join)


def _letters(text: str) -> str:
    return "".join(ch for ch in text if _visible(ch))


@SETTINGS
@given(MIXED, st.integers(2, 60), st.integers(1, 6))
def test_visible_text_is_never_dropped(text: str, width: int, height: int) -> None:
    expected = _letters(re.sub(r"\x1b\[[0-9;:]*m", "", text))
    transcript = Transcript(width, height)
    transcript.feed(_encode(text))
    assert _letters(transcript.text()) == expected
    # A screen tall enough never to scroll shows all of it.
    assert _letters(render_stream(_encode(text), width=60, height=40).text) == expected


@SETTINGS
@given(MIXED)
def test_capture_parsing_keeps_every_character(text: str) -> None:
    # What tmux captured is already laid out: parsing only removes SGR codes.
    rows = [text, "> " + text]
    snap = snapshot_from_capture("\n".join(rows) + "\n", width=400, height=5)
    plain = [re.sub(r"\x1b\[[0-9;:]*m", "", row).rstrip(" ") for row in rows]
    while plain and not plain[-1]:
        plain.pop()
    assert list(snap.lines) == plain
    assert clean_scrollback("\n".join(rows)) == plain
