"""bash, zsh, fish and dash as the human's shell, with the prompts people really use.

Plain, coloured (with a title escape), two-line, transient (redrawn short once
a line is accepted), right-hand (zsh ``RPROMPT``,
fish ``fish_right_prompt``, a bash clock drawn at the right edge), glyphs
(powerline, arrows, emoji), prompts that end in no usual character, and a
``PROMPT_COMMAND`` that prints a line before every prompt.  In each the agent
runs a command, then a slower one it waits for (every answer is the
command's output alone), then the human moves to another directory (the
prompt changes) and the agent goes on.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from .conftest import (
    PLAIN_BASH,
    Scene,
    Shell,
    bash,
    dash,
    ends_right,
    explain,
    fish,
    poll,
    probe,
    ready_after_end,
    settle,
    zsh,
)

PL = "\ue0b0"  # the powerline separator glyph

SHELLS = [
    PLAIN_BASH,
    bash(r"'\[\e]0;\u@\h: \w\a\]\[\e[01;32m\]\u@box\[\e[00m\]:\[\e[01;34m\]\w\[\e[00m\]\$ '",
         r"root@box:\S*# $", name="bash-colour"),
    bash(r"'┌──(\u㉿box)-[\w]\n└─\$ '", r"^└─# $", name="bash-two-line"),
    bash(r"'\[\e7\e[$((COLUMNS-9))G\t\e8\]\w \$ '", r"^\S+ # $", name="bash-right-clock"),
    bash(rf"'\[\e[30;44m\] \w \[\e[0;34m\]{PL}\[\e[0m\] '", rf"^ \S+ {PL} $", name="bash-powerline"),
    bash(r"'\w → '", r"^\S+ → $", name="bash-arrow"),
    bash(r"'[\u@vm \W] '", r"^\[root@vm \S+\] $", name="bash-bracket"),
    bash(r"'🚀 \W '", r"^🚀 \S+ $", name="bash-rocket"),
    bash(r"'\W: '", r"^\S+: $", name="bash-colon"),
    bash(r"'\w\$'", r"^\S+#$", name="bash-no-space"),
    bash(r"'\w> '", r"^\S+> $", name="bash-gt"),
    bash(r"'box> '", r"^box> $", name="bash-word-gt"),  # a word and '>', like zsh's 'dquote> ' but a prompt
    bash(r"'tester@box:\w\$ '", r"tester@box:\S*# $", name="bash-prompt-command",
         extra="PROMPT_COMMAND='echo \"[$(date +%T)] rc=$?\"'\n"),
    zsh("PROMPT='%n@box:%~%# '\n", r"root@box:\S*# $", name="zsh-plain"),
    zsh("PROMPT='%F{green}%n%f@%F{blue}%~%f %# '\n", r"^root@\S+ # $", name="zsh-colour"),
    zsh("PROMPT=$'%F{cyan}%~%f\\n%F{magenta}❯%f '\n", r"^❯ $", name="zsh-two-line"),
    zsh("PROMPT='%~ %# '\nRPROMPT='%*'\n", r"^\S+ # $", name="zsh-rprompt"),
    # A transient prompt (powerlevel10k's, starship's): once a line is accepted its prompt is redrawn short.
    zsh("FULL='%n@box %~ %# '\nPROMPT=$FULL\nzle-line-init() { PROMPT=$FULL; zle reset-prompt }\n"
        "zle-line-finish() { PROMPT='❯ '; zle reset-prompt }\nzle -N zle-line-init\nzle -N zle-line-finish\n",
        r"^root@box \S+ # $", name="zsh-transient"),
    fish("", r"# $", name="fish-default"),
    fish("function fish_prompt; printf '%s ❯ ' (prompt_pwd); end\n", r"^\S+ ❯ $", name="fish-arrow"),
    fish("function fish_right_prompt; date +%T; end\n", r"# $", name="fish-right-clock"),
    fish("function fish_prompt; printf '%s\\n$ ' (prompt_pwd); end\n", r"^\$ $", name="fish-two-line"),
    fish("function fish_prompt; printf 'fish> '; end\n", r"^fish> $", name="fish-word-gt"),
    dash("'$ '", r"^\$ $", name="dash-dollar"),
    dash("'$PWD # '", r"^/\S* # $", name="dash-pwd"),
]


@pytest.mark.parametrize("shell", SHELLS, ids=str)
def test_the_agent_works_at_any_prompt(make_scene, shell: Shell) -> None:
    scene: Scene = make_scene(shell)
    command, answer = probe(scene)
    res = call("send", text=command, timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the first command did not come back ready", res, scene)
    ready_after_end(scene, res, "probe")
    assert res["output"] == answer, explain("send's output is not the command's alone", res, scene)

    res = call("send", text="sleep 0.5; printf 'late-%s\\n' 5", timeout=0)
    assert res["ok"], explain("the slower command was not typed", res, scene)
    if res["status"] != "ready":  # on a loaded machine the command may be over at send's one look
        res = call("wait", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("wait never saw the prompt again", res, scene)
    assert res["output"] == "late-5", explain("the output is not the command's alone", res, scene)

    scene.human.line("cd /tmp")
    assert scene.at_prompt()
    ends_right(scene)


STATUS_PROMPTS = [
    bash(r"""'\w$(s=$?; [ $s != 0 ] && printf " [%s]" $s) \$ '""", r"^\S+( \[\d+\])? # $", name="bash-exit-status"),
    zsh("PROMPT='%(?.✓.✗) %~ %# '\n", r"^[✓✗] \S+ # $", name="zsh-status-glyph"),
    fish("function fish_prompt; if test $status = 0; printf '✓ '; else; printf '✗ '; end; printf '> '; end\n",
         r"^[✓✗] > $", name="fish-status-glyph"),
    fish("", r"# $", name="fish-default"),  # "root@box ~ [1]# " after a failure
    fish("function fish_prompt; printf '[%s]> ' $status; end\n", r"^\[\d+\]> $", name="fish-status-code"),
]


@pytest.mark.parametrize("shell", STATUS_PROMPTS, ids=str)
def test_a_prompt_that_shows_the_last_exit_status(make_scene, shell: Shell) -> None:
    """The prompt changes with the last command's status (a code, a glyph): the changed prompt is the
    prompt, not a question, the first time it is seen and every time after."""
    scene: Scene = make_scene(shell)
    settle(scene)
    for command, code in (("false", 1), ("true", 0), ("false", 1)):
        res = call("send", text=command, timeout=6)
        assert res["ok"] and res["status"] == "ready", explain(f"{command} did not come back ready", res, scene)
        assert res["exit_code"] in (code, None), explain("a wrong exit code", res, scene)
    assert any(mark in scene.cursor_line() for mark in ("[1]", "✗")), scene.cursor_line()
    ends_right(scene)


@pytest.mark.parametrize("shell", [
    zsh("setopt promptsubst\nPROMPT='%c$([[ -e dirty ]] && print -n \" ✗\") %# '\n", r"# $", name="zsh-dirty-mark"),
    fish("function fish_prompt; printf '%s' (prompt_pwd); test -e dirty; and printf ' *'; printf '> '; end\n",
         r"> $", name="fish-dirty-mark"),
], ids=str)
def test_a_prompt_that_gains_and_loses_a_mark(make_scene, shell: Shell) -> None:
    """A prompt that marks a state of the directory (a git tree with changes: ``✗``, ``*``) gains the mark
    through the agent's own command, and loses it through the next."""
    scene: Scene = make_scene(shell)
    settle(scene)
    for command in ("touch dirty", "rm dirty", "touch dirty"):
        res = call("send", text=command, timeout=6)
        assert res["ok"] and res["status"] == "ready", explain(f"{command} did not come back ready", res, scene)
    assert any(mark in scene.cursor_line() for mark in ("✗", "*")), scene.cursor_line()
    ends_right(scene)


# starship's and powerlevel10k's way: the upper row names how long a slow command took ("took 2s"),
# and says nothing after a quick one.
TOOK = ("zmodload zsh/datetime\npreexec() { t0=$EPOCHREALTIME }\n"
        "precmd() { took=''; [[ -n $t0 ]] && (( EPOCHREALTIME - t0 >= 1 )) && took=\" took ${$(( EPOCHREALTIME - t0 "
        "))%.*}s\"; t0='' }\nsetopt promptsubst\nPROMPT=$'%~${took}\\n❯ '\n")


def test_a_two_line_prompt_that_says_how_long_the_command_took(make_scene) -> None:
    """The prompt's upper row changes with the command just run: it is no output of the next one, nor
    of this one."""
    scene: Scene = make_scene(zsh(TOOK, r"^❯ $", name="zsh-took"))
    settle(scene)
    for command, answer in (("sleep 1.2; echo slow", "slow"), ("echo fast", "fast"), ("sleep 1.1; echo again",
                                                                                         "again")):
        res = call("send", text=command, timeout=8)
        assert res["ok"] and res["status"] == "ready", explain(f"{command} did not come back ready", res, scene)
        assert res["output"] == answer, explain("the output is not the command's alone", res, scene)
    assert "took" in scene.screen()
    ends_right(scene)


def test_a_prompt_changed_by_activating_a_virtualenv(scene: Scene) -> None:
    res = call("send", text="python3 -m venv --without-pip venv", timeout=8)
    assert res["ok"] and res["status"] == "ready", explain("venv was not created", res, scene)
    scene.human.line(". venv/bin/activate")
    assert scene.wait_screen(r"^\(venv\) tester@box")
    ends_right(scene)
    res = call("send", text="deactivate", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("deactivate did not come back ready", res, scene)
    ends_right(scene)


def test_the_human_changes_the_prompt_to_one_ending_like_ps2(scene: Scene) -> None:
    settle(scene)
    scene.human.line("PS1='new> '")
    assert poll(lambda: scene.before_cursor() == "new> ", 5), scene.screen()
    ends_right(scene)


def test_a_prompt_that_wraps_in_a_narrow_window(make_scene) -> None:
    scene: Scene = make_scene(rows=24, cols=50)
    deep = scene.home / "projects" / "customer-portal" / "services" / "billing-api"
    deep.mkdir(parents=True)
    settle(scene)
    scene.human.line(f"cd {deep}")
    assert poll(lambda: scene.before_cursor().endswith("# "), 5), scene.screen()
    ends_right(scene)
