#!/usr/bin/env bash
# Starts the shared terminal: the human's tmux session and a browser view of it.
#
# Idempotent: an existing session is never recreated (it is someone's work),
# and a running web server is left as it is. Safe to run at every boot or
# container start, and from several installs side by side when each sets its
# own TMUX_TOOL_SHARED_SOCKET and TMUX_TOOL_WEB_PORT.
set -euo pipefail
# Background jobs must stay in our process group so `setsid` below starts the
# web server in place (same pid) instead of forking a second process.
set +m
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() {
    cat <<EOF
usage: $PROG [--foreground] [--host NAME]

Creates tmux session '$SESSION' on socket '$SOCKET' if it does not exist and
serves it on http://$BIND:$PORT/ (ttyd when installed, else the bundled web
terminal). The web server runs in the background unless --foreground is given.

With --host NAME the session lives on that host (an ssh destination, or a name
in the tool's hosts file), made there with this app's tmux.conf, and the page
here shows it through the tool's connection to the host (the bundled web
terminal serves it).

Environment: TMUX_TOOL_SHARED_SOCKET, TMUX_TOOL_SHARED_SESSION,
TMUX_TOOL_WEB_PORT, TMUX_TOOL_WEB_BIND (default 127.0.0.1),
TMUX_TOOL_WEB_TOKEN (required for a non-loopback bind; generated if unset),
TMUX_TOOL_WEB_BACKEND (auto, ttyd or builtin).
EOF
}

FOREGROUND=0
while (($#)); do
    case $1 in
        --foreground) FOREGROUND=1 ;;
        --host) (($# >= 2)) || { usage >&2 && exit 2; }; HOST=$2 && shift ;;
        --host=*) HOST=${1#--host=} ;;
        -h | --help) usage && exit 0 ;;
        *) usage >&2 && exit 2 ;;
    esac
    shift
done

check_config
# Started from inside tmux, the session and the browser's tmux clients would
# inherit this and refuse to attach ("sessions should be nested with care").
unset TMUX TMUX_PANE

"$APP_DIR/setup.sh"
ensure_run_dir
take_lock

# The session runs the user's login shell; bash when passwd names none usable.
login_shell() {
    local shell
    shell=$(getent passwd "$(id -un)" | cut -d: -f7)
    case $shell in
        '' | */nologin | */false) shell=/bin/bash ;;
    esac
    [[ -x $shell ]] || shell=/bin/bash
    printf '%s\n' "$shell"
}

ensure_session() {
    if [[ -n $HOST ]]; then
        SESSION_STATE=$(on_host ensure) || die "could not make tmux session '$SESSION' on socket '$SOCKET' on $HOST"
        return 0
    fi
    if session_exists; then
        SESSION_STATE="existing"
        return 0
    fi
    # xterm.js speaks UTF-8; without any locale the programs in the session
    # would fall back to ASCII.
    if [[ -z ${LC_ALL:-}${LC_CTYPE:-}${LANG:-} ]]; then
        export LANG=C.UTF-8
    fi
    # The tmux server's environment becomes every shell's in the session: the
    # web token must not be readable there with `env`.
    env -u TMUX_TOOL_WEB_TOKEN SHELL="$(login_shell)" timeout "$TMUX_TIMEOUT" \
        tmux -L "$SOCKET" -f "$TMUX_CONF" new-session -d -s "$SESSION" 9>&- ||
        die "could not create tmux session '$SESSION' on socket '$SOCKET'"
    SESSION_STATE="created"
}

choose_backend() {
    if [[ -n $HOST ]]; then
        # A tab of a host's session runs that host's tmux client through the tool's connection to it.
        [[ $BACKEND != ttyd ]] || die "ttyd serves this machine's session only; use TMUX_TOOL_WEB_BACKEND=builtin"
        echo builtin
        return 0
    fi
    case $BACKEND in
        builtin) echo builtin ;;
        ttyd)
            command -v ttyd >/dev/null || die "TMUX_TOOL_WEB_BACKEND=ttyd, but ttyd is not installed"
            [[ -z $TOKEN ]] || die "ttyd would need the token on its command line; use TMUX_TOOL_WEB_BACKEND=builtin"
            echo ttyd
            ;;
        auto)
            # ttyd checks credentials only if given on its command line, where
            # any local user can read them: with a token, serve it ourselves.
            if [[ -z $TOKEN ]] && command -v ttyd >/dev/null; then echo ttyd; else echo builtin; fi
            ;;
    esac
}

# Where this machine reaches the server: a wildcard bind is reached on loopback.
probe_host() {
    case $BIND in
        0.0.0.0) echo 127.0.0.1 ;;
        :: | '[::]') echo '[::1]' ;;
        \[*) echo "$BIND" ;;
        *:*) echo "[$BIND]" ;;
        *) echo "$BIND" ;;
    esac
}

write_private() {
    (umask 077 && printf '%s\n' "$2" >"$1")
}

print_info() {
    local url=$1 pid=$2 kind=$3 log=${4:-$LOG_FILE} prefix on='' host=''
    prefix=$(tool_env_prefix)
    if [[ -n $HOST ]]; then
        on=" on $HOST" host=" --host $HOST"
    fi
    cat <<EOF
Shared terminal: tmux -L $SOCKET$on, session '$SESSION' ($SESSION_STATE)
  browser:    $url
  terminal:   tmux -L $SOCKET attach -t $SESSION$on
  web server: $kind, pid $pid, log $log
The tool, from $REPO_ROOT:
  ${prefix}.venv/bin/python -m python.tools.tmux_tool status$host
  ${prefix}.venv/bin/python -m python.tools.tmux_tool read$host
  ${prefix}.venv/bin/python -m python.tools.tmux_tool send$host --text 'ls'
Stop the web server: ${prefix}$APP_DIR/stop.sh$host   (--kill-session also ends the tmux session)
EOF
}

SESSION_STATE=""
ensure_session

if web_server_running; then
    if [[ -n ${TMUX_TOOL_WEB_TOKEN:-} && ${TMUX_TOOL_WEB_TOKEN} != "$(cat "$TOKEN_FILE" 2>/dev/null)" ]]; then
        note "the running web server keeps the access settings it started with; run stop.sh first to change them"
    fi
    print_info "$(cat "$URL_FILE" 2>/dev/null || echo "unknown (see $LOG_FILE)")" "$WEB_PID" "$WEB_KIND (already running)"
    exit 0
fi
rm -f "$PID_FILE"

TOKEN=${TMUX_TOOL_WEB_TOKEN:-}
if [[ -z $TOKEN ]] && ! is_loopback "$BIND"; then
    TOKEN=$("$VENV_PY" -c 'import secrets; print(secrets.token_urlsafe(32))')
    note "$BIND is not a loopback address: generated an access token (also in $TOKEN_FILE)"
fi
KIND=$(choose_backend)
URL="http://$(probe_host):$PORT/"
if [[ -n $TOKEN ]]; then
    URL+="?token=$TOKEN"
    write_private "$TOKEN_FILE" "$TOKEN"
else
    rm -f "$TOKEN_FILE"
fi
write_private "$URL_FILE" "$URL"
if [[ $BIND == 0.0.0.0 || $BIND == :: || $BIND == '[::]' ]]; then
    note "listening on every interface: from another machine, use its address instead of $(probe_host)"
fi

if [[ $KIND == ttyd ]]; then
    COMMAND=(ttyd --interface "$BIND" --port "$PORT" --writable --check-origin
        tmux -u -L "$SOCKET" -f "$TMUX_CONF" new-session -A -s "$SESSION")
else
    COMMAND=("$VENV_PY" "$WEB_DIR/server.py" --socket "$SOCKET" ${HOST:+--host "$HOST"} --session "$SESSION"
        --port "$PORT" --bind "$BIND" --tmux-conf "$TMUX_CONF" --pid-file "$PID_FILE")
fi
# The token reaches the server through its environment, never its arguments.
export TMUX_TOOL_WEB_TOKEN="$TOKEN"

[[ -f $LOG_FILE ]] && mv -f "$LOG_FILE" "$LOG_FILE.1"

if ((FOREGROUND)); then
    write_pid_file "$$" "$KIND"
    print_info "$URL" "$$" "$KIND (foreground)" "this terminal"
    exec 9>&-
    exec "${COMMAND[@]}"
fi

setsid "${COMMAND[@]}" </dev/null >>"$LOG_FILE" 2>&1 9>&- &
WEB_PID=$!
write_pid_file "$WEB_PID" "$KIND" || true

PROBE=("$VENV_PY" "$WEB_DIR/probe.py" --pid "$WEB_PID")
if [[ $KIND == builtin ]]; then
    PROBE+=(--expect-pid "http://$(probe_host):$PORT/healthz")
else
    PROBE+=("http://$(probe_host):$PORT/")
fi
if ! "${PROBE[@]}"; then
    if web_server_running; then
        kill -TERM "$WEB_PID"
    fi
    rm -f "$PID_FILE"
    tail -n 5 "$LOG_FILE" >&2 || true
    die "the web server did not come up on $BIND:$PORT (log: $LOG_FILE)"
fi
print_info "$URL" "$WEB_PID" "$KIND"
