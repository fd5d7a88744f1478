"""The container fixture (tests/containers.py) itself, against the real podman and tmux.

What a "host reached by ``podman exec -i CONTAINER``" transport relies on:
tmux inside is recent enough, a script fed to ``sh -s`` on stdin runs there,
the tmux server it starts outlives that ``exec``, the test user's login shell
is zsh (and tmux opens it), and stdin reaches the far side byte for byte.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..conftest import poll, unique

if TYPE_CHECKING:
    from ..containers import Container

# The fixture `container`: pytest imports the module as a plugin, once, so the session's container is shared
# with every other module naming it (importing tests.containers here would make pytest warn that it cannot
# rewrite its asserts).
pytest_plugins = ["tests.containers"]


def run(argv: Sequence[str], stdin: bytes = b"", check: bool = True) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(list(argv), input=stdin, capture_output=True, timeout=60, check=check)


def test_tmux_inside_runs_a_server_that_a_script_on_stdin_starts(container: Container) -> None:
    version = run([*container.exec_argv, "tmux", "-V"]).stdout.decode()
    found = re.fullmatch(r"tmux (\d+)\.(\d+)[a-z]?\n", version)
    assert found, version
    assert (int(found[1]), int(found[2])) >= (3, 0), version

    socket = unique("tt-x")
    tmux = f"tmux -L {socket}"
    script = (f"{tmux} new-session -d -s a -x 80 -y 24\n"
              f"{tmux} list-sessions -F 'listed #{{session_name}}'\n"
              "echo script-done\n")
    try:
        started = run([*container.exec_argv, "sh", "-s"], stdin=script.encode())
        assert started.stdout.decode().splitlines() == ["listed a", "script-done"], started
        # The server outlives the exec that started it: the next exec finds it.
        again = run([*container.exec_argv, "tmux", "-L", socket, "list-sessions", "-F", "#{session_name}"])
        assert again.stdout == b"a\n"
    finally:
        run([*container.exec_argv, "tmux", "-L", socket, "kill-server"], check=False)
    gone = run([*container.exec_argv, "tmux", "-L", socket, "list-sessions"], check=False)
    assert gone.returncode != 0 and b"no server running" in gone.stderr, gone


def test_the_user_has_zsh_as_login_shell_and_tmux_opens_it(container: Container) -> None:
    who = run([*container.exec_argv_user, "sh", "-c",
               'id -un; echo "$HOME"; pwd; getent passwd "$(id -un)" | cut -d: -f7'])
    assert who.stdout.decode().splitlines() == [container.user, f"/home/{container.user}",
                                                f"/home/{container.user}", "/bin/zsh"]
    # tmux opens the login shell from /etc/passwd (exec sets no SHELL): zsh, at its prompt, not in a menu.
    socket = unique("tt-z")
    tmux = [*container.exec_argv_user, "tmux", "-L", socket]
    try:
        run([*tmux, "new-session", "-d", "-s", "z", "-x", "80", "-y", "24"])
        run([*tmux, "send-keys", "-t", "=z:", "echo zsh-$ZSH_VERSION", "Enter"])

        def screen() -> str:
            return run([*tmux, "capture-pane", "-p", "-t", "=z:"]).stdout.decode()

        assert poll(lambda: re.search(r"^zsh-\d+\.\d+", screen(), re.MULTILINE), timeout=15, step=0.2), screen()
        command = run([*tmux, "display-message", "-p", "-t", "=z:", "#{pane_current_command}"]).stdout
        assert command == b"zsh\n"
        assert "zsh-newuser-install" not in screen()
    finally:
        run([*tmux, "kill-server"], check=False)


def test_exec_i_passes_stdin_bytes_exactly(container: Container) -> None:
    # Every byte value (NUL, CR, ^C, ^D, invalid UTF-8...), then random bytes: 1 MiB, far more than a pipe holds.
    data = bytes(range(256)) * 64 + os.urandom(1024 * 1024 - 256 * 64)
    echoed = run([*container.exec_argv, "cat"], stdin=data)
    assert len(echoed.stdout) == len(data)
    assert echoed.stdout == data
    assert echoed.stderr == b""
    counted = run([*container.exec_argv_user, "wc", "-c"], stdin=data)
    assert counted.stdout.split() == [str(len(data)).encode()]
