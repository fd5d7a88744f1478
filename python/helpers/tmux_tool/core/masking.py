"""Secrets never reach the agent or the logs in clear.

Terminals print secrets all the time: ``env``, ``cat .env``, a CLI echoing its
API key, a ``curl -H "Authorization: Bearer ..."``.  Everything the tool
returns or writes down passes through :func:`mask`, which hides

* tokens of well-known shapes (OpenAI/Anthropic ``sk-``, GitHub, GitLab,
  Slack, AWS access keys, Google API keys, JWTs, bearer tokens, PEM private
  keys);
* the value in ``NAME=value`` / ``NAME: value`` / ``"name": "value"`` when
  NAME looks secret (``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``PASSWORD`` and
  the like);
* the password in a URL (``postgres://user:password@host``);
* the literal values of such variables in the tool's own environment,
  wherever they appear.

A screen breaks long lines at its right edge, so a secret can sit half on one
row and half on the next (``export PASSWO`` / ``RD=hunter2``).  Rows that fill
the whole width are therefore also read joined to the row below, and a
secret found across the break is hidden on both rows.
"""

from __future__ import annotations

import bisect
import itertools
import os
import re
from functools import lru_cache

import wcwidth

MASK = "[masked]"

_SECRET_NAME = (r"(?:[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?)"
                r"|(?i:password|passwd|api[_-]?key|secret|token|access[_-]token|auth[_-]token|client[_-]secret))")
_TOKEN_SHAPES = (
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}",
    r"\bgh[pousr]_[A-Za-z0-9]{30,}",
    r"\bgithub_pat_[A-Za-z0-9_]{30,}",
    r"\bglpat-[A-Za-z0-9_-]{20,}",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\bAIza[0-9A-Za-z_-]{35}",
    r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
    r"(?<=Bearer )[A-Za-z0-9._~+/=-]{16,}",
)
_SHAPES = re.compile("|".join(_TOKEN_SHAPES))
# The name may be quoted (a JSON or YAML key); only the value is hidden.
_ASSIGNMENT = re.compile(
    r"\b" + _SECRET_NAME + r"\b[\"']?\s*[=:]\s*[\"']?(?P<value>[^\s\"']{4,})"
)
_URL_PASSWORD = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@]+:(?P<value>[^\s/@]{3,})@")
MIN_WRAP = 40  # narrower "screens" are not screens: no row joining below this width
REACH = 1024  # characters read on each side of a row break

Span = tuple[int, int]


@lru_cache(maxsize=8)
def _env_values(snapshot: tuple[tuple[str, str], ...]) -> re.Pattern[str] | None:
    values = sorted({v for k, v in snapshot if len(v) >= 8}, key=len, reverse=True)
    return re.compile("|".join(re.escape(v) for v in values)) if values else None


def _env_pattern() -> re.Pattern[str] | None:
    name = re.compile(_SECRET_NAME + r"$")
    return _env_values(tuple(sorted((k, v) for k, v in os.environ.items() if name.match(k))))


def _merged(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _spans(text: str) -> list[Span]:
    """Where the secrets are in ``text`` (overlapping spans merged)."""
    found: list[Span] = []
    env = _env_pattern()
    if env is not None:
        found += [m.span() for m in env.finditer(text)]
    found += [m.span() for m in _SHAPES.finditer(text)]
    found += [m.span("value") for m in _ASSIGNMENT.finditer(text)]
    found += [m.span("value") for m in _URL_PASSWORD.finditer(text)]
    return _merged(found)


def _cells(line: str) -> int:
    if line.isascii():
        return len(line)
    width = wcwidth.wcswidth(line)
    return len(line) if width < 0 else width


def _soft_breaks(text: str) -> list[int]:
    """Offsets of the newlines that end a row filling the widest row's width."""
    rows = text.split("\n")
    if len(rows) < 2:
        return []
    cells = [_cells(r) for r in rows]
    width = max(cells)
    if width < MIN_WRAP:
        return []
    breaks, offset = [], 0
    for row, n in zip(rows[:-1], cells[:-1], strict=True):
        offset += len(row)
        if n == width:
            breaks.append(offset)
        offset += 1
    return breaks


def _regions(text: str, breaks: list[int]) -> list[tuple[int, int, list[int]]]:
    """Stretches of ``text`` around the breaks a secret could cross, with their breaks.

    A break between two non-blank characters is looked at with ``REACH``
    characters on either side; breaks closer than that share one stretch, so
    a long token wrapped over several rows is read whole.
    """
    regions: list[tuple[int, int, list[int]]] = []
    for b in breaks:
        if b == 0 or b + 1 >= len(text) or text[b - 1].isspace() or text[b + 1].isspace():
            continue
        lo, hi = max(0, b - REACH), min(len(text), b + 1 + REACH)
        if regions and lo <= regions[-1][1]:
            regions[-1][2].append(b)
            regions[-1] = (regions[-1][0], hi, regions[-1][2])
        else:
            regions.append((lo, hi, [b]))
    return regions


def _across_breaks(text: str) -> list[Span]:
    """Secrets read across soft row breaks, as spans of ``text`` (one per row they touch)."""
    spans: list[Span] = []
    for lo, hi, breaks in _regions(text, _soft_breaks(text)):
        edges = [lo, *[b + 1 for b in breaks]]
        joined = "".join(text[a:b] for a, b in zip(edges, [*breaks, hi], strict=True))
        starts = [b - lo - n for n, b in enumerate(breaks)]  # where each break falls in ``joined``

        def to_text(j: int, lo: int = lo, starts: list[int] = starts) -> int:
            return lo + j + bisect.bisect_right(starts, j)  # every break at or before j removed a newline

        for start, end in _spans(joined):  # a split name hides a whole value: keep them all
            cut = starts[bisect.bisect_right(starts, start):bisect.bisect_left(starts, end)]
            pieces = itertools.pairwise([start, *cut, end])
            spans += [(to_text(a), to_text(b - 1) + 1) for a, b in pieces]
    return spans


def mask(text: str | None) -> str | None:
    """``text`` with every recognisable secret replaced by ``[masked]``."""
    if not text:
        return text
    spans = _spans(text)
    spans = _merged([*spans, *_across_breaks(text)]) if "\n" in text else spans
    if not spans:
        return text
    out, pos = [], 0
    for start, end in spans:
        out += [text[pos:start], MASK]
        pos = end
    out.append(text[pos:])
    return "".join(out)
