"""Installed into Agent Zero - both layouts - and loaded the way Agent Zero loads it.

Each test builds a small Agent Zero tree in a temporary folder and puts the
tool in it the way a user does: Agent Zero's Plugin Hub (which clones this
repository into ``usr/plugins/<name>/``) or the installer
(``python/helpers/tmux_tool/frontends/install.py``).  ``tests/integration/agent_zero/``
then plays Agent Zero in a separate Python process started in that tree: its
``agent.py`` re-implements, with the Agent Zero file and function named on
each part, how v0.9.9+ (``A0_VERSION=1.7``) and v0.9.8 find tools
(``Agent.get_tool``, ``subagents.get_paths``, ``modules.load_classes_from_file``),
check tool requests (``Agent.validate_tool_request`` and its ``_functions``
extensions), run them (``Agent.process_tools``, ``Tool.before_execution`` /
``after_execution`` / ``set_progress``, ``Agent.handle_intervention``), build the
tool list of the system prompt (``_11_tools_prompt.py`` / ``prompts/agent.system.tools.py``),
resolve prompt files (``Agent.read_prompt``, ``files.read_prompt_file``), list
skills (``helpers/skills.py``), discover and switch plugins and call their hooks
(``helpers/plugins.py``).  The tool drives a real tmux server of the test's own.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from python.helpers.tmux_tool import call as tool_call
from python.helpers.tmux_tool.frontends import install as installer
from python.helpers.tmux_tool.transport import kernel
from tests.gates import Gate

from ..conftest import poll

REPO = Path(__file__).resolve().parents[2]
MIRROR = Path(__file__).resolve().parent / "agent_zero"
INSTALLER = Path(installer.__file__)
V1, V098 = "1.7", "0.9.8"
PLUGIN = "usr/plugins/tmux_tool"


# --- an Agent Zero tree ----------------------------------------------------------------
def make_tree(root: Path, version: str) -> Path:
    """A minimal Agent Zero tree of ``version``, the mirror's modules where Agent Zero has its own."""
    v1 = version == V1
    for rel in ("usr/skills", "usr/agents", "usr/knowledge", "prompts", "skills/create-skill"):
        (root / rel).mkdir(parents=True, exist_ok=True)
    shutil.copy(MIRROR / "agent.py", root / "agent.py")
    shutil.copy(MIRROR / "driver.py", root / "driver.py")
    framework = root / ("helpers" if v1 else "python/helpers")
    tools = root / ("tools" if v1 else "python/tools")
    framework.mkdir(parents=True)
    tools.mkdir(parents=True)
    for package in ([framework] if v1 else [root / "python", framework, tools]):
        (package / "__init__.py").write_text("")
    shutil.copy(MIRROR / "tool.py", framework / "tool.py")
    shutil.copy(MIRROR / "extension.py", framework / "extension.py")
    shutil.copy(MIRROR / "unknown.py", tools / "unknown.py")
    (root / "prompts/agent.system.tools.md").write_text(
        "## available tools\nuse ONLY the tools listed below\n{{tools}}\n" if v1 else
        "## Tools available:\n\n{{tools}}\n")
    (root / "prompts/fw.tool_not_found.md").write_text(
        "Tool {{tool_name}} not found. Available tools: \\n{{tools_prompt}}\n")
    (root / "prompts/agent.system.tool.response.md").write_text("### response\nfinal answer to the user\n")
    (root / "skills/create-skill/SKILL.md").write_text("---\nname: create-skill\ndescription: make skills\n---\n# x\n")
    if v1:
        core = root / "plugins/_code_execution"
        (core / "prompts").mkdir(parents=True)
        (core / "plugin.yaml").write_text("name: _code_execution\ntitle: Code execution\n")
        (core / "prompts/agent.system.tool.code_exe.md").write_text("### code_execution_tool\nrun code\n")
        (root / "usr/plugins").mkdir()
    return root


def tree_state(root: Path) -> dict[str, bytes]:
    """Every file of the tree with its content, bytecode left out."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def run_installer(root: Path, *extra: str, python: str = sys.executable) -> subprocess.CompletedProcess[str]:
    """The installer as a user runs it: a script, with ``-S``: no site-packages, the standard library only."""
    return subprocess.run([python, "-S", "-I", str(INSTALLER), str(root), *extra], capture_output=True,
                          text=True, timeout=900, check=False)


def agent_zero(root: Path, version: str, steps: list[dict[str, Any]], *, python: str = sys.executable,
               profile: str = "", project: str = "", env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Run ``steps`` in the tree with the mirror of Agent Zero ``version``; one answer per step."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environ.update(env or {})
    environ["A0_VERSION"] = version
    spec = json.dumps({"profile": profile, "project": project, "steps": steps})
    proc = subprocess.run([python, str(root / "driver.py"), spec], cwd=root, env=environ, capture_output=True,
                          text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == len(steps), proc.stdout + proc.stderr
    for answer in answers:
        assert "trace" not in answer, answer["trace"]
    return answers


def reply(tool_name: str, tool_args: dict[str, Any]) -> dict[str, Any]:
    """One model reply in Agent Zero's format."""
    return {"thoughts": ["..."], "headline": "...", "tool_name": tool_name, "tool_args": tool_args}


def call(tool_args: dict[str, Any], tool_name: str = "tmux_tool", **extra: Any) -> dict[str, Any]:
    return {"op": "call", "reply": reply(tool_name, tool_args), **extra}


def plugin_hub_clone(dest: Path, source: Path = REPO) -> None:
    """What Agent Zero's plugin installer leaves from ``git clone``: the repository's files."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=source, capture_output=True,
                            text=True, timeout=60, check=True).stdout.splitlines()
    for rel in listed:
        if (source / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / rel, dest / rel)


def yaml_fields(path: Path) -> dict[str, str]:
    """The ``key: value`` lines of a flat YAML file (ours are kept that simple on purpose)."""
    fields = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        key, sep, value = line.partition(": ")
        if sep:
            fields[key] = value.strip().strip('"')
    return fields


# --- the repository is the plugin ------------------------------------------------------
def test_repository_meets_the_plugin_index_rules() -> None:
    """``plugin.yaml``, ``LICENSE`` and ``README.md`` at the root; the name rules of ``docs/developer/plugins.md``."""
    meta = yaml_fields(REPO / "plugin.yaml")
    assert re.fullmatch(r"[a-z0-9_]+", meta["name"]) and meta["name"] == "tmux_tool"
    assert meta["title"] and len(meta["title"]) <= 50 and 0 < len(meta["description"]) <= 500
    assert meta["always_enabled"] == "false"
    pyproject = re.search(r'^version = "(.+)"$', (REPO / "pyproject.toml").read_text(), re.MULTILINE)
    assert pyproject and meta["version"] == pyproject.group(1) == installer.version()
    assert (REPO / "LICENSE").read_text().startswith("MIT License")
    assert (REPO / "README.md").is_file() and (REPO / "hooks.py").is_file()
    pins = dict(line.split("==") for line in (REPO / "requirements.txt").read_text().splitlines()
                if "==" in line)
    assert f"pyte=={pins['pyte']}" in (REPO / "hooks.py").read_text()


def test_prompt_files_use_nothing_the_mirror_leaves_out() -> None:
    """The mirror skips prompt variables plugins and ``{{if}}`` blocks; none of our files has them."""
    for path in (REPO / "prompts").iterdir():
        assert path.suffix == ".md", path.name
        assert "{{if" not in path.read_text().replace(" ", ""), path.name


@pytest.mark.parametrize("version", [V1])
def test_plugin_hub_install_loads_tool_prompt_and_skill(version: str, tmp_path: Path, private_socket: str) -> None:
    root = make_tree(tmp_path / "a0", version)
    plugin_hub_clone(root / PLUGIN)
    plugins, prompt, skills, listed, run, other = agent_zero(root, version, [
        {"op": "plugins"}, {"op": "prompt"}, {"op": "skills"},
        call({}, tool_name="tmux_tool:list"),  # the method is the action; v1.x refuses empty tool_args
        call({"action": "run", "command": "echo plugin-$((6*7))"}),
        call({}, tool_name="response"),  # another tool with empty tool_args is still refused
    ])
    assert "tmux_tool" in plugins["enabled"] and "_code_execution" in plugins["enabled"]
    tools = prompt["tools"]
    assert tools.count("### tmux_tool\n") == 1 and "### code_execution_tool" in tools and "### response" in tools
    assert (root / PLUGIN / "prompts/agent.system.tool.tmux_tool.md").read_text().strip() in tools
    assert next(s for s in skills["skills"] if s["name"] == "terminal-orchestration")["path"] == \
        str(root / PLUGIN / "skills/terminal-orchestration")
    assert "error" not in listed and listed["class"] == "TmuxTool", listed
    assert listed["message"].startswith("ok · status: ready")
    assert run["class"] == "TmuxTool" and run["response_class"] == "helpers.tool.Response"
    assert run["message"].startswith("ok · status: ready · exit code: 0") and "plugin-42" in run["message"]
    assert run["module"] == "usr.plugins.tmux_tool.python.tools.tmux_tool"  # imported by its plugin name
    assert other["error"] == "ValueError: Tool request must have a tool_args (type dictionary) field"


def test_deleting_the_plugin_in_agent_zero_ends_its_private_server(tmp_path: Path, shared_terminal: Any,
                                                                   private_socket: str) -> None:
    """Agent Zero's delete calls the ``uninstall`` hook first: no tmux server of the plugin outlives it."""
    root = make_tree(tmp_path / "a0", V1)
    plugin_hub_clone(root / PLUGIN)
    run, deleted = agent_zero(root, V1, [call({"action": "run", "command": "sleep 600 &"}), {"op": "delete"}])
    assert run["message"].startswith("ok · status: ready"), run
    assert deleted["plugins"] == ["_code_execution"] and not (root / PLUGIN).exists()
    alive = subprocess.run(["tmux", "-L", private_socket, "list-sessions"], capture_output=True, text=True,
                           timeout=10, check=False)
    assert alive.returncode != 0 and "no server running" in alive.stderr, alive.stdout + alive.stderr
    assert not (Path(os.environ["TMUX_TOOL_STATE_DIR"]) / private_socket).exists()
    assert shared_terminal.tmux("list-sessions", "-F", "#{session_name}").split() == ["shared"]  # the human's


# --- the installer, both layouts --------------------------------------------------------
LAYOUT_FILES = {
    V1: [f"{PLUGIN}/{rel}" for rel in (
        "plugin.yaml", "hooks.py", "LICENSE", "README.md", "tools/tmux_tool.py", "python/tools/tmux_tool.py",
        "extensions/python/_functions/agent/Agent/validate_tool_request/start/_10_tmux_tool_args.py",
        "python/helpers/tmux_tool/__init__.py", "prompts/agent.system.tool.tmux_tool.md",
        "prompts/fw.tmux_tool.busy_after_timeout.md", "skills/terminal-orchestration/SKILL.md",
        ".install-manifest.json")],
    V098: ["usr/tools/tmux_tool.py", "usr/helpers/tmux_tool/__init__.py", "usr/helpers/tmux_tool/programs/__init__.py",
           "usr/prompts/agent.system.tool.tmux_tool.md", "usr/prompts/fw.tmux_tool.busy_after_timeout.md",
           "usr/skills/terminal-orchestration/SKILL.md", "usr/skills/terminal-orchestration/reference/codex.md",
           "usr/helpers/tmux_tool/.install-manifest.json"],
}


@pytest.mark.parametrize("version", [V1, V098])
def test_install_writes_only_under_usr_loads_runs_and_uninstalls(version: str, tmp_path: Path,
                                                                  private_socket: str) -> None:
    root = make_tree(tmp_path / "a0", version)
    before = tree_state(root)
    done = run_installer(root)
    assert done.returncode == 0, done.stdout + done.stderr
    after = tree_state(root)
    changed = {rel for rel in after if before.get(rel) != after[rel]} | set(before) - set(after)
    assert changed and all(rel.startswith("usr/") for rel in changed), sorted(changed)
    assert set(LAYOUT_FILES[version]) <= changed
    assert "hooks.py" in done.stdout and "--python" in done.stdout  # the step still to do is named

    prompt, skills, run, method, exited = agent_zero(root, version, [
        {"op": "prompt"}, {"op": "skills"},
        call({"action": "run", "command": "echo installed-$((6*7))"}),
        call({"session": "scratch"}, tool_name="tmux_tool:status"),
        call({"action": "run", "command": "exit 3", "session": "shell-ends"}),
    ])
    assert prompt["tools"].count("### tmux_tool\n") == 1 and "### response" in prompt["tools"]
    skill = [s for s in skills["skills"] if s["name"] == "terminal-orchestration"]
    assert skill and skill[0]["path"].startswith(str(root / "usr"))
    framework = "helpers.tool" if version == V1 else "python.helpers.tool"
    for answer in (run, method, exited):
        assert answer["class"] == "TmuxTool" and answer["response_class"] == f"{framework}.Response", answer
    assert run["message"].startswith("ok · status: ready · exit code: 0") and "installed-42" in run["message"]
    assert method["message"].startswith("ok · status: ready")
    assert "exit code: 3" in exited["message"] and "fresh shell" in exited["message"]
    assert run["history"][-1]["tool"] == "tmux_tool" and "installed-42" in run["history"][-1]["result"]

    again = run_installer(root)
    assert again.returncode == 0 and "nothing to change" in again.stdout, again.stdout
    assert tree_state(root) == after

    gone = run_installer(root, "--uninstall")
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert tree_state(root) == before
    assert not [p for p in root.rglob("*") if "tmux" in p.name or "terminal-orchestration" in p.name]
    assert "nothing to remove" in run_installer(root, "--uninstall").stdout


def test_uninstall_ends_the_private_server_and_what_runs_in_it(tmp_path: Path, private_socket: str) -> None:
    """``--uninstall`` ends the agent's tmux server as the plugin's uninstall hook does: nothing of it runs on."""
    root = make_tree(tmp_path / "a0", V1)
    assert run_installer(root).returncode == 0
    # A job, a job that ignores the hang-up, and one taken out of the shell's job table.
    ran = tool_call("run", command="sleep 300 & echo $!; nohup sleep 301 >/dev/null 2>&1 & echo $!; "
                                   "sleep 302 & echo $!; disown")
    assert ran["ok"], ran
    jobs = [int(line) for line in ran["output"].splitlines() if line.isdigit()]  # not the shell's "[1] 123"
    assert len(jobs) == 3, ran
    server = int(subprocess.run(["tmux", "-L", private_socket, "display-message", "-p", "#{pid}"],
                                capture_output=True, text=True, timeout=10, check=True).stdout)

    def gone(pid: int) -> bool:
        return (process := kernel.proc(pid)) is None or process.state == "Z"

    assert not any(gone(pid) for pid in [*jobs, server])
    done = run_installer(root, "--uninstall")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"ended the private tmux server {private_socket!r} with everything running in it" in done.stdout
    alive = subprocess.run(["tmux", "-L", private_socket, "list-sessions"], capture_output=True, text=True,
                           timeout=10, check=False)
    assert alive.returncode != 0 and "no server running" in alive.stderr, alive.stdout + alive.stderr
    assert gone(server)
    assert poll(lambda: all(gone(pid) for pid in jobs), timeout=5), f"jobs {jobs} outlived their tmux server"
    assert not (Path(os.environ["TMUX_TOOL_STATE_DIR"]) / private_socket).exists()


def test_toggle_off_then_uninstall_leaves_nothing_and_reinstall_is_on(tmp_path: Path, private_socket: str) -> None:
    root = make_tree(tmp_path / "a0", V1)
    before = tree_state(root)
    assert run_installer(root).returncode == 0
    off, prompt, skills, run = agent_zero(root, V1, [
        {"op": "toggle", "enabled": False}, {"op": "prompt"}, {"op": "skills"},
        call({"action": "run", "command": "echo off"}),
    ])
    assert "tmux_tool" not in off["enabled"] and (root / PLUGIN / ".toggle-0").is_file()
    assert "tmux_tool" not in prompt["tools"]
    assert "terminal-orchestration" not in [s["name"] for s in skills["skills"]]
    assert run["class"] == "Unknown" and run["message"].startswith("Tool tmux_tool not found")

    note = run_installer(root)
    assert "switched off in Agent Zero (.toggle-0)" in note.stdout, note.stdout
    gone = run_installer(root, "--uninstall")
    assert "removed Agent Zero's on/off switch of the plugin, usr/plugins/tmux_tool/.toggle-0" in gone.stdout
    assert tree_state(root) == before and not (root / PLUGIN).exists()

    assert run_installer(root).returncode == 0
    (plugins,) = agent_zero(root, V1, [{"op": "plugins"}])
    assert "tmux_tool" in plugins["enabled"]


@pytest.mark.parametrize("version", [V1, V098])
def test_prompt_overrides_of_user_profile_and_project_are_honoured(version: str, tmp_path: Path,
                                                                  private_socket: str) -> None:
    """Agent Zero's override folders apply to the hint files as they do to the tool prompt."""
    root = make_tree(tmp_path / "a0", version)
    assert run_installer(root).returncode == 0
    hint = "fw.tmux_tool.shared_run_refused.md"
    scopes = {"profile": root / "usr/agents/dev/prompts", "project": root / "usr/projects/p1/.a0proj/prompts"}
    if version == V1:  # up to v0.9.8 our own files live in usr/prompts
        scopes["user"] = root / "usr/prompts"
    for scope, folder in scopes.items():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / hint).write_text(f"{scope.upper()} WORDING: run is for private sessions\n")
    (root / "usr/agents/dev/prompts/agent.system.tool.tmux_tool.md").write_text("### tmux_tool\nPROFILE PROMPT\n")
    refused = call({"action": "run", "command": "ls", "session": "shared"})

    def answer(profile: str = "", project: str = "") -> tuple[str, str]:
        prompt, res = agent_zero(root, version, [{"op": "prompt"}, refused], profile=profile, project=project)
        return prompt["tools"], res["message"].splitlines()[1]

    tools, line = answer()
    assert line == ("error: USER WORDING: run is for private sessions" if version == V1 else
                    "error: " + (root / "usr/prompts" / hint).read_text().strip())
    assert "PROFILE PROMPT" not in tools
    tools, line = answer(profile="dev")
    assert line == "error: PROFILE WORDING: run is for private sessions"
    assert "PROFILE PROMPT" in tools and tools.count("### tmux_tool") == 1
    _tools, line = answer(profile="dev", project="p1")
    assert line == "error: PROJECT WORDING: run is for private sessions"


@pytest.mark.parametrize("version", [V1, V098])
def test_long_run_streams_its_screen_and_honours_an_intervention(version: str, tmp_path: Path,
                                                                 private_socket: str) -> None:
    root = make_tree(tmp_path / "a0", version)
    assert run_installer(root).returncode == 0
    ticks = "for i in 1 2 3; do echo tick$i; sleep 1; done"
    gate = Gate(tmp_path / "slow.go")  # the slow command runs on until the human has intervened
    streamed, stopped = agent_zero(root, version, [
        call({"action": "run", "command": ticks, "timeout": 20}),
        call({"action": "run", "command": f"echo waiting; {gate.shell}; echo finished-later", "session": "slow",
              "timeout": 30}, intervene_after=2.5),
    ])
    assert streamed["message"].startswith("ok · status: ready · exit code: 0"), streamed
    updates = [u for u in streamed["log"][0]["updates"] if "heading" in u]
    assert updates, "no progress was shown while the command ran"
    assert all(u["content"].startswith("[scratch] ") and "· scratch " in u["heading"] for u in updates)
    assert any("[scratch] busy" in u["content"] and "tick1" in u["content"] for u in updates)
    assert streamed["log"][0]["content"] == streamed["message"]  # the final result replaces the progress

    assert stopped["intervened"].startswith("the human")
    kept = [h for h in stopped["history"] if h.get("tool") == "tmux_tool"]
    assert kept and "[slow] busy" in kept[-1]["result"] and "waiting" in kept[-1]["result"]
    gate.open()
    (later,) = agent_zero(root, version, [call({"action": "wait", "session": "slow", "timeout": 30})])
    assert "finished-later" in later["message"], later  # the command went on running in its session


# --- the Python the framework runs in, and the one the agent's shells use ---------------
def make_venv(path: Path, *, pip: bool) -> Path:
    subprocess.run([sys.executable, "-m", "venv", *([] if pip else ["--without-pip"]), str(path)],
                   capture_output=True, timeout=300, check=True)
    return path


def test_hooks_install_the_packages_into_the_framework_venv_and_shells_get_the_users(
        tmp_path: Path, private_socket: str) -> None:
    """Agent Zero's image: the framework in ``/opt/venv-a0``, ``~/.bashrc`` activating the agent's ``/opt/venv``."""
    framework = make_venv(tmp_path / "venv-a0", pip=True)
    user = make_venv(tmp_path / "venv", pip=True)
    python = str(framework / "bin/python")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text(f"source {user}/bin/activate\nHISTFILE=/dev/null\n")
    env = {"HOME": str(home), "VIRTUAL_ENV": str(framework),
           "PATH": f"{framework}/bin{os.pathsep}{os.environ['PATH']}"}
    root = make_tree(tmp_path / "a0", V1)
    done = run_installer(root, python=python)  # the installer runs with the framework's Python, no pyte in it
    assert done.returncode == 0, done.stdout + done.stderr

    missing, hooked, ran, shell = agent_zero(root, V1, [
        call({"action": "run", "command": "echo hi"}),
        {"op": "hook", "hook": "install"},
        call({"action": "run", "command": "echo after-$((6*7))"}),
        call({"action": "run", "command": "command -v python pip; python -c 'import sys; print(sys.prefix)'; "
                                          "pip --version | cut -d' ' -f4"}),
    ], python=python, env=env)
    assert missing["class"] == "TmuxTool", missing  # found, and it says what is wrong
    assert missing["message"].startswith("FAILED · status: error") and "pyte" in missing["message"]
    assert f"{python} -m pip install pyte wcwidth regex" in missing["message"]
    assert "error" not in hooked, hooked
    assert ran["message"].startswith("ok · status: ready · exit code: 0") and "after-42" in ran["message"]
    site = f"{user}/lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages"
    assert shell["message"].splitlines()[1:] == [f"{user}/bin/python", f"{user}/bin/pip", str(user),
                                                 f"{site}/pip"]

    again = run_installer(root, "--python", python, python=python)  # the installer runs the hook too
    assert again.returncode == 0 and "pyte, wcwidth, regex importable by" in again.stdout, again.stdout


def test_a_failing_dependency_install_is_an_error_with_what_to_do(tmp_path: Path) -> None:
    """No pip in the framework's Python: the hook raises, so Agent Zero's installer shows it."""
    framework = make_venv(tmp_path / "venv-a0", pip=False)
    root = make_tree(tmp_path / "a0", V1)
    assert run_installer(root).returncode == 0
    (hooked,) = agent_zero(root, V1, [{"op": "hook", "hook": "install"}], python=str(framework / "bin/python"))
    assert hooked["error"].startswith("RuntimeError: tmux_tool cannot run without the Python packages pyte, "
                                      "wcwidth, regex, and installing into")
    assert "-m pip install --disable-pip-version-check pyte==0.8.2 wcwidth regex" in hooked["error"]
    failed = run_installer(root, "--python", str(framework / "bin/python"))
    assert failed.returncode == 1 and "the tool cannot run until that is fixed" in failed.stdout


# --- updates ----------------------------------------------------------------------------
def older_checkout(dest: Path, version: str = "0.0.9") -> Path:
    """A copy of this checkout as an earlier release: another version and a module since removed."""
    plugin_hub_clone(dest)
    meta = dest / "plugin.yaml"
    meta.write_text(re.sub(r"^version: .*$", f"version: {version}", meta.read_text(), flags=re.MULTILINE))
    (dest / "python/helpers/tmux_tool/old_module.py").write_text("# removed in the next version\n")
    return dest


@pytest.mark.parametrize("version", [V1, V098])
def test_reinstall_from_a_newer_checkout_updates_and_removes_what_is_gone(version: str, tmp_path: Path,
                                                                          private_socket: str) -> None:
    root = make_tree(tmp_path / "a0", version)
    old = older_checkout(tmp_path / "old")
    first = subprocess.run([sys.executable, "-S", "-I", str(old / INSTALLER.relative_to(REPO)), str(root)],
                           capture_output=True, text=True, timeout=300, check=False)
    assert first.returncode == 0, first.stdout + first.stderr
    library = root / (f"{PLUGIN}/python/helpers/tmux_tool" if version == V1 else "usr/helpers/tmux_tool")
    manifest = json.loads((library.parents[2] / ".install-manifest.json").read_text()) if version == V1 else \
        json.loads((library / ".install-manifest.json").read_text())
    assert manifest["version"] == "0.0.9" and (library / "old_module.py").is_file()

    updated = run_installer(root)
    assert updated.returncode == 0, updated.stdout
    assert "remove (no longer part of it) 1 file" in updated.stdout
    assert not (library / "old_module.py").exists()
    manifest_path = root / (installer.PLUGIN if version == V1 else installer.LEGACY).manifest
    assert json.loads(manifest_path.read_text())["version"] == installer.version()
    (run,) = agent_zero(root, version, [call({"action": "run", "command": "echo updated"})])
    assert run["message"].startswith("ok · status: ready · exit code: 0"), run


def test_an_earlier_install_outside_usr_moves_into_usr(tmp_path: Path, private_socket: str) -> None:
    """Earlier installers wrote v0.9.8's python/tools, python/helpers and prompts, which updates replace."""
    root = make_tree(tmp_path / "a0", V098)
    pristine = tree_state(root)
    old_places = {"python/tools/tmux_tool.py": REPO / "python/tools/tmux_tool.py",
                  "python/helpers/tmux_tool/api.py": REPO / "python/helpers/tmux_tool/api.py",
                  "prompts/agent.system.tool.tmux_tool.md": REPO / "prompts/agent.system.tool.tmux_tool.md",
                  "usr/skills/terminal-orchestration/SKILL.md": REPO / "skills/terminal-orchestration/SKILL.md"}
    files = {}
    for rel, source in old_places.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(source.read_bytes())
        files[rel] = installer._hash(source.read_bytes())
    (root / installer.OLD_MANIFESTS[0]).write_text(json.dumps({
        "tool": "tmux_tool", "version": "0.0.1", "layout": "old", "files": files,
        "dirs": ["python/helpers/tmux_tool", "usr/skills/terminal-orchestration"]}))

    moved = run_installer(root)
    assert moved.returncode == 0, moved.stdout
    assert "an earlier version installed outside usr/" in moved.stdout
    outside = {rel: data for rel, data in tree_state(root).items() if not rel.startswith("usr/")}
    assert outside == {rel: data for rel, data in pristine.items() if not rel.startswith("usr/")}
    (run,) = agent_zero(root, V098, [call({"action": "run", "command": "echo moved"})])
    assert "moved" in run["message"] and run["class"] == "TmuxTool"


# --- what the installer refuses -----------------------------------------------------------
def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "a0", V1)
    before = tree_state(root)
    done = run_installer(root, "--dry-run")
    assert done.returncode == 0 and "would add" in done.stdout and "dry run" in done.stdout
    assert tree_state(root) == before


def test_refuses_a_foreign_file_and_changes_nothing(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "a0", V098)
    (root / "usr/tools").mkdir()
    (root / "usr/tools/tmux_tool.py").write_text("# another tmux tool of the user's\n")
    before = tree_state(root)
    done = run_installer(root)
    assert done.returncode == 1
    assert "usr/tools/tmux_tool.py exists and was not written by this installer" in done.stdout
    assert tree_state(root) == before


def test_refuses_a_tree_that_is_not_agent_zero(tmp_path: Path) -> None:
    done = run_installer(tmp_path)
    assert done.returncode == 1 and "does not look like Agent Zero" in done.stderr


def test_edited_files_survive_update_and_uninstall(tmp_path: Path, private_socket: str) -> None:
    """A tuned prompt is never overwritten or deleted."""
    source = tmp_path / "checkout"
    plugin_hub_clone(source)
    root = make_tree(tmp_path / "a0", V1)
    assert installer.install(root, source=source).ok
    tuned = root / PLUGIN / "prompts/fw.tmux_tool.blocked.md"
    tuned.write_text("my own wording for {{program}}\n")

    (source / "skills/terminal-orchestration/reference/new-page.md").write_text("# new page\n")
    refused = installer.install(root, source=source)
    assert not refused.ok and "prompts/fw.tmux_tool.blocked.md was changed since it was installed" in \
        refused.text()
    assert not (root / PLUGIN / "skills/terminal-orchestration/reference/new-page.md").exists()

    tuned.write_bytes((source / "prompts/fw.tmux_tool.blocked.md").read_bytes())
    assert installer.install(root, source=source).ok
    assert (root / PLUGIN / "skills/terminal-orchestration/reference/new-page.md").is_file()

    tuned.write_text("my own wording for {{program}}\n")
    removed = installer.uninstall(root)
    assert "kept usr/plugins/tmux_tool/prompts/fw.tmux_tool.blocked.md" in removed.text()
    assert tuned.read_text() == "my own wording for {{program}}\n"
    assert sorted(p.relative_to(root).as_posix() for p in (root / PLUGIN).rglob("*") if p.is_file()) == [
        f"{PLUGIN}/prompts/fw.tmux_tool.blocked.md"]
    assert f"left folder {PLUGIN}/prompts" in removed.text()
