"""The command's output is cut from the screen by facts, whatever the prompt looks like.

Two-line prompts drawn with powerline and nerd-font glyphs in colour, a
git-like two-line prompt, a working directory so long the prompt wraps,
``PS1='> '`` (the same text as bash's continuation prompt ``PS2``), zsh's
right prompt; and command lines that wrap themselves: wide CJK characters
over the edge, a 2,800-character one-liner with tabs.  Each answer is
exactly what the command printed (for the md5 one-liner: the real md5 of the
text, computed here), no prompt row, no command row.
"""

from __future__ import annotations

import hashlib
import secrets

import pytest

from python.tools.tmux_tool import call

from .conftest import (
    PLAIN_BASH,
    Scene,
    Shell,
    bash,
    ends_right,
    explain,
    poll,
    ready_after_end,
    settle,
    stamp,
    zsh,
)

PL, USER, FOLDER, BRANCH = "\ue0b0", "\uf007", "\uf07c", "\ue0a0"

SHAPES = [
    # ╭─  root  share      (colours, powerline separators, nerd-font icons)
    # ╰─#
    bash(rf"'\[\e[38;5;33m\]╭─\[\e[48;5;33;38;5;231m\] {USER} \u \[\e[38;5;33;48;5;28m\]{PL}"
         rf"\[\e[38;5;231m\] {FOLDER} share \[\e[0;38;5;28m\]{PL}\[\e[0m\]\n\[\e[38;5;33m\]╰─\$ \[\e[0m\]'",
         r"^╰─# $", name="bash-powerline-two-line"),
    # root@box in ~ on  main [!?]
    # ❯
    bash(rf"'\[\e[1;32m\]\u@box\[\e[0m\] in \[\e[1;34m\]\w\[\e[0m\] on \[\e[35m\]{BRANCH} main\[\e[0m\] "
         r"\[\e[31m\][!?]\[\e[0m\]\n\[\e[1;32m\]❯\[\e[0m\] '",
         r"^❯ $", name="bash-git-two-line"),
    bash(r"'> '", r"^> $", name="bash-ps1-like-ps2"),
    zsh(f"PROMPT=$'%F{{33}}╭─%f%K{{33}}%F{{231}} {USER} %n %f%k%F{{33}}{PL}%f %~\\n%F{{33}}╰─%f%# '\n",
        r"^╰─# $", name="zsh-powerline-two-line"),
    zsh("PROMPT='%~ %# '\nRPROMPT='%F{yellow}[%?] %*%f'\n", r"^\S+ # $", name="zsh-rprompt"),
    zsh("PROMPT='> '\n", r"^> $", name="zsh-ps1-like-ps2"),
]


def lines_command() -> tuple[str, str]:
    n = secrets.randbelow(9000) + 1000
    return f"printf 'alpha-%s\\nbeta two\\n  gamma\\n' {n}", f"alpha-{n}\nbeta two\n  gamma"


def exact(scene: Scene, command: str, output: str, timeout: float = 8) -> None:
    res = call("send", text=command, timeout=timeout)
    assert res["ok"] and res["status"] == "ready", explain("the command did not come back ready", res, scene)
    assert res["output"] == output, explain("the output is not exactly what the command printed", res, scene)


@pytest.mark.parametrize("shell", SHAPES, ids=str)
def test_the_output_at_a_prompt_of_this_shape(make_scene, shell: Shell) -> None:
    scene: Scene = make_scene(shell)
    exact(scene, *lines_command())
    command, output = lines_command()
    res = call("send", text=f"sleep 0.7; {command}; {stamp(scene)}", timeout=0.2)
    assert res["ok"], explain("the slower command was not typed", res, scene)
    if res["status"] != "ready":
        res = call("wait", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("wait never saw the command's end", res, scene)
    ready_after_end(scene, res)
    assert res["output"] == output, explain("wait's output is not exactly what the command printed", res, scene)
    ends_right(scene)


def test_echo_hi_at_a_prompt_that_is_ps2(make_scene) -> None:
    """``PS1='> '``: a real prompt, not a continuation; ``echo hi`` comes back ready with ``hi``."""
    scene: Scene = make_scene(bash(r"'> '", r"^> $", name="bash-ps1-like-ps2"))
    exact(scene, "echo hi", "hi")
    ends_right(scene)


def test_a_working_directory_so_long_the_prompt_wraps(make_scene) -> None:
    scene: Scene = make_scene(bash(r"'tester@box:\w\$ '", r"# $"), cols=80)
    deep = scene.home.joinpath(*[f"level-{i:02d}-directory" for i in range(7)])
    deep.mkdir(parents=True)
    assert len(f"tester@box:{deep}# ") > 80
    settle(scene)
    scene.human.line(f"cd {deep}")
    assert poll(lambda: scene.fmt("#{pane_current_path}") == str(deep) and scene.before_cursor().endswith("# "), 5), \
        scene.screen()
    scene.human_quiet()
    exact(scene, *lines_command())
    exact(scene, "pwd", str(deep))
    ends_right(scene)


def test_a_command_line_of_wide_characters_that_wraps(scene: Scene) -> None:
    text = "a" + "日本語のテキストは幅が二倍です" * 5  # 151 columns, a wide character over each edge
    exact(scene, f"echo {text}", text)
    ends_right(scene)


def test_a_long_one_liner_with_tabs_prints_its_md5(scene: Scene) -> None:
    words = [f"word{i:04d}-{secrets.token_hex(3)}" for i in range(172)]
    text = "".join(w + ("\t" if i % 3 == 0 else " ") for i, w in enumerate(words))
    command = f"printf '%s' '{text}' | md5sum | cut -c1-32"
    assert 2600 <= len(command) <= 3000 and "\t" in command
    exact(scene, command, hashlib.md5(text.encode()).hexdigest(), timeout=15)
    ends_right(scene)


def test_plain_prompt_control(scene: Scene) -> None:
    """The same lines at the everyday prompt (the cases above differ from it by the prompt alone)."""
    assert scene.shell is PLAIN_BASH
    exact(scene, *lines_command())
    ends_right(scene)
