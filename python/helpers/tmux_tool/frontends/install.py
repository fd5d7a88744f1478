"""Install the tool into an Agent Zero tree, or take exactly that out again.

Agent Zero changed its layout in v0.9.9 (March 2026):

* up to v0.9.8 tools are files in ``python/tools/`` importing
  ``python.helpers.tool``; tool prompts are ``prompts/agent.system.tool.*.md``
  and user skills live in ``usr/skills/``;
* from v0.9.9 (and every v1.x) the framework sits at the root (``helpers/tool.py``)
  and third-party code ships as a plugin in ``usr/plugins/<name>/`` with a
  ``plugin.yaml`` and its own ``tools/``, ``helpers/``, ``prompts/`` and
  ``skills/`` folders, all discovered by convention.

Both put the library in a ``helpers/tmux_tool`` folder beside the ``tools``
folder that holds the tool file, which is where the tool file looks for it.

The installer is careful with the tree it writes into:

* it writes only files it can account for, and records each with its hash in a
  manifest, so ``--uninstall`` removes exactly those files and the folders it
  created - nothing the user added beside them;
* it never overwrites a file it did not write, nor one that was edited since it
  wrote it (a tuned prompt, say): it stops and names the file instead;
* a second run with nothing new changes nothing and says so; a run from a newer
  checkout updates the files and removes the ones that no longer exist.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import shutil
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

NAME = "tmux_tool"
SKILL = "terminal-orchestration"
MANIFEST = ".install-manifest.json"
SOURCE = Path(__file__).resolve().parents[4]
NEEDS = ("pyte", "wcwidth")


class InstallError(Exception):
    """The install cannot go ahead; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Layout:
    """Where each part goes in one Agent Zero layout (paths relative to its root)."""

    name: str
    tool: str
    library: str
    prompts: str
    skill: str
    manifest: str
    plugin_yaml: str | None = None


LEGACY = Layout(
    name="Agent Zero up to v0.9.8 (python/tools, python/helpers)",
    tool="python/tools/tmux_tool.py",
    library="python/helpers/tmux_tool",
    prompts="prompts",
    skill=f"usr/skills/{SKILL}",
    manifest=f"python/helpers/tmux_tool/{MANIFEST}",
)
PLUGIN = Layout(
    name="Agent Zero v0.9.9 or later (plugin in usr/plugins/tmux_tool)",
    tool=f"usr/plugins/{NAME}/tools/tmux_tool.py",
    library=f"usr/plugins/{NAME}/helpers/tmux_tool",
    prompts=f"usr/plugins/{NAME}/prompts",
    skill=f"usr/plugins/{NAME}/skills/{SKILL}",
    manifest=f"usr/plugins/{NAME}/{MANIFEST}",
    plugin_yaml=f"usr/plugins/{NAME}/plugin.yaml",
)


def detect(root: Path) -> Layout:
    """Tell the layout of the Agent Zero tree at ``root``."""
    if not root.is_dir():
        raise InstallError(f"{root} is not a folder; give the Agent Zero folder (the one with agent.py)")
    if (root / "helpers" / "tool.py").is_file() and (root / "plugins").is_dir():
        return PLUGIN
    if (root / "python" / "helpers" / "tool.py").is_file() and (root / "python" / "tools").is_dir():
        return LEGACY
    raise InstallError(
        f"{root} does not look like Agent Zero: it has neither helpers/tool.py with plugins/ "
        "(v0.9.9 and later) nor python/helpers/tool.py with python/tools/ (up to v0.9.8)"
    )


# --- what to write -----------------------------------------------------------
def version(source: Path = SOURCE) -> str:
    """The version of the checkout at ``source`` (pyproject.toml)."""
    with open(source / "pyproject.toml", "rb") as fh:
        return str(tomllib.load(fh)["project"]["version"])


def _files(folder: Path) -> Iterator[tuple[str, Path]]:
    """Files under ``folder`` (relative posix path, path), without bytecode or our manifest."""
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if path.is_file() and "__pycache__" not in rel.parts and path.suffix != ".pyc" \
                and rel.name != MANIFEST:
            yield rel.as_posix(), path


def _plugin_yaml(version: str) -> bytes:
    return (
        f"name: {NAME}\n"
        "title: tmux terminals\n"
        "description: Terminals through tmux for the agent - a private scratch shell with exact output "
        "and exit codes, interactive programs and AI coding CLIs, and the human's shared terminal, "
        "guarded so the human's typing is never lost.\n"
        f"version: {version}\n"
        "always_enabled: false\n"
    ).encode()


def plan(layout: Layout, source: Path = SOURCE) -> dict[str, bytes]:
    """Every file the install consists of: relative destination → content."""
    tool = source / "python" / "tools" / "tmux_tool.py"
    skill = source / "skills" / SKILL
    if not tool.is_file() or not (skill / "SKILL.md").is_file():
        raise InstallError(f"{source} is not a tmux_tool checkout (python/tools/tmux_tool.py and "
                           f"skills/{SKILL}/SKILL.md are needed); run the installer from one")
    files = {layout.tool: tool.read_bytes()}
    for rel, path in _files(source / "python" / "helpers" / "tmux_tool"):
        files[f"{layout.library}/{rel}"] = path.read_bytes()
    prompts = source / "prompts"
    for path in [prompts / f"agent.system.tool.{NAME}.md", *sorted(prompts.glob(f"fw.{NAME}.*.md"))]:
        files[f"{layout.prompts}/{path.name}"] = path.read_bytes()
    for rel, path in _files(skill):
        files[f"{layout.skill}/{rel}"] = path.read_bytes()
    if layout.plugin_yaml:
        files[layout.plugin_yaml] = _plugin_yaml(version(source))
    return files


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- the manifest ----------------------------------------------------------------
@dataclass(slots=True)
class Manifest:
    """What an install wrote: files with their hashes, and folders it created."""

    version: str = ""
    layout: str = ""
    files: dict[str, str] = field(default_factory=dict)
    dirs: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> Manifest | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(str(data["version"]), str(data["layout"]), dict(data["files"]), list(data["dirs"]))
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError) as exc:
            raise InstallError(f"the install manifest {path} is damaged ({exc}); remove the tmux_tool "
                               "files by hand, then install again") from None

    def dump(self) -> bytes:
        data = {"tool": NAME, "version": self.version, "layout": self.layout,
                "files": dict(sorted(self.files.items())), "dirs": sorted(set(self.dirs))}
        return (json.dumps(data, indent=1) + "\n").encode()


# --- install / uninstall ---------------------------------------------------------
@dataclass(slots=True)
class Report:
    """What was (or, with a dry run, would be) done, for the person who ran it."""

    lines: list[str] = field(default_factory=list)
    ok: bool = True

    def add(self, line: str) -> None:
        self.lines.append(line)

    def text(self) -> str:
        return "\n".join(self.lines)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp-install")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _new_dirs(root: Path, rel: str) -> list[str]:
    """Parent folders of ``rel`` that do not exist yet (relative, outermost first)."""
    missing: list[str] = []
    parent = Path(rel).parent
    while parent != Path(".") and not (root / parent).exists():
        missing.append(parent.as_posix())
        parent = parent.parent
    return list(reversed(missing))


def _remove_bytecode(path: Path) -> None:
    """The compiled copies of a removed module (``__pycache__/<stem>.*.pyc``)."""
    cache = path.parent / "__pycache__"
    if path.suffix == ".py" and cache.is_dir():
        for pyc in cache.glob(f"{path.stem}.*.pyc"):
            pyc.unlink(missing_ok=True)


def install(root: Path, *, dry_run: bool = False, source: Path = SOURCE) -> Report:
    """Install or update the tool in the Agent Zero tree at ``root``."""
    root = root.resolve()
    layout = detect(root)
    files = plan(layout, source)
    manifest_path = root / layout.manifest
    old = Manifest.load(manifest_path) or Manifest()
    report = Report()
    report.add(f"{layout.name} at {root}")
    added, updated, unchanged, conflicts = [], [], [], []
    dirs = [d for d in old.dirs if (root / d).is_dir()]
    for rel, data in files.items():
        path = root / rel
        if not path.exists():
            added.append(rel)
            dirs.extend(d for d in _new_dirs(root, rel) if d not in dirs)
        elif not path.is_file():
            conflicts.append(f"{rel} exists and is not a file")
        elif (current := _hash(path.read_bytes())) == _hash(data):
            unchanged.append(rel)
        elif old.files.get(rel) == current:
            updated.append(rel)
        elif rel in old.files:
            conflicts.append(f"{rel} was changed since it was installed")
        else:
            conflicts.append(f"{rel} exists and was not written by this installer")
    stale, kept = [], []
    for rel, digest in old.files.items():
        path = root / rel
        if rel in files or not path.is_file():
            continue
        (stale if _hash(path.read_bytes()) == digest else kept).append(rel)
    if conflicts:
        report.ok = False
        report.add("nothing was changed, because:")
        report.lines.extend(f"  {c}" for c in conflicts)
        report.add("move those files away (or undo the edits), then run the install again")
        return report
    new = Manifest(version(source), layout.name, {rel: _hash(data) for rel, data in files.items()}, dirs)
    manifest_changed = new.dump() != (manifest_path.read_bytes() if manifest_path.is_file() else b"")
    if not (added or updated or stale or manifest_changed):
        report.add(f"nothing to change: tmux_tool {new.version} is installed and up to date "
                   f"({len(unchanged)} files)")
        _advise(report, layout, root)
        return report
    verb = "would " if dry_run else ""
    for title, rels in ((f"{verb}add", added), (f"{verb}update", updated), (f"{verb}remove (no longer part of it)",
                                                                              stale)):
        if rels and dry_run:
            report.add(f"{title} {len(rels)} file(s):")
            report.lines.extend(f"  {r}" for r in rels)
        elif rels:
            report.add(f"{title} {len(rels)} file(s): {_summary(layout, rels)}")
    for rel in kept:
        report.add(f"  kept {rel}: no longer part of tmux_tool, but it was edited since it was installed")
    if unchanged:
        report.add(f"{len(unchanged)} file(s) already up to date")
    if dry_run:
        report.add("dry run: nothing was written")
        return report
    for rel in [*added, *updated]:
        _write(root / rel, files[rel])
    for rel in stale:
        (root / rel).unlink()
        _remove_bytecode(root / rel)
    _write(manifest_path, new.dump())
    report.add(f"tmux_tool {new.version} installed; the list of what was written is in {layout.manifest}")
    _advise(report, layout, root)
    return report


def _summary(layout: Layout, rels: list[str]) -> str:
    """How many of ``rels`` belong to each part, e.g. ``library 58, prompts 19``."""
    parts = {"tool": layout.tool, "library": layout.library, "prompts": layout.prompts,
             "skill": layout.skill, "plugin.yaml": layout.plugin_yaml or "-"}
    counts = {name: sum(1 for r in rels if r == where or r.startswith(where + "/"))
              for name, where in parts.items()}
    return ", ".join(f"{name} {n}" for name, n in counts.items() if n) + " (--dry-run lists them)"


def _advise(report: Report, layout: Layout, root: Path) -> None:
    """What the person still has to do or check for the tool to work."""
    report.add("next:")
    report.add("  restart Agent Zero if it is running, so it reads the new tool prompt"
               + (" and plugin" if layout is PLUGIN else ""))
    if shutil.which("tmux") is None:
        report.add("  tmux is not on PATH here: install it (e.g. apt-get install tmux)")
    missing = [name for name in NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        report.add(f"  this Python ({sys.executable}) cannot import {', '.join(missing)}: install them into "
                   "the Python that runs Agent Zero (pip install pyte==0.8.2 wcwidth)")
    else:
        report.add(f"  Agent Zero's own Python needs the packages {', '.join(NEEDS)} too "
                   "(pip install pyte==0.8.2 wcwidth); the Python running this installer has them")
    report.add("  for the human's shared terminal run apps/shared-terminal/start.sh from this checkout")


def uninstall(root: Path, *, dry_run: bool = False) -> Report:
    """Remove exactly what :func:`install` wrote into ``root``."""
    root = root.resolve()
    layout = detect(root)
    manifest_path = root / layout.manifest
    old = Manifest.load(manifest_path)
    report = Report()
    report.add(f"{layout.name} at {root}")
    if old is None:
        report.add(f"nothing to remove: tmux_tool is not installed here (no {layout.manifest})")
        return report
    removed, kept = [], []
    for rel, digest in sorted(old.files.items()):
        path = root / rel
        if not path.is_file():
            continue
        if _hash(path.read_bytes()) != digest:
            kept.append(rel)
            continue
        removed.append(rel)
        if not dry_run:
            path.unlink()
            _remove_bytecode(path)
    verb = "would remove" if dry_run else "removed"
    report.add(f"{verb} {len(removed)} file(s)")
    for rel in kept:
        report.add(f"  kept {rel}: it was edited since it was installed")
    if dry_run:
        report.add("dry run: nothing was removed")
        return report
    manifest_path.unlink()
    left = []
    for rel in sorted(old.dirs, key=lambda d: d.count("/"), reverse=True):
        folder = root / rel
        if not folder.is_dir():
            continue
        cache = folder / "__pycache__"
        if cache.is_dir() and all(p.suffix == ".pyc" for p in cache.iterdir()):
            shutil.rmtree(cache)
        if any(folder.iterdir()):
            left.append(rel)
        else:
            folder.rmdir()
    for rel in left:
        report.add(f"  left folder {rel}: it holds files tmux_tool did not write")
    report.add("tmux_tool is uninstalled; restart Agent Zero if it is running")
    return report


def main(argv: list[str]) -> int:
    """``install AGENT_ZERO_DIR [--uninstall] [--dry-run]``; exit status 0 on success."""
    parser = argparse.ArgumentParser(
        prog="python -m python.tools.tmux_tool install",
        description="Install tmux_tool into an Agent Zero tree (either layout), or remove it again.",
    )
    parser.add_argument("agent_zero_dir", type=Path, help="the Agent Zero folder (the one with agent.py)")
    parser.add_argument("--uninstall", action="store_true", help="remove exactly what the install wrote")
    parser.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    ns = parser.parse_args(argv)
    try:
        if ns.uninstall:
            report = uninstall(ns.agent_zero_dir, dry_run=ns.dry_run)
        else:
            report = install(ns.agent_zero_dir, dry_run=ns.dry_run)
    except (InstallError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(report.text())
    return 0 if report.ok else 1
