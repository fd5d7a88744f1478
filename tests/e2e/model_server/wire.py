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


def rough_tokens(value: Any) -> int:
    """A stable, plausible token count for usage fields (about four characters a token)."""
    return max(1, len(str(value)) // 4)
