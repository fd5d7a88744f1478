"""Everyday scenarios in the shared terminal, with a real human attached.

Each case gets a shared session made the way ``apps/shared-terminal/start.sh``
makes it (our tmux.conf, the user's login shell from ``SHELL``, no command),
on a tmux socket of its own, from a throwaway HOME holding the shell's rc
files.  The human is a real ``tmux attach`` client running in a pseudo
terminal this test owns: the human's keys are written to that terminal, so
tmux sees them as a client's keystrokes (session activity, copy mode through
the prefix key, resizes of the client's window), never as ``send-keys``.

The agent is the public contract only: ``call(action, ...)`` on the default
session ``shared``.

Every case ends with :func:`ends_right`: with no key pressed by anyone,
``wait`` reaches ``ready`` and a fresh ``send`` runs and answers, which is
the proof that nothing is left locked.
"""

from __future__ import annotations

import re
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ptyprocess
import pytest
import wcwidth

from python.tools.tmux_tool import call

from ..conftest import SHARED_CONF, kill_server, poll, unique
from ..traces import pytest_runtest_makereport, traced  # noqa: F401 - every scenario runs traced

# A clean PATH for the session (no version-manager shims that need the real HOME).
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
ROWS, COLS = 40, 120

# What the human's keys send through a terminal (xterm, normal cursor mode).
KEYS = {
    "Enter": "\r", "Tab": "\t", "Escape": "\x1b", "BSpace": "\x7f", "Space": " ",
    "Up": "\x1b[A", "Down": "\x1b[B", "Right": "\x1b[C", "Left": "\x1b[D",
    "PageUp": "\x1b[5~", "PageDown": "\x1b[6~", "F10": "\x1b[21~",
    **{f"C-{c}": chr(ord(c) - 96) for c in "abcdefghklnpqrtuwz"},
}



# --- shells and their prompts ------------------------------------------------
@dataclass(frozen=True)
class Shell:
    """The human's login shell: its binary, rc files, and its prompt at the cursor.

    ``prompt`` is a regex the text left of the cursor ends with when the shell
    waits at its top-level prompt (used by the scenario to know the human may
    type, never by the tool).
    """

    name: str
    path: str
    files: dict[str, str]
    prompt: str

    def __str__(self) -> str:
        return self.name


def bash(ps1: str, prompt: str, extra: str = "", name: str = "bash") -> Shell:
    rc = f"PS1={ps1}\nHISTFILE=/dev/null\n{extra}"
    return Shell(name, "/bin/bash", {".bash_profile": ". ~/.bashrc\n", ".bashrc": rc}, prompt)


def zsh(rc: str, prompt: str, name: str = "zsh") -> Shell:
    return Shell(name, "/usr/bin/zsh", {".zshrc": "HISTFILE=/dev/null\nHISTSIZE=100\n" + rc}, prompt)


def fish(config: str, prompt: str, name: str = "fish") -> Shell:
    conf = "set -g fish_greeting ''\n" + config
    return Shell(name, "/usr/bin/fish", {".config/fish/config.fish": conf}, prompt)


def dash(ps1: str, prompt: str, name: str = "dash") -> Shell:
    return Shell(name, "/usr/bin/dash", {".profile": f"PS1={ps1}\n"}, prompt)


PLAIN_BASH = bash(r"'tester@box:\w\$ '", r"tester@box:\S*# $")


# --- the human ------------------------------------------------------------------
@dataclass
class Human:
    """A ``tmux attach`` client in a pseudo terminal of ours, typing like a person.

    A reader thread drains the client's output all the time, as a terminal
    would, so tmux never holds back output for a slow client.  Nobody types in
    the second they open the terminal, and tmux, counting whole seconds, could
    not tell such a key from the attach: the first key waits for the next second.
    """

    proc: ptyprocess.PtyProcess
    attached: int = 0  # the second tmux stamped the client's attach with
    pace: float = 0.02
    _reader: threading.Thread | None = None
    _seen: bytearray = field(default_factory=bytearray, repr=False)
    _drawn: int = 0  # bytes the client has drawn so far

    def start_reading(self) -> None:
        def drain() -> None:
            while True:
                try:
                    chunk = self.proc.read(65536)
                except (EOFError, OSError):
                    return
                self._seen += chunk
                self._drawn += len(chunk)
                del self._seen[:-65536]

        self._reader = threading.Thread(target=drain, daemon=True)
        self._reader.start()

    def mark(self) -> int:
        """A mark in what the client has drawn, for :meth:`drawn_since`."""
        return self._drawn

    def drawn_since(self, mark: int) -> str:
        """What the client drew after ``mark`` (as far as the last 64 KiB reach)."""
        new = self._drawn - mark
        return bytes(self._seen[-new:]).decode(errors="replace") if new > 0 else ""

    def _sit_down(self) -> None:
        assert poll(lambda: int(time.time()) > self.attached, 2), "the clock did not move past the attach"

    def type(self, text: str) -> None:
        """Type ``text`` one key at a time at a human pace."""
        self._sit_down()
        for ch in text:
            self.proc.write(ch.encode())
            time.sleep(self.pace)

    def press(self, *keys: str) -> None:
        """Press named keys (``KEYS``) or single characters, one after the other."""
        self._sit_down()
        for key in keys:
            self.proc.write(KEYS.get(key, key).encode())
            time.sleep(self.pace)

    def line(self, text: str) -> None:
        """Type a line and press Enter."""
        self.type(text)
        self.press("Enter")

    def resize(self, rows: int, cols: int) -> None:
        """The human's window changes size (the client gets SIGWINCH)."""
        self.proc.setwinsize(rows, cols)

    def close(self) -> None:
        if self.proc.isalive():
            self.proc.terminate(force=True)


# --- the scene --------------------------------------------------------------------
@dataclass
class Scene:
    """One shared terminal with its human, and what the test may look at."""

    socket: str
    home: Path
    shell: Shell
    human: Human
    session: str = "shared"
    prefix_key: str = "C-b"  # the human's tmux prefix key
    others: list[Human] = field(default_factory=list)  # more clients attached (other browser tabs)

    def tmux(self, *args: str) -> str:
        proc = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, timeout=10, check=False)
        return proc.stdout.decode(errors="replace")

    def _t(self, target: str | None) -> str:
        """A tmux target: ``target`` (a pane id such as ``%3``), else the pane the human looks at."""
        return target or f"={self.session}:"

    def fmt(self, fmt: str, target: str | None = None) -> str:
        return self.tmux("display-message", "-p", "-t", self._t(target), fmt).strip()

    def screen(self, target: str | None = None) -> str:
        return self.tmux("capture-pane", "-p", "-t", self._t(target))

    def history(self, target: str | None = None) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", self._t(target))

    def cursor_line(self, target: str | None = None) -> str:
        y = int(self.fmt("#{cursor_y}", target) or 0)
        rows = self.screen(target).split("\n")
        return rows[y] if y < len(rows) else ""

    def before_cursor(self, target: str | None = None) -> str:
        """The cursor row left of the cursor (the prompt and what is typed)."""
        raw = self.fmt("#{cursor_x} #{cursor_y}", target).split()
        if len(raw) != 2:
            return ""
        x, y = int(raw[0]), int(raw[1])
        rows = self.screen(target).split("\n")
        row = rows[y] if y < len(rows) else ""
        out, col = "", 0
        for ch in row:
            if col >= x:
                break
            out += ch
            col += max(1, wcwidth.wcwidth(ch))
        return out + " " * (x - col)  # capture-pane drops trailing blanks

    def at_prompt(self, timeout: float = 8.0, target: str | None = None) -> bool:
        """The top-level shell is in front and its prompt is left of the cursor."""
        return bool(poll(lambda: self.foreground(target) == self.shell_comm(target)
                         and re.search(self.shell.prompt, self.before_cursor(target)), timeout))

    def wait_screen(self, pattern: str, timeout: float = 8.0) -> str:
        found = poll(lambda: re.search(pattern, self.screen(), re.MULTILINE), timeout)
        assert found, f"{pattern!r} never showed:\n{self.screen()}"
        return self.screen()

    def pane_pid(self, target: str | None = None) -> int:
        return int(self.fmt("#{pane_pid}", target) or 0)

    def shell_comm(self, target: str | None = None) -> str:
        return _comm(self.pane_pid(target))

    def tpgid(self, target: str | None = None) -> int:
        """The pane terminal's foreground process group (kernel, field 8 of stat)."""
        try:
            stat = Path(f"/proc/{self.pane_pid(target)}/stat").read_text()
            return int(stat.rsplit(")", 1)[1].split()[5])
        except (OSError, ValueError, IndexError):
            return 0

    def foreground(self, target: str | None = None) -> str:
        """The name of the foreground group's leader (empty when the leader has ended)."""
        return _comm(self.tpgid(target))

    def front(self, target: str | None = None) -> set[str]:
        """The names of every process in the pane's foreground process group."""
        group, names = self.tpgid(target), set()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text()
                if int(text.rsplit(")", 1)[1].split()[2]) == group:
                    names.add(text[text.index("(") + 1:text.rindex(")")])
            except (OSError, ValueError, IndexError):
                continue
        return names

    def wait_front(self, program: str, timeout: float = 8.0) -> None:
        """Wait until ``program`` runs in the pane's foreground process group."""
        assert poll(lambda: program in self.front(), timeout), \
            f"{program} never came to the front (front: {self.front()!r}):\n{self.screen()}"

    def alive(self) -> bool:
        return self.fmt("#{session_name}") == self.session

    def in_copy_mode(self) -> bool:
        return self.fmt("#{pane_in_mode}") == "1"

    def size(self) -> tuple[int, int]:
        w, h = self.fmt("#{pane_width} #{pane_height}").split()
        return int(h), int(w)

    def file(self, name: str) -> Path:
        return self.home / name

    def close_page(self) -> None:
        """The human closes the browser tab: the client detaches."""
        gone = str(self.human.proc.pid)
        self.human.close()
        assert poll(lambda: gone not in self.tmux("list-clients", "-F", "#{client_pid}").split(), 5)

    def reload_page(self, rows: int, cols: int) -> None:
        """The human reloads the browser page: the client goes, a new one comes at another size."""
        self.close_page()
        self.human = attach_human(self.socket, session_env(self.home, self.shell), rows, cols)

    # --- panes and windows, as tmux itself reports them ---------------------------
    def prefix(self, *keys: str) -> None:
        """The human presses the prefix key, then ``keys`` (tmux's key bindings, as a person uses them)."""
        self.human.press(self.prefix_key, *keys)

    def panes(self) -> list[dict[str, Any]]:
        """Every pane of the session, from ``tmux list-panes -s``."""
        fields = ("#{pane_id}", "#{window_index}", "#{window_name}", "#{pane_index}", "#{pane_active}",
                  "#{window_active}", "#{pane_dead}")
        out = self.tmux("list-panes", "-s", "-t", f"={self.session}", "-F", "\t".join(fields))
        rows = []
        for line in out.splitlines():
            parts = line.split("\t")
            if len(parts) != len(fields):
                continue
            rows.append({"id": parts[0], "window": int(parts[1]), "window_name": parts[2], "index": int(parts[3]),
                         "active": parts[4] == "1" and parts[5] == "1", "dead": parts[6] == "1"})
        return rows

    def pane_ids(self) -> set[str]:
        return {p["id"] for p in self.panes()}

    def pane_facts(self, pane_id: str) -> dict[str, Any] | None:
        """``{"id", "window", "window_name", "index"}`` of a pane, as tmux lists it (None once it is gone)."""
        for p in self.panes():
            if p["id"] == pane_id:
                return {k: p[k] for k in ("id", "window", "window_name", "index")}
        return None

    def active_pane(self) -> str:
        """The pane the human looks at: the active pane of the session's current window."""
        return self.fmt("#{pane_id}")

    def _new_pane(self, *keys: str) -> str:
        before = self.pane_ids()
        self.prefix(*keys)
        new = poll(lambda: self.pane_ids() - before, 5)
        assert new, f"the human's prefix {keys!r} made no pane: {self.panes()!r}"
        pane = next(iter(new))
        assert poll(lambda: self.active_pane() == pane, 3), f"the new pane {pane} is not the active one"
        assert self.at_prompt(target=pane), f"no prompt in the new pane {pane}:\n{self.screen(pane)}"
        return pane

    def split(self, key: str = "%") -> str:
        """The human splits the window (prefix ``%`` left/right, prefix ``"`` top/bottom); the new pane's id."""
        return self._new_pane(key)

    def new_window(self) -> str:
        """The human opens a new window (prefix ``c``); the id of its pane."""
        return self._new_pane("c")

    def select(self, *keys: str, pane: str) -> None:
        """The human presses prefix-``keys`` (``o``, ``p``, ``n``, ``Up``...) until ``pane`` is the one looked at."""
        self.prefix(*keys)
        assert poll(lambda: self.active_pane() == pane, 3), \
            f"prefix {keys!r} did not bring the human to {pane}: {self.panes()!r}"

    def human_quiet(self, seconds: float = 1.1) -> None:
        """Wait until no client pressed a key for ``seconds`` (tmux's ``session_activity``, whole seconds).

        The agent's ``send`` holds back for a moment after the human's last key; a case that
        needs the agent's command typed at once (a short ``timeout``) lets the human rest first.
        """
        assert poll(lambda: time.time() - int(self.fmt("#{session_activity}") or 0) >= seconds, 5)

    def prompted(self, key: str, asks: str) -> None:
        """The human presses prefix-``key``, which opens one of tmux's prompts, and reads it (``asks``, a
        piece of its text) before answering, as a person does: tmux runs a binding's command from its
        queue, so on a busy machine keys pressed right behind it can reach the pane before the prompt."""
        mark = self.human.mark()
        self.prefix(key)
        assert poll(lambda: asks in self.human.drawn_since(mark), 5), \
            f"prefix {key} drew no prompt {asks!r}: {self.human.drawn_since(mark)[-300:]!r}"

    def rename_window(self, name: str) -> None:
        """The human names the current window (prefix ``,``, the prompt's text cleared, the name, Enter)."""
        self.prompted(",", "(rename-window)")
        self.human.press("C-u")
        self.human.line(name)
        assert poll(lambda: self.fmt("#{window_name}") == name, 3), f"the window was not renamed: {self.panes()!r}"

    def attach_another(self, rows: int, cols: int) -> Human:
        """A second browser tab of another size attaches (a second ``tmux attach`` client)."""
        other = attach_human(self.socket, session_env(self.home, self.shell), rows, cols)
        self.others.append(other)
        return other


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def session_env(home: Path, shell: Shell) -> dict[str, str]:
    return {"HOME": str(home), "SHELL": shell.path, "PATH": PATH, "LANG": "C.UTF-8", "TERM": "xterm-256color",
            "USER": "root", "LOGNAME": "root"}


def attach_human(socket: str, env: dict[str, str], rows: int, cols: int) -> Human:
    """A browser tab opens: a new ``tmux attach`` client of that size, under a pty of ours."""
    proc = ptyprocess.PtyProcess.spawn(["tmux", "-u", "-L", socket, "attach", "-t", "=shared"], env=env,
                                       dimensions=(rows, cols))
    human = Human(proc)
    human.start_reading()

    def attached() -> int:
        clients = subprocess.run(["tmux", "-L", socket, "list-clients", "-F", "#{client_pid} #{client_created}"],
                                 capture_output=True, text=True, timeout=10, check=False).stdout
        return next((int(line.split()[1]) for line in clients.splitlines() if line.split()[0] == str(proc.pid)), 0)

    human.attached = poll(attached, 10)
    assert human.attached, "the human's tmux client never attached"
    return human


def open_scene(home: Path, shell: Shell, rows: int = ROWS, cols: int = COLS,
               setup: tuple[tuple[str, ...], ...] = ()) -> Scene:
    """Start the shared server the start.sh way and attach the human to it.

    ``setup``: tmux commands run once our tmux.conf is read and before the
    session is made (the human's own settings: ``("set", "-g", "base-index", "1")``).
    """
    assert Path(shell.path).exists(), f"{shell.path} is not installed (tests/run.sh installs it)"
    socket = unique("tt-scn")
    for rel, text in shell.files.items():
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    env = session_env(home, shell)
    chain: list[str] = []
    for command in setup:
        chain += ["start-server", ";"] if not chain else []
        chain += [*command, ";"]
    subprocess.run(["tmux", "-L", socket, "-f", str(SHARED_CONF), *chain, "new-session", "-d", "-s", "shared",
                    "-x", str(cols), "-y", str(rows), "-c", str(home)],
                   check=True, timeout=10, env=env)
    try:
        scene = Scene(socket, home, shell, attach_human(socket, env, rows, cols))
        assert scene.at_prompt(10), f"the {shell} prompt never showed:\n{scene.screen()}"
    except BaseException:
        kill_server(socket)  # a scene that never opened is nobody's to end later
        raise
    return scene


@pytest.fixture
def make_scene(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Callable[..., Scene]]:
    """``make_scene(shell, rows=, cols=)``: a shared terminal with a human attached."""
    made: list[Scene] = []

    def make(shell: Shell = PLAIN_BASH, rows: int = ROWS, cols: int = COLS,
             setup: tuple[tuple[str, ...], ...] = ()) -> Scene:
        # a short HOME: the stamp paths in commands stay short (no wrapped echo)
        home = Path(tempfile.mkdtemp(prefix="scn-"))
        scene = open_scene(home, shell, rows, cols, setup)
        made.append(scene)
        monkeypatch.setenv("TMUX_TOOL_SHARED_SOCKET", scene.socket)
        monkeypatch.setenv("TMUX_TOOL_SHARED_SESSION", scene.session)
        monkeypatch.setenv("TMUX_TOOL_STATE_DIR", str(tmp_path / "state"))
        return scene

    yield make
    for scene in made:
        scene.human.close()
        for other in scene.others:
            other.close()
        kill_server(scene.socket)
        shutil.rmtree(scene.home, ignore_errors=True)


@pytest.fixture
def scene(make_scene: Callable[..., Scene]) -> Scene:
    """The everyday set-up: bash with a plain prompt, 120x40, a human attached."""
    return make_scene()


# --- what every case checks ---------------------------------------------------------
def probe(scene: Scene) -> tuple[str, str]:
    """A command and the output only running it can produce (not in its own text).

    Its last act writes the stamp file ``probe``, so a ``ready`` can be checked
    against the command's real end.
    """
    n = secrets.randbelow(9000) + 1000
    return f"printf 'ok-%s\\n' {n}; {stamp(scene, 'probe')}", f"ok-{n}"


def settle(scene: Scene) -> None:
    """The agent's first command in the scene runs (and the tool learns the shell)."""
    res = call("send", text="true", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the first command did not come back ready", res, scene)


def explain(what: str, res: dict[str, Any] | None, scene: Scene) -> str:
    """A failure message: what went wrong, the whole result (but its screen), the screen's end, and what
    the tool had recorded in the pane (its last command, the prompt rows it learned) and where tmux is."""
    shown = {k: v for k, v in (res or {}).items() if k != "screen"}
    rows = scene.screen().rstrip("\n").split("\n")
    records = scene.tmux("show-options", "-p", "-t", scene._t(None)).strip()
    where = scene.fmt("history #{history_size}/#{history_limit}, cursor #{cursor_x},#{cursor_y}, "
                      "#{pane_width}x#{pane_height}")
    return (f"{what}\nresult: {shown!r}\nscreen (last rows):\n" + "\n".join(rows[-12:])
            + f"\npane: {where}\nrecords:\n{records}")


def ends_right(scene: Scene, timeout: float = 6.0) -> None:
    """No lock-out: with nobody pressing a key, ``wait`` reaches ready and a new command answers."""
    res = call("wait", timeout=timeout)
    assert res["ok"] and res["status"] == "ready", explain("lock-out: wait never reached ready", res, scene)
    scene.file("probe").unlink(missing_ok=True)
    command, answer = probe(scene)
    res = call("send", text=command, timeout=timeout)
    assert res["ok"] and res["status"] == "ready", explain("lock-out: a fresh send did not run", res, scene)
    ready_after_end(scene, res, "probe")
    assert answer in (res["output"] or ""), explain("a fresh send's output lacks what it printed", res, scene)
    assert scene.alive()


def stamp(scene: Scene, name: str = "done") -> str:
    """Shell text that writes the time to ``name`` in HOME as the command's very last act.

    The path is absolute: the command may run in another directory (after
    ``cd``, in ``su -``'s shell) and must never write outside the scene.
    """
    return f"date +%s.%N > {scene.file(name)}"


def pane_stamp(scene: Scene, name: str = "done") -> str:
    """Like :func:`stamp`, and first the pane the command runs in (tmux's ``$TMUX_PANE``) to ``name.pane``."""
    return f"echo \"$TMUX_PANE\" > {scene.file(name + '.pane')}; {stamp(scene, name)}"


def ran_in(scene: Scene, name: str = "done") -> str | None:
    """The pane (``%N``) a command stamped with :func:`pane_stamp` ran in, or None."""
    path = scene.file(name + ".pane")
    return path.read_text().strip() if path.exists() else None


def right_pane(scene: Scene, res: dict[str, Any], pane_id: str, names: tuple[str, ...] = ()) -> None:
    """The result's ``pane`` is ``pane_id`` as tmux lists it (``names``: window names seen around the call).

    A window tmux renames after its running program (``automatic-rename``) may have had another name
    a moment ago: its name is then only checked to be a name; a window the human named is checked exactly.
    """
    pane = res.get("pane")
    assert isinstance(pane, dict), explain(f"no pane in the result (the command ran in {pane_id})", res, scene)
    facts = scene.pane_facts(pane_id)
    assert facts is not None, f"{pane_id} is gone"
    assert pane.get("id") == pane_id, explain(f"the result names pane {pane.get('id')!r}, "
                                              f"the command ran in {pane_id}", res, scene)
    assert pane.get("window") == facts["window"] and pane.get("index") == facts["index"], \
        explain(f"the result's pane is not where tmux has {pane_id}: {facts!r}", res, scene)
    name = pane.get("window_name")
    if scene.fmt("#{automatic-rename}", pane_id) == "1":
        assert isinstance(name, str) and name, explain("the result's window_name is not a name", res, scene)
    else:
        assert name in {facts["window_name"], *names}, \
            explain(f"the result's window_name is not tmux's: {facts!r}", res, scene)


def ended(scene: Scene, name: str = "done") -> float | None:
    """When the command wrote its stamp, or None if it has not ended."""
    text = scene.file(name).read_text().strip() if scene.file(name).exists() else ""
    return float(text) if text else None


def ready_after_end(scene: Scene, res: dict[str, Any], name: str = "done") -> None:
    """A ``ready`` answer is only right once the command wrote its last stamp."""
    if res["status"] == "ready":
        assert ended(scene, name) is not None, explain("ready before the command ended", res, scene)


def watch_until_end(scene: Scene, name: str = "done", limit: float = 20.0,
                    during: Callable[[], None] | None = None) -> list[tuple[float, dict[str, Any]]]:
    """Poll ``status`` until the command's stamp exists; every sample with its time.

    ``during`` runs once after the first sample (the human doing something
    while the agent's command runs).
    """
    samples: list[tuple[float, dict[str, Any]]] = []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        res = call("status")
        samples.append((time.time(), res))
        if during is not None:
            during()
            during = None
        if ended(scene, name) is not None:
            return samples
        time.sleep(0.03)
    raise AssertionError(f"the command never ended:\n{scene.screen()}")


def no_ready_before_end(scene: Scene, samples: list[tuple[float, dict[str, Any]]], name: str = "done") -> None:
    end = ended(scene, name)
    assert end is not None
    early = [(round(t - end, 3), r["status"], r.get("evidence")) for t, r in samples
             if t < end - 0.02 and r["status"] == "ready"]
    assert not early, f"ready before the command ended: {early}"


def send_as_told(scene: Scene, text: str, timeout: float) -> dict[str, Any]:
    """The agent's ``send`` right after the human's keys: the tool holds back and says to try again in a
    moment, and the agent does, as told (for up to 8 s).  The first result that typed the text."""
    tries: list[dict[str, Any]] = []
    assert poll(lambda: tries.append(call("send", text=text, timeout=timeout)) or tries[-1]["ok"], 8, step=0.2), \
        explain(f"{text!r} was never typed", tries[-1], scene)
    return tries[-1]


def refused(res: dict[str, Any]) -> None:
    """A refusal is ``ok: false`` with a sentence."""
    assert res["ok"] is False, f"expected a refusal, got {res!r}"
    assert isinstance(res["error"], str) and len(res["error"].split()) >= 3, f"a refusal without a sentence: {res!r}"

