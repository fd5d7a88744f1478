"""The tool where Agent Zero's plugin loader looks for it: ``<plugin>/tools/tmux_tool.py``.

From v0.9.9 Agent Zero installs a plugin by putting this repository into
``usr/plugins/tmux_tool/`` and finds a tool as ``tools/<tool name>.py`` of each
enabled plugin, loading that file by its path.  The tool is
``python/tools/tmux_tool.py`` of the same tree; it is imported here by its
full name, ``usr.plugins.tmux_tool.python.tools.tmux_tool``, the way Agent
Zero asks plugin code to be imported, so the library comes in under the
plugin's name too and Agent Zero's refresh of a changed plugin (which forgets
``usr.plugins`` modules) loads the new code.
"""

from importlib import import_module
from pathlib import Path

TmuxTool = import_module(f"usr.plugins.{Path(__file__).resolve().parents[1].name}.python.tools.tmux_tool").TmuxTool
