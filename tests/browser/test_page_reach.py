"""The page where real use goes: thirty agent terminals on two hosts, and a phone in a person's hand.

Everything is real, as in test_agent_sessions: start.sh's web server, the agent's private tmux server
driven by the tool's ``call``, and Debian's Chromium.  The second host is declared in a hosts file as a
command (a container engine's ``exec`` that runs here): the tool reaches it as it reaches a container,
and its tmux server is a separate one on this machine, so its sessions are listed as ``NAME@box`` the way the page learns
every host's sessions.  The phone is Chromium's mobile emulation with touch at 390x844.
"""

from __future__ import annotations

import json
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Browser, Page
from shared_terminal_harness import SharedTerminalApp, wait_for
from test_agent_sessions import (
    agent_install,
    agent_tmux,
    banner,
    held,
    not_on_disk,
    open_page,
    pane,
    status_of,
    tab,
    view_mode,
)

from python.tools.tmux_tool import call
from tests.background import Background

if TYPE_CHECKING:
    from tests.accounts import SecretUser

pytest_plugins = ["tests.accounts"]
pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
TARGET = 40  # px: the least a finger's target may measure each way
# A prompt that reads a secret without echo, as a script's own question does.
ASKS = "read -rsp 'Password: ' answer; echo; echo got-${#answer}-chars"


@pytest.fixture
def two_hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SharedTerminalApp]:
    """The page's install, with a second host ``box`` declared for the tool and the page server; the
    agent's server on it is ended afterwards."""
    box_dir = tmp_path / "box"
    box_dir.mkdir(mode=0o700)
    engine = tmp_path / "engine"  # a container engine's `exec [-t] COMMAND...`, run on this machine
    engine.write_text(f'#!/bin/sh\nshift\n[ "$1" = -t ] && shift\nTMUX_TMPDIR={box_dir} exec "$@"\n')
    engine.chmod(0o755)
    hosts = tmp_path / "hosts"
    hosts.write_text(f"box {engine} exec\n")
    with agent_install(tmp_path, monkeypatch, TMUX_TOOL_HOSTS=str(hosts)) as app:
        try:
            yield app
        finally:
            private = app.overrides["TMUX_TOOL_PRIVATE_SOCKET"]
            subprocess.run(["tmux", "-L", private, "kill-server"], env={"TMUX_TMPDIR": str(box_dir)},
                           check=False, capture_output=True, timeout=10)
            subprocess.run(["rm", "-rf", str(Path.home() / ".tmux_tool" / private)], check=False, timeout=10)


@pytest.fixture
def one_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SharedTerminalApp]:
    """The page's install, sharing the agent's private server with ``call`` (as test_agent_sessions')."""
    with agent_install(tmp_path, monkeypatch) as app:
        yield app


def ready(session: str, host: str | None = None) -> None:
    where = {"host": host} if host else {}
    result = call("run", session=session, command=f"echo {session}-ready", timeout=30, **where)
    assert result["ok"] and result["status"] == "ready", result


def strip(page: Page) -> list[str]:
    """The strip's items in order: a session's name, or a group's label in brackets."""
    items: list[str] = page.evaluate(
        """() => Array.from(document.querySelectorAll("#agent-list > li"), (li) => {
            const button = li.querySelector(".agent-tab");
            return button ? button.dataset.session : "[" + li.textContent + "]";
        })"""
    )
    return items


def on_top(page: Page, selector: str) -> bool:
    """Whether ``selector`` is inside the window and nothing covers its middle (a click there reaches it)."""
    return bool(page.evaluate(
        """(s) => {
            const e = document.querySelector(s);
            const r = e.getBoundingClientRect();
            const x = r.left + r.width / 2, y = r.top + r.height / 2;
            if (r.width === 0 || x < 0 || y < 0 || x > innerWidth || y > innerHeight) { return false; }
            const hit = document.elementFromPoint(x, y);
            return hit !== null && (hit === e || e.contains(hit));
        }""",
        selector,
    ))


def in_strip(page: Page) -> int:
    """How many tabs the strip shows whole, as it is scrolled."""
    return int(page.evaluate(
        """() => {
            const strip = document.getElementById("agent-list").getBoundingClientRect();
            return Array.from(document.querySelectorAll(".agent-tab"), (t) => t.getBoundingClientRect())
                .filter((r) => r.left >= strip.left && r.right <= strip.right).length;
        }"""
    ))


def total(page: Page) -> str:
    return str(page.text_content("#agent-total"))


def test_thirty_terminals_on_two_hosts(two_hosts: SharedTerminalApp, browser: Browser, artifacts_dir: Path) -> None:
    """Counted, the one that needs the human first and one click from its prompt, grouped by host,
    filtered by name, scrolled by the wheel, and the shared terminal one click away from any view."""
    here = [f"t{i:02}" for i in range(1, 26)]
    far = ["far-a", "far-b", "far-c", "far-d"]
    for name in here:
        ready(name)
    for name in far:
        ready(name, "box")
    asking = call("run", session="zz-asks", command=ASKS, timeout=30)
    assert asking["ok"] and asking["status"] == "blocked" and asking.get("needs_human") is True, asking

    tabs = open_page(browser, two_hosts).page
    try:
        wait_for(lambda: total(tabs) == "30", "the count of 30 terminals", timeout=30)
        shown = strip(tabs)
        assert shown[:2] == ["[needs you]", "zz-asks"], shown
        assert shown[2:] == ["[here]", *here, "[on box]", *(f"{n}@box" for n in far)], shown
        assert (tab(tabs, "zz-asks") or {}).get("badge") == "needs you"
        assert on_top(tabs, '.agent-tab[data-session="zz-asks"]'), "the one needing the human is in view"
        assert in_strip(tabs) >= 6, f"only {in_strip(tabs)} tabs fit in 1280 px"
        tabs.screenshot(path=str(artifacts_dir / "page-thirty-terminals.png"))

        # The filter: by name, the count says how many of all.
        tabs.fill("#agent-filter", "far")
        wait_for(lambda: total(tabs) == "4 of 30", "the count of the filtered")
        assert strip(tabs) == [f"{n}@box" for n in far], strip(tabs)
        tabs.fill("#agent-filter", "")
        wait_for(lambda: total(tabs) == "30", "every terminal again")

        # The wheel scrolls the strip sideways.
        box = tabs.locator("#agent-list").bounding_box()
        assert box is not None
        assert tabs.evaluate("() => document.getElementById('agent-list').scrollLeft") == 0
        tabs.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        tabs.mouse.wheel(0, 600)
        wait_for(lambda: tabs.evaluate("() => document.getElementById('agent-list').scrollLeft") > 0,
                 "the strip to scroll under the wheel")

        # The last one, far down the strip: its view, and the shared terminal still one click away.
        tabs.click('.agent-tab[data-session="far-d@box"]')
        wait_for(lambda: view_mode(tabs).startswith("read-only"), "far-d's view", timeout=20)
        assert tabs.text_content("#agent-view-name") == "far-d@box"
        assert on_top(tabs, '.agent-tab[data-session="far-d@box"]'), "the viewed tab is scrolled into view"
        assert on_top(tabs, "#shared-tab"), "the way back to the shared terminal stays in view"
        tabs.click("#shared-tab")
        wait_for(lambda: tabs.is_hidden("#agent-view"), "the shared terminal in front")

        # One click on the one needing the human: its view, with the keyboard for its prompt.
        tabs.click('.agent-tab[data-session="zz-asks"]')
        wait_for(lambda: view_mode(tabs) == "you have the keyboard", "zz-asks with the keyboard", timeout=20)
        assert held(two_hosts, "zz-asks") == "page:secret"
        assert on_top(tabs, "#shared-tab")

        # The same page as wide as a phone: the strip's filter and tabs take a finger too.
        tabs.set_viewport_size(PHONE["viewport"])
        wait_for(lambda: tabs.evaluate("() => innerWidth") == PHONE["viewport"]["width"], "the phone's width")
        assert tabs.is_visible("#agent-filter") and small_targets(tabs) == [], small_targets(tabs)
        assert on_top(tabs, "#shared-tab") and on_top(tabs, "#agent-filter")
    finally:
        tabs.context.close()


def small_targets(page: Page) -> list[str]:
    """Every visible button or field of the page smaller than a finger's target, with its size."""
    found: list[str] = page.evaluate(
        """(least) => Array.from(document.querySelectorAll("button, input"))
            .filter((e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden")
            .map((e) => [e.id || e.className || e.textContent.trim(), e.getBoundingClientRect()])
            .filter(([, r]) => r.width < least || r.height < least)
            .map(([name, r]) => `${name}: ${Math.round(r.width)}x${Math.round(r.height)}`)""",
        TARGET,
    )
    return found


def swipe_left(page: Page, selector: str) -> None:
    """A finger's swipe from right to left across the middle of ``selector``, as a touch screen sends it
    (touch start, moves, end: Chromium's ``Input.dispatchTouchEvent``)."""
    box = page.locator(selector).bounding_box()
    assert box is not None
    x, y, step = box["x"] + box["width"] * 0.8, box["y"] + box["height"] / 2, box["width"] / 20
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        for i in range(1, 11):
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x - i * step, "y": y}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()


def scrolled(page: Page, selector: str) -> float:
    return float(page.evaluate("(s) => document.querySelector(s).scrollLeft", selector))


def view_font(page: Page) -> float:
    return float(page.evaluate("() => window.agentSessions.view.term.options.fontSize"))


def test_a_phone_types_a_password_through_the_banners_masked_field(
        one_host: SharedTerminalApp, browser: Browser, secret_user: SecretUser, artifacts_dir: Path) -> None:
    """At 390x844 with touch: every target takes a finger, the password goes in the banner's masked
    field and is typed into sudo's prompt once, the field is empty afterwards, and the agent's ``wait``
    returns ready with the exact output; the view's font stays legible with a sideways scroll."""
    ready("build")
    asking = call("run", session="admin", command=secret_user.sudo_id(), timeout=30)
    assert asking["ok"] and asking["status"] == "blocked" and asking.get("needs_human") is True, asking

    phone = open_page(browser, one_host, **PHONE)
    tabs = phone.page
    logged: list[str] = []
    tabs.on("console", lambda message: logged.append(message.text))
    try:
        wait_for(lambda: banner(tabs) == ["Open admin – it asks for a password"], "the banner for admin",
                 timeout=20)
        assert total(tabs) == "2" and strip(tabs) == ["admin", "build"], strip(tabs)
        assert tabs.is_visible("#needs-you input[type=password]")
        assert small_targets(tabs) == [], small_targets(tabs)
        tabs.screenshot(path=str(artifacts_dir / "page-phone-needs-you.png"))

        waiting = Background("wait", session="admin", timeout=30)
        assert waiting.thread.is_alive(), "the wait must not return before the human typed"
        tabs.tap("#needs-you input[type=password]")
        tabs.keyboard.type(secret_user.password)
        tabs.tap("#needs-you form.secret button[type=submit]")
        assert tabs.input_value("#needs-you input[type=password]") == "", "the field is emptied on submit"
        done = waiting.join()
        assert done["ok"] and done["status"] == "ready" and done["exit_code"] == 0, json.dumps(done)
        assert done["output"].strip().splitlines()[-1] == "0", done
        assert secret_user.password not in json.dumps(done)

        # Typed once, through the view's socket; then the keyboard is the agent's again.
        sent: list[list[str]] = tabs.evaluate("() => window.__sent")
        carrying = [m for _, m in sent if secret_user.password in m]
        assert carrying == [json.dumps(["stdin", secret_user.password + "\r"], separators=(",", ":"))], carrying
        wait_for(lambda: held(one_host, "admin") == "", "the hold to be released")
        wait_for(lambda: view_mode(tabs).startswith("read-only"), "the view read-only again")
        wait_for(lambda: banner(tabs) == [] and tabs.is_hidden("#needs-you"), "the banner to go")

        # The view on a phone: a legible font, and the rest of the session's width a sideways scroll away.
        assert view_font(tabs) >= 11, view_font(tabs)
        assert tabs.is_visible("#agent-view-wide"), "the view says there is more to the right"
        assert "columns wide" in str(tabs.text_content("#agent-view-wide"))
        assert small_targets(tabs) == [], small_targets(tabs)
        assert on_top(tabs, "#shared-tab") and on_top(tabs, "#agent-close")
        tabs.screenshot(path=str(artifacts_dir / "page-phone-view.png"))
        for box in ("#agent-view-term", "#agent-list"):
            swipe_left(tabs, box)
            wait_for(lambda box=box: scrolled(tabs, box) > 0, f"{box} to scroll sideways under a finger")

        # Nowhere kept: the page's own words and logs, the tool's and tmux's state, the page server's log.
        said = json.dumps([tabs.evaluate("() => window.agentSessions.announced"), logged,
                           tabs.evaluate("() => document.body.innerText")])
        assert secret_user.password not in said
        not_on_disk(one_host, secret_user.password)
        kept = agent_tmux(one_host, "list-buffers", "-F", "#{buffer_sample}", check=False)
        assert secret_user.password not in kept + pane(one_host, "admin")
        wait_for(lambda: status_of(tabs, "admin") == "ready", "admin listed as ready")
    finally:
        tabs.context.close()


def test_a_phone_types_the_shared_terminals_secret_through_the_banner(one_host: SharedTerminalApp,
                                                                      browser: Browser) -> None:
    """The shared terminal's own prompt takes the banner's masked field too: typed there once, the field
    emptied, the secret nowhere but in the program that read it."""
    phone = open_page(browser, one_host, **PHONE)
    tabs = phone.page
    try:
        one_host.send_text(ASKS)
        one_host.send_keys("Enter")
        wait_for(lambda: tabs.is_visible("#needs-you input[type=password]"), "the banner's field", timeout=20)
        assert banner(tabs) == [], "the shared terminal is in front already: nothing to open"
        assert small_targets(tabs) == [], small_targets(tabs)
        secret = "s3cret-" + secrets.token_hex(6)
        tabs.tap("#needs-you input[type=password]")
        tabs.keyboard.type(secret)
        tabs.tap("#needs-you form.secret button[type=submit]")
        assert tabs.input_value("#needs-you input[type=password]") == ""
        wait_for(lambda: f"got-{len(secret)}-chars" in one_host.capture(), "the secret read by the prompt")
        sent: list[list[str]] = tabs.evaluate("() => window.__sent")
        assert [(path, m) for path, m in sent if secret in m] == [
            ("/ws", json.dumps(["stdin", secret + "\r"], separators=(",", ":")))], "typed once, as keys"
        wait_for(lambda: tabs.is_hidden("#needs-you"), "the banner to go", timeout=20)
        assert secret not in one_host.capture()
        assert secret not in json.dumps(tabs.evaluate("() => window.agentSessions.announced"))
        assert secret not in (one_host.state_dir / "web.log").read_text()
    finally:
        tabs.context.close()
