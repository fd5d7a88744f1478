"""The library's entry points: ``call`` (sync), ``acall`` (async), text and ``peek``.

``call`` returns the same dict the command line prints with ``--json``; it is
the stable way for benchmarks, tests and other programs to use the tool.
``acall`` runs the action in a worker thread, so an asyncio host (Agent Zero)
is never blocked while a command runs or a screen is awaited.  ``peek`` shows
what the sessions of an action still running look like, for a live display;
``reading_with`` lets a host (Agent Zero) decide which prompt files count.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .actions import ACTIONS, dispatch
from .core import config
from .core.args import bind
from .core.errors import BadArgs
from .core.messages import reading_with

__all__ = ["acall", "atext", "call", "peek", "reading_with", "text"]


def call(action: str, **args: Any) -> dict[str, Any]:
    """Run one action; return the JSON result of the contract as a dict."""
    return dispatch(action, args).to_dict()


async def acall(action: str, **args: Any) -> dict[str, Any]:
    """:func:`call` without blocking the event loop."""
    import asyncio  # only hosts with an event loop pay for it (it is already loaded there)

    return await asyncio.to_thread(call, action, **args)


def text(action: str, **args: Any) -> tuple[bool, str]:
    """Run one action; return ``(ok, text)`` - the text the agent reads."""
    result = dispatch(action, args)
    return result.ok, result.to_text()


async def atext(action: str, **args: Any) -> tuple[bool, str]:
    """:func:`text` without blocking the event loop."""
    import asyncio

    return await asyncio.to_thread(text, action, **args)


def peek(action: str, args: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(session, status, screen)`` of each session the running ``action`` works in.

    For a host that shows progress while ``run``, ``wait``, ``ask`` or
    ``start`` is under way: the same rendered, masked screen ``read`` gives.
    Empty when the action has no session to look at (``start`` of a generated
    name, an action that is not one of those) or the session cannot be read.
    """
    spec = ACTIONS.get(action)
    try:
        bound = bind(action, spec.args, args) if spec is not None else {}
    except BadArgs:
        return []
    cfg = config.load()
    if action == "run":
        names = [bound["session"] or cfg.scratch_session]
    elif action == "wait":
        names = bound["sessions"] or [bound["session"] or cfg.shared_session]
    elif action in ("ask", "start") and bound["session"]:
        names = [bound["session"]]
    else:
        return []
    seen: list[tuple[str, str, str]] = []
    for name in names:
        result = dispatch("read", {"session": name})
        if result.ok and result.screen is not None:
            seen.append((result.session or name, result.status, result.screen.rstrip()))
    return seen
