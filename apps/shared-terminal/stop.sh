#!/usr/bin/env bash
# Stops the shared terminal's web server, found by its pid file only.
#
# The pid is signalled only after checking that it is still our server for
# this socket (same start time, same command line): a stale pid file must
# never make us kill an unrelated process that reused the pid. The tmux
# session is the human's terminal and stays unless --kill-session is given,
# which ends the tmux server on this socket (and nothing else). The agent's
# private tmux server is the tool's, not this app's: stop.sh only says how
# to end it.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# How long the server gets to close its browser terminals before SIGKILL.
GRACE_SECONDS=10
# The tool's private server, named as the tool names it.
PRIVATE_SOCKET=${TMUX_TOOL_PRIVATE_SOCKET:-agent}

usage() {
    cat <<EOF
usage: $PROG [--kill-session] [--host NAME]

Stops the web server of socket '$SOCKET'. With --kill-session, also ends the
tmux server on that socket and with it session '$SESSION'. With --host NAME,
the page and session of that host (start.sh --host NAME).

The agent's private sessions live on their own tmux server (socket
'$PRIVATE_SOCKET'); end it with: tmux -L $PRIVATE_SOCKET kill-server
EOF
}

KILL_SESSION=0
while (($#)); do
    case $1 in
        --kill-session) KILL_SESSION=1 ;;
        --host) (($# >= 2)) || { usage >&2 && exit 2; }; HOST=$2 && shift ;;
        --host=*) HOST=${1#--host=} ;;
        -h | --help) usage && exit 0 ;;
        *) usage >&2 && exit 2 ;;
    esac
    shift
done

check_config
ensure_run_dir
take_lock

# True while the process exists and is not a zombie.
alive() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    [[ ${stat##*) } != Z* ]]
}

# Bounded poll for the process to go away.
wait_gone() {
    local deadline=$((SECONDS + $2))
    while alive "$1"; do
        ((SECONDS < deadline)) || return 1
        sleep 0.05
    done
}

if web_server_running; then
    kill -TERM "$WEB_PID" 2>/dev/null || true
    if ! wait_gone "$WEB_PID" "$GRACE_SECONDS"; then
        note "web server (pid $WEB_PID) ignored SIGTERM for ${GRACE_SECONDS}s; sending SIGKILL"
        kill -KILL "$WEB_PID" 2>/dev/null || true
        wait_gone "$WEB_PID" 2 || die "web server (pid $WEB_PID) is still running"
    fi
    echo "Stopped the web server ($WEB_KIND, pid $WEB_PID)."
elif [[ -f $PID_FILE ]]; then
    note "$PID_FILE does not name our running web server any more; removed it, killed nothing"
else
    echo "The web server is not running."
fi
rm -f "$PID_FILE" "$URL_FILE" "$TOKEN_FILE"

if ((KILL_SESSION)); then
    on=${HOST:+ on $HOST}
    if [[ -n $HOST ]]; then
        ended=$(on_host end) || die "could not reach $HOST to end the tmux server on socket '$SOCKET' there"
    elif tmux_shared kill-server 2>/dev/null; then
        ended=ended
    else
        ended=none
    fi
    if [[ $ended == ended ]]; then
        echo "Ended the tmux server on socket '$SOCKET'$on."
    else
        echo "No tmux server was running on socket '$SOCKET'$on."
    fi
elif session_exists; then
    echo "The tmux session '$SESSION' keeps running (stop.sh --kill-session ends it)."
fi

if [[ $PRIVATE_SOCKET =~ ^[A-Za-z0-9_-]+$ ]] &&
    timeout "$TMUX_TIMEOUT" tmux -L "$PRIVATE_SOCKET" list-sessions >/dev/null 2>&1; then
    echo "The agent's private tmux server (socket '$PRIVATE_SOCKET') keeps its sessions;" \
        "end it with: tmux -L $PRIVATE_SOCKET kill-server"
fi
