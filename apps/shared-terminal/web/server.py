"""Serve the shared tmux session to a browser: the bundled web terminal.

start.sh runs this when ttyd is not installed (ttyd is not packaged in
Debian) or when a token is needed. tornado serves the page and xterm.js;
terminado gives every browser tab its own pty running a tmux client of the
shared session, so tmux stays the one terminal emulator and the session
outlives the web server.

The token, when there is one, comes from the TMUX_TOOL_WEB_TOKEN environment
variable rather than the command line, which any local user can read in ps.
On SIGTERM or SIGINT the server stops listening, ends the tmux clients it
started (never the tmux server), and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import socket
import sys
from pathlib import Path

WEB_DIR = Path(__file__).resolve().parent
# The pause, approval and activity protocol is defined once, in the library.
sys.path.insert(0, str(WEB_DIR.parents[2]))

from agent_sessions import (
    AgentSessions,
    AgentTermSocket,
    AnswerHandler,
    HoldHandler,
    SessionsHandler,
    view_terminal,
)
from control_api import (
    ApprovalHandler,
    ControlState,
    ScreenHandler,
    StateHandler,
    SwitchHandler,
)
from shared_host import shared_tmux
from tmux_terminals import TmuxTermManager, tmux_client_argv
from tornado.web import Application, RequestHandler
from web_access import AccessPolicy, is_loopback_host
from web_handlers import (
    GuardedStatic,
    HealthHandler,
    PageHandler,
    SharedSession,
    TerminalSocket,
)

from python.helpers.tmux_tool.frontends.page import (
    PAGE,
    Tmux,
    TmuxError,
    ToolError,
    agent_socket,
    private_folder,
)

NODE_MODULES = WEB_DIR / "node_modules" / "@xterm"
LOG = logging.getLogger("shared-terminal")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", required=True, help="tmux socket name (tmux -L)")
    parser.add_argument("--host", help="the host the session lives on (as the tool names hosts)")
    parser.add_argument("--session", required=True, help="tmux session to show")
    parser.add_argument("--port", required=True, type=int)
    parser.add_argument("--bind", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--tmux-conf", required=True, help="config for a new tmux server")
    parser.add_argument("--pid-file", help="removed at exit if it still names this process")
    parser.add_argument("--max-terminals", type=int, default=16, help="open tabs at most")
    return parser.parse_args(argv)


def log_request(handler: RequestHandler) -> None:
    """Access log without the query string, which may hold the token."""
    request = handler.request
    LOG.info(
        "%d %s %s (%s) %.1fms",
        handler.get_status(),
        request.method,
        request.path,
        request.remote_ip,
        1000.0 * request.request_time(),
    )


def build_app(args: argparse.Namespace, token: str | None, manager: TmuxTermManager,
              sessions: AgentSessions, shared: SharedSession) -> Application:
    vendor = {"xterm": NODE_MODULES / "xterm", "addon-fit": NODE_MODULES / "addon-fit"}
    return Application(
        [
            (r"/", PageHandler),
            (r"/healthz", HealthHandler),
            (r"/api/state", StateHandler),
            (r"/api/screen", ScreenHandler),
            (r"/api/control", SwitchHandler),
            (r"/api/approval", ApprovalHandler),
            (r"/ws", TerminalSocket, {"term_manager": manager}),
            (r"/api/sessions", SessionsHandler),
            (r"/api/hold", HoldHandler),
            (r"/api/answer", AnswerHandler),
            (r"/agent-ws", AgentTermSocket, {"term_manager": manager}),
            (r"/static/(.*)", GuardedStatic, {"path": str(WEB_DIR / "static")}),
            *[(rf"/vendor/{name}/(.*)", GuardedStatic, {"path": str(path)}) for name, path in vendor.items()],
        ],
        template_path=str(WEB_DIR),
        access=AccessPolicy(token=token, cookie_name=f"tmux_tool_token_{args.port}"),
        shared=shared,
        control=ControlState(shared),
        agent_sessions=sessions,
        term_manager=manager,
        log_function=log_request,
        websocket_ping_interval=30,
    )


def page_address(bind: str, port: int) -> str:
    """The page's address as a person on this machine opens it (any address: this host's name)."""
    host = socket.gethostname() if bind in ("0.0.0.0", "::", "") else bind
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def set_page(tmux: Tmux, address: str | None, *, only_if: str = "") -> None:
    """Tell the tool where the page is (it names it to the agent when the human has to type a secret);
    at the end, forget it unless another page has taken over since."""
    try:
        if address is not None:
            tmux.cmd("set-option", "-g", PAGE, address)
        elif tmux.cmd("show-options", "-gqv", PAGE).strip() == only_if:
            tmux.cmd("set-option", "-gu", PAGE)
    except TmuxError:
        LOG.warning("the tmux server %s does not answer: the tool cannot name this page", tmux.key)


def remove_pid_file(path: str | None) -> None:
    """Remove the pid file only while it still names us (a restart may own it)."""
    if path is None:
        return
    try:
        fields = Path(path).read_text(encoding="ascii").split()
        if fields and fields[0] == str(os.getpid()):
            os.unlink(path)
    except OSError:
        pass


async def serve(args: argparse.Namespace, token: str | None, shared: SharedSession) -> None:
    manager = TmuxTermManager(
        shell_command=tmux_client_argv(shared.tmux, shared.session),
        max_terminals=args.max_terminals,
    )
    sessions = AgentSessions(agent_socket(), shared=shared,
                             view_env=view_terminal(private_folder("page-terminfo")))
    app = build_app(args, token, manager, sessions, shared)
    server = app.listen(args.port, address=args.bind)
    sessions.start()
    address = page_address(args.bind, args.port)
    set_page(shared.tmux, address)
    LOG.info(
        "serving %s session %s on %s:%d (pid %d, token %s)",
        shared.where,
        args.session,
        args.bind,
        args.port,
        os.getpid(),
        "required" if token else "not used",
    )
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(signum, stopping.set)
    await stopping.wait()
    LOG.info("stopping: closing %d browser terminal(s)", len(manager.ptys_by_fd))
    sessions.stop.set()
    set_page(shared.tmux, None, only_if=address)
    server.stop()
    await manager.shutdown()
    await server.close_all_connections()


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    args = parse_args(argv)
    # Taken out of the environment so no tmux client (nor a tmux server one of
    # them may start) passes it on to the shells of the session.
    token = os.environ.pop("TMUX_TOOL_WEB_TOKEN", "") or None
    if token is None and not is_loopback_host(args.bind):
        LOG.error("binding %s needs a token: set TMUX_TOOL_WEB_TOKEN", args.bind)
        return 2
    if not (NODE_MODULES / "xterm" / "lib" / "xterm.js").is_file():
        LOG.error("xterm.js is missing under %s: run apps/shared-terminal/setup.sh", NODE_MODULES)
        return 2
    try:
        shared = SharedSession(shared_tmux(args.socket, Path(args.tmux_conf), args.host), args.session)
    except ToolError as error:
        LOG.error("cannot reach the shared session's host %s: %s", args.host, error)
        return 1
    try:
        asyncio.run(serve(args, token, shared))
    except OSError as error:
        LOG.error("cannot listen on %s:%d: %s", args.bind, args.port, error)
        return 1
    finally:
        remove_pid_file(args.pid_file)
    LOG.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
