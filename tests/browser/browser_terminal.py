"""A browser tab on the shared terminal's page, seen and driven as a person would.

Debian's Chromium (/usr/bin/chromium) runs headless under Playwright; no
browser is ever downloaded. The page exposes its xterm.js terminal as
`window.sharedTerminal`, so a test can read exactly what is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import Browser, Page, Request, Response
from shared_terminal_harness import SharedTerminalApp, wait_for

from python.helpers.tmux_tool.core import trace

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 800}


@dataclass
class BrowserTerminal:
    """The page of one browser tab, seen and driven as a person would."""

    page: Page
    app: SharedTerminalApp

    def screen_lines(self) -> list[str]:
        """The rows xterm.js has drawn in the page, as text."""
        rows: list[str] = self.page.evaluate(
            "() => Array.from(document.querySelectorAll('.xterm-rows > div'), (row) => row.textContent)"
        )
        return [row.replace("\u00a0", " ") for row in rows]

    def screen_text(self) -> str:
        return "\n".join(self.screen_lines())

    def wait_for_text(self, text: str, timeout: float = 10.0) -> str:
        """Wait until `text` is drawn in the page; returns the page's text."""
        return wait_for(
            lambda: self.screen_text() if text in self.screen_text() else "",
            f"{text!r} in the page",
            timeout,
        )

    def size(self) -> tuple[int, int]:
        """(cols, rows) of the page's terminal."""
        cols, rows = self.page.evaluate(
            "() => [window.sharedTerminal.term.cols, window.sharedTerminal.term.rows]"
        )
        return int(cols), int(rows)

    def type(self, text: str, delay_ms: float = 0) -> None:
        """Type into the terminal with the keyboard, key by key."""
        self.page.evaluate("() => window.sharedTerminal.term.focus()")
        self.page.keyboard.type(text, delay=delay_ms)

    def press(self, key: str) -> None:
        """Press one key by Playwright's name (`Enter`, `Control+C`, ...)."""
        self.page.evaluate("() => window.sharedTerminal.term.focus()")
        self.page.keyboard.press(key)

    def state(self) -> str:
        return str(self.page.evaluate("() => window.sharedTerminal && window.sharedTerminal.state"))


def traced(page: Page) -> None:
    """The page's side in the test's trace (``tests/traces.py``): what it posted and what came back,
    every request that failed or was refused, its console and its errors, beside the tool's and
    the web server's own lines.  A test that fails under load is then read, not guessed at."""

    def answered(response: Response) -> None:
        if response.request.method != "GET" or response.status >= 400:
            trace.event("page", method=response.request.method, url=response.url, status=response.status)

    def failed(request: Request) -> None:
        trace.event("page", method=request.method, url=request.url, failure=request.failure)

    page.on("response", answered)
    page.on("requestfailed", failed)
    page.on("console", lambda message: trace.event("page", console=message.type, text=message.text))
    page.on("pageerror", lambda error: trace.event("page", error=str(error)))


def open_terminal_page(browser: Browser, app: SharedTerminalApp, query: str = "") -> BrowserTerminal:
    """Open the install's page (`query`: e.g. `?token=...`) in a new browser context, connected and ready."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    traced(page)
    page.goto(app.url + query)
    page.wait_for_function("() => window.sharedTerminal && window.sharedTerminal.state === 'connected'")
    terminal = BrowserTerminal(page=page, app=app)
    wait_for(lambda: terminal.screen_text().strip(), "the session's screen in the page")
    app.wait_keys_quiet()
    return terminal
