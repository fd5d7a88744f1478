"""The library's entry points: ``call`` (sync), ``acall`` (async) and text.

``call`` returns the same dict the command line prints with ``--json``; it is
the stable way for benchmarks, tests and other programs to use the tool.
``acall`` runs the action in a worker thread, so an asyncio host (Agent Zero)
is never blocked while a command runs or a screen is awaited.
"""

from __future__ import annotations

from typing import Any

from .actions import dispatch


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
