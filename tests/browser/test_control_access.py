"""Only the page itself may pause the agent or answer for the human.

The control routes change what the agent may do in a person's terminal, so
a request from another origin (a page the person happens to visit), or one
without the token when the server is reachable from the network, must change
nothing. Each test checks that the refused requests really reached the server
(its access log), so a refusal cannot be mistaken for a request never sent.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from browser_terminal import BrowserTerminal, open_terminal_page
from playwright.sync_api import Browser
from shared_terminal_harness import SharedTerminalApp, wait_for

from python.helpers.tmux_tool.shared import control
from python.helpers.tmux_tool.transport.tmux import Tmux

pytestmark = pytest.mark.browser


def options(app: SharedTerminalApp) -> control.Control:
    return control.read(Tmux(app.socket), app.target)


def post(app: SharedTerminalApp, path: str, body: str, headers: dict[str, str]) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=5)
    try:
        conn.request("POST", path, body=body.encode(), headers=headers)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def logged(app: SharedTerminalApp, status: int, method_path: str) -> int:
    """How many requests the web server logged with this status, method and path."""
    log = (app.state_dir / "web.log").read_text()
    return sum(f" {status} {method_path} " in f" {line} " for line in log.splitlines())


EVIL_PAGE = """<!doctype html>
<html><body>
<iframe name="sink"></iframe>
<form id="form" method="POST" action="{target}/api/control" target="sink" enctype="text/plain">
  <input name='{{"paused": true, "x": "' value='"}}'>
</form>
<script>
window.attempts = (async () => {{
  const out = [];
  document.getElementById("form").submit();
  try {{
    await fetch("{target}/api/control", {{method: "POST", mode: "no-cors",
      headers: {{"Content-Type": "text/plain"}}, body: JSON.stringify({{paused: true}})}});
    out.push("no-cors sent");
  }} catch (e) {{ out.push("no-cors failed: " + e); }}
  try {{
    const r = await fetch("{target}/api/control", {{method: "POST",
      headers: {{"Content-Type": "application/json"}}, body: JSON.stringify({{approve: true}})}});
    out.push("cors answered " + r.status);
  }} catch (e) {{ out.push("cors blocked: " + e); }}
  try {{
    await fetch("{target}/api/control", {{method: "POST", mode: "no-cors",
      body: new Blob([JSON.stringify({{paused: true}})], {{type: "application/json"}})}});
    out.push("blob sent");
  }} catch (e) {{ out.push("blob failed: " + e); }}
  return out;
}})();
</script>
</body></html>
"""


@pytest.fixture
def evil_site(shared_terminal: SharedTerminalApp) -> Iterator[str]:
    """Another origin on this machine (another port) serving a page that tries to pause the agent."""
    page = EVIL_PAGE.format(target=f"http://127.0.0.1:{shared_terminal.port}").encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_a_page_of_another_origin_changes_nothing(browser: Browser, shared_terminal: SharedTerminalApp,
                                                  evil_site: str) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(evil_site)
        attempts = page.evaluate("() => window.attempts")
        assert "cors answered 200" not in attempts, attempts
        wait_for(lambda: logged(shared_terminal, 403, "POST /api/control") >= 3,
                 "the cross-site requests to reach the server and be refused")
        assert logged(shared_terminal, 200, "POST /api/control") == 0
    finally:
        context.close()
    state = options(shared_terminal)
    assert not state.paused and not state.approve


def test_cross_origin_and_non_json_posts_are_refused(shared_terminal: SharedTerminalApp) -> None:
    app = shared_terminal
    body = json.dumps({"paused": True})
    as_json = {"Content-Type": "application/json"}
    refused = [
        ({**as_json, "Origin": "http://evil.example"}, 403),
        ({**as_json, "Origin": f"http://127.0.0.1:{app.port + 1}"}, 403),
        ({**as_json, "Origin": "null"}, 403),
        ({**as_json, "Sec-Fetch-Site": "cross-site"}, 403),
        ({**as_json, "Sec-Fetch-Site": "same-site"}, 403),
        ({"Content-Type": "text/plain"}, 415),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
        ({**as_json, "Host": "evil.example"}, 403),
    ]
    hold = json.dumps({"session": "nobody", "held": True})
    for headers, status in refused:
        assert post(app, "/api/control", body, headers)[0] == status, headers
        assert not options(app).paused, headers
        assert post(app, "/api/hold", hold, headers)[0] == status, headers
    same_page = {**as_json, "Origin": f"http://127.0.0.1:{app.port}", "Sec-Fetch-Site": "same-origin"}
    assert post(app, "/api/control", body, same_page)[0] == 200
    assert options(app).paused


@pytest.fixture
def exposed(tmp_path: Path) -> Iterator[SharedTerminalApp]:
    """An install bound to every interface, so a token is generated and required."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    app = SharedTerminalApp(runtime_dir=runtime, overrides={"TMUX_TOOL_WEB_BIND": "0.0.0.0",
                                                           "TMUX_TOOL_WEB_TOKEN": ""})
    try:
        app.start()
        app.wait_for_prompt()
        yield app
    finally:
        app.cleanup()


def test_without_the_token_nothing_changes(exposed: SharedTerminalApp) -> None:
    app = exposed
    token = (app.state_dir / "web.token").read_text().strip()
    tmux = Tmux(app.socket)
    control.set_approve(tmux, app.target, True)
    # A request waiting for approval, as the tool leaves it while it waits.
    pending = {"id": "a" * 24, "text": "echo hi", "keys": [], "enter": True, "expires": 4e9}
    tmux.cmd("set-option", "-t", app.target, control.PENDING_OPTION, json.dumps(pending))
    answer = json.dumps({"id": pending["id"], "verdict": "approve", "digest": control.pending_digest(pending)})
    as_json = {"Content-Type": "application/json"}
    for headers in (as_json, {**as_json, "Authorization": "Bearer wrong"}, {**as_json, "Cookie": "x=y"}):
        assert post(app, "/api/control", json.dumps({"paused": True}), headers)[0] == 401
        assert post(app, "/api/control", json.dumps({"approve": False}), headers)[0] == 401
        assert post(app, "/api/approval", answer, headers)[0] == 401
        assert post(app, "/api/hold", json.dumps({"session": "any", "held": True}), headers)[0] == 401
    for path in ("/api/state", "/api/sessions", "/agent-ws?session=any"):
        conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=5)
        conn.request("GET", path)
        assert conn.getresponse().status == 401, path
        conn.close()
    state = options(app)
    assert not state.paused and state.approve and state.approval is None
    assert logged(app, 401, "POST /api/approval") == 3

    with_token = {**as_json, "Authorization": f"Bearer {token}"}
    assert post(app, "/api/approval", answer, with_token)[0] == 200
    assert options(app).approval is not None
    assert post(app, "/api/approval", answer, with_token)[0] == 409, "answered once, never twice"


def test_the_page_carries_its_token(browser: Browser, exposed: SharedTerminalApp) -> None:
    token = (exposed.state_dir / "web.token").read_text().strip()
    page: BrowserTerminal = open_terminal_page(browser, exposed, query=f"?token={token}")
    try:
        assert "token" not in page.page.url
        page.page.click("#pause")
        wait_for(lambda: options(exposed).paused, "the page's pause to pass the token check")
        page.page.click("#pause")
        wait_for(lambda: not options(exposed).paused, "the page's resume to pass the token check")
    finally:
        page.page.context.close()


def test_an_address_without_the_token_says_where_it_was_printed(browser: Browser, exposed: SharedTerminalApp) -> None:
    """The address the agent passes on (``#session=NAME``) has no token: a browser that never opened the
    page with it is told where the address with the token was printed, never the token."""
    token = (exposed.state_dir / "web.token").read_text().strip()
    context = browser.new_context()
    try:
        page = context.new_page()
        response = page.goto(exposed.url + "#session=admin")
        assert response is not None and response.status == 401
        said = page.inner_text("body")
        assert "apps/shared-terminal/start.sh" in said and "token" in said, said
        assert token not in page.content()
    finally:
        context.close()
    # As the answer says: start.sh, run again, prints the address with its token (the server keeps running).
    pid = exposed.web_pid()
    again = exposed.start()
    assert f":{exposed.port}/?token={token}" in again.stdout, again.stdout
    assert exposed.web_pid() == pid
