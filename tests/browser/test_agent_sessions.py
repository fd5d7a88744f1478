"""The agent's own terminals in the page: listed live, watched, taken over, and handed a secret by the human.

Everything is real: start.sh's web server, the agent's private tmux server
driven by the tool's public ``call``, bash, sudo with a real password
(tests/accounts.py), and Debian's Chromium typing through CDP (Playwright's
keyboard is ``Input.dispatchKeyEvent`` / ``Input.insertText``).  The page
server and the tool share the private socket and state directory, as they do
when the agent and the page run on one machine.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from browser_terminal import VIEWPORT, BrowserTerminal
from playwright.sync_api import Browser, Page
from shared_terminal_harness import SharedTerminalApp, unique_name, wait_for

from python.helpers.tmux_tool.judgement import human
from python.tools.tmux_tool import call
from tests.background import Background
from tests.gates import Gate

if TYPE_CHECKING:
    from tests.accounts import SecretUser

pytest_plugins = ["tests.accounts"]
pytestmark = pytest.mark.browser

# Every WebSocket message the page sends, with its socket's path: a read-only view must send no keys.
RECORD_SENDS = """
window.__sent = [];
const realSend = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  window.__sent.push([new URL(this.url).pathname, String(data)]);
  return realSend.call(this, data);
};
"""
# The open view's whole xterm.js buffer (scrollback and screen), as text.
VIEW_TEXT = """() => {
  const view = window.agentSessions.view;
  if (!view) { return ""; }
  const buffer = view.term.buffer.active;
  const lines = [];
  for (let i = 0; i < buffer.length; i++) { lines.push(buffer.getLine(i).translateToString(true)); }
  return lines.join("\\n");
}"""


@pytest.fixture
def agent_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SharedTerminalApp]:
    """The shared terminal's install, its page server sharing the agent's private socket and state with the
    tool's ``call`` in this test; the agent's server is ended afterwards."""
    with agent_install(tmp_path, monkeypatch) as app:
        yield app


@contextmanager
def agent_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, private: str = "",
                  **overrides: str) -> Iterator[SharedTerminalApp]:
    """:func:`agent_app` with more of the tool's settings (``overrides``) for the page server and ``call``;
    ``private``: the agent's socket (a fixture's ``private_socket``), else one of its own."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    private = private or unique_name("tt-agent")
    app = SharedTerminalApp(runtime_dir=runtime, overrides={"TMUX_TOOL_PRIVATE_SOCKET": private,
                                                            "TMUX_TOOL_STATE_DIR": str(tmp_path / "state"),
                                                            **overrides})
    for key, value in app.env.items():
        if key.startswith("TMUX_TOOL_"):
            monkeypatch.setenv(key, value)
    try:
        app.start()
        app.wait_for_prompt()
        yield app
    finally:
        app.cleanup()
        agent_tmux(app, "kill-server", check=False)
        Path(app.socket_path.parent / private).unlink(missing_ok=True)


def agent_tmux(app: SharedTerminalApp, *args: str, check: bool = True) -> str:
    """One bounded tmux command on the agent's private server."""
    done = subprocess.run(["tmux", "-L", app.overrides["TMUX_TOOL_PRIVATE_SOCKET"], *args], check=False,
                          capture_output=True, text=True, timeout=5, stdin=subprocess.DEVNULL)
    if check:
        assert done.returncode == 0, f"tmux {' '.join(args)} failed: {done.stderr}"
    return done.stdout


def pane(app: SharedTerminalApp, session: str) -> str:
    """What the agent's session shows, with its history."""
    return agent_tmux(app, "capture-pane", "-p", "-S", "-", "-t", f"={session}:")


def held(app: SharedTerminalApp, session: str) -> str:
    return agent_tmux(app, "show-options", "-qv", "-t", f"={session}:", human.HELD).strip()


def view_clients(app: SharedTerminalApp, session: str) -> list[str]:
    """The page's tmux clients on ``session``: "readonly flags" each (the tool's control client is no view)."""
    rows = agent_tmux(app, "list-clients", "-t", f"={session}", "-F",
                      "#{client_control_mode} #{client_readonly} #{client_flags}").splitlines()
    return [row[2:] for row in rows if row.startswith("0 ")]


@pytest.fixture
def page(browser: Browser, agent_app: SharedTerminalApp) -> Iterator[BrowserTerminal]:
    terminal = open_page(browser, agent_app)
    try:
        yield terminal
    finally:
        terminal.page.context.close()


def open_page(browser: Browser, app: SharedTerminalApp, fragment: str = "", init: str = "",
              **device: Any) -> BrowserTerminal:
    """The page (at ``fragment``, e.g. ``#session=NAME``), its shared terminal connected, its sends recorded;
    ``init``: a script run in it before the page's own; ``device``: the browser context's options (a desk's
    viewport unless given)."""
    context = browser.new_context(**{"viewport": VIEWPORT, **device})
    tab = context.new_page()
    tab.add_init_script(RECORD_SENDS + init)
    tab.goto(app.url + fragment)
    tab.wait_for_function("() => window.sharedTerminal && window.sharedTerminal.state === 'connected'")
    tab.wait_for_function("() => window.agentSessions && window.agentSessions.revision !== null")
    return BrowserTerminal(page=tab, app=app)


def tab(page: Page, session: str) -> dict[str, str] | None:
    """What the page's list shows of ``session`` (None when it is not listed)."""
    shown: dict[str, str] | None = page.evaluate(
        """(name) => {
            const button = document.querySelector(`.agent-tab[data-session="${name}"]`);
            if (!button) { return null; }
            const text = (cls) => { const e = button.querySelector("." + cls); return e ? e.textContent : ""; };
            return {name: text("name"), program: text("program"), status: text("status"),
                    evidence: text("evidence"), badge: text("badge"), current: button.getAttribute("aria-current")};
        }""",
        session,
    )
    return shown


def status_of(page: Page, session: str) -> str:
    shown = tab(page, session)
    return shown["status"] if shown else ""


def view_text(page: Page) -> str:
    return str(page.evaluate(VIEW_TEXT))


def view_text_with(page: Page, word: str) -> str:
    """The view's text once it holds ``word`` ("" before)."""
    text = view_text(page)
    return text if word in text else ""


def view_mode(page: Page) -> str:
    return str(page.text_content("#agent-view-mode"))


def open_view(app: SharedTerminalApp, page: Page, session: str) -> None:
    """Click the session's tab and wait until its view is connected (read-only)."""
    page.click(f'.agent-tab[data-session="{session}"]')
    page.wait_for_selector("#agent-view:not([hidden])")
    wait_for(lambda: view_mode(page).startswith("read-only"), f"the view of {session} to connect")
    wait_for(lambda: view_clients(app, session), f"the view's tmux client on {session}")


def ready_session(name: str) -> None:
    result = call("run", session=name, command=f"echo {name}-ready", timeout=30)
    assert result["ok"] and result["status"] == "ready", result


# --- the list ---------------------------------------------------------------------------------
def test_sessions_appear_as_the_agent_starts_them_with_live_status(agent_app: SharedTerminalApp,
                                                                   page: BrowserTerminal, tmp_path: Path) -> None:
    tabs = page.page
    assert tabs.is_visible("#agent-none"), "no agent terminal yet"
    result = call("run", session="build", command="echo hi")
    assert result["ok"], result
    wait_for(lambda: status_of(tabs, "build") == "ready", "build to be listed as ready")
    shown = tab(tabs, "build")
    assert shown is not None and shown["program"] == "bash" and shown["evidence"], shown
    assert tabs.is_hidden("#agent-none")

    gate = Gate(tmp_path / "slow.go")
    slow = Background("run", session="slow", command=f"{gate.shell}; echo slept", timeout=30)
    wait_for(lambda: status_of(tabs, "slow") == "busy", "slow to be listed as busy while it waits")
    assert slow.thread.is_alive(), "busy was shown while the agent's command still ran"
    gate.open()
    done = slow.join()
    assert done["ok"] and done["output"] == "slept", done
    wait_for(lambda: status_of(tabs, "slow") == "ready", "slow to be listed as ready once the command ended",
             timeout=5)
    shown: list[str] = tabs.evaluate("() => window.agentSessions.shown")
    assert "slow ready" in shown[shown.index("slow busy"):], shown

    assert call("kill", session="build")["ok"]
    wait_for(lambda: tab(tabs, "build") is None, "build to leave the list when it ends")
    assert tab(tabs, "slow") is not None


def test_opening_the_page_at_a_session_opens_its_view(browser: Browser, agent_app: SharedTerminalApp) -> None:
    ready_session("deep")
    ready_session("other")
    linked = open_page(browser, agent_app, "#session=deep")
    try:
        tabs = linked.page
        tabs.wait_for_selector("#agent-view:not([hidden])")
        assert tabs.text_content("#agent-view-name") == "deep"
        wait_for(lambda: "deep-ready" in view_text(tabs), "deep's screen in the view")
        assert (tab(tabs, "deep") or {}).get("current") == "true"
        assert view_clients(agent_app, "deep") and not view_clients(agent_app, "other")
        tabs.click("#agent-close")
        assert tabs.is_hidden("#agent-view")
        wait_for(lambda: not view_clients(agent_app, "deep"), "the view's tmux client to go with the view")
    finally:
        linked.page.context.close()


def test_an_address_whose_session_comes_after_the_human_typed_does_not_take_the_keyboard(
        browser: Browser, agent_app: SharedTerminalApp) -> None:
    """#session=NAME opens its view as soon as NAME is listed, but not once the human has typed since:
    the keys would follow the page into another terminal."""
    linked = open_page(browser, agent_app, "#session=later")
    try:
        tabs = linked.page
        linked.type("echo mine")
        ready_session("later")
        wait_for(lambda: tab(tabs, "later"), "later in the list")
        assert tabs.is_hidden("#agent-view") and focus_in(tabs, "#terminal")
        tabs.keyboard.type("-still")
        wait_for(lambda: shared_input_line(agent_app).rstrip().endswith("echo mine-still"),
                 "the human's keys in the shared terminal")
    finally:
        linked.page.context.close()


# --- watching -----------------------------------------------------------------------------------
def test_a_watched_session_shows_output_as_it_comes(agent_app: SharedTerminalApp, page: BrowserTerminal,
                                                    artifacts_dir: Path, tmp_path: Path) -> None:
    tabs = page.page
    ready_session("build")
    ready_session("tests")
    wait_for(lambda: tab(tabs, "tests"), "tests in the list")
    open_view(agent_app, tabs, "build")
    assert [c[:2] for c in view_clients(agent_app, "build")] == ["1 "], "one read-only view"
    cols, rows = tabs.evaluate("() => [window.agentSessions.view.term.cols, window.agentSessions.view.term.rows]")
    assert f"{cols}x{rows}" == agent_tmux(agent_app, "display-message", "-p", "-t", "=build:",
                                          "#{window_width}x#{window_height}").strip(), "the view has the session's size"
    box = tabs.locator("#agent-view-term .xterm-screen").bounding_box()
    assert box is not None and box["x"] + box["width"] <= VIEWPORT["width"], "the whole width is in view"

    gate = Gate(tmp_path / "ticks.go")
    started = call("run", session="build", timeout=0,
                   command=f"echo tick-$((11)); {gate.shell}; for i in 2 3 4 5; do echo tick-$((i*11)); sleep 0.5; done")
    assert started["ok"] and started["status"] == "busy", started
    first = wait_for(lambda: view_text_with(tabs, "tick-11"), "the first line in the view")
    assert "tick-22" not in first, "the first line shows before the command goes on"
    gate.open()
    wait_for(lambda: "tick-55" in view_text(tabs), "the last line in the view")
    done = call("wait", session="build", timeout=30)
    assert done["ok"] and done["status"] == "ready", done
    text = view_text(tabs)
    assert [f"tick-{i * 11}" in text for i in range(1, 6)] == [True] * 5
    wait_for(lambda: status_of(tabs, "build") == "ready", "build ready again in the list")
    tabs.screenshot(path=str(artifacts_dir / "agent-sessions-view.png"))
    # The agent's window keeps its size: the view never resized it.
    assert agent_tmux(agent_app, "display-message", "-p", "-t", "=build:",
                      "#{window_width}x#{window_height}").strip() == f"{cols}x{rows}"


def test_a_view_starts_with_the_sessions_history_in_its_scrollback(agent_app: SharedTerminalApp,
                                                                 page: BrowserTerminal) -> None:
    """Rows that scrolled off the agent's screen before the view opened are in the view's scrollback: the
    view is given them first, and its client draws on the normal screen below them.  tmux redraws a
    screen that scrolls fast rather than scrolling it, so rows that went by while watching come with
    the next opening of the view."""
    tabs = page.page
    done = call("run", session="long", command="seq -f 'row-%g' 1 300", timeout=30)
    assert done["ok"] and done["output"].splitlines()[-1] == "row-300", done
    wait_for(lambda: tab(tabs, "long"), "long in the list")
    open_view(agent_app, tabs, "long")
    wait_for(lambda: view_text_with(tabs, "row-300"), "the screen in the view")
    lines = view_text(tabs).splitlines()
    assert "row-1" in lines and "row-150" in lines, "the history before the view opened is in its scrollback"
    assert call("run", session="long", command="seq -f 'more-%g' 1 200", timeout=30)["ok"]
    wait_for(lambda: view_text_with(tabs, "more-200"), "the new rows in the view")
    tabs.click("#agent-close")
    wait_for(lambda: not view_clients(agent_app, "long"), "the view's tmux client to go with the view")
    open_view(agent_app, tabs, "long")
    wait_for(lambda: view_text_with(tabs, "more-200"), "the screen in the view again")
    lines = view_text(tabs).splitlines()
    assert "row-1" in lines and "more-1" in lines and "more-100" in lines, "the whole history when opened again"


# --- a read-only view --------------------------------------------------------------------------
def test_a_read_only_view_cannot_type(agent_app: SharedTerminalApp, page: BrowserTerminal) -> None:
    tabs = page.page
    ready_session("quiet")
    wait_for(lambda: tab(tabs, "quiet"), "quiet in the list")
    open_view(agent_app, tabs, "quiet")
    [client] = view_clients(agent_app, "quiet")
    assert client.startswith("1 ") and "read-only" in client and "ignore-size" in client, client
    before = pane(agent_app, "quiet")

    # The person types into the view: keys (CDP Input.dispatchKeyEvent) and a paste-like insertText.
    tabs.click("#agent-view-term .xterm-screen")
    assert tabs.evaluate("() => document.activeElement.closest('#agent-view .xterm') !== null")
    tabs.keyboard.type("echo typed-$((6*7))")
    tabs.keyboard.press("Enter")
    tabs.keyboard.insert_text("echo inserted-$((6*7))\r")
    tabs.keyboard.press("Control+C")
    sent: list[list[str]] = tabs.evaluate("() => window.__sent")
    assert not [m for path, m in sent if path == "/agent-ws" and m.startswith('["stdin"')], sent
    assert "read-only" in view_mode(tabs)

    # A page that forges keys for the server anyway: a read-only socket drops them, and asking for
    # write=1 without holding the session gets a read-only one.
    forged = tabs.evaluate(
        """async () => {
            const out = [];
            for (const write of ["", "&write=1"]) {
                const ws = new WebSocket(`ws://${location.host}/agent-ws?session=quiet&rows=33&cols=99${write}`);
                const setup = await new Promise((resolve, reject) => {
                    ws.onmessage = (e) => { const m = JSON.parse(e.data); if (m[0] === "setup") resolve(m[1]); };
                    ws.onerror = () => reject(new Error("no socket"));
                });
                ws.send(JSON.stringify(["stdin", "echo forged-$((6*7))\\r"]));
                ws.send(JSON.stringify(["stdin", "\\x03"]));
                // After the keys, a resize: once tmux sees this client at 77x22 the keys were handled.
                ws.send(JSON.stringify(["set_size", 22, 77]));
                out.push(setup);
                window.__forged = (window.__forged || []).concat([ws]);
            }
            return out;
        }"""
    )
    assert forged == [{"writable": False}, {"writable": False}], forged
    wait_for(lambda: sum(
        row.startswith("0 77 22") for row in agent_tmux(agent_app, "list-clients", "-t", "=quiet", "-F",
                                                        "#{client_control_mode} #{client_width} "
                                                        "#{client_height}").splitlines()) == 2,
             "both forged clients to be resized after their keys")
    tabs.evaluate("() => window.__forged.forEach((ws) => ws.close())")
    after = call("run", session="quiet", command="echo after-$((6*7))", timeout=30)
    assert after["ok"] and after["output"] == "after-42", after
    screen = pane(agent_app, "quiet")
    for word in ("typed", "inserted", "forged", "^C"):
        assert word not in screen, (word, screen)
    old = [line for line in before.splitlines() if line.strip()]
    new = [line for line in screen.splitlines() if line.strip()]
    assert new[:len(old) - 1] == old[:-1], "the history is as it was"
    assert new[len(old) - 1] == old[-1] + " echo after-$((6*7))", "the prompt took the agent's line, nothing else"


# --- take over, hand back --------------------------------------------------------------------
def test_take_over_and_hand_back(agent_app: SharedTerminalApp, page: BrowserTerminal,
                                 artifacts_dir: Path) -> None:
    tabs = page.page
    ready_session("work")
    wait_for(lambda: tab(tabs, "work"), "work in the list")
    open_view(agent_app, tabs, "work")
    tabs.click("#agent-take")
    wait_for(lambda: view_mode(tabs) == "you have the keyboard", "the view to become writable")
    assert held(agent_app, "work") == "page"
    [client] = wait_for(lambda: [c for c in view_clients(agent_app, "work") if c.startswith("0 ")],
                        "a writable tmux client")
    assert "ignore-size" in client and "read-only" not in client, client
    assert tabs.evaluate("() => document.activeElement.closest('#agent-view .xterm') !== null"), \
        "the keyboard goes to the view"

    refused = call("send", session="work", text="echo x")
    assert not refused["ok"] and "the human has session" in refused["error"], refused
    tabs.keyboard.type("echo mine-$((6*7))")
    tabs.keyboard.press("Enter")
    wait_for(lambda: "mine-42" in pane(agent_app, "work").splitlines(), "the human's command to run")
    wait_for(lambda: "yours" in str(tabs.text_content('.agent-tab[data-session="work"]')),
             "the list to say the human has work")
    tabs.screenshot(path=str(artifacts_dir / "agent-sessions-taken.png"))
    # The keyboard's way out of the view's terminal and back, as in the shared one.
    tabs.keyboard.press("Alt+F6")
    assert tabs.evaluate("() => document.activeElement.id") == "agent-give"
    tabs.keyboard.press("Escape")
    assert tabs.evaluate("() => document.activeElement.closest('#agent-view .xterm') !== null")
    for selector in ("#agent-give", "#agent-close", "#shared-tab"):
        assert str(tabs.text_content(selector)).strip(), f"{selector} needs a visible label"

    tabs.click("#agent-give")
    wait_for(lambda: view_mode(tabs).startswith("read-only"), "the view to be read-only again")
    assert held(agent_app, "work") == ""
    wait_for(lambda: [c[:2] for c in view_clients(agent_app, "work")] == ["1 "], "a read-only tmux client")
    done = call("send", session="work", text="echo x-$((6*7))", timeout=30)
    assert done["ok"], done
    assert "x-42" in (done["output"] or "") + (done["screen"] or ""), done
    wait_for(lambda: "x-42" in view_text(tabs), "the agent's command in the view")


def test_closing_a_taken_view_hands_the_session_back(agent_app: SharedTerminalApp, page: BrowserTerminal) -> None:
    tabs = page.page
    ready_session("borrowed")
    wait_for(lambda: tab(tabs, "borrowed"), "borrowed in the list")
    open_view(agent_app, tabs, "borrowed")
    tabs.click("#agent-take")
    wait_for(lambda: held(agent_app, "borrowed") == "page", "the page to hold borrowed")
    tabs.click("#agent-close")
    wait_for(lambda: held(agent_app, "borrowed") == "", "closing the view to hand it back")
    assert call("run", session="borrowed", command="echo back", timeout=30)["output"] == "back"


# --- a secret, typed by the human through the page -----------------------------------------
# What the human types in the shared terminal while an agent's terminal asks for a password: 50 keys.
HUMANS_LINE = "echo typed-by-the-human-key-by-key-in-the-shared-1"
# The shared terminal's own question (the human's, not the agent's), as bash's read asks it.
SHARED_SECRET = "read -rsp 'Password: ' answer; echo; echo got-${#answer}-chars"


def shared_input_line(app: SharedTerminalApp) -> str:
    """The shared pane's cursor row: the prompt and whatever is typed after it."""
    y = int(app.display("#{cursor_y}"))
    return app.capture().split("\n")[y]


def focus_in(page: Page, selector: str) -> bool:
    """Whether the keyboard is in the terminal under ``selector`` (the shared one: #terminal)."""
    return bool(page.evaluate("(s) => document.activeElement !== null && "
                              "document.activeElement.closest(s + ' .xterm') !== null", selector))


def banner(page: Page) -> list[str]:
    """The banner's buttons that open a terminal, as shown ([] while it is hidden)."""
    shown: list[str] = page.evaluate(
        """() => {
            const box = document.getElementById("needs-you");
            if (!box || box.hidden) { return []; }
            return Array.from(box.querySelectorAll("button.open")).filter((b) => !b.hidden)
                .map((b) => b.textContent.trim());
        }"""
    )
    return shown


def agent_keys(page: Page) -> list[str]:
    """Every key the page sent to a view of an agent's terminal."""
    sent: list[list[str]] = page.evaluate("() => window.__sent")
    return [m for path, m in sent if path == "/agent-ws" and m.startswith('["stdin"')]


def not_on_disk(app: SharedTerminalApp, secret: str) -> None:
    """``secret`` is in no file the tool (its state folder), the page server (its runtime folder) or the
    page server's log keeps."""
    for place in (Path(app.overrides["TMUX_TOOL_STATE_DIR"]), app.runtime_dir, app.state_dir / "web.log"):
        found = subprocess.run(["grep", "-rlF", "--", secret, str(place)], check=False, capture_output=True,
                               text=True, timeout=30)
        assert found.returncode == 1 and found.stdout == "", f"the secret is in {found.stdout or place}"


def test_a_password_asked_while_the_human_types_waits_for_their_click(
        agent_app: SharedTerminalApp, page: BrowserTerminal, secret_user: SecretUser, artifacts_dir: Path) -> None:
    """The page never moves the keyboard by itself: a password asked for while the human types in the
    shared terminal is announced (badge, title, banner), and one click gives its prompt the keyboard."""
    tabs = page.page
    assert len(HUMANS_LINE) == 50
    ready_session("build")
    wait_for(lambda: status_of(tabs, "build") == "ready", "build in the list")
    base_title = tabs.title()

    page.type(HUMANS_LINE[:10])  # the human's keyboard is in the shared terminal from here on
    asking = Background("run", session="admin", command=secret_user.sudo_id(), timeout=30)
    for key in HUMANS_LINE[10:30]:
        tabs.keyboard.type(key, delay=30)
    # Mid-line, sudo asks: the page says so (the list marks it at the look that also decides what to open).
    wait_for(lambda: (tab(tabs, "admin") or {}).get("badge") == "needs you", "admin marked as needing the human",
             timeout=30)
    for key in HUMANS_LINE[30:]:
        tabs.keyboard.type(key, delay=30)
    wait_for(lambda: shared_input_line(agent_app).rstrip().endswith(HUMANS_LINE),
             "every key of the human's line in the shared terminal")
    assert focus_in(tabs, "#terminal"), "the keyboard stays in the shared terminal"
    assert tabs.is_hidden("#agent-view") and not agent_keys(tabs) and held(agent_app, "admin") == ""
    res = asking.join()
    assert res["ok"] and res["status"] == "blocked" and res.get("needs_human") is True, res
    assert f"{agent_app.url}#session=admin" in res["hint"], res
    assert "password" in res["question"].lower(), res

    # Told, not taken: the title, and the banner's button.
    wait_for(lambda: tabs.title() == "(needs you) " + base_title, "the title to say so")
    assert banner(tabs) == ["Open admin – it asks for a password"], banner(tabs)
    assert any("admin needs you" in s for s in tabs.evaluate("() => window.agentSessions.announced"))
    wait_for(lambda: status_of(tabs, "build") == "ready", "build still listed")
    tabs.screenshot(path=str(artifacts_dir / "agent-sessions-needs-you.png"))
    assert focus_in(tabs, "#terminal") and shared_input_line(agent_app).rstrip().endswith(HUMANS_LINE)

    # One click: the prompt's view, with the keyboard.
    tabs.click("#needs-you button")
    wait_for(lambda: view_mode(tabs) == "you have the keyboard", "admin's view with the keyboard", timeout=20)
    assert tabs.text_content("#agent-view-name") == "admin"
    assert held(agent_app, "admin") == "page:secret"
    wait_for(lambda: [c[:2] for c in view_clients(agent_app, "admin")] == ["0 "], "a writable tmux client")
    wait_for(lambda: focus_in(tabs, "#agent-view"), "the keyboard in the view's terminal")
    assert tabs.is_visible("#agent-view-ask")
    wait_for(lambda: secret_user.sudo_prompt in view_text(tabs), "sudo's question in the view")

    waiting = Background("wait", session="admin", timeout=30)
    assert waiting.thread.is_alive(), "the wait must not return before the human typed"
    tabs.keyboard.type(secret_user.password)
    tabs.keyboard.press("Enter")
    done = waiting.join()
    assert done["ok"] and done["status"] == "ready" and done["exit_code"] == 0, done
    assert done["output"].strip().splitlines()[-1] == "0", done
    assert secret_user.password not in json.dumps(done)

    # Typed: the server hands the keyboard back and the page is read-only again.
    wait_for(lambda: held(agent_app, "admin") == "", "the hold to be released")
    wait_for(lambda: view_mode(tabs).startswith("read-only"), "the view to be read-only again")
    wait_for(lambda: [c[:2] for c in view_clients(agent_app, "admin")] == ["1 "], "a read-only tmux client")
    wait_for(lambda: tabs.title() == base_title, "the title without the mark")
    assert (tab(tabs, "admin") or {}).get("badge") == "" and banner(tabs) == []
    assert call("run", session="admin", command="echo agent-again", timeout=30)["output"] == "agent-again"
    assert shared_input_line(agent_app).rstrip().endswith(HUMANS_LINE), "the human's line is as they left it"

    # The password is nowhere the tool, tmux or the page server keeps anything.
    not_on_disk(agent_app, secret_user.password)
    assert (agent_app.state_dir / "web.log").read_text(), "the page server's log was read"
    kept = "".join(agent_tmux(agent_app, *command, check=False)
                   for command in (["list-buffers", "-F", "#{buffer_sample}"], ["show-options", "-g"],
                                   ["show-options", "-t", "=admin:"], ["show-environment", "-g"]))
    kept += "".join(agent_app.tmux(*command, check=False).stdout
                    for command in (["list-buffers", "-F", "#{buffer_sample}"], ["show-options", "-g"]))
    assert secret_user.password not in kept
    assert secret_user.password not in pane(agent_app, "admin")


def test_the_shared_terminals_own_secret_needs_the_human_in_a_page_on_an_agent_view(
        agent_app: SharedTerminalApp, page: BrowserTerminal) -> None:
    tabs = page.page
    ready_session("build")
    wait_for(lambda: tab(tabs, "build"), "build in the list")
    base_title = tabs.title()
    open_view(agent_app, tabs, "build")
    wait_for(lambda: tabs.text_content("#agent") == "agent idle", "the header to say the agent is idle")

    # The human, at another terminal of the shared session, runs something that reads a secret.
    agent_app.send_text(SHARED_SECRET)
    agent_app.send_keys("Enter")
    wait_for(lambda: "needs you" in str(tabs.text_content("#shared-tab")),
             "the shared terminal marked as needing the human", timeout=20)
    wait_for(lambda: tabs.title() == "(needs you) " + base_title, "the title to say so")
    assert banner(tabs) == ["Open the shared terminal – it asks for a password"], banner(tabs)
    header = str(tabs.text_content("#agent"))
    assert "needs you" in header and "idle" not in header, header
    assert tabs.is_visible("#agent-view") and tabs.text_content("#agent-view-name") == "build", \
        "the page stays where the human is"

    tabs.click("#needs-you button")
    wait_for(lambda: tabs.is_hidden("#agent-view"), "the shared terminal in front")
    wait_for(lambda: focus_in(tabs, "#terminal"), "the keyboard in the shared terminal")
    tabs.keyboard.type("s3cret")
    tabs.keyboard.press("Enter")
    wait_for(lambda: "got-6-chars" in agent_app.capture(), "the secret read by the shared terminal's program")
    wait_for(lambda: "needs you" not in str(tabs.text_content("#shared-tab")), "the mark to go", timeout=20)
    wait_for(lambda: tabs.title() == base_title and banner(tabs) == [], "the title and the banner without it")
    wait_for(lambda: tabs.text_content("#agent") == "agent idle", "the header back to the agent")


# The view's screen (its last rows: what a person sees without scrolling), as text.
VIEW_SCREEN = """() => {
  const view = window.agentSessions.view;
  if (!view) { return ""; }
  const buffer = view.term.buffer.active;
  const lines = [];
  for (let i = buffer.baseY; i < buffer.baseY + view.term.rows; i++) {
    const line = buffer.getLine(i);
    lines.push(line ? line.translateToString(true) : "");
  }
  return lines.join("\\n");
}"""


def test_a_view_of_a_session_that_ends_keeps_its_last_screen(agent_app: SharedTerminalApp,
                                                             page: BrowserTerminal) -> None:
    tabs = page.page
    ready_session("doomed")
    wait_for(lambda: tab(tabs, "doomed"), "doomed in the list")
    open_view(agent_app, tabs, "doomed")
    wait_for(lambda: "doomed-ready" in str(tabs.evaluate(VIEW_SCREEN)), "the session's screen in the view")
    assert call("kill", session="doomed")["ok"]
    wait_for(lambda: tabs.evaluate("() => window.agentSessions.view.socket === null"), "the view's client to go")
    wait_for(lambda: view_mode(tabs).startswith("the session has ended"), "the view to say the session ended")
    screen = str(tabs.evaluate(VIEW_SCREEN))
    assert "doomed-ready" in screen, f"the last screen is kept:\n{screen}"
    whole = view_text(tabs)
    assert "[exited]" not in whole and "press a key" not in whole, whole
    tabs.click("#agent-view-term .xterm-screen")
    tabs.keyboard.type("x")
    assert view_mode(tabs).startswith("the session has ended")
    assert tabs.evaluate("() => window.agentSessions.view.socket === null"), "a key does not connect to nothing"


# The page in a background tab, as far as the page can tell (document.hidden), and every system
# notification it shows, recorded as it is shown.
BACKGROUND_TAB = """
window.inBackground = false;
Object.defineProperty(Document.prototype, "hidden", { configurable: true, get() { return window.inBackground; } });
window.notificationsShown = [];
const SystemNotification = window.Notification;
window.Notification = class extends SystemNotification {
  constructor(title, options) {
    super(title, options);
    window.notificationsShown.push({ title: title, body: (options || {}).body });
  }
};
"""


def test_a_page_in_a_background_tab_tells_the_system_once_per_prompt(
        browser: Browser, agent_app: SharedTerminalApp) -> None:
    """The browser's own notification, once the human allowed them: for a prompt that comes while the
    page is in the background, once (not at every change of the list), naming the terminal and what it
    asks for; a page in front shows its banner only."""
    page = open_page(browser, agent_app, init=BACKGROUND_TAB, permissions=["notifications"])
    tabs = page.page
    shown = "() => window.notificationsShown"
    ask = "read -rs -p 'Password: ' pw; echo"

    def answer() -> None:
        agent_tmux(agent_app, "send-keys", "-t", "=vault:", "-l", "--", "not the secret")  # the human's keys
        agent_tmux(agent_app, "send-keys", "-t", "=vault:", "Enter")
        wait_for(lambda: (tab(tabs, "vault") or {}).get("badge") == "", "vault no longer needing the human")

    assert call("run", session="vault", command=ask, timeout=20).get("needs_human")
    wait_for(lambda: (tab(tabs, "vault") or {}).get("badge") == "needs you", "vault marked as needing the human")
    assert tabs.evaluate(shown) == [], "a page in front told the system too"
    answer()

    tabs.evaluate("() => { window.inBackground = true; }")
    assert call("run", session="vault", command=ask, timeout=20).get("needs_human")
    wait_for(lambda: tabs.evaluate(shown), "the system to be told", timeout=20)
    ready_session("other")  # the list changes while the prompt stays
    wait_for(lambda: tab(tabs, "other"), "the list to show the other session")
    assert tabs.evaluate(shown) == [{"title": "needs you: vault", "body": "vault – it asks for a password"}]

    answer()
    assert call("run", session="vault", command=ask, timeout=20).get("needs_human")
    wait_for(lambda: len(tabs.evaluate(shown)) == 2, "a new prompt told again", timeout=20)
    assert "not the secret" not in json.dumps(tabs.evaluate(shown))
