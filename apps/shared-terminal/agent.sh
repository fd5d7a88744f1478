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
usage: $PROG pause | resume | status | approve on|off | statusline on|off

  pause        the agent types nothing into session '$SESSION' until resume
  resume       the agent may type again
  status       paused or not, approve mode, what the agent is doing now
  approve on   everything the agent wants to type waits for Approve in the page
  approve off  the agent types without asking (a request already shown still waits)
  statusline on|off  show what the agent does in tmux's status line, for plain
               'tmux attach' (off by default: it takes a row from the terminal)

Environment: TMUX_TOOL_SHARED_SOCKET (now '$SOCKET'), TMUX_TOOL_SHARED_SESSION (now '$SESSION').
EOF
}

case ${1:-} in
    pause | resume | status) (($# == 1)) || { usage >&2 && exit 2; } ;;
    approve | statusline) (($# == 2)) && [[ $2 == on || $2 == off ]] || { usage >&2 && exit 2; } ;;
    -h | --help) usage && exit 0 ;;
    *) usage >&2 && exit 2 ;;
esac

check_config
[[ -x $VENV_PY ]] || die "$VENV_PY is missing: run $APP_DIR/setup.sh"
exec timeout 30 "$VENV_PY" "$APP_DIR/agent_control.py" --socket "$SOCKET" --session "$SESSION" "$@"
