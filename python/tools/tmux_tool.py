"""tmux_tool - the thin front ends: Agent Zero tool, command line, ``call``.

* Agent Zero: ``{"tool_name": "tmux_tool", "tool_args": {"action": "run",
  "command": "ls"}}`` (or ``"tool_name": "tmux_tool:run"``).  Works on both
  Agent Zero layouts (``helpers.tool`` from v0.9.9, ``python.helpers.tool`` up
  to v0.9.8) and standalone with neither.
* Command line, from the repository root:
  ``python -m python.tools.tmux_tool ACTION [--ARG VALUE ...] [--json]``.
* Python: ``from python.tools.tmux_tool import call, classify``.

Everything real lives in the library package ``helpers/tmux_tool`` beside
this file's folder; this file only adapts calling conventions.  It imports no
more than it needs to load (the library's modules come on first use), so a
command-line call pays only for its own action.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

TYPE_CHECKING = False  # typing's, without importing typing: a command-line call starts faster
if TYPE_CHECKING:
    import asyncio
    from typing import Any

# Third-party packages the library imports as it works (not when it loads): checked by name at load.
_NEEDS = ("pyte", "wcwidth", "regex")


def _library() -> Any:
    """Import the library whichever way this file was loaded.

    As ``python.tools.tmux_tool`` (the repository) or
    ``usr.plugins.tmux_tool.python.tools.tmux_tool`` (the Agent Zero plugin,
    through its ``tools/`` entry) the sibling package is imported by its dotted
    name; when Agent Zero v0.9.8 loads this file by path from ``usr/tools``
    (no package) the library is loaded by path under a private name.
    """
    if __package__ and __package__.endswith("tools"):
        dotted = __package__[: -len("tools")] + "helpers.tmux_tool"
        try:
            return importlib.import_module(dotted)
        except ModuleNotFoundError as exc:
            if not exc.name or not dotted.startswith(exc.name):
                raise  # the library is there but something it needs is missing: say so
    name = "tmux_tool_library"
    if name in sys.modules:
        return sys.modules[name]
    from pathlib import Path

    pkg = Path(__file__).resolve().parent.parent / "helpers" / "tmux_tool"
    spec = importlib.util.spec_from_file_location(name, pkg / "__init__.py",
                                                  submodule_search_locations=[str(pkg)])
    if spec is None or spec.loader is None:
        raise ImportError(f"the tmux_tool library was not found at {pkg}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:  # half-imported: the next load must try again, not find this
        for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[loaded]
        raise
    return module


# A package the library needs may be missing from the Python that loads this
# file (Agent Zero's own, after a container update, say).  The file must still
# load: otherwise Agent Zero only tells the agent "tool not found" while the
# prompt advertises it.  The tool then answers every call with what is missing,
# and tries again on the next call, so installing the package is enough.
_lib: Any = None
_MISSING: ImportError | None = None


def _load() -> Any:
    """The library, imported now if it could not be before; None while it cannot."""
    global _lib, _MISSING
    if _lib is None:
        try:
            missing = [n for n in _NEEDS if importlib.util.find_spec(n) is None]
            if missing:
                raise ModuleNotFoundError(f"No module named {missing[0]!r}", name=missing[0])
            _lib, _MISSING = _library(), None
        except ImportError as exc:
            _MISSING = exc
    return _lib


_load()


def _missing_message() -> str:
    """What the tool answers when its library cannot be imported here."""
    return ("FAILED · status: error\nerror: tmux_tool cannot run in this Python "
            f"({sys.executable}): {_MISSING}. Install what it needs into exactly this Python: "
            f"`{sys.executable} -m pip install pyte wcwidth regex`, then call the tool again (no "
            "restart needed).\nhint: tell the human; the tool works again once the package is "
            "installed")


def __getattr__(name: str) -> Any:
    """``call``, ``acall``, ``text``, ``atext`` and ``classify``: the library's, or an ImportError
    that says what is missing."""
    if name not in ("call", "acall", "text", "atext", "classify"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    lib = _load()
    if lib is None:
        raise ImportError(_missing_message().splitlines()[1].removeprefix("error: ")) from _MISSING
    return getattr(lib, name)


if __name__ == "__main__":  # the command line; everything below is for Agent Zero
    if _load() is None:
        print(_missing_message(), file=sys.stderr)
        sys.exit(1)
    # Run as a module (``-m``), the resident process answers when it can (a call then costs little
    # more than Python's start); a library loaded by path has no module name to start a resident
    # under.
    relay = importlib.import_module(_lib.__name__ + ".frontends.relay") if __package__ else None
    relayed = relay.call(sys.argv[1:]) if relay else None
    sys.exit(
        relayed
        if relayed is not None
        else importlib.import_module(_lib.__name__ + ".frontends.cli").main()
    )

try:  # Agent Zero v0.9.9 and later
    from helpers.tool import Response, Tool  # type: ignore[import-not-found]
except ImportError:
    try:  # Agent Zero up to v0.9.8
        from python.helpers.tool import Response, Tool  # type: ignore[import-not-found]
    except ImportError:  # standalone: the same shapes, so the class below works alike

        class Response:  # type: ignore[no-redef]
            """What an Agent Zero tool returns."""

            def __init__(
                self, message: str, break_loop: bool, additional: dict[str, Any] | None = None
            ) -> None:
                self.message, self.break_loop, self.additional = message, break_loop, additional

        class Tool:  # type: ignore[no-redef]
            """The constructor signature of Agent Zero's ``Tool``."""

            def __init__(self, agent: Any, name: str, method: str | None, args: dict[str, Any],
                         message: str, loop_data: Any = None, **kwargs: Any) -> None:
                self.agent, self.name, self.method = agent, name, method
                self.args, self.message, self.loop_data = args, message, loop_data


PROGRESS_EVERY = 1.0
"""Seconds between two looks at a long action's sessions for Agent Zero's live display."""


class TmuxTool(Tool):
    """The ``tmux_tool`` of Agent Zero: one action per call, never raises.

    The action runs in a worker thread; meanwhile, inside Agent Zero, the
    screens of the sessions it works in are shown live (``run``, ``wait``,
    ``ask`` and ``start`` can take minutes), and the hint files are read
    through the agent's own prompt reader so Agent Zero's overrides apply.
    """

    async def execute(self, **kwargs: Any) -> Response:
        import asyncio
        import contextlib

        args = dict(kwargs or getattr(self, "args", None) or {})
        action = str(args.pop("action", None) or getattr(self, "method", None) or "")
        if _load() is None:
            print(f"tmux_tool: {_MISSING}", file=sys.stderr)
            return Response(message=_missing_message(), break_loop=False)
        reader = getattr(getattr(self, "agent", None), "read_prompt", None)
        with _lib.api.reading_with(reader) if reader else contextlib.nullcontext():
            job = asyncio.ensure_future(_lib.atext(action, **args))
            if getattr(self, "log", None) is not None:  # Agent Zero made a log item for this call
                await self._show_progress(job, action, args)
            _ok, message = await job
        return Response(message=message, break_loop=False)

    async def _show_progress(
        self, job: asyncio.Future[Any], action: str, args: dict[str, Any]
    ) -> None:
        """Until ``job`` ends, show its sessions' screens and states in the log item and progress.

        As Agent Zero's own code execution tool streams output: the log item
        is what the web UI shows, ``set_progress`` what Agent Zero keeps as the
        tool's result if the human intervenes; pausing and intervening are
        honoured between looks (the action itself keeps running in tmux).
        """
        import asyncio
        import inspect

        heading = str(getattr(self.log, "heading", "") or "")
        started = asyncio.get_running_loop().time()
        while not (await asyncio.wait({job}, timeout=PROGRESS_EVERY))[0]:
            seen = await asyncio.to_thread(_lib.api.peek, action, args)
            if job.done() or not seen:
                continue
            text = "\n".join(f"[{name}] {status}\n{screen}" for name, status, screen in seen)
            state = ", ".join(f"{name} {status}" for name, status, _ in seen)
            elapsed = asyncio.get_running_loop().time() - started
            self.log.update(heading=f"{heading} · {state} · {elapsed:.0f}s", content=text)
            shown = self.set_progress(text)  # a coroutine from Agent Zero v0.9.9 (it masks secrets)
            if inspect.isawaitable(shown):
                await shown
            intervene = getattr(self.agent, "handle_intervention", None)
            if intervene is not None:
                await intervene()
