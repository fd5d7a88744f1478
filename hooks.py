"""What Agent Zero runs when it installs, updates or removes this plugin.

Agent Zero (v0.9.9 and later) imports this file in its own runtime - the
Python that runs the framework, ``/opt/venv-a0`` in its Docker image, not the
agent's ``/opt/venv`` - and calls :func:`install` after it has put the plugin
into ``usr/plugins/tmux_tool/`` (from the Plugin Hub, a Git URL or a ZIP) and
again after every update.  The tool runs in that same Python, so the packages
it cannot run without (:data:`REQUIREMENTS`) are installed here, into
``sys.executable``'s environment.  If that fails the error says so and Agent
Zero stops the install: a tool that cannot import is otherwise only "not
found" for the agent.

tmux itself is a system package; a plugin does not install those, so a
missing tmux is reported here and by every call of the tool, with the command
that installs it.

:func:`uninstall` runs before Agent Zero deletes the plugin: it ends the
tool's own tmux server (the agent's private sessions, with any program still
running in them) and removes its state, so nothing of the plugin outlives it.
The human's shared terminal is theirs and is left alone.

The same steps run by hand, or from the installer, with the framework's
Python: ``/opt/venv-a0/bin/python usr/plugins/tmux_tool/hooks.py``.

Standard library only: this must run before the packages it installs exist.
"""

from __future__ import annotations

import importlib
import importlib.util
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

REQUIREMENTS = ("pyte==0.8.2", "wcwidth", "regex")
"""What the tool imports beyond the standard library: pyte, and wcwidth, which it uses directly too; regex,
whose searches take a time limit (a `wait` pattern that backtracks without end cannot hold a call)."""

MODULES = ("pyte", "wcwidth", "regex")
PIP_TIMEOUT = 600.0


def missing() -> list[str]:
    """The modules this Python cannot import yet."""
    importlib.invalidate_caches()
    return [name for name in MODULES if importlib.util.find_spec(name) is None]


def install() -> None:
    """Make this Python able to run the tool; raise with what to do if it cannot be done."""
    absent = missing()
    if absent:
        command = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", *REQUIREMENTS]
        print(f"tmux_tool: installing {', '.join(REQUIREMENTS)} into {sys.prefix}", flush=True)
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=PIP_TIMEOUT, check=False)
            said = (done.stderr or done.stdout).strip().splitlines()[-3:]
        except (OSError, subprocess.TimeoutExpired) as exc:
            said = [str(exc)]
        absent = missing()
        if absent:
            raise RuntimeError(
                f"tmux_tool cannot run without the Python package{'s' if len(absent) > 1 else ''} "
                f"{', '.join(absent)}, and installing into {sys.prefix} failed ({' '.join(said) or 'no output'}). Run "
                f"`{shlex.join(command)}` where it can reach PyPI, then install the plugin again.")
    print(f"tmux_tool: {', '.join(MODULES)} importable by {sys.executable}", flush=True)
    if shutil.which("tmux") is None:
        print("tmux_tool: tmux is not installed, and the tool needs it: install it with "
              "`apt-get install -y tmux` (in Agent Zero's container: "
              "`docker exec -it <container> apt-get install -y tmux`)", flush=True)


def _library(module: str) -> ModuleType:
    """A module of the library (``private.teardown``), loaded by its path.

    The library is imported as a package of a name of its own, so its modules'
    relative imports work wherever Agent Zero put the plugin; only modules that
    need nothing beyond the standard library may be asked for.
    """
    folder = Path(__file__).resolve().parent / "python" / "helpers" / "tmux_tool"
    name = "tmux_tool_hooks"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        if spec is None or spec.loader is None:
            raise RuntimeError(f"tmux_tool's library is missing: {folder}")
        package = importlib.util.module_from_spec(spec)
        sys.modules[name] = package  # its modules import each other through it
        spec.loader.exec_module(package)
    return importlib.import_module(f"{name}.{module}")


def uninstall() -> None:
    """End the private tmux server of the tool and remove its state; never the shared one."""
    print(f"tmux_tool: {_library('private.teardown').end_private()}", flush=True)


if __name__ == "__main__":
    try:
        install()
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
