"""The agent's manual cannot drift from the code.

The table ``ACTIONS`` is the truth about actions and their arguments.  These
tests read the tool prompt, the skill and its reference pages the way their
readers do and hold every action, argument, type, default and example against
that table *as it is at test time*, so an action added, renamed or given a new
argument fails here until the manual says so.  The tool prompt is the short
part Agent Zero puts into every system prompt (every action with its
arguments, the shared-terminal rules, within a budget); the skill holds the
detail and is loaded when needed.  The skill's frontmatter is checked by Agent
Zero's own rules (a skill with a bad fence or name is silently dropped by
Agent Zero).  The examples of the harmless actions are then run for real
against tmux servers of the test's own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from python.helpers.tmux_tool.actions import ACTIONS
from python.helpers.tmux_tool.api import call
from python.helpers.tmux_tool.core import messages
from python.helpers.tmux_tool.core.args import Arg, bind

REPO = Path(__file__).resolve().parents[2]
PROMPT = REPO / "prompts" / "agent.system.tool.tmux_tool.md"
SKILL_DIR = REPO / "skills" / "terminal-orchestration"
SKILL = SKILL_DIR / "SKILL.md"
PAGES = sorted((SKILL_DIR / "reference").glob("*.md"))
DOCS = [SKILL, *PAGES, REPO / "README.md"]

KIND_WORDS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "list": "list"}
ARG_LINE = re.compile(r"^- `(?P<name>\w+)` \((?P<kind>\w+)(?:, (?P<extra>[^)]*))?\): \S")
FENCE = re.compile(r"^(?P<fence>~~~|```)json\n(?P<body>.*?)\n(?P=fence)$", re.MULTILINE | re.DOTALL)
SAFE = ("run", "read", "status", "list", "wait")


# --- Agent Zero's SKILL.md rules (helpers/skills.py) ---------------------------
SKILL_NAME = re.compile(r"^[a-z0-9-]+$")


def split_frontmatter(text: str) -> tuple[list[str], str]:
    """The frontmatter lines and the body; Agent Zero drops the skill otherwise."""
    lines = text.splitlines()
    assert lines and lines[0].strip() == "---", "the YAML fence must open the very first line"
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    assert end is not None, "the YAML frontmatter is not closed"
    return lines[1:end], "\n".join(lines[end + 1:]).strip()


def parse_frontmatter(lines: list[str]) -> dict[str, Any]:
    """Agent Zero's fallback parser (used when PyYAML is missing), written out.

    Only ``key: value`` lines, quoted or plain, and ``- item`` list lines; the
    frontmatter must mean the same to PyYAML, so plain values may not hold
    ``: `` or `` #`` and quoted ones no quote or backslash inside.
    """
    data: dict[str, Any] = {}
    key = None
    for raw in lines:
        if not raw.strip() or raw.strip().startswith("#"):
            continue
        if m := re.match(r"^([A-Za-z0-9_.-]+)\s*:\s*(.*)$", raw):
            key, value = m.group(1), m.group(2).strip()
            if value.startswith('"'):
                assert value.endswith('"') and '"' not in value[1:-1] and "\\" not in value, raw
                value = value[1:-1]
            else:
                assert ": " not in value and " #" not in value, f"plain YAML value would not parse: {raw}"
            data[key] = value if value else []
            continue
        item = re.match(r"^\s+-\s+(\S.*)$", raw)
        assert item and key and isinstance(data[key], list), f"not a frontmatter line: {raw!r}"
        data[key].append(item.group(1))
    return data


def test_skill_frontmatter_is_valid_for_agent_zero() -> None:
    fm_lines, body = split_frontmatter(SKILL.read_text(encoding="utf-8"))
    fm = parse_frontmatter(fm_lines)
    name, description = fm.get("name", ""), fm.get("description", "")
    assert name == "terminal-orchestration" == SKILL_DIR.name
    assert SKILL_NAME.match(name) and 1 <= len(name) <= 64
    assert not name.startswith("-") and not name.endswith("-") and "--" not in name
    assert description and len(description) <= 1024
    assert len(fm.get("compatibility", "")) <= 500
    assert "tmux_tool" in fm.get("allowed-tools", [])
    assert body.startswith("# ")


def test_reference_pages_are_files_of_the_skill_not_skills() -> None:
    """Agent Zero registers every SKILL.md it finds; reference pages must not be one."""
    assert {p.name for p in PAGES} >= {"shells.md", "repls.md", "pagers-editors.md", "claude-code.md",
                                       "codex.md", "gemini-cli.md", "opencode.md"}
    skill_text = SKILL.read_text(encoding="utf-8")
    for page in PAGES:
        assert page.name != "SKILL.md"
        assert page.read_text(encoding="utf-8").startswith("# "), page.name
        assert f"reference/{page.name}" in skill_text, f"SKILL.md does not point to {page.name}"
    for mentioned in re.findall(r"reference/([\w.-]+\.md)", skill_text):
        assert (SKILL_DIR / "reference" / mentioned).is_file(), mentioned


# --- the tool prompt: short, and still naming everything ------------------------
PROMPT_BUDGET = 2500  # characters; Agent Zero's largest built-in tool prompt is about 2,800
ACTION_LINE = re.compile(r"^- `(?P<action>\w+)`(?P<args>[^:]*):")

# Each rule of the shared terminal, as the words one line of the prompt's list under
# "the shared terminal `shared` is the human's" must hold.
SHARED_RULES = {
    "read it freely": ("`read`", "`status`", "any time"),
    "type only when the human wants it": ("type", "only when the human wants"),
    "never erase, edit or submit the human's text": ("never erase", "edit", "submit", "human typed"),
    "refused: wait or ask the human": ("refused", "wait", "ask the human"),
    "Ctrl+C stops only the agent's own work": ("`interrupt`", "`C-c`", "only stop what you typed"),
    "force only on the human's word": ("`force`", "only when the human asked"),
    "no run in the shared terminal": ("`run` never", "private sessions"),
}

# Common tasks and the action the prompt's line for that action must tie them to.
TASKS = {
    "run a shell command": ("run", "shell command"),
    "type a command for the human to see": ("send", "type text"),
    "answer a menu or press Ctrl+C": ("keys", "`C-c`"),
    "look at a terminal": ("read", "screen"),
    "wait for a long command": ("wait", "until?"),
    "drive an AI CLI": ("start", "claude"),
    "get an answer from a started program": ("ask", "answer"),
    "stop a command": ("interrupt", "Ctrl+C"),
}


def prompt_text() -> str:
    return PROMPT.read_text(encoding="utf-8")


def prompt_block(heading: str) -> list[str]:
    """The ``- `` lines under the first line of the prompt that starts with ``heading``."""
    lines = prompt_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    block = []
    for line in lines[start + 1:]:
        if not line.startswith("- "):
            break
        block.append(line)
    return block


def prompt_actions() -> dict[str, str]:
    """Action → its line in the prompt's list of actions."""
    return {m["action"]: line for line in prompt_block("actions") if (m := ACTION_LINE.match(line))}


def test_prompt_fits_its_budget() -> None:
    assert len(prompt_text()) <= PROMPT_BUDGET, f"{len(prompt_text())} characters; move detail to SKILL.md"


COMMON = {"host"}  # arguments every action takes: the prompt names them once, above the actions


def test_prompt_names_the_arguments_every_action_takes_once() -> None:
    header = next(line for line in prompt_text().splitlines() if line.startswith("actions ("))
    for name in COMMON:
        assert all(any(a.name == name for a in action.args) for action in ACTIONS.values()), name
        assert f"{name}?" in header, f"the prompt's list of actions does not say that all take {name}"


def test_prompt_names_every_action_with_its_arguments() -> None:
    lines = prompt_actions()
    assert set(lines) == set(ACTIONS), f"prompt lists {sorted(lines)}, ACTIONS has {sorted(ACTIONS)}"
    for action, line in lines.items():
        written = ACTION_LINE.match(line)["args"]  # type: ignore[index]
        named = dict(re.findall(r"(\w+)(\??)", written))
        declared = {a.name: a for a in ACTIONS[action].args if a.name not in COMMON}
        assert set(named) >= set(declared), f"{action}: the prompt does not name {set(declared) - set(named)}"
        for name, arg in declared.items():
            optional = named[name] == "?"
            assert optional == (not arg.required), f"{action}.{name}: required is {arg.required}, the " \
                                                   f"prompt {'marks it optional' if optional else 'does not'}"
        for name in set(named) - set(declared):
            assert name in {"or", "with"} or any(name in c for a in declared.values() for c in a.choices), \
                f"{action}: the prompt names {name!r}, which it does not take"
        for arg in declared.values():
            for choice in arg.choices:
                assert choice in line, f"{action}.{arg.name}: choice {choice!r} is not named"


def test_prompt_states_every_shared_terminal_rule() -> None:
    block = prompt_block("the shared terminal `shared` is the human's")
    for rule, words in SHARED_RULES.items():
        assert any(all(w in line for w in words) for line in block), f"the prompt does not say: {rule}"


def test_prompt_ties_common_tasks_to_their_action() -> None:
    lines = prompt_actions()
    for task, (action, words) in TASKS.items():
        assert words in lines[action], f"{task}: the line of {action} does not say {words!r}"
    text = prompt_text()
    for status in ("ready", "busy", "blocked", "error", "unknown"):
        assert f"`{status}`" in text
    assert "`skills_tool:load` `terminal-orchestration`" in text


def test_prompt_example_is_a_complete_agent_zero_call() -> None:
    calls = list(examples(prompt_text()))
    assert calls, "the prompt has no example"
    for example in calls:
        assert set(example) == {"thoughts", "headline", "tool_name", "tool_args"}
        assert isinstance(example["thoughts"], list) and example["thoughts"]
        assert isinstance(example["headline"], str) and example["headline"]
        assert example["tool_name"] == "tmux_tool"
        args = dict(example["tool_args"])
        spec = ACTIONS[args.pop("action")]
        bind(spec.name, spec.args, args)  # raises BadArgs with a sentence if it does not fit


def test_prompt_is_safe_for_agent_zero_templates() -> None:
    """Agent Zero fills ``{{name}}`` in prompt files; the prompt must hold none."""
    text = prompt_text()
    assert "{{" not in text and "}}" not in text
    assert text.startswith("### tmux_tool\n")


# --- the skill's action reference against ACTIONS -----------------------------------
def skill_sections() -> dict[str, str]:
    """``### action`` heading → its text, in the skill's section on every action."""
    text = SKILL.read_text(encoding="utf-8")
    part = text.split("\n## Every action and its arguments\n", 1)[1].split("\n## ", 1)[0]
    parts = re.split(r"^### (\S+)\n", part, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def documented_args(section: str) -> dict[str, tuple[str, str | None]]:
    """Argument name → (kind, extra) from the ``args:`` list of a section."""
    found = {}
    for line in section.splitlines():
        if m := ARG_LINE.match(line):
            assert m["kind"] in KIND_WORDS, f"unknown type word in {line!r}"
            found[m["name"]] = (KIND_WORDS[m["kind"]], m["extra"])
    return found


def examples(text: str) -> Iterator[Any]:
    for m in FENCE.finditer(text):
        yield json.loads(m["body"])


def test_skill_documents_exactly_the_actions() -> None:
    documented = set(skill_sections())
    missing, extra = set(ACTIONS) - documented, documented - set(ACTIONS)
    assert not missing, f"actions without a section in the skill: {sorted(missing)}"
    assert not extra, f"the skill documents actions that do not exist: {sorted(extra)}"


def _same_default(arg: Arg, written: str) -> bool:
    if arg.kind == "bool":
        return written == str(arg.default).lower()
    if arg.kind in ("int", "float"):
        return float(written) == float(arg.default)
    return written == str(arg.default)


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_skill_documents_every_argument_with_its_type_and_default(action: str) -> None:
    section = skill_sections().get(action)
    assert section is not None, f"{action} has no section"
    documented = documented_args(section)
    declared = {a.name: a for a in ACTIONS[action].args if a.name not in COMMON}
    assert set(documented) == set(declared), f"{action}: documented {sorted(documented)}, " \
                                             f"declared {sorted(declared)}"
    for name, (kind, extra) in documented.items():
        arg = declared[name]
        assert kind == arg.kind, f"{action}.{name} is {arg.kind}, documented as {kind}"
        words = [w.strip() for w in (extra or "").split(",") if w.strip()]
        assert ("required" in words) == arg.required, f"{action}.{name}: required is {arg.required}"
        defaults = [w.removeprefix("default ") for w in words if w.startswith("default ")]
        if arg.default is None:
            assert not defaults, f"{action}.{name} has no default but the skill gives one"
        else:
            assert defaults and _same_default(arg, defaults[0]), \
                f"{action}.{name}: default is {arg.default!r}, the skill says {defaults or 'nothing'}"
        for choice in arg.choices:
            assert f"`{choice}`" in section, f"{action}.{name}: choice {choice!r} is not mentioned"


def test_skill_says_once_which_arguments_every_action_takes() -> None:
    intro = SKILL.read_text(encoding="utf-8").split("\n## Every action and its arguments\n", 1)[1]
    intro = intro.split("\n### ", 1)[0]
    for name in COMMON:
        assert f"`{name}` (string)" in intro, f"the skill's list of actions does not say that all take {name}"


def test_skill_has_an_example_of_every_action() -> None:
    for action, section in skill_sections().items():
        calls = list(examples(section))
        assert calls, f"{action} has no example"
        for example in calls:
            args = dict(example)
            assert args.pop("action") == action, "an example must be of its own section's action"
            bind(action, ACTIONS[action].args, args)


# --- every page against ACTIONS ---------------------------------------------------
@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_call_in_the_docs_binds(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    for example in examples(text):
        if not isinstance(example, dict) or "action" not in example and "tool_args" not in example:
            continue
        args = dict(example.get("tool_args", example))
        action = args.pop("action")
        assert action in ACTIONS, f"{doc.name} uses the unknown action {action!r}"
        spec = ACTIONS[action]
        bind(action, spec.args, args)
    for action in re.findall(r'"action":\s*"(\w+)"', text):
        assert action in ACTIONS, f"{doc.name} mentions the unknown action {action!r}"


@pytest.mark.parametrize("doc", [PROMPT, SKILL], ids=lambda p: p.name)
def test_arguments_named_in_prose_exist(doc: Path) -> None:
    """``"until": "stable"`` in running text must be an argument some action takes."""
    known = {"action"} | {a.name for spec in ACTIONS.values() for a in spec.args}
    spans = re.findall(r"`([^`\n]+)`", FENCE.sub("", doc.read_text(encoding="utf-8")))
    named = {key for span in spans for key in re.findall(r'"(\w+)":', span)}
    assert named <= known, f"{doc.name} names arguments that no action takes: {sorted(named - known)}"


# --- prompt files for messages -----------------------------------------------------
def test_every_message_has_its_prompt_file_with_the_same_placeholders() -> None:
    files = {p.name.removeprefix(messages.PREFIX).removesuffix(".md")
             for p in (REPO / "prompts").glob(f"{messages.PREFIX}*.md")}
    assert files == set(messages.DEFAULTS)
    for key, builtin in messages.DEFAULTS.items():
        text = (REPO / "prompts" / f"{messages.PREFIX}{key}.md").read_text(encoding="utf-8").strip()
        assert set(re.findall(r"{{(\w+)}}", text)) == set(re.findall(r"{{(\w+)}}", builtin)), key
        assert messages.template(key) == text


def test_message_reads_the_file_the_host_finds_and_falls_back_to_ours(tmp_path: Path) -> None:
    """Inside Agent Zero its prompt reader decides which file counts; placeholders are filled here."""
    tuned = tmp_path / "tuned"
    tuned.mkdir()
    (tuned / f"{messages.PREFIX}busy_after_timeout.md").write_text("still going after {{timeout}}s\n")
    asked: list[str] = []

    def reader(name: str) -> str:
        asked.append(name)
        return (tuned / name).read_text(encoding="utf-8")  # FileNotFoundError for the others

    with messages.reading_with(reader):
        assert messages.message("busy_after_timeout", timeout=30) == "still going after 30s"
        assert messages.message("shell_exited") == messages.template("shell_exited") == \
            (REPO / "prompts" / f"{messages.PREFIX}shell_exited.md").read_text(encoding="utf-8").strip()
        assert messages.message("human_typing", text="{{ include 'x.md' }}").startswith("the human took over: they have typed {{ ")
    assert asked[:2] == [f"{messages.PREFIX}busy_after_timeout.md", f"{messages.PREFIX}shell_exited.md"]
    assert messages.message("busy_after_timeout", timeout=30) != "still going after 30s"  # reader gone
    with pytest.raises(KeyError):
        messages.message("no_such_message")


# --- the harmless examples, for real -----------------------------------------------
def test_safe_skill_examples_run(private_socket: str, shared_terminal: Any, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """run/read/status/list/wait examples, on a private server and a stand-in shared terminal."""
    work = tmp_path / "project"
    work.mkdir()
    monkeypatch.chdir(work)
    sections = skill_sections()
    ran = []
    for action in SAFE:  # run first: it creates the sessions the others look at
        for example in examples(sections[action]):
            args = dict(example)
            result = call(args.pop("action"), **args)
            assert result["ok"], f"{example} failed: {result['error']}"
            assert result["status"] in ("ready", "blocked"), result
            ran.append(action)
    assert set(ran) == set(SAFE)
