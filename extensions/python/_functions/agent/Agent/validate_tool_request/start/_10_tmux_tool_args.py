"""Let ``tmux_tool:<action>`` be called without arguments, as in ``tmux_tool:list``.

From v0.9.9 Agent Zero checks every tool request before it looks the tool up
(``Agent.validate_tool_request``) and refuses one whose ``tool_args`` is empty,
although an action given as the method part of the tool name needs nothing
more.  This runs at the start of that check (an implicit extension point of
the function) and, for this tool only, turns the method into the ``action``
argument, which is what the tool reads it as anyway.
"""

from typing import Any

from helpers.extension import Extension  # type: ignore[import-not-found]

TOOL = "tmux_tool"


class TmuxToolMethodAsAction(Extension):
    """Fill ``tool_args`` of an argument-less ``tmux_tool:<action>`` request."""

    def execute(self, data: dict[str, Any] | None = None, **kwargs: Any) -> None:
        call = data if isinstance(data, dict) else {}
        positional = call.get("args") or ()
        request = positional[1] if len(positional) > 1 else (call.get("kwargs") or {}).get("tool_request")
        if not isinstance(request, dict) or request.get("tool_args"):
            return
        name, _, method = str(request.get("tool_name") or "").partition(":")
        if name == TOOL and method:
            request["tool_args"] = {"action": method}
