"""Installing into Agent Zero, both layouts, and loading the tool the way Agent Zero does.

Each test builds a minimal Agent Zero tree in a temporary folder - the
framework's ``Tool``/``Response`` shaped exactly as Agent Zero defines them,
``python/helpers/tool.py`` up to v0.9.8 or ``helpers/tool.py`` plus
``plugins/`` from v0.9.9 - and runs the real install command on it.  The tool
is then loaded in a separate Python process started in that tree (Agent Zero
runs from its root, so its packages resolve there, not ours): the file is
imported from its path with ``spec_from_file_location`` under its bare name,
the ``Tool`` subclass is found by walking ``inspect.getmembers`` in reverse
alphabetical order, constructed as ``Tool(agent, name, method, args, message,
loop_data)`` and awaited with ``execute(**args)`` - which drives a real tmux
server on a socket of the test's own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from python.helpers.tmux_tool.frontends import install as installer

REPO = Path(__file__).resolve().parents[2]

TOOL_PY = '''\
from abc import abstractmethod
from dataclasses import dataclass
from typing import Any


@dataclass
class Response:
    message: str
    break_loop: bool
    additional: dict[str, Any] | None = None


class Tool:
    def __init__(self, agent, name: str, method: str | None, args: dict[str, str], message: str,
                 loop_data, **kwargs) -> None:
        self.agent = agent
        self.name = name
        self.method = method
        self.args = args
        self.loop_data = loop_data
        self.message = message
        self.progress: str = ""

    @abstractmethod
    async def execute(self, **kwargs) -> Response:
        pass
'''

# What Agent Zero's get_tool + helpers/modules.py do, written out; prints one JSON line per call.
DRIVER = '''\
import asyncio, importlib.util, inspect, json, os, sys
sys.path.insert(0, os.getcwd())
{import_line}

def load(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path).replace(".py", ""), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for _, cls in reversed(inspect.getmembers(module, inspect.isclass)):
        if cls is not Tool and issubclass(cls, Tool):
            return cls
    raise SystemExit("no Tool subclass in " + path)

async def main():
    for method, args in json.loads(sys.argv[2]):
        cls = load(sys.argv[1])  # Agent Zero loads the file again for every call
        tool = cls(agent=None, name="tmux_tool", method=method, args=args, message="{{}}", loop_data=None)
        response = await tool.execute(**args)
        print(json.dumps({{"cls": cls.__name__, "response": type(response).__module__ + "." +
                          type(response).__name__, "message": response.message,
                          "break_loop": response.break_loop}}))

asyncio.run(main())
'''


def make_tree(root: Path, layout: str) -> Path:
    """A minimal Agent Zero tree of ``layout`` ("legacy" up to v0.9.8, "plugin" from v0.9.9)."""
    root.mkdir(parents=True)
    (root / "agent.py").write_text("# Agent Zero's agent module\n")
    (root / "prompts").mkdir()
    (root / "usr" / "skills").mkdir(parents=True)
    if layout == "legacy":
        helpers = root / "python" / "helpers"
        helpers.mkdir(parents=True)
        (root / "python" / "__init__.py").write_text("")
        (root / "python" / "tools").mkdir()
        (root / "python" / "tools" / "response.py").write_text("# a built-in tool\n")
    else:
        helpers = root / "helpers"
        helpers.mkdir()
        (root / "tools").mkdir()
        (root / "plugins" / "_code_execution").mkdir(parents=True)
        (root / "usr" / "plugins").mkdir(parents=True)
    (helpers / "__init__.py").write_text("")
    (helpers / "tool.py").write_text(TOOL_PY)
    return root


def tree_state(root: Path) -> dict[str, bytes]:
    """Every file of the tree with its content, bytecode left out."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def run_install(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "python.tools.tmux_tool", "install", str(root), *extra],
                          cwd=REPO, capture_output=True, text=True, timeout=60, check=False)


def load_and_call(root: Path, tool_file: str, layout: str, calls: list[tuple[str | None, dict]]) -> list[dict]:
    """Load the installed tool inside the Agent Zero tree and ``execute`` each call."""
    import_line = ("from python.helpers.tool import Tool, Response" if layout == "legacy"
                   else "from helpers.tool import Tool, Response")
    driver = root / "tmp_driver.py"
    driver.write_text(DRIVER.format(import_line=import_line))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    try:
        proc = subprocess.run([sys.executable, str(driver), str(root / tool_file), json.dumps(calls)],
                              cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False)
    finally:
        driver.unlink()
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


LAYOUTS = {
    "legacy": ("python/tools/tmux_tool.py", [
        "python/helpers/tmux_tool/__init__.py", "python/helpers/tmux_tool/programs/__init__.py",
        "prompts/agent.system.tool.tmux_tool.md", "prompts/fw.tmux_tool.busy_after_timeout.md",
        "usr/skills/terminal-orchestration/SKILL.md",
        "usr/skills/terminal-orchestration/reference/claude-code.md"]),
    "plugin": ("usr/plugins/tmux_tool/tools/tmux_tool.py", [
        "usr/plugins/tmux_tool/plugin.yaml", "usr/plugins/tmux_tool/helpers/tmux_tool/__init__.py",
        "usr/plugins/tmux_tool/prompts/agent.system.tool.tmux_tool.md",
        "usr/plugins/tmux_tool/prompts/fw.tmux_tool.busy_after_timeout.md",
        "usr/plugins/tmux_tool/skills/terminal-orchestration/SKILL.md"]),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_install_load_call_reinstall_uninstall(layout: str, tmp_path: Path, private_socket: str) -> None:
    root = make_tree(tmp_path / "a0", layout)
    before = tree_state(root)
    tool_file, expected = LAYOUTS[layout]

    done = run_install(root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ("plugin" in done.stdout) == (layout == "plugin")
    for rel in [tool_file, *expected]:
        assert (root / rel).is_file(), rel
    if layout == "plugin":
        meta = (root / "usr/plugins/tmux_tool/plugin.yaml").read_text()
        assert "name: tmux_tool\n" in meta and "title: " in meta and "description: " in meta
        assert f"version: {installer.version()}\n" in meta

    results = load_and_call(root, tool_file, layout, [
        (None, {"action": "run", "command": "echo installed-$((6*7))"}),
        (None, {"action": "read", "session": "scratch"}),
        ("status", {"session": "scratch"}),  # "tool_name": "tmux_tool:status"
        (None, {"action": "run", "command": "exit 3", "session": "shell-ends"}),
    ])
    for r in results:
        assert r["cls"] == "TmuxTool" and r["break_loop"] is False
        expected_module = "python.helpers.tool" if layout == "legacy" else "helpers.tool"
        assert r["response"] == f"{expected_module}.Response"  # the framework's own class, not a stand-in
    run_msg, read_msg, status_msg, exit_msg = (r["message"] for r in results)
    assert run_msg.startswith("ok · status: ready · exit code: 0") and "installed-42" in run_msg
    assert "installed-42" in read_msg and "echo installed-$((6*7))" in read_msg
    assert status_msg.startswith("ok · status: ready")
    assert "exit code: 3" in exit_msg and "fresh shell" in exit_msg

    manifest = root / (installer.LEGACY if layout == "legacy" else installer.PLUGIN).manifest
    stamp = {rel: (root / rel).stat().st_mtime_ns for rel in [tool_file, *expected]}
    manifest_stamp = manifest.stat().st_mtime_ns
    again = run_install(root)
    assert again.returncode == 0 and "nothing to change" in again.stdout, again.stdout
    assert {rel: (root / rel).stat().st_mtime_ns for rel in stamp} == stamp
    assert manifest.stat().st_mtime_ns == manifest_stamp

    gone = run_install(root, "--uninstall")
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert tree_state(root) == before
    leftovers = [p for p in root.rglob("*") if "tmux" in p.name or "terminal-orchestration" in p.name]
    assert not leftovers, leftovers
    assert "nothing to remove" in run_install(root, "--uninstall").stdout


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "a0", "plugin")
    before = tree_state(root)
    done = run_install(root, "--dry-run")
    assert done.returncode == 0 and "would add" in done.stdout and "dry run" in done.stdout
    assert tree_state(root) == before


def test_refuses_a_foreign_file_and_changes_nothing(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "a0", "legacy")
    (root / "python/tools/tmux_tool.py").write_text("# another tmux tool of the user's\n")
    before = tree_state(root)
    done = run_install(root)
    assert done.returncode == 1
    assert "python/tools/tmux_tool.py exists and was not written by this installer" in done.stdout
    assert tree_state(root) == before


def test_refuses_a_tree_that_is_not_agent_zero(tmp_path: Path) -> None:
    done = run_install(tmp_path)
    assert done.returncode == 1 and "does not look like Agent Zero" in done.stderr


def test_edited_files_survive_update_and_uninstall(tmp_path: Path) -> None:
    """A tuned prompt is never overwritten or deleted; stale files of an older version go."""
    source = tmp_path / "checkout"
    for rel in ("python/tools/tmux_tool.py", "pyproject.toml"):
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        (source / rel).write_bytes((REPO / rel).read_bytes())
    for rel in ("python/helpers/tmux_tool", "prompts", "skills/terminal-orchestration"):
        shutil.copytree(REPO / rel, source / rel, ignore=shutil.ignore_patterns("__pycache__"))
    (source / "python/helpers/tmux_tool/old_module.py").write_text("# removed in the next version\n")
    root = make_tree(tmp_path / "a0", "plugin")

    first = installer.install(root, source=source)
    assert first.ok
    plugin = root / "usr/plugins/tmux_tool"
    tuned = plugin / "prompts/fw.tmux_tool.blocked.md"
    tuned.write_text("my own wording for {{program}}\n")

    (source / "python/helpers/tmux_tool/old_module.py").unlink()
    (source / "skills/terminal-orchestration/reference/new-page.md").write_text("# new page\n")
    refused = installer.install(root, source=source)
    assert not refused.ok and "prompts/fw.tmux_tool.blocked.md was changed since it was installed" in \
        refused.text()
    assert (plugin / "helpers/tmux_tool/old_module.py").exists()  # nothing happened

    tuned.write_bytes((source / "prompts/fw.tmux_tool.blocked.md").read_bytes())
    updated = installer.install(root, source=source)
    assert updated.ok, updated.text()
    assert "remove (no longer part of it) 1 file" in updated.text()
    assert not (plugin / "helpers/tmux_tool/old_module.py").exists()
    assert (plugin / "skills/terminal-orchestration/reference/new-page.md").is_file()

    tuned.write_text("my own wording for {{program}}\n")
    removed = installer.uninstall(root)
    assert "kept usr/plugins/tmux_tool/prompts/fw.tmux_tool.blocked.md" in removed.text()
    assert tuned.read_text() == "my own wording for {{program}}\n"
    assert sorted(p.relative_to(root).as_posix() for p in plugin.rglob("*") if p.is_file()) == [
        "usr/plugins/tmux_tool/prompts/fw.tmux_tool.blocked.md"]
    assert "left folder usr/plugins/tmux_tool/prompts" in removed.text()
