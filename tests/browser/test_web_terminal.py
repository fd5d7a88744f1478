"""The bundled web terminal, used in headless Chromium as a person would.

What the tool does in the shared session must show in the page, what the
person types in the page must reach the session, and both must see a screen
of the same size.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_terminal import BrowserTerminal, open_terminal_page
from playwright.sync_api import Browser
from shared_terminal_harness import SharedTerminalApp, wait_for

pytestmark = pytest.mark.browser


def test_text_sent_with_tmux_appears_in_the_page(terminal_page: BrowserTerminal) -> None:
    app = terminal_page.app
    # The shell computes 6*7, so the page can only show "from-tmux-42" if the
    # command really ran in the session (the typed line shows "$((6*7))").
    app.send_text("echo from-tmux-$((6*7))")
    app.send_keys("Enter")
    screen = terminal_page.wait_for_text("from-tmux-42")
    assert "echo from-tmux-$((6*7))" in screen


def test_keys_typed_in_the_page_reach_the_session(terminal_page: BrowserTerminal) -> None:
    app = terminal_page.app
    terminal_page.type("echo typed-in-page-$((6*7))")
    terminal_page.press("Enter")
    wait_for(
        lambda: "typed-in-page-42" in app.capture().splitlines(),
        "the page's command output as a line of its own in capture-pane",
    )
    assert "echo typed-in-page-$((6*7))" in app.capture()


def test_control_keys_from_the_page_reach_the_session(terminal_page: BrowserTerminal) -> None:
    app = terminal_page.app
    terminal_page.type("sleep 600")
    terminal_page.press("Enter")
    wait_for(lambda: app.display("#{pane_current_command}") == "sleep", "sleep to run")
    terminal_page.press("Control+C")
    wait_for(lambda: app.display("#{pane_current_command}") != "sleep", "Ctrl+C to end sleep")


def test_page_and_pane_have_the_same_size(terminal_page: BrowserTerminal) -> None:
    app = terminal_page.app
    cols, rows = terminal_page.size()
    assert cols > 80 and rows > 24, "the page should fit a large terminal into 1280x800"
    wait_for(
        lambda: app.display("#{window_width}x#{window_height}") == f"{cols}x{rows}",
        f"the tmux window to be {cols}x{rows} like the page",
    )
    assert app.display("#{pane_width}x#{pane_height}") == f"{cols}x{rows}"

    terminal_page.page.set_viewport_size({"width": 800, "height": 500})
    wait_for(lambda: terminal_page.size() != (cols, rows), "the page to refit")
    small = terminal_page.size()
    wait_for(
        lambda: app.display("#{window_width}x#{window_height}") == f"{small[0]}x{small[1]}",
        f"the tmux window to follow the page to {small[0]}x{small[1]}",
    )


def test_a_notice_leaves_the_terminals_size(terminal_page: BrowserTerminal) -> None:
    """A notice ("Not taken: ...") shows over the page: the terminal's box, and so the human's tmux
    window, keep their size (the box is measured before and after, in one layout pass each)."""
    sizes = terminal_page.page.evaluate("""() => {
        const box = () => { const r = document.getElementById('terminal').getBoundingClientRect();
                            return [r.width, r.height]; };
        const before = box();
        const n = document.getElementById('notice');
        n.textContent = 'Not taken: a notice'; n.hidden = false;
        return [before, box()]; }""")
    assert terminal_page.page.locator("#notice").is_visible()
    assert sizes[0] == sizes[1], sizes


def tab_clients(app: SharedTerminalApp, *target: str) -> list[str]:
    """The tmux clients of browser tabs: the tool's own read-only control-mode client is no tab."""
    rows = app.tmux("list-clients", *target, "-F", "#{client_control_mode} #{client_name}").stdout.splitlines()
    return [row for row in rows if row.startswith("0 ")]


def test_two_tabs_share_one_session(browser: Browser, terminal_page: BrowserTerminal) -> None:
    app = terminal_page.app
    other = open_terminal_page(browser, app)
    try:
        assert len(tab_clients(app, "-t", f"={app.session}")) == 2
        other.type("echo second-tab-$((6*7))")
        other.press("Enter")
        terminal_page.wait_for_text("second-tab-42")
    finally:
        other.page.context.close()
    wait_for(
        lambda: len(tab_clients(app)) == 1,
        "the closed tab's tmux client to detach",
    )
    assert app.session_alive()


def test_closing_the_page_leaves_the_session(browser: Browser, shared_terminal: SharedTerminalApp) -> None:
    terminal = open_terminal_page(browser, shared_terminal)
    terminal.page.context.close()
    wait_for(
        lambda: tab_clients(shared_terminal) == [],
        "the tab's tmux client to detach",
    )
    assert shared_terminal.session_alive()


def test_screenshot_shows_a_terminal(terminal_page: BrowserTerminal, artifacts_dir: Path) -> None:
    app = terminal_page.app
    app.send_text(
        "printf '\\033[1;32m%s\\033[0m \\033[7m%s\\033[0m\\n' 'shared terminal' 'in the browser'; ls /"
    )
    app.send_keys("Enter")
    terminal_page.wait_for_text("shared terminal in the browser")
    terminal_page.wait_for_text("usr")
    shot = artifacts_dir / "web-terminal.png"
    terminal_page.page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    green = terminal_page.page.evaluate(
        "() => Array.from(document.querySelectorAll('.xterm-rows span'))"
        ".some((s) => s.textContent.includes('shared terminal')"
        " && getComputedStyle(s).color !== getComputedStyle(document.querySelector('.xterm-rows')).color)"
    )
    assert green, "the SGR colour should be drawn by xterm.js, not shown as escape codes"
    # Escape codes interpreted, not printed: the output row is just the words.
    assert "shared terminal in the browser" in [line.rstrip() for line in terminal_page.screen_lines()]
