"""Action arguments: declared once, checked and coerced in one place.

The same declarations drive the command line (``--ARG VALUE``), the MCP
tool schemas and the documentation checks, so the three front ends and the
docs cannot disagree about what an action takes.  Values may arrive as text
(command line, an LLM's JSON) and are coerced to their declared type with a
sentence-long error when that is impossible.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import BadArgs

MAX_TIMEOUT = 3600.0
MAX_TEXT = 1 << 20  # 1 MiB of text to type or run
MAX_PATTERN = 4096
"""The longest regular expression ``wait`` takes.  What it looks for is a line or
two of a screen, so a longer one is a mistake, and an expensive one: compiling
a 1 MiB pattern alone takes a second, and the wait searches the screen with it
at every look, whatever its timeout."""



def brief(value: Any, limit: int = 60) -> str:
    """``repr`` of a value for an error, cut short: errors quote, never copy, input."""
    shown = repr(value)
    return (
        shown if len(shown) <= limit else f"{shown[: limit - 1]}… ({len(str(value))} characters)"
    )


def _check_chars(where: str, text: str) -> str:
    """Refuse what no process or tmux can be given: NUL and half surrogate pairs.

    A NUL ends a C string, so it would silently cut a file name or a command
    short (or make the process call fail); a lone surrogate (``\\ud800``, from
    broken JSON) is not text and cannot be encoded.  The surrogates Python uses
    for undecodable bytes of a command line (U+DC80-U+DCFF) stay: they travel
    as those bytes.
    """
    if (nul := text.find("\0")) >= 0:
        raise BadArgs(f"{where} contains a NUL character (U+0000) at position {nul}; remove it")
    try:
        text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        raise BadArgs(f"{where} contains U+{code:04X} at position {exc.start}, half of a surrogate "
                      "pair, which is not valid text; send the whole character") from None
    return text


@dataclass(frozen=True, slots=True)
class Arg:
    """One named argument of an action."""

    name: str
    kind: str  # "str" | "int" | "float" | "bool" | "list"
    help: str
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()
    limit: int = MAX_TEXT  # the most characters a "str" value may have
    shorter: str = ""  # what to do instead of giving a longer one

    def coerce(self, action: str, value: Any) -> Any:
        """Return ``value`` as this argument's type, or raise :class:`BadArgs`."""
        where = f"argument {self.name!r} of {action}"
        if value is None:
            if self.required:
                raise BadArgs(f"{where} is required: {self.help}")
            return self.default
        if self.kind == "str":
            if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                raise BadArgs(f"{where} must be text, not {type(value).__name__}")
            text = str(value)
            if len(text) > self.limit:
                raise BadArgs(f"{where} is {len(text)} characters long; the limit is {self.limit}"
                              + (f": {self.shorter}" if self.shorter else ""))
            if self.choices and text not in self.choices:
                raise BadArgs(
                    f"{where} must be one of {', '.join(self.choices)}, not {brief(text)}"
                )
            return _check_chars(where, text)
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("true", "yes", "1", "on"):
                return True
            if text in ("false", "no", "0", "off"):
                return False
            raise BadArgs(f"{where} must be true or false, not {brief(value)}")
        if self.kind in ("int", "float"):
            return self._number(where, value)
        if self.kind == "list":
            return self._list(where, value)
        raise BadArgs(f"{where} has an unknown kind {self.kind!r}")

    def _number(self, where: str, value: Any) -> float | int:
        if isinstance(value, bool):
            raise BadArgs(f"{where} must be a number, not {brief(value)}")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise BadArgs(f"{where} must be a number, not {brief(value)}") from None
        if not math.isfinite(number):
            raise BadArgs(f"{where} must be a finite number, not {brief(value)}")
        if number < 0:
            raise BadArgs(f"{where} must not be negative ({brief(value)})")
        if self.name == "timeout" and number > MAX_TIMEOUT:
            raise BadArgs(f"{where} is {number:g}s; the longest allowed is {MAX_TIMEOUT:g}s - "
                          "wait again instead")
        if self.kind == "int":
            if number != int(number) or number > 1_000_000:
                raise BadArgs(f"{where} must be a whole number up to 1000000, not {brief(value)}")
            return int(number)
        return number

    def _list(self, where: str, value: Any) -> list[str]:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                try:
                    value = json.loads(text)
                except ValueError:
                    raise BadArgs(f"{where} is not a valid JSON list: {brief(text)}") from None
            else:
                value = text.split()
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise BadArgs(f"{where} must be a list of names or names separated by spaces")
        if len(value) > 1000:
            raise BadArgs(f"{where} has {len(value)} items; the limit is 1000")
        if sum(len(v) for v in value) > MAX_TEXT:
            raise BadArgs(f"{where} holds more than {MAX_TEXT} characters in all")
        return [_check_chars(f"item {i + 1} of {where}", v) for i, v in enumerate(value)]


def bind(action: str, declared: tuple[Arg, ...], given: Mapping[str, Any]) -> dict[str, Any]:
    """Check ``given`` against ``declared``; return every declared name with a value."""
    known = {a.name for a in declared}
    unknown = [k for k in given if k not in known]
    if unknown:
        takes = ", ".join(a.name for a in declared) or "no arguments"
        named = ", ".join(brief(u) for u in unknown[:5]) + (
            f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        )
        raise BadArgs(f"{action} does not take {named}; it takes: {takes}")
    return {a.name: a.coerce(action, given.get(a.name)) for a in declared}
