"""The MCP server, driven by the official SDK's stdio client, against real tmux.

The server is started the way an MCP client starts it - a subprocess running
``python/tools/tmux_tool.py mcp`` from another folder - and every call is
held against the command line's ``--json`` output for the same call: the same
sequence of calls goes once through MCP into one private session and once
through the command line into another, and the results must be equal but for
the session name.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client, types

from python.helpers.tmux_tool import __version__
from python.helpers.tmux_tool.actions import ACTIONS
from python.helpers.tmux_tool.transport import options
from tests.conftest import SharedTerminal
from tests.gates import Gate

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "python" / "tools" / "tmux_tool.py"
JSON_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "list": "array"}
# Actions that return as soon as the shell reports done, which may be before its prompt is drawn.
SETTLING = ("send", "keys")
FIXED = ("ok", "action", "session", "status", "exit_code", "output", "screen", "error", "hint")


def server_env() -> dict[str, str]:
    """What a client passes: our variables explicitly (clients do not forward their own)."""
    keep = ("PATH", "HOME", "LANG", "TMUX_TOOL_PRIVATE_SOCKET", "TMUX_TOOL_SHARED_SOCKET",
            "TMUX_TOOL_SHARED_SESSION", "TMUX_TOOL_STATE_DIR")
    return {k: os.environ[k] for k in keep if k in os.environ}


def cli(action: str, args: dict[str, Any], cwd: Path) -> dict[str, Any]:
    """The command line's ``--json`` result for one call."""
    argv = [sys.executable, str(TOOL), action, "--json"]
    for name, value in args.items():
        flag = "--" + name.replace("_", "-")
        argv += [flag, *value] if isinstance(value, list) else [flag, str(value).lower()
                                                               if isinstance(value, bool) else str(value)]
    proc = subprocess.run(argv, cwd=cwd, env=server_env(), capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout)


def mcp_session(cwd: Path) -> Any:
    """The SDK's stdio client, starting the server as an MCP client would."""
    params = StdioServerParameters(command=sys.executable, args=[str(TOOL), "mcp"], env=server_env(), cwd=cwd)
    return stdio_client(params)


def normalise(result: dict[str, Any], session: str) -> dict[str, Any]:
    """A result with the session's name replaced, for comparing two sessions."""
    text = json.dumps(result).replace(session, "SESSION")
    return json.loads(text)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """The folder the server and the command line start in (new sessions start there)."""
    path = tmp_path / "work"
    path.mkdir()
    return path


def test_tools_have_schemas_generated_from_the_argument_table(private_socket: str, workdir: Path) -> None:
    async def main() -> list[Any]:
        async with mcp_session(workdir) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "tmux_tool"
            assert init.server_info.version == __version__ != ""
            assert "shared" in (init.instructions or "")
            return (await session.list_tools()).tools

    tools = {t.name: t for t in anyio.run(main)}
    assert set(tools) == set(ACTIONS)
    for name, spec in ACTIONS.items():
        schema = tools[name].input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema["properties"]) == {a.name for a in spec.args}
        assert set(schema.get("required", [])) == {a.name for a in spec.args if a.required}
        for arg in spec.args:
            prop = schema["properties"][arg.name]
            assert prop["type"] == JSON_TYPES[arg.kind] and prop["description"] == arg.help
            assert prop.get("default") == arg.default
            assert prop.get("enum", []) == list(arg.choices)
            if arg.kind == "list":
                assert prop["items"] == {"type": "string"}
        out = tools[name].output_schema
        assert out is not None and set(out["required"]) == set(FIXED)
    assert tools["read"].annotations.read_only_hint and not tools["kill"].annotations.read_only_hint


def test_calls_match_the_command_line(private_socket: str, workdir: Path) -> None:
    """run, send, read, wait (and a mistake) through MCP and through the command line agree."""
    steps: list[tuple[str, dict[str, Any]]] = [
        ("run", {"command": "printf 'one\\ntwo\\n'; (exit 3)", "session": "S"}),
        ("send", {"text": "echo sent-by-$((2+3))", "session": "S"}),
        ("read", {"session": "S"}),
        ("wait", {"session": "S", "timeout": 10}),
        ("read", {"session": "S", "lines": 50}),
        ("keys", {"keys": ["C-l"], "session": "S"}),
        ("status", {"session": "S"}),
        ("run", {"session": "S"}),  # no command: the same sentence from both
    ]

    async def through_mcp() -> list[tuple[dict[str, Any], dict[str, Any], bool]]:
        out = []
        async with mcp_session(workdir) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for action, args in steps:
                args = {k: ("mcp-s" if v == "S" else v) for k, v in args.items()}
                res = await session.call_tool(action, args)
                text = json.loads(res.content[0].text)
                out.append((text, res.structured_content, bool(res.is_error)))
        return out

    via_mcp = anyio.run(through_mcp)
    via_cli = [cli(action, {k: ("cli-s" if v == "S" else v) for k, v in args.items()}, workdir)
               for action, args in steps]
    for (action, _), (text, structured, is_error), expected in zip(steps, via_mcp, via_cli, strict=True):
        assert text == structured, f"{action}: text and structured content differ"
        assert list(text)[: len(FIXED)] == list(FIXED)
        assert is_error == (not text["ok"])
        mine, theirs = normalise(text, "mcp-s"), normalise(expected, "cli-s")
        if action in SETTLING:
            # The screen right after typing races the prompt being drawn; all else must agree.
            a, b = (mine.pop("screen") or "").rstrip(), (theirs.pop("screen") or "").rstrip()
            assert a.startswith(b) or b.startswith(a), action
        assert mine == theirs, action
    run, send, read = (r[0] for r in via_mcp[:3])
    assert run["exit_code"] == 3 and run["output"] == "one\ntwo"
    assert send["ok"] and "sent-by-5" in (send["screen"] or "")
    assert "sent-by-5" in read["screen"]
    assert via_mcp[-1][0]["error"] == "argument 'command' of run is required: the shell command to run"


def test_a_long_call_does_not_block_other_calls(private_socket: str, workdir: Path, tmp_path: Path) -> None:
    """A wait that lasts until list has answered runs in a worker thread: list answers meanwhile.
    The command ends only once list answered, so a server that took one call at a time would leave
    list behind the wait until the wait's timeout."""
    gate = Gate(tmp_path / "slow.go")

    async def main() -> tuple[bool, dict[str, Any]]:
        async with mcp_session(workdir) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            busy = await session.call_tool("run", {"command": f"{gate.shell}; echo slept", "session": "slow",
                                                   "timeout": 0.2})
            assert busy.structured_content["status"] == "busy"
            waited: dict[str, Any] = {}
            listed: list[bool] = []

            async def wait() -> None:
                res = await session.call_tool("wait", {"session": "slow", "timeout": 20})
                waited["result"] = res.structured_content

            async def listing() -> None:
                await anyio.sleep(0.2)
                res = await session.call_tool("list", {})
                assert res.structured_content["ok"]
                listed.append("result" not in waited)
                gate.open()

            async with anyio.create_task_group() as tg:
                tg.start_soon(wait)
                tg.start_soon(listing)
            return listed == [True], waited["result"]

    listed_first, result = anyio.run(main)
    assert listed_first, "list had to wait for the running wait"
    assert result["ok"] and result["exit_code"] == 0 and result["output"] == "slept", result


def test_a_value_of_the_wrong_type_is_answered_like_any_mistake(private_socket: str, workdir: Path) -> None:
    """Models send lists, numbers, nulls and objects where text belongs: the answer is the library's
    ``ok: false`` with its sentence (what the Python API says for the same call), never the SDK's
    validation dump."""
    from python.tools.tmux_tool import call

    calls: list[tuple[str, dict[str, Any]]] = [
        ("run", {"command": ["echo", "x"]}),
        ("status", {"session": {"name": "x"}}),
        ("send", {"text": None, "session": "nowhere"}),
        ("wait", {"session": 7, "timeout": 1}),
    ]

    async def main() -> list[tuple[dict[str, Any], bool]]:
        out = []
        async with mcp_session(workdir) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for action, args in calls:
                res = await session.call_tool(action, args)
                out.append((json.loads(res.content[0].text), bool(res.is_error)))
        return out

    for (action, args), (res, is_error) in zip(calls, anyio.run(main), strict=True):
        expected = call(action, **{k: v for k, v in args.items() if v is not None})
        assert res["ok"] is False and is_error, (action, res)
        assert res["error"] == expected["error"], (action, res["error"], expected["error"])


ASKS = "read -rs -p 'Password: ' pw; echo; echo \"got ${#pw} characters\""
PAGE = "http://127.0.0.1:7681/"


def _completions(messages: list[Any]) -> list[str]:
    """The elicitations the server said are complete, in order."""
    return [m.params.elicitation_id for m in messages if isinstance(m, types.ElicitCompleteNotification)]


def _serve_the_page(shared: SharedTerminal) -> None:
    """What the page's server does when it starts: its address in the shared server."""
    shared.tmux("set-option", "-g", options.PAGE, PAGE)


def test_a_client_that_opens_addresses_sends_its_user_to_the_page_and_the_call_waits(
        private_socket: str, shared_terminal: SharedTerminal, workdir: Path) -> None:
    """URL-mode elicitation: the client is asked to open the page's view of the terminal that asks for a
    password; the human types it there (never through the client); the same call returns the command's end."""
    _serve_the_page(shared_terminal)
    secret = "correct horse battery"
    asked: list[types.ElicitRequestParams] = []
    seen: list[Any] = []

    async def human_opens_the_page(_context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        for keys in (["-l", "--", secret], ["Enter"]):  # the human's keys, in the page's view
            await anyio.to_thread.run_sync(lambda keys=keys: subprocess.run(
                ["tmux", "-L", private_socket, "send-keys", "-t", "=vault:", *keys], check=True, timeout=10))
        return types.ElicitResult(action="accept")

    async def messages(message: Any) -> None:
        seen.append(message)

    async def main() -> dict[str, Any]:
        async with mcp_session(workdir) as (read, write), ClientSession(
                read, write, elicitation_callback=human_opens_the_page, message_handler=messages) as session:
            await session.initialize()
            res = await session.call_tool("run", {"command": ASKS, "session": "vault", "timeout": 60})
            with anyio.move_on_after(5):  # the completion notice, sent before the reply, may be handled after
                while not _completions(seen):
                    await anyio.sleep(0.02)
            return res.structured_content or {}

    result = anyio.run(main)
    assert result["ok"] and result["status"] == "ready" and result["elicitation"] == "accept", result
    assert result["output"] == f"Password: \ngot {len(secret)} characters" and result["exit_code"] == 0, result
    assert len(asked) == 1 and isinstance(asked[0], types.ElicitRequestURLParams), asked
    assert asked[0].url == f"{PAGE}#session=vault" and "vault" in asked[0].message, asked
    assert _completions(seen) == [asked[0].elicitation_id], seen
    assert secret not in json.dumps(result) + asked[0].model_dump_json()


def test_a_client_that_cannot_open_addresses_gets_the_result_as_it_is(
        private_socket: str, shared_terminal: SharedTerminal, workdir: Path) -> None:
    """Without elicitation, the call answers at once that the human is needed, and where."""
    _serve_the_page(shared_terminal)

    async def main() -> dict[str, Any]:
        async with mcp_session(workdir) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            res = await session.call_tool("run", {"command": ASKS, "session": "vault", "timeout": 60})
            return res.structured_content or {}

    result = anyio.run(main)
    assert result["status"] == "blocked" and result["needs_human"] and "elicitation" not in result, result
    assert result["where"] == f"{PAGE}#session=vault", result


def test_a_user_who_declines_leaves_the_result_as_it_was(
        private_socket: str, shared_terminal: SharedTerminal, workdir: Path) -> None:
    """Declined: nothing is waited for, and the result says the user declined."""
    _serve_the_page(shared_terminal)

    async def declines(_context: Any, _params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async def main() -> dict[str, Any]:
        async with mcp_session(workdir) as (read, write), ClientSession(
                read, write, elicitation_callback=declines) as session:
            await session.initialize()
            res = await session.call_tool("run", {"command": ASKS, "session": "vault", "timeout": 60})
            return res.structured_content or {}

    result = anyio.run(main)
    assert result["status"] == "blocked" and result["needs_human"] and result["elicitation"] == "decline", result
