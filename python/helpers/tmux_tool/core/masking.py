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

Finding them costs a few passes of literal searches over the text: every
secret above contains one of a few literal words (``sk-``, ``AKIA``, ``key``,
``token``, ``://``, ...), and a pattern that starts with a literal is found
at memory speed (the regular expression engine skips to its first
character); the exact patterns then run only on the lines around those words.  A text without any
of them - nearly all command output - is never scanned by a regular
expression at all, and the cost stays linear whatever the text holds.

A screen breaks long lines at its right edge, so a secret can sit half on one
row and half on the next (``export PASSWO`` / ``RD=hunter2``).  Rows that fill
the whole width are therefore also read joined to the row below, and a
secret found across the break is hidden on both rows.  Output read from a log
(``wrapped=False``) has its own line breaks only and skips that step.
"""

from __future__ import annotations

import bisect
import itertools
import os
import re
from functools import lru_cache

MASK = "[masked]"

_SECRET_NAME = (
    r"(?:[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?)"
    r"|(?i:password|passwd|api[_-]?key|secret|token|access[_-]token|auth[_-]token"
    r"|client[_-]secret))"
)
_PEM = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----")
_TOKEN_SHAPES = (
    r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}",
    r"\bgh[pousr]_[A-Za-z0-9]{30,}",
    r"\bgithub_pat_[A-Za-z0-9_]{30,}",
    r"\bglpat-[A-Za-z0-9_-]{20,}",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\bAIza[0-9A-Za-z_-]{35}",
    r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
    r"Bearer (?P<bearer>[A-Za-z0-9._~+/=-]{16,})",
)
_SHAPES = re.compile("|".join(_TOKEN_SHAPES))
# The name may be quoted (a JSON or YAML key); only the value is hidden.
_ASSIGNMENT = re.compile(
    r"\b" + _SECRET_NAME + r"\b[\"']?\s*[=:]\s*[\"']?(?P<value>[^\s\"']{4,})"
)
_URL_PASSWORD = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@]+:(?P<value>[^\s/@]{3,})@")
# The literal words each kind of secret contains: where to look at all.  Each
# search starts with a literal, so the engine skips through the text at C speed.
_SHAPE_HINTS = tuple(re.compile(p) for p in ("sk-", "gh[pousr]_", "github_pat_", "glpat-", "xox",
                                             "A(?:KIA|SIA|Iza)", "eyJ", "Bearer "))
_NAME_WORDS = ("key", "token", "secret", "pass", "credential")  # searched in the lower-cased text
_NAME_HINTS = tuple(re.compile(w) for w in _NAME_WORDS)
_URL_HINT = re.compile("://")
_PEM_HINT = re.compile("-----BEGIN ")
LINE_REACH = 4096  # characters looked at on either side of a word, within its line
PEM_REACH = 16384  # a PEM block ends within this many characters of its start
MIN_WRAP = 40  # narrower "screens" are not screens: no row joining below this width
REACH = 1024  # characters read on each side of a row break

Span = tuple[int, int]


_ENV_NAME = re.compile(_SECRET_NAME + r"$")
_SHORTEST = 8  # no secret of any kind fits in fewer characters


@lru_cache(maxsize=1024)
def _secret_name(name: str | bytes) -> bool:
    return _ENV_NAME.match(os.fsdecode(name)) is not None


def _env_secrets() -> tuple[str, ...]:
    """Values of this process's secret-looking environment variables (8 characters or more), longest
    first.

    Read from the raw environment where there is one (POSIX keeps it as
    bytes), so only the secret values are ever decoded.
    """
    raw = getattr(os.environ, "_data", None)
    items = raw.items() if isinstance(raw, dict) else os.environ.items()
    values = {os.fsdecode(v) for k, v in items if _secret_name(k) and len(v) >= _SHORTEST}
    return tuple(sorted(values, key=len, reverse=True))


def _merged(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@lru_cache(maxsize=64)
def _literal(value: str) -> re.Pattern[str]:
    return re.compile(re.escape(value))


def _hits(text: str, hints: tuple[re.Pattern[str], ...]) -> list[int]:
    """Where any of the hints starts in ``text``, in order."""
    found = [m.start() for hint in hints for m in hint.finditer(text)]
    return sorted(found) if len(hints) > 1 else found


def _around(text: str, hits: list[int], reach: int) -> list[Span]:
    """The stretches of the lines around ``hits`` (at most ``reach`` on either side), merged."""
    spans: list[Span] = []
    for i in hits:
        lo = max(text.rfind("\n", 0, i) + 1, i - reach)
        hi = text.find("\n", i)
        hi = min(len(text) if hi < 0 else hi, i + reach)
        if spans and lo <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(hi, spans[-1][1]))
        else:
            spans.append((lo, hi))
    return spans


def _spans(text: str, env: tuple[str, ...]) -> list[Span]:
    """Where the secrets are in ``text`` (overlapping spans merged)."""
    found: list[Span] = []
    for value in env:
        found += [m.span() for m in _literal(value).finditer(text)]
    for lo, hi in _around(text, _hits(text, _SHAPE_HINTS), LINE_REACH):
        found += [
            m.span("bearer") if m.group("bearer") else m.span()
            for m in _SHAPES.finditer(text, lo, hi)
        ]
    lowered = text.lower()
    if len(lowered) != len(text):  # a few characters lower to two: look case-blind everywhere
        name_hits = [m.start() for m in re.finditer("|".join(_NAME_WORDS), text, re.IGNORECASE)]
    else:
        name_hits = _hits(lowered, _NAME_HINTS)
    for lo, hi in _around(text, name_hits, LINE_REACH):
        found += [m.span("value") for m in _ASSIGNMENT.finditer(text, lo, hi)]
    for lo, hi in _around(text, _hits(text, (_URL_HINT,)), LINE_REACH):
        found += [m.span("value") for m in _URL_PASSWORD.finditer(text, lo, hi)]
    for i in _hits(text, (_PEM_HINT,)):
        found += [m.span() for m in _PEM.finditer(text, i, min(len(text), i + PEM_REACH))]
    return _merged(found)


def _cells(line: str) -> int:
    if line.isascii():
        return len(line)
    import wcwidth

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


def _across_breaks(text: str, env: tuple[str, ...]) -> list[Span]:
    """Secrets read across soft row breaks, as spans of ``text`` (one per row they touch)."""
    spans: list[Span] = []
    for lo, hi, breaks in _regions(text, _soft_breaks(text)):
        edges = [lo, *[b + 1 for b in breaks]]
        joined = "".join(text[a:b] for a, b in zip(edges, [*breaks, hi], strict=True))
        starts = [b - lo - n for n, b in enumerate(breaks)]  # where each break falls in ``joined``

        def to_text(j: int, lo: int = lo, starts: list[int] = starts) -> int:
            # every break at or before j removed a newline
            return lo + j + bisect.bisect_right(starts, j)

        for start, end in _spans(joined, env):  # a split name hides a whole value: keep them all
            cut = starts[bisect.bisect_right(starts, start):bisect.bisect_left(starts, end)]
            pieces = itertools.pairwise([start, *cut, end])
            spans += [(to_text(a), to_text(b - 1) + 1) for a, b in pieces]
    return spans


class Masker:
    """:func:`mask` with the environment's secrets read once, for many texts in a row."""

    def __init__(self) -> None:
        self.env = _env_secrets()

    def __call__(self, text: str | None, *, wrapped: bool = True) -> str | None:
        """``text`` with every recognisable secret replaced by ``[masked]``.

        ``wrapped`` says the text is a screen (or rows rendered at a width),
        whose full-width rows may continue on the next row; command output
        read from a log is not.
        """
        if not text or len(text) < _SHORTEST:
            return text
        spans = _spans(text, self.env)
        if wrapped and "\n" in text:
            spans = _merged([*spans, *_across_breaks(text, self.env)])
        if not spans:
            return text
        out, pos = [], 0
        for start, end in spans:
            out += [text[pos:start], MASK]
            pos = end
        out.append(text[pos:])
        return "".join(out)


def mask(text: str | None, *, wrapped: bool = True) -> str | None:
    """``text`` with every recognisable secret replaced by ``[masked]`` (see :class:`Masker`)."""
    return Masker()(text, wrapped=wrapped)
