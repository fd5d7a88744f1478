"""How Agent Zero finds and runs a tool, its prompts, skills and plugin hooks - written out for tests.

This module is copied to the root of a temporary Agent Zero tree as its
``agent.py`` and imported from there, the way Agent Zero's own modules import
each other (its root is the working folder and first on ``sys.path``).  It
re-implements, from a reading of Agent Zero's source, the parts that decide
whether an installed tool works; the version it behaves like is
``A0_VERSION`` in the environment, ``1.7`` (the layout of v0.9.9 and every
v1.x) or ``0.9.8`` (the layout before).  Each function names the Agent Zero
file and function it follows.  What is left out is named too: nothing of it
touches a tool that ships no prompt plugins (``<prompt>.py``), no
``{{if}}`` blocks in its prompts and no secrets.
"""

from __future__ import annotations

import asyncio
import glob
import importlib
import importlib.util
import inspect
import json
import os
import re
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

VERSION = os.environ.get("A0_VERSION", "1.7")
V1 = VERSION != "0.9.8"
BASE = os.path.dirname(os.path.abspath(__file__))


# --- helpers/files.py ------------------------------------------------------------
def abs_path(*parts: str) -> str:
    """``files.get_abs_path``: paths are relative to the Agent Zero root."""
    return os.path.join(BASE, *parts)


def find_file_in_dirs(name: str, dirs: list[str]) -> str:
    """``files.find_file_in_dirs``: the first folder of the list that holds the file wins."""
    for folder in dirs:
        path = abs_path(folder, name)
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"File '{name}' not found in any of the provided directories.")


def read_prompt_file(name: str, dirs: list[str], **values: Any) -> str:
    """``files.read_prompt_file``: find, fill ``{{key}}`` placeholders, then resolve includes.

    A name with a folder part searches that folder first.  Left out: the
    ``<prompt>.py`` variables plugins and ``{{if}}`` blocks (none in tmux_tool's
    files; ``test_agent_zero_install`` checks that).
    """
    if os.path.dirname(name):
        dirs = [os.path.dirname(name), *dirs]
        name = os.path.basename(name)
    path = find_file_in_dirs(name, dirs)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", str(value))
    return process_includes(text, dirs, name, os.path.dirname(path), **values)


def process_includes(text: str, dirs: list[str], source: str, source_dir: str, **values: Any) -> str:
    """``files.process_includes``: ``{{include original}}`` and ``{{ include 'file' }}``."""
    def original(_m: re.Match[str]) -> str:
        later: list[str] = []
        found = False
        for folder in dirs:
            if found:
                later.append(folder)
            elif os.path.normpath(abs_path(folder)) == os.path.normpath(source_dir):
                found = True
        try:
            return read_prompt_file(source, later, **values) if later else ""
        except FileNotFoundError:
            return ""

    def named(m: re.Match[str]) -> str:
        try:
            return read_prompt_file(m.group(1), dirs, **values)
        except FileNotFoundError:
            return m.group(0)

    text = re.sub(r"{{\s*include\s+original\s*}}", original, text)
    return re.sub(r"{{\s*include\s*['\"](.*?)['\"]\s*}}", named, text)


def unique_files(dirs: list[str], pattern: str) -> list[str]:
    """``files.get_unique_filenames_in_dirs``: one path per file name, the earlier folder wins."""
    seen: dict[str, str] = {}
    for folder in dirs:
        for path in glob.glob(os.path.join(abs_path(folder), pattern)):
            if os.path.isfile(path):
                seen.setdefault(os.path.basename(path), path)
    return [seen[name] for name in sorted(seen)]


# --- helpers/modules.py ------------------------------------------------------------
def import_file(path: str) -> ModuleType:
    """``modules.import_module``: by path, named after the file, not put in ``sys.modules``."""
    path = abs_path(path)
    spec = importlib.util.spec_from_file_location(os.path.basename(path).replace(".py", ""), path)
    if spec is None or spec.loader is None:
        raise ImportError(path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def classes_in_file(path: str, base: type) -> list[type]:
    """``modules.load_classes_from_file``: the first subclass of ``base``, members walked backwards."""
    members = inspect.getmembers(import_file(path), inspect.isclass)
    return [cls for _name, cls in reversed(members) if cls is not base and issubclass(cls, base)][:1]


def classes_in_folder(folder: str, base: type) -> list[type]:
    """``modules.load_classes_from_folder``: one class per ``*.py`` file, files in name order."""
    found: list[type] = []
    for name in sorted(f for f in os.listdir(abs_path(folder)) if f.endswith(".py")):
        found.extend(classes_in_file(os.path.join(folder, name), base))
    return found


# --- helpers/plugins.py (v0.9.9 and later) ------------------------------------------
def plugin_roots(name: str = "") -> list[str]:
    """``plugins.get_plugin_roots``: ``usr/plugins`` before ``plugins``."""
    return [abs_path("usr", "plugins", name), abs_path("plugins", name)]


def plugins_list() -> list[str]:
    """``plugins.get_plugins_list``: folders with a ``plugin.yaml``, the first root wins a name."""
    names: list[str] = []
    for root in plugin_roots():
        if not os.path.isdir(root):
            continue
        for entry in sorted(Path(root).iterdir()):
            if entry.is_dir() and not entry.name.startswith(".") and entry.name not in names \
                    and (entry / "plugin.yaml").is_file():
                names.append(entry.name)
    return sorted(names)


def find_plugin_dir(name: str) -> str | None:
    """``plugins.find_plugin_dir``: ``usr/plugins/<name>`` if it has a manifest, else ``plugins/<name>``."""
    for root in plugin_roots(name):
        if os.path.isfile(os.path.join(root, "plugin.yaml")):
            return root
    return None


def enabled_plugins(agent: Agent | None) -> list[str]:
    """``plugins.get_enabled_plugins``: on unless a ``.toggle-0`` says otherwise.

    The folders are read from the least to the most specific (``plugins``,
    ``usr/plugins``, then a project's); once off, only a ``.toggle-1`` turns it
    back on.
    """
    active = []
    for name in plugins_list():
        paths = plugin_roots(name)
        if agent is not None:
            paths = get_paths(agent, "plugins", name, include_user=False, include_default=False,
                              include_plugins=False) + paths
        on = True
        for path in reversed(paths):
            on = not os.path.exists(os.path.join(path, ".toggle-0")) if on \
                else os.path.exists(os.path.join(path, ".toggle-1"))
        if on:
            active.append(name)
    return active


def enabled_plugin_paths(agent: Agent | None, *sub: str) -> list[str]:
    """``plugins.get_enabled_plugin_paths``: ``<plugin>/<sub...>`` of each enabled plugin that exists."""
    paths: list[str] = []
    for name in enabled_plugins(agent):
        base = find_plugin_dir(name)
        if base is None:
            continue
        paths.extend(sorted(glob.glob(os.path.join(base, *sub), recursive=True)) if sub else [base])
    return paths


def toggle_plugin(name: str, enabled: bool) -> None:
    """``plugins.toggle_plugin`` at the global scope: one switch file in ``usr/plugins/<name>/``."""
    folder = abs_path("usr", "plugins", name)
    for switch in (".toggle-0", ".toggle-1"):
        Path(folder, switch).unlink(missing_ok=True)
    os.makedirs(folder, exist_ok=True)
    Path(folder, ".toggle-1" if enabled else ".toggle-0").write_text("")


def call_plugin_hook(name: str, hook: str, default: Any = None, *args: Any, **kwargs: Any) -> Any:
    """``plugins.call_plugin_hook``: import ``<plugin>/hooks.py`` and call the function if it has one.

    It runs in the Python of the framework (this process); a coroutine
    function is run to its end; what it raises reaches the caller (the plugin
    installer then removes the plugin again and shows the error).
    """
    folder = find_plugin_dir(name)
    if folder is None or not os.path.isfile(os.path.join(folder, "hooks.py")):
        return default
    func = getattr(import_file(os.path.join(folder, "hooks.py")), hook, None)
    if func is None:
        return default
    if asyncio.iscoroutinefunction(func):
        return asyncio.run(func(*args, **kwargs))
    return func(*args, **kwargs)


def delete_plugin(name: str) -> None:
    """``plugins.uninstall_plugin`` and ``delete_plugin``: the ``uninstall`` hook, then the folder."""
    call_plugin_hook(name, "uninstall")
    folder = find_plugin_dir(name)
    if folder is None or not folder.startswith(abs_path("usr", "plugins")):
        raise ValueError("Only custom plugins can be deleted")
    shutil.rmtree(folder)


# --- helpers/projects.py, helpers/subagents.py ---------------------------------------
def project_meta(project: str, *sub: str) -> str:
    """``projects.get_project_meta`` (``get_project_meta_folder`` in v0.9.8)."""
    return abs_path("usr", "projects", project, ".a0proj", *sub)


def get_paths(agent: Agent | None, *sub: str, default_root: str = "", include_user: bool = True,
              include_default: bool = True, include_plugins: bool = True) -> list[str]:
    """``subagents.get_paths``: every folder that may hold ``sub``, most specific first.

    project agent profile, project, ``usr/agents/<profile>``, enabled plugins'
    ``agents/<profile>`` (v1), ``agents/<profile>``, ``usr``, enabled plugins (v1),
    then the default root; only the ones that exist.
    """
    paths: list[str] = []
    profile = agent.profile if agent else ""
    project = agent.project if agent else ""
    use_plugins = V1 and include_plugins

    def add(path: str) -> None:
        if os.path.exists(path) and path not in paths:
            paths.append(path)

    if project and profile:
        add(project_meta(project, "agents", profile, *sub))
    if project:
        add(project_meta(project, *sub))
    if profile:
        add(abs_path("usr", "agents", profile, *sub))
        if use_plugins:
            for folder in enabled_plugin_paths(agent, "agents", profile):
                add(os.path.join(folder, *sub))
        add(abs_path("agents", profile, *sub))
    if include_user:
        add(abs_path("usr", *sub))
    if use_plugins:
        for folder in enabled_plugin_paths(agent):
            add(os.path.join(folder, *sub))
    if include_default:
        add(abs_path(default_root, *sub))
    return paths


# --- helpers/log.py ------------------------------------------------------------------
@dataclass
class LogItem:
    """``log.LogItem``: what the web UI shows of one step; every update is kept here to look at."""

    type: str
    heading: str
    content: str
    kvps: dict[str, Any] | None
    id: str
    updates: list[dict[str, Any]] = field(default_factory=list)

    def update(self, **changes: Any) -> None:
        for key, value in changes.items():
            if value is not None and key in ("type", "heading", "content", "kvps"):
                setattr(self, key, value)
        self.updates.append({k: v for k, v in changes.items() if v is not None})


class Log:
    """``log.Log``: the context's list of items."""

    def __init__(self) -> None:
        self.items: list[LogItem] = []

    def log(self, type: str, heading: str = "", content: str = "", kvps: dict[str, Any] | None = None,
            id: str | None = None, **_: Any) -> LogItem:
        item = LogItem(type, heading, content, kvps, id or str(uuid.uuid4()))
        self.items.append(item)
        return item


# --- agent.py --------------------------------------------------------------------------
class InterventionException(Exception):
    """``agent.InterventionException``: the human spoke while a tool ran."""


@dataclass
class LoopData:
    current_tool: Any = None


@dataclass
class Context:
    log: Log = field(default_factory=Log)
    paused: bool = False


class Agent:
    """The parts of ``agent.Agent`` a tool meets."""

    agent_name = "A0"

    def __init__(self, profile: str = "", project: str = "") -> None:
        self.profile, self.project = profile, project
        self.context = Context()
        self.loop_data = LoopData()
        self.intervention: str | None = None
        self.history: list[dict[str, Any]] = []
        self.data: dict[str, Any] = {}
        self.last_tool: Any = None

    # prompts
    def read_prompt(self, file: str, **values: Any) -> str:
        """``Agent.read_prompt``: the prompt folders of this agent, most specific first."""
        return read_prompt_file(file, get_paths(self, "prompts"), **values)

    def tools_prompt(self) -> str:
        """The tool list of the system prompt.

        v1: ``extensions/python/system_prompt/_11_tools_prompt.py:build_prompt`` -
        every ``agent.system.tool.*.md`` of the prompt folders (earlier folder
        wins a name), each read with ``read_prompt``, inside ``agent.system.tools.md``.
        v0.9.8: ``prompts/agent.system.tools.py`` (a variables plugin of
        ``agent.system.tools.md``) - the same search over the root and the prompt
        folders, each file read from its own folder.
        """
        if V1:
            parts = [self.read_prompt(os.path.basename(f))
                     for f in unique_files(get_paths(self, "prompts"), "agent.system.tool.*.md")]
        else:
            parts = [read_prompt_file(f, [])
                     for f in unique_files([abs_path(""), *get_paths(self, "prompts")], "agent.system.tool.*.md")]
        return self.read_prompt("agent.system.tools.md", tools="\n\n".join(parts))

    # history
    def hist_add_tool_result(self, tool_name: str, text: str, **kwargs: Any) -> None:
        self.history.append({"tool": tool_name, "result": text, **kwargs})

    def hist_add_warning(self, text: str) -> None:
        self.history.append({"warning": text})

    # tools
    def get_tool(self, name: str, method: str | None, args: dict[str, Any], message: str) -> Any:
        """``Agent.get_tool``: the first ``tools/<name>.py`` of the agent's folders that imports.

        v0.9.8 passes ``default_root="python"`` (built-ins in ``python/tools``);
        a file that fails to import is skipped; nothing found is ``Unknown``.
        """
        tool_base = importlib.import_module("helpers.tool" if V1 else "python.helpers.tool").Tool
        classes: list[type] = []
        for path in get_paths(self, "tools", name + ".py", default_root="" if V1 else "python"):
            try:
                classes = classes_in_file(path, tool_base)
                break
            except Exception:  # noqa: BLE001, S112 - as Agent Zero: try the next folder
                continue
        cls = classes[0] if classes else importlib.import_module("tools.unknown" if V1 else
                                                                 "python.tools.unknown").Unknown
        return cls(agent=self, name=name, method=method, args=args, message=message, loop_data=self.loop_data)

    async def validate_tool_request(self, request: Any) -> None:
        """``Agent.validate_tool_request`` (v0.9.9 and later), an ``@extensible`` function.

        Its ``start`` extensions (``extensions/python/_functions/agent/Agent/
        validate_tool_request/start/`` of the agent's folders) run first and may
        change the request; then a request without a tool name or with empty
        ``tool_args`` is refused.
        """
        data = {"args": (self, request), "kwargs": {}}
        await call_extensions("_functions/agent/Agent/validate_tool_request/start", self, data=data)
        request = data["args"][1]
        if not isinstance(request, dict):
            raise ValueError("Tool request must be a dictionary")  # noqa: TRY004 - as Agent Zero
        if not request.get("tool_name") or not isinstance(request.get("tool_name"), str):
            raise ValueError("Tool request must have a tool_name (type string) field")
        if not request.get("tool_args") or not isinstance(request.get("tool_args"), dict):
            raise ValueError("Tool request must have a tool_args (type dictionary) field")

    async def process_tools(self, message: str) -> Any:
        """``Agent.process_tools``: parse the reply, find the tool, run its steps in order.

        The reply's JSON object is read (Agent Zero parses it leniently; the
        tests send valid JSON), ``tool_name`` may be ``name:method``, and the
        steps are ``before_execution``, ``execute``, ``after_execution`` with the
        pause/intervention check between them.
        """
        start, end = message.find("{"), message.rfind("}")
        request = json.loads(message[start:end + 1])
        if V1:
            await self.validate_tool_request(request)
        raw = request.get("tool_name", request.get("tool", ""))
        args = request.get("tool_args", request.get("args", {}))
        name, _, method = raw.partition(":")
        tool = self.last_tool = self.get_tool(name, method or None, args, message)
        self.loop_data.current_tool = tool
        try:
            await self.handle_intervention()
            await tool.before_execution(**args)
            await self.handle_intervention()
            response = await tool.execute(**args)
            await self.handle_intervention()
            await tool.after_execution(response)
            await self.handle_intervention()
            return response
        finally:
            self.loop_data.current_tool = None

    async def handle_intervention(self, progress: str = "") -> None:
        """``Agent.handle_intervention``: wait while paused; on a human message keep the tool's progress."""
        while self.context.paused:
            await asyncio.sleep(0.1)
        if self.intervention:
            message, self.intervention = self.intervention, None
            tool = self.loop_data.current_tool
            if tool is not None and tool.progress.strip():
                self.hist_add_tool_result(tool.name, tool.progress)
            self.history.append({"user": message, "intervention": True})
            raise InterventionException(message)


# --- helpers/extension.py ----------------------------------------------------------------
async def call_extensions(point: str, agent: Agent | None, **kwargs: Any) -> None:
    """``extension.call_extensions_async``: the ``extensions/python/<point>/`` classes of the agent's folders.

    A file name seen in a more specific folder hides the same name later;
    the classes run in file-name order.
    """
    from helpers.extension import Extension  # type: ignore[import-not-found]  # the tree's own

    unique: dict[str, type] = {}
    for folder in get_paths(agent, "extensions/python", point):
        for cls in classes_in_folder(folder, Extension):
            unique.setdefault(cls.__module__.split(".")[-1], cls)
    for file in sorted(unique):
        result = unique[file](agent=agent).execute(**kwargs)
        if inspect.isawaitable(result):
            await result


# --- helpers/skills.py ------------------------------------------------------------------
@dataclass
class Skill:
    name: str
    description: str
    path: str


def split_frontmatter(text: str) -> tuple[dict[str, Any], str] | None:
    """``skills.split_frontmatter``: a ``---`` fence first (blank lines before it allowed), closed."""
    lines = text.splitlines()
    start = None
    for i, line in enumerate(lines):
        if line.strip() == "---":
            start = i
            break
        if line.strip():
            return None
    if start is None:
        return None
    end = next((j for j in range(start + 1, len(lines)) if lines[j].strip() == "---"), None)
    if end is None:
        return None
    return parse_frontmatter("\n".join(lines[start + 1:end])), "\n".join(lines[end + 1:]).strip()


def parse_frontmatter(text: str) -> dict[str, Any]:
    """``skills.parse_frontmatter``: PyYAML when installed, else the small fallback parser."""
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        yaml = None
    if yaml is not None:
        parsed = yaml.safe_load(text)
        return parsed if isinstance(parsed, dict) else {}
    data: dict[str, Any] = {}
    key = None
    for raw in text.splitlines():
        if not raw.strip() or raw.strip().startswith("#"):
            continue
        if m := re.match(r"^([A-Za-z0-9_.-]+)\s*:\s*(.*)$", raw):
            key, value = m.group(1), m.group(2).strip()
            if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            data[key] = value if value else []
        elif (m := re.match(r"^\s*-\s*(.*)$", raw)) and key:
            if not isinstance(data.get(key), list):
                data[key] = []
            data[key].append(m.group(1).strip().strip("\"'"))
    return data


def skill_from(path: Path) -> Skill | None:
    """``skills.skill_from_markdown`` with ``validate_skill``: a bad fence or name drops the skill."""
    split = split_frontmatter(path.read_text(encoding="utf-8", errors="replace"))
    if split is None:
        return None
    fm, _body = split
    name = str(fm.get("name") or fm.get("skill") or "").strip()
    description = str(fm.get("description") or fm.get("when_to_use") or fm.get("summary") or "").strip()
    if not name or not 1 <= len(name) <= 64 or not re.match(r"^[a-z0-9-]+$", name) \
            or name.startswith("-") or name.endswith("-") or "--" in name:
        return None
    if not description or len(description) > 1024:
        return None
    return Skill(name, description, str(path.parent))


def list_skills(agent: Agent) -> list[Skill]:
    """``skills.list_skills`` for an agent: every ``SKILL.md`` under its ``skills`` folders, first name wins."""
    found: dict[str, Skill] = {}
    for root in get_paths(agent, "skills"):
        for md in sorted(Path(root).rglob("SKILL.md"), key=str):
            if any(part.startswith(".") for part in md.relative_to(root).parts) or not md.is_file():
                continue
            skill = skill_from(md)
            if skill is not None:
                found.setdefault(re.sub(r"\s+", "-", skill.name.lower()), skill)
    return list(found.values())
