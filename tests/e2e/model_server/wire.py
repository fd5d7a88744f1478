"""Request and answer values shared by the protocol modules and the HTTP server."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .sink import EventSink

_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    """A fresh, unique-per-process identifier such as `msg_0007`."""
    return f"{prefix}_{next(_ids):04d}"


@dataclass(frozen=True)
class Request:
    """One HTTP request as the protocols see it (headers lower-cased, body parsed JSON)."""

    method: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None


@dataclass
class Answer:
    """What to send back: a JSON body, or a stream writer fed an `EventSink`.

    `kind` says how the request was read: `main` consumed a script step,
    `side` got a harmless canned answer, `meta` is a listing or a count.
    """

    kind: str
    status: int = 200
    body: Any = None
    stream: Callable[[EventSink], None] | None = None
    headers: dict[str, str] = field(default_factory=dict)


def last_user_text(body: Any) -> str | None:
    """The text of the last user message of a request, whatever the wire format.

    Anthropic and OpenAI chat keep the conversation in ``messages``, OpenAI
    Responses in ``input``, Gemini in ``contents``; each message holds its
    text as a string or as parts with a ``text`` field.  Tests use it to tell
    which prompt a CLI really sent to the model.
    """
    if not isinstance(body, dict):
        return None
    for key in ("messages", "input", "contents"):
        items = body.get(key)
        if isinstance(items, str):
            return items
        if isinstance(items, list):
            users = [m for m in items if isinstance(m, dict) and m.get("role") == "user"]
            if users:
                return "\n".join(_texts(users[-1]))
    return None


def _texts(value: Any) -> list[str]:
    """Every text of a message: its string content and each part's ``text``."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            return [value["text"]]
        return [text for key in ("content", "parts") for text in _texts(value.get(key))]
    return []


def rough_tokens(value: Any) -> int:
    """A stable, plausible token count for usage fields (about four characters a token)."""
    return max(1, len(str(value)) // 4)
