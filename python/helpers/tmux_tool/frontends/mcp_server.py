"""The MCP front end: every action of the table as one MCP tool, over stdio.

Built on the official SDK's high-level server (``MCPServer``), so other agents
(Claude Code, Codex, Gemini CLI) get the same guarded terminal as Agent Zero.

* Each tool's input schema is generated from the action's ``Arg`` declarations
  - the table the command line and the documentation checks are built from -
  so the front ends cannot disagree: ``kind`` gives the JSON type, ``required``
  the required list, ``default`` and ``choices`` the default and enum.
* The arguments are checked by the library's own :func:`~.args.bind`, not by
  the SDK, so a mistake comes back as the same ``ok: false`` result with one
  sentence that the command line prints; the SDK's model only sees free-form
  fields (text arguments stay text: a ``send`` of ``[1, 2]`` to a REPL must
  not arrive as a list).
* A call answers with the JSON result of the contract twice: as text (exactly
  the command line's ``--json`` output) and as structured content.
* Actions run in worker threads (:func:`~.api.acall`): a ``wait`` of a minute
  never stalls the server, so other calls are answered meanwhile.
* A result that needs the human (a password, a passphrase) is handed to the
  human by the client itself when it can open addresses (URL-mode
  elicitation): the client is asked to open the page's view of that
  terminal, and the call waits there for the answer, up to its own timeout.
  The secret goes from the human's keys to the terminal; it never travels in
  a form, nor through the client or the model.
"""

from __future__ import annotations

import inspect
import json
import time
import uuid
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import PlainValidator

from .. import __version__
from ..actions import ACTIONS, Action
from ..api import acall
from ..core.args import Arg
from ..core.messages import message
from ..core.status import Status

SERVER_NAME = "tmux_tool"
# A text argument for the SDK's model: declared ``str`` (so the SDK never parses a JSON-looking text
# into a list or number), accepted as given whatever its type (so the library's check answers a
# wrong type).
_TEXT = Annotated[str, PlainValidator(lambda value: value)]
JSON_TYPES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
}
RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean"},
        "action": {"type": "string"},
        "session": {"type": ["string", "null"]},
        "status": {"type": "string", "enum": [s.value for s in Status]},
        "exit_code": {"type": ["integer", "null"]},
        "output": {"type": "string"},
        "screen": {"type": ["string", "null"]},
        "error": {"type": ["string", "null"]},
        "hint": {"type": ["string", "null"]},
    },
    "required": [
        "ok",
        "action",
        "session",
        "status",
        "exit_code",
        "output",
        "screen",
        "error",
        "hint",
    ],
}


def arg_schema(arg: Arg) -> dict[str, Any]:
    """The JSON schema of one declared argument."""
    prop: dict[str, Any] = {"type": JSON_TYPES[arg.kind], "description": arg.help}
    if arg.kind == "list":
        prop["items"] = {"type": "string"}
    if arg.choices:
        prop["enum"] = list(arg.choices)
    if arg.default is not None:
        prop["default"] = arg.default
    return prop


def input_schema(action: Action) -> dict[str, Any]:
    """The input schema of one action's tool."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {arg.name: arg_schema(arg) for arg in action.args},
        "additionalProperties": False,
    }
    required = [arg.name for arg in action.args if arg.required]
    if required:
        schema["required"] = required
    return schema


def _call_for(action: Action) -> Any:
    """An async function taking the action's arguments by name.

    Its signature exists for the SDK's argument model only: text arguments are
    annotated ``str`` so the SDK leaves their values alone (and passes a value
    of another type on to the library's check), all others ``Any``; every
    parameter defaults to None so the library decides what is missing.
    """

    async def call(ctx: Context, **given: Any) -> CallToolResult:
        args = {name: value for name, value in given.items() if value is not None}
        begun = time.monotonic()
        result = await acall(action.name, **args)
        if _hands_to_human(result) and _opens_addresses(ctx):
            result = await _through_the_human(ctx, result, args, begun + _timeout(action, args))
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(result, ensure_ascii=False))],
            structured_content=result,
            is_error=not result["ok"],
        )

    params = [
        inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Context)
    ] + [
        inspect.Parameter(
            arg.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=_TEXT if arg.kind == "str" else Any,
        )
        for arg in action.args
    ]
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        params, return_annotation=CallToolResult
    )
    call.__name__ = action.name
    return call


def _hands_to_human(result: dict[str, Any]) -> bool:
    """Does the result wait for the human at an address the client could open (the page's view)?"""
    where = str(result.get("where") or "")
    return bool(
        result.get("needs_human")
        and result.get("session")
        and where.startswith(("http://", "https://"))
    )


def _opens_addresses(ctx: Context) -> bool:
    """Did the client say it can send its user to an address (URL-mode elicitation)?"""
    caps = ctx.client_capabilities
    return bool(caps and caps.elicitation and caps.elicitation.url is not None)


def _timeout(action: Action, args: dict[str, Any]) -> float:
    """The call's own timeout (given, or the action's default; 0 when the action has none)."""
    declared = next((arg.default for arg in action.args if arg.name == "timeout"), None)
    try:
        return max(0.0, float(args.get("timeout", declared) or 0))
    except (TypeError, ValueError):
        return 0.0


async def _through_the_human(ctx: Context, result: dict[str, Any], args: dict[str, Any],
                             until: float) -> dict[str, Any]:
    """Ask the client to send its user to the page's view of the terminal, then wait there for the
    answer until the call's own deadline.  Declined or cancelled: the result as it was, saying
    so."""
    question = str(result.get("question") or "a secret").strip().splitlines()
    asked = (f"{result['session']}: {question[0] if question else 'a secret'} - only you can "
             "answer it, in the page")
    elicitation = uuid.uuid4().hex
    reply = await ctx.elicit_url(
        message=asked, url=str(result["where"]), elicitation_id=elicitation
    )
    if reply.action != "accept":
        return {**result, "elicitation": reply.action}
    wait = {key: args[key] for key in ("session", "host") if key in args} | {
        "session": result["session"]
    }
    waited = await acall("wait", **wait, timeout=max(0.0, until - time.monotonic()))
    if not waited.get("needs_human"):
        await ctx.session.send_elicit_complete(elicitation, related_request_id=ctx.request_id)
    return {**waited, "action": result["action"], "elicitation": "accept"}


def tool_for(action: Action) -> Tool:
    """The MCP tool of one action: generated schema, the library's checks."""
    tool = Tool.from_function(
        _call_for(action),
        name=action.name,
        description=f"tmux_tool {action.name}: {action.summary}",
        context_kwarg="ctx",
        annotations=ToolAnnotations(
            title=f"tmux {action.name}",
            read_only_hint=action.read_only,
            destructive_hint=action.destructive,
            open_world_hint=False,
        ),
        structured_output=False,
    )
    tool.fn_metadata.output_schema = RESULT_SCHEMA
    return tool.model_copy(update={"parameters": input_schema(action)})


def build() -> MCPServer:
    """The server with one tool per action registered right now."""
    return MCPServer(
        SERVER_NAME,
        title="tmux terminals",
        instructions=message("mcp_instructions"),
        version=__version__,
        tools=[tool_for(action) for action in ACTIONS.values()],
        log_level="WARNING",
    )


def serve() -> None:
    """Run the server on stdin/stdout until the client closes it."""
    build().run("stdio")
