# shellcheck shell=bash
# shellcheck disable=SC2034  # the variables are used by the scripts that source this
# Settings and small functions shared by setup.sh, start.sh and stop.sh.
#
# Kept in one file so the three scripts can never disagree about where the pid
# file lives, which socket they talk to, or how a pid is recognised as ours.
# Sourced, never run.

# Physical paths: the pid check compares command lines, which must not depend
# on whether a script was reached through a symlink.
APP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
REPO_ROOT=$(cd "$APP_DIR/../.." && pwd -P)
WEB_DIR="$APP_DIR/web"
TMUX_CONF="$APP_DIR/tmux.conf"
VENV_PY="$REPO_ROOT/.venv/bin/python"

SOCKET=${TMUX_TOOL_SHARED_SOCKET:-shared}
SESSION=${TMUX_TOOL_SHARED_SESSION:-shared}
PORT=${TMUX_TOOL_WEB_PORT:-7681}
BIND=${TMUX_TOOL_WEB_BIND:-127.0.0.1}
BACKEND=${TMUX_TOOL_WEB_BACKEND:-auto}
# The host the shared session lives on (start.sh/stop.sh --host NAME); empty: this machine.
HOST=''

# Every tmux call is bounded: a wedged server must not hang a script.
TMUX_TIMEOUT=5

PROG=$(basename "$0")

die() {
    printf '%s: %s\n' "$PROG" "$*" >&2
    exit 1
}

note() {
    printf '%s: %s\n' "$PROG" "$*" >&2
}

# Names go into tmux targets and file paths, so only plain characters pass:
# `.` and `:` would change a tmux target's meaning, `/` a path's.
check_config() {
    [[ $SOCKET =~ ^[A-Za-z0-9_-]+$ ]] ||
        die "TMUX_TOOL_SHARED_SOCKET='$SOCKET': use letters, digits, '-' and '_' only"
    [[ $SESSION =~ ^[A-Za-z0-9_-]+$ ]] ||
        die "TMUX_TOOL_SHARED_SESSION='$SESSION': use letters, digits, '-' and '_' only"
    if ! [[ $PORT =~ ^[0-9]+$ ]] || ((10#$PORT < 1 || 10#$PORT > 65535)); then
        die "TMUX_TOOL_WEB_PORT='$PORT' is not a port number"
    fi
    case $BACKEND in
        auto | ttyd | builtin) ;;
        *) die "TMUX_TOOL_WEB_BACKEND='$BACKEND': use auto, ttyd or builtin" ;;
    esac
    # As the tool names hosts: never a leading '-', which ssh would read as an option.
    [[ -z $HOST || $HOST =~ ^[A-Za-z0-9_][A-Za-z0-9_.@:%+-]{0,127}$ ]] ||
        die "--host '$HOST': name it as ssh does (user@name, or a Host of ~/.ssh/config) or as a line of the tool's hosts file"
    # A page of a host's session keeps its own pid file, next to this machine's for the same socket.
    RUN_DIR="$RUN_BASE/$SOCKET${HOST:+@$HOST}"
    PID_FILE="$RUN_DIR/web.pid"
    LOG_FILE="$RUN_DIR/web.log"
    TOKEN_FILE="$RUN_DIR/web.token"
    URL_FILE="$RUN_DIR/web.url"
    LOCK_FILE="$RUN_DIR/lock"
}

# The app's hand on the host (web/shared_host.py): ensure, alive or end the session there.
on_host() {
    "$VENV_PY" "$WEB_DIR/shared_host.py" "$1" --host "$HOST" --socket "$SOCKET" --session "$SESSION" \
        --tmux-conf "$TMUX_CONF" 9>&-
}

tmux_shared() {
    timeout "$TMUX_TIMEOUT" tmux -L "$SOCKET" "$@"
}

session_exists() {
    if [[ -n $HOST ]]; then
        on_host alive 2>/dev/null
    else
        tmux_shared has-session -t "=$SESSION" 2>/dev/null
    fi
}

is_loopback() {
    case $1 in
        127.* | ::1 | '[::1]' | localhost) return 0 ;;
        *) return 1 ;;
    esac
}

# Per-user, per-socket state directory. Both levels are 0700 and must belong
# to us: pid files and the token must not be readable or replaceable by
# another user sharing /tmp.
RUN_ROOT=${XDG_RUNTIME_DIR:-/tmp}
[[ -d $RUN_ROOT && -w $RUN_ROOT ]] || RUN_ROOT=/tmp
RUN_BASE="$RUN_ROOT/tmux-tool-$(id -u)"
RUN_DIR="$RUN_BASE/$SOCKET"
PID_FILE="$RUN_DIR/web.pid"
LOG_FILE="$RUN_DIR/web.log"
TOKEN_FILE="$RUN_DIR/web.token"
URL_FILE="$RUN_DIR/web.url"
LOCK_FILE="$RUN_DIR/lock"

ensure_run_dir() {
    local dir
    for dir in "$RUN_BASE" "$RUN_DIR"; do
        mkdir -m 0700 "$dir" 2>/dev/null || true
        [[ -d $dir && ! -L $dir && -O $dir ]] ||
            die "$dir is not a directory owned by $(id -un); remove it or set XDG_RUNTIME_DIR"
        chmod 0700 "$dir"
    done
}

# Serialises start.sh and stop.sh for one socket; the lock is released when
# the script exits. Children must not inherit fd 9 (see `9>&-` at launches).
take_lock() {
    exec 9>"$LOCK_FILE"
    flock -w 60 9 || die "another start.sh or stop.sh for socket '$SOCKET' is still running"
}

# Start time of a process in clock ticks since boot (field 22 of
# /proc/PID/stat). With the pid it names one process for good: a recycled pid
# has a different start time.
proc_start_time() {
    local stat rest fields
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    rest=${stat##*) }
    read -ra fields <<<"$rest"
    printf '%s\n' "${fields[19]}"
}

# The pid file holds "PID START_TIME KIND"; KIND is builtin or ttyd.
write_pid_file() {
    local start
    start=$(proc_start_time "$1") || return 1
    printf '%s %s %s\n' "$1" "$start" "$2" >"$PID_FILE.tmp"
    mv -f "$PID_FILE.tmp" "$PID_FILE"
}

# Sets WEB_PID and WEB_KIND when the pid file names a live process that is
# still our web server for this socket; returns 1 otherwise.
web_server_running() {
    local pid start kind cmdline
    WEB_PID='' WEB_KIND=''
    [[ -r $PID_FILE ]] || return 1
    read -r pid start kind <"$PID_FILE" || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ $(proc_start_time "$pid" 2>/dev/null) == "$start" ]] || return 1
    cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
    case $kind in
        builtin) [[ $cmdline == *" $WEB_DIR/server.py --socket $SOCKET ${HOST:+--host $HOST }--session $SESSION "* ]] ||
            return 1 ;;
        ttyd) [[ $cmdline == ttyd\ * && $cmdline == *" tmux -u -L $SOCKET "* ]] || return 1 ;;
        *) return 1 ;;
    esac
    WEB_PID=$pid WEB_KIND=$kind
}

# How a person or another program reaches the tool for this shared session.
tool_env_prefix() {
    local prefix=''
    [[ $SOCKET != shared ]] && prefix+="TMUX_TOOL_SHARED_SOCKET=$SOCKET "
    [[ $SESSION != shared ]] && prefix+="TMUX_TOOL_SHARED_SESSION=$SESSION "
    printf '%s' "$prefix"
}
