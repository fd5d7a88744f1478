"""A simulated human types in the shared session while the agent sends commands.

A real tmux client is attached under a pty (pexpect) and types at human speed
- four to fifteen characters a second, with pauses, some lines left
unsubmitted for a while - while the agent's ``send`` runs in another thread,
starting while the human is mid-line.  Every command appends one word to a
log: afterwards every human word and every agent word must be there, whole,
once, and each agent word right after the human line that was being typed.

The trials run in four worker processes, each with its own shared terminal
(the tool's configuration is per process), so 100 trials take about a minute.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pexpect

TRIALS = int(os.environ.get("TMUX_TOOL_HUMAN_TRIALS", "100"))
WORKERS = 4
REPO = Path(__file__).resolve().parents[2]


def _human_types(child: pexpect.spawn, line: str, rng: random.Random) -> None:
    for ch in line:
        child.send(ch)
        time.sleep(1.0 / rng.uniform(4, 15))
        if rng.random() < 0.05:
            time.sleep(rng.uniform(0.2, 0.8))  # a thinking pause mid-line
    if rng.random() < 0.3:
        time.sleep(rng.uniform(0.5, 2.0))  # left unsubmitted for a while
    child.send("\r")


def _worker(index: int, trials: int, root: str) -> tuple[list[str], list[str], list[str]]:
    """One shared terminal, one attached human, ``trials`` rounds; returns (expected, got, failures)."""
    import pexpect

    home = Path(root) / f"home{index}"
    home.mkdir(parents=True)
    (home / ".bashrc").write_text("PS1='tester@box:\\w\\$ '\nHISTFILE=/dev/null\n")
    socket = f"tt-human-{os.getpid()}-{index}"
    os.environ.update(TMUX_TOOL_SHARED_SOCKET=socket, TMUX_TOOL_SHARED_SESSION="shared",
                      TMUX_TOOL_STATE_DIR=str(Path(root) / f"state{index}"))
    os.environ.pop("TMUX", None)
    subprocess.run(["tmux", "-L", socket, "-f", str(REPO / "apps/shared-terminal/tmux.conf"), "new-session",
                    "-d", "-s", "shared", "-x", "120", "-y", "40", "-c", str(home),
                    shutil.which("bash") or "/bin/bash", "--noprofile", "--rcfile", str(home / ".bashrc"), "-i"],
                   check=True, timeout=10)
    import sys

    sys.path.insert(0, str(REPO))
    from python.tools.tmux_tool import call

    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    child = pexpect.spawn("tmux", ["-u", "-L", socket, "attach", "-t", "=shared"], env=env,
                          dimensions=(40, 120), timeout=10)
    rng = random.Random(1000 + index)
    expected: list[str] = []
    failures: list[str] = []
    log = home / "w"
    try:
        time.sleep(0.5)
        for trial in range(trials):
            human_word = f"h{index}x{trial}q{rng.randrange(1000)}"
            agent_word = f"a{index}y{trial}z{rng.randrange(1000)}"
            typing = threading.Thread(target=_human_types, args=(child, f"echo {human_word} >>w", rng))
            typing.start()
            time.sleep(rng.uniform(0.1, 0.4))  # the agent starts while the human is typing
            res = call("send", text=f"echo {agent_word} >>w", timeout=30)
            typing.join()
            if not res["ok"]:
                failures.append(f"worker {index} trial {trial}: {res['error']}")
            expected += [human_word, agent_word]
            try:
                child.read_nonblocking(size=1 << 20, timeout=0.01)  # keep the client's pty drained
            except (pexpect.TIMEOUT, pexpect.EOF):
                pass
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(log.read_text().split()) < len(expected):
            time.sleep(0.05)
        return expected, log.read_text().split(), failures
    finally:
        child.terminate(force=True)
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=10, check=False)
        # tmux 3.3a leaves the socket file behind a killed server.
        (Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}" / socket).unlink(missing_ok=True)


def test_human_and_agent_never_mix(tmp_path: Path) -> None:
    per = [TRIALS // WORKERS + (1 if i < TRIALS % WORKERS else 0) for i in range(WORKERS)]
    with ProcessPoolExecutor(max_workers=WORKERS, mp_context=get_context("spawn")) as pool:
        results = list(pool.map(_worker, range(WORKERS), per, [str(tmp_path)] * WORKERS))
    total = 0
    for expected, got, failures in results:
        assert not failures, failures[:5]
        assert got == expected, _diff(expected, got)
        total += len(expected) // 2
    assert total == TRIALS


def _diff(expected: list[str], got: list[str]) -> str:
    for i, (e, g) in enumerate(zip(expected, got, strict=False)):
        if e != g:
            return f"first difference at line {i}: expected {e!r}, got {g!r}; got {len(got)} of {len(expected)}"
    return f"got {len(got)} lines, expected {len(expected)}"
