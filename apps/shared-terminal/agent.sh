#!/usr/bin/env bash
# Pauses, resumes or watches the agent in the shared terminal, without the page.
#
# The switches are user options of the shared tmux session, the same ones the
# page's switches set and the tool checks before every keystroke; see
# agent_control.py for what each command prints.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() {
    cat <<EOF
usage: $PROG pause | resume | status | approve on|off | statusline on|off | sessions | take NAME

  pause        the agent types nothing into session '$SESSION' until resume
  resume       the agent may type again
  status       paused or not, approve mode, what the agent is doing now
  approve on   everything the agent wants to type waits for Approve in the page
  approve off  the agent types without asking (a request already shown still waits)
  statusline on|off  show what the agent does in tmux's status line, for plain
               'tmux attach' (off by default: it takes a row from the terminal)
  sessions     the agent's own terminals: name, program, status, what each does
  take NAME    type in the agent's terminal NAME yourself (a password it asks for, say);
               the agent types nothing there until you detach (prefix key, then d)

Environment: TMUX_TOOL_SHARED_SOCKET (now '$SOCKET'), TMUX_TOOL_SHARED_SESSION (now '$SESSION'),
TMUX_TOOL_PRIVATE_SOCKET (the agent's terminals, now '$AGENT_SOCKET').
EOF
}

AGENT_SOCKET=${TMUX_TOOL_PRIVATE_SOCKET:-agent}
case ${1:-} in
    pause | resume | status | sessions) (($# == 1)) || { usage >&2 && exit 2; } ;;
    take) (($# == 2)) && [[ $2 =~ ^[A-Za-z0-9_.-]+$ ]] || { usage >&2 && exit 2; } ;;
    approve | statusline) (($# == 2)) && [[ $2 == on || $2 == off ]] || { usage >&2 && exit 2; } ;;
    -h | --help) usage && exit 0 ;;
    *) usage >&2 && exit 2 ;;
esac

check_config
[[ -x $VENV_PY ]] || die "$VENV_PY is missing: run $APP_DIR/setup.sh"
if [[ $1 == sessions ]]; then
    exec timeout 30 "$VENV_PY" "$APP_DIR/agent_control.py" sessions
fi
if [[ $1 == take ]]; then
    # The agent's keys are refused while you hold it; detaching (or closing this terminal) gives it back.
    timeout 30 "$VENV_PY" "$APP_DIR/agent_control.py" hold "$2"
    trap 'timeout 30 "$VENV_PY" "$APP_DIR/agent_control.py" give "$2"' EXIT
    env -u TMUX tmux -L "$AGENT_SOCKET" attach-session -f ignore-size -t "=$2"
    exit
fi
exec timeout 30 "$VENV_PY" "$APP_DIR/agent_control.py" --socket "$SOCKET" --session "$SESSION" "$@"
