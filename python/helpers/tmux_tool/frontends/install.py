"""Install the tool into an Agent Zero tree, or take exactly that out again.

Standard library only, and runnable as a script with any Python 3.11+, so it
works before anything is installed (in Agent Zero's container, say)::

    python3 python/helpers/tmux_tool/frontends/install.py /a0 \\
        [--uninstall] [--dry-run] [--python PATH]

Agent Zero changed its layout in v0.9.9 (March 2026); both layouts keep only
``usr/`` across updates of Agent Zero, so that is where everything goes:

* v0.9.9 and later (every v1.x): the plugin ``usr/plugins/tmux_tool/``, the
  same files Agent Zero's own Plugin Hub puts there from this repository
  (``plugin.yaml``, ``hooks.py``, ``LICENSE``, ``README.md``, ``tools/``,
  ``extensions/``, ``python/``, ``prompts/``, ``skills/``);
* up to v0.9.8: ``usr/tools/tmux_tool.py``, the library in
  ``usr/helpers/tmux_tool/``, the prompts in ``usr/prompts/`` and the skill in
  ``usr/skills/``, which that version reads before its own folders.

The Python packages the tool needs go into the Python that runs Agent Zero
(``/opt/venv-a0`` in its image, or ``--python``), by the plugin's ``hooks.py``
- the step Agent Zero itself runs when it installs a plugin.

The installer is careful with the tree it writes into:

* it writes only files it can account for, and records each with its hash in a
  manifest, so ``--uninstall`` removes exactly those files and the folders it
  created - nothing the user added beside them (Agent Zero's on/off switch of
  the plugin, ``.toggle-0``/``.toggle-1``, goes with it), and ends the
  agent's private tmux server with whatever still runs in it, as the plugin's
  ``uninstall`` hook does (both call ``private/teardown.py``);
* it never overwrites a file it did not write, nor one that was edited since it
  wrote it (a tuned prompt, say): it stops and names the file instead;
* a second run with nothing new changes nothing and says so; a run from a newer
  checkout updates the files and removes the ones that no longer exist.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

NAME = "tmux_tool"
SKILL = "terminal-orchestration"
MANIFEST = ".install-manifest.json"
TOGGLES = (".toggle-0", ".toggle-1")
FRAMEWORK_PYTHON = Path("/opt/venv-a0/bin/python")
"""The Python that runs Agent Zero in its Docker image (its ``docker/run/fs/ins/setup_venv.sh``)."""
HOOKS_TIMEOUT = 900.0


class InstallError(Exception):
    """The install cannot go ahead; the message says why and what to do."""


def checkout(start: Path = Path(__file__)) -> Path | None:
    """The tmux_tool tree this installer belongs to: the nearest folder above with ``plugin.yaml``.

    A checkout of the repository, or an installed plugin folder (the same
    files); None for a copy of the library without them.
    """
    for folder in start.resolve().parents:
        if (folder / "plugin.yaml").is_file() and (
            folder / "python" / "tools" / "tmux_tool.py"
        ).is_file():
            return folder
    return None


SOURCE = checkout()


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the parts go in one Agent Zero layout (paths relative to its root)."""

    name: str
    # (folder or file in the checkout, where it goes), in plan order
    places: tuple[tuple[str, str], ...]
    manifest: str
    plugin_dir: str | None = None


PLUGIN_DIR = f"usr/plugins/{NAME}"
PLUGIN = Layout(
    name="Agent Zero v0.9.9 or later (the plugin usr/plugins/tmux_tool)",
    places=tuple((part, f"{PLUGIN_DIR}/{part}") for part in (
        "plugin.yaml", "hooks.py", "LICENSE", "README.md", "tools/tmux_tool.py", "extensions",
        "python/tools/tmux_tool.py", "python/helpers/tmux_tool", "prompts", f"skills/{SKILL}")),
    manifest=f"{PLUGIN_DIR}/{MANIFEST}",
    plugin_dir=PLUGIN_DIR,
)
LEGACY = Layout(
    name="Agent Zero up to v0.9.8 (usr/tools, usr/prompts, usr/skills)",
    places=(("python/tools/tmux_tool.py", "usr/tools/tmux_tool.py"),
            ("python/helpers/tmux_tool", "usr/helpers/tmux_tool"),
            ("prompts", "usr/prompts"),
            (f"skills/{SKILL}", f"usr/skills/{SKILL}")),
    manifest=f"usr/helpers/tmux_tool/{MANIFEST}",
)
OLD_MANIFESTS = ("python/helpers/tmux_tool/" + MANIFEST,)
"""Manifests of earlier versions of this installer that wrote outside ``usr/``."""


def detect(root: Path) -> Layout:
    """Tell the layout of the Agent Zero tree at ``root``."""
    if not root.is_dir():
        raise InstallError(
            f"{root} is not a folder; give the Agent Zero folder (the one with agent.py)"
        )
    if (root / "helpers" / "tool.py").is_file() and (root / "plugins").is_dir():
        return PLUGIN
    if (root / "python" / "helpers" / "tool.py").is_file() and (root / "python" / "tools").is_dir():
        return LEGACY
    raise InstallError(
        f"{root} does not look like Agent Zero: it has neither helpers/tool.py with plugins/ "
        "(v0.9.9 and later) nor python/helpers/tool.py with python/tools/ (up to v0.9.8)"
    )


# --- what to write -----------------------------------------------------------
def _source(source: Path | None) -> Path:
    if source is None:
        raise InstallError("this copy of tmux_tool has no plugin.yaml above it; run the installer "
                           "from a checkout of the repository")
    return source


def version(source: Path | None = SOURCE) -> str:
    """The version of the checkout at ``source`` (its ``plugin.yaml``)."""
    source = _source(source)
    for line in (source / "plugin.yaml").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition(":")
        if key == "version":
            return value.strip().strip("\"'")
    raise InstallError(f"{source / 'plugin.yaml'} has no version line")


def _files(folder: Path) -> Iterator[tuple[str, Path]]:
    """Files under ``folder`` (relative posix path, path), without bytecode or our manifest."""
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if path.is_file() and "__pycache__" not in rel.parts and path.suffix != ".pyc" \
                and rel.name != MANIFEST:
            yield rel.as_posix(), path


def _prompts(folder: Path) -> Iterator[tuple[str, Path]]:
    """The tool's prompt files: its tool prompt and its ``fw.tmux_tool.*.md`` messages."""
    for path in [folder / f"agent.system.tool.{NAME}.md", *sorted(folder.glob(f"fw.{NAME}.*.md"))]:
        yield path.name, path


def plan(layout: Layout, source: Path | None = SOURCE) -> dict[str, bytes]:
    """Every file the install consists of: destination relative to the Agent Zero root → content."""
    source = _source(source)
    files: dict[str, bytes] = {}
    for part, dest in layout.places:
        path = source / part
        if part == "prompts":
            found = list(_prompts(path))
        elif path.is_dir():
            found = list(_files(path))
        else:
            found = [("", path)]
        for rel, file in found:
            if not file.is_file():
                raise InstallError(
                    f"{source} is not a complete tmux_tool checkout ({part}/{rel} is missing)"
                )
            files[f"{dest}/{rel}" if rel else dest] = file.read_bytes()
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
            return cls(
                str(data["version"]), str(data["layout"]), dict(data["files"]), list(data["dirs"])
            )
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError) as exc:
            raise InstallError(f"the install manifest {path} is damaged ({exc}); remove the "
                               "tmux_tool files by hand, then install again") from None

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


def _remove(path: Path) -> None:
    """A file and the compiled copies of it (``__pycache__/<stem>.*.pyc``)."""
    path.unlink()
    cache = path.parent / "__pycache__"
    if path.suffix == ".py" and cache.is_dir():
        for pyc in cache.glob(f"{path.stem}.*.pyc"):
            pyc.unlink(missing_ok=True)


def _prune(root: Path, dirs: list[str]) -> list[str]:
    """Remove the folders in ``dirs`` that hold nothing but bytecode; return the others that
    exist."""
    left = []
    for rel in sorted(dirs, key=lambda d: d.count("/"), reverse=True):
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
    return left


def _installed(root: Path, layout: Layout) -> tuple[Manifest, list[str]]:
    """What earlier installs wrote (one manifest, or an older installer's too), and their
    manifests."""
    found = [m for m in (layout.manifest, *OLD_MANIFESTS) if (root / m).is_file()]
    merged = Manifest()
    for rel in found:
        old = Manifest.load(root / rel)
        if old is not None:
            merged.files.update(old.files)
            merged.dirs.extend(d for d in old.dirs if d not in merged.dirs)
    return merged, found


def install(root: Path, *, dry_run: bool = False, source: Path | None = SOURCE,
            python: Path | None = None) -> Report:
    """Install or update the tool in the Agent Zero tree at ``root``, then its Python packages."""
    root, source = root.resolve(), _source(source)
    layout = detect(root)
    files = plan(layout, source)
    report = Report()
    report.add(f"{layout.name} at {root}")
    old, manifests = _installed(root, layout)
    outdated = [m for m in manifests if m != layout.manifest]
    if outdated:
        report.add(f"an earlier version installed outside usr/ ({', '.join(outdated)}): those files move")
    needed = {p.as_posix() for rel in files for p in Path(rel).parents}
    dirs = [d for d in old.dirs if d in needed and (root / d).is_dir()]
    added, updated, unchanged, conflicts = [], [], [], []
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
    stale: list[str] = []
    kept: list[str] = []
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
    manifest_path = root / layout.manifest
    changed = bool(added or updated or stale or outdated) or \
        new.dump() != (manifest_path.read_bytes() if manifest_path.is_file() else b"")
    verb = "would " if dry_run else ""
    if not changed:
        report.add(f"nothing to change: tmux_tool {new.version} is installed and up to date "
                   f"({len(unchanged)} files)")
    for title, rels in ((f"{verb}add", added), (f"{verb}update", updated),
                        (f"{verb}remove (no longer part of it)", stale)):
        if rels and dry_run:
            report.add(f"{title} {len(rels)} file(s):")
            report.lines.extend(f"  {r}" for r in rels)
        elif rels:
            report.add(f"{title} {len(rels)} file(s): {_summary(layout, rels)}")
    for rel in kept:
        report.add(f"  kept {rel}: no longer part of tmux_tool, but it was edited since it was installed")
    if changed and unchanged:
        report.add(f"{len(unchanged)} file(s) already up to date")
    if dry_run:
        report.add("dry run: nothing was written")
        return report
    if changed:
        for rel in [*added, *updated]:
            _write(root / rel, files[rel])
        for rel in stale:
            _remove(root / rel)
        for rel in outdated:
            (root / rel).unlink()
        _prune(root, [d for d in old.dirs if d not in needed])
        _write(manifest_path, new.dump())
        report.add(f"tmux_tool {new.version} installed; the list of what was written is in {layout.manifest}")
    if layout.plugin_dir and (root / layout.plugin_dir / ".toggle-0").is_file():
        report.add("  note: the plugin is switched off in Agent Zero (.toggle-0); switch it on in the Plugins "
                   "list, or remove that file")
    _dependencies(report, layout, root, source, python)
    return report


def _summary(layout: Layout, rels: list[str]) -> str:
    """How many of ``rels`` belong to each part, e.g. ``python/helpers/tmux_tool 58, prompts
    19``."""
    counts = {
        part: sum(1 for r in rels if r == dest or r.startswith(dest + "/"))
        for part, dest in layout.places
    }
    return ", ".join(f"{part} {n}" for part, n in counts.items() if n) + " (--dry-run lists them)"


def framework_python(given: Path | None) -> Path | None:
    """The Python that runs Agent Zero: ``--python``, else the one of its Docker image if
    present."""
    if given is not None:
        return given
    return FRAMEWORK_PYTHON if FRAMEWORK_PYTHON.is_file() else None


def _dependencies(
    report: Report, layout: Layout, root: Path, source: Path, python: Path | None
) -> None:
    """Run the plugin's ``hooks.py`` with Agent Zero's Python, as Agent Zero does on install."""
    hooks = root / layout.plugin_dir / "hooks.py" if layout.plugin_dir else source / "hooks.py"
    target = framework_python(python)
    report.add("next:")
    if target is None:
        report.add("  install the Python packages into the Python that runs Agent Zero: `<that "
                   f"python> {shlex.quote(str(hooks))}` (in Agent Zero's Docker image that python "
                   f"is {FRAMEWORK_PYTHON}; or run this installer again with --python)")
    else:
        try:
            done = subprocess.run([str(target), str(hooks)], capture_output=True, text=True,
                                  timeout=HOOKS_TIMEOUT, check=False)
            said, failed = (done.stdout + done.stderr).strip(), done.returncode != 0
        except (OSError, subprocess.TimeoutExpired) as exc:
            said, failed = f"{target} could not run it: {exc}", True
        report.lines.extend(f"  {line}" for line in said.splitlines())
        if failed:
            report.ok = False
            report.add(
                f"  the tool cannot run until that is fixed: then run `{target} {hooks}` again"
            )
    report.add("  restart Agent Zero if it is running, so it reads the new tool prompt"
               + (" and plugin" if layout.plugin_dir else ""))
    report.add(
        "  for the human's shared terminal run apps/shared-terminal/start.sh from this checkout"
    )


def _library(module: str) -> ModuleType:
    """A module of the library this installer belongs to (``private.teardown``), loaded by its path.

    The installer runs as a script (``-S -I``: no package around it, nothing
    but the standard library), so the library is imported as a package of a
    name of its own; only modules that need nothing more may be asked for.
    """
    folder = Path(__file__).resolve().parents[1]
    name = "tmux_tool_installer"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        if spec is None or spec.loader is None:
            raise InstallError(f"the library of this installer is missing: {folder}")
        package = importlib.util.module_from_spec(spec)
        sys.modules[name] = package  # its modules import each other through it
        spec.loader.exec_module(package)
    return importlib.import_module(f"{name}.{module}")


def uninstall(root: Path, *, dry_run: bool = False) -> Report:
    """Remove exactly what :func:`install` wrote into ``root``, and Agent Zero's switch of the
    plugin.

    The agent's private tmux server ends too, with whatever still runs in it,
    as the plugin's own ``uninstall`` hook does when Agent Zero deletes it.
    """
    root = root.resolve()
    layout = detect(root)
    report = Report()
    report.add(f"{layout.name} at {root}")
    old, manifests = _installed(root, layout)
    if not manifests:
        report.add(f"nothing to remove: tmux_tool is not installed here (no {layout.manifest})")
        return report
    removed: list[str] = []
    kept: list[str] = []
    for rel, digest in sorted(old.files.items()):
        path = root / rel
        if path.is_file():
            (removed if _hash(path.read_bytes()) == digest else kept).append(rel)
    switches = [f"{layout.plugin_dir}/{t}" for t in TOGGLES
                if layout.plugin_dir and (root / layout.plugin_dir / t).is_file()]
    verb = "would remove" if dry_run else "removed"
    report.add(f"{verb} {len(removed)} file(s)")
    for rel in switches:
        report.add(f"{verb} Agent Zero's on/off switch of the plugin, {rel}")
    for rel in kept:
        report.add(f"  kept {rel}: it was edited since it was installed")
    report.add(_library("private.teardown").end_private(dry_run=dry_run))
    if dry_run:
        report.add("dry run: nothing was removed")
        return report
    for rel in [*removed, *switches, *manifests]:
        _remove(root / rel)
    for rel in _prune(root, old.dirs):
        report.add(f"  left folder {rel}: it holds files tmux_tool did not write")
    report.add("tmux_tool is uninstalled; restart Agent Zero if it is running")
    return report


def main(argv: list[str]) -> int:
    """``install AGENT_ZERO_DIR [--uninstall] [--dry-run] [--python PATH]``; exit status 0 on
    success."""
    parser = argparse.ArgumentParser(
        prog=f"python3 {Path(__file__).name}",
        description="Install tmux_tool into an Agent Zero tree (either layout), or remove it "
                    "again.",
    )
    parser.add_argument(
        "agent_zero_dir", type=Path, help="the Agent Zero folder (the one with agent.py)"
    )
    parser.add_argument(
        "--uninstall", action="store_true", help="remove exactly what the install wrote"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="say what would change, change nothing"
    )
    parser.add_argument(
        "--python",
        type=Path,
        help="the Python that runs Agent Zero, to install the packages "
        f"the tool needs into (default {FRAMEWORK_PYTHON} when it exists)",
    )
    ns = parser.parse_args(argv)
    try:
        if ns.uninstall:
            report = uninstall(ns.agent_zero_dir, dry_run=ns.dry_run)
        else:
            report = install(ns.agent_zero_dir, dry_run=ns.dry_run, python=ns.python)
    except (InstallError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(report.text())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
