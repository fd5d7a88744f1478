"""Select Graphic Rendition: turn ``CSI ... m`` parameters into a cell style.

One parser serves both paths (tmux captures and raw streams) so a colour is
named the same way whichever path saw it.  pyte ignores SGR 2 (dim) and the
colon forms (``38:2::r:g:b``, ``4:3``) that modern programs emit; dim matters
because AI CLIs draw "thinking" and hint text dim, so it is kept here.

A style is a plain tuple ``(fg, bg, bold, dim, italic, underline, reverse)``,
in the order of :class:`~.snapshot.Span`'s style fields, so
``Span(start, end, *style)`` builds a span.  Colour names:

* ``"default"``;
* ``"black"`` ... ``"white"`` for 30-37/40-47, ``"brightblack"`` ... for
  90-97/100-107;
* ``"38;5;N"`` (foreground) or ``"48;5;N"`` (background) for the 256-colour
  palette, exactly as tmux writes them back in ``capture-pane -e``;
* ``"rrggbb"`` (lower-case hex) for truecolour.
"""

from __future__ import annotations

from functools import lru_cache

Style = tuple[str, str, bool, bool, bool, bool, bool]

DEFAULT_STYLE: Style = ("default", "default", False, False, False, False, False)

_NAMES = ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")


def _number(text: str) -> int:
    """A parameter as an int; empty or garbled parameters count as 0."""
    return int(text) if text.isdigit() and len(text) < 6 else 0


def _extended(kind: int, values: list[int]) -> str | None:
    """Colour from the values after 38/48 (``5;N`` or ``2;R;G;B``)."""
    if not values:
        return None
    if values[0] == 5 and len(values) >= 2:
        return f"{kind};5;{values[1] & 0xFF}"
    if values[0] == 2 and len(values) >= 4:
        r, g, b = (v & 0xFF for v in values[-3:]) if len(values) > 4 else (
            v & 0xFF for v in values[1:4])
        return f"{r:02x}{g:02x}{b:02x}"
    return None


@lru_cache(maxsize=8192)
def apply_sgr(style: Style, params: str) -> Style:
    """The style after ``CSI params m`` is applied to ``style``."""
    if params in ("", "0"):
        return DEFAULT_STYLE
    fg, bg, bold, dim, italic, underline, reverse = style
    groups = params.split(";")
    i = 0
    while i < len(groups):
        group = groups[i]
        i += 1
        if ":" in group:
            parts = group.split(":")
            head = _number(parts[0])
            if head in (38, 48):
                colour = _extended(head, [_number(p) for p in parts[1:]])
                if colour is not None:
                    if head == 38:
                        fg = colour
                    else:
                        bg = colour
            elif head == 4:
                underline = _number(parts[1]) != 0
            continue
        code = _number(group)
        if code in (38, 48):
            # Semicolon form: 38;5;N or 38;2;R;G;B consumes the next values.
            mode = _number(groups[i]) if i < len(groups) else 0
            take = 2 if mode == 5 else 4 if mode == 2 else 1
            colour = _extended(code, [_number(g) for g in groups[i:i + take]])
            i += take
            if colour is not None:
                if code == 38:
                    fg = colour
                else:
                    bg = colour
        elif code == 0:
            fg, bg, bold, dim, italic, underline, reverse = DEFAULT_STYLE
        elif code == 1:
            bold = True
        elif code == 2:
            dim = True
        elif code == 3:
            italic = True
        elif code in (4, 21):
            underline = True
        elif code == 7:
            reverse = True
        elif code == 22:
            bold = dim = False
        elif code == 23:
            italic = False
        elif code == 24:
            underline = False
        elif code == 27:
            reverse = False
        elif 30 <= code <= 37:
            fg = _NAMES[code - 30]
        elif code == 39:
            fg = "default"
        elif 40 <= code <= 47:
            bg = _NAMES[code - 40]
        elif code == 49:
            bg = "default"
        elif 90 <= code <= 97:
            fg = "bright" + _NAMES[code - 90]
        elif 100 <= code <= 107:
            bg = "bright" + _NAMES[code - 100]
    return (fg, bg, bold, dim, italic, underline, reverse)
