#!/usr/bin/env bash
# Prepares a machine (fresh Debian, root or sudo) for the shared terminal:
# tmux 3.3 or newer, the repository's Python virtualenv with requirements.txt,
# and xterm.js for the bundled web terminal.
#
# start.sh and the test runner call it every time, so it is idempotent, takes
# well under a second when everything is in place, and prints nothing then.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

APT_UPDATED=0

as_root() {
    if ((EUID == 0)); then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        die "root or sudo is needed to run: $*"
    fi
}

apt_install() {
    command -v apt-get >/dev/null || die "apt-get not found: install $* by hand"
    if ((APT_UPDATED == 0)); then
        note "updating the package lists"
        as_root apt-get update -qq >/dev/null
        APT_UPDATED=1
    fi
    note "installing $*"
    as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# `tmux -V` prints e.g. "tmux 3.3a", "tmux 3.4" or "tmux next-3.5".
tmux_is_recent() {
    local version
    version=$(tmux -V 2>/dev/null) || return 1
    [[ $version =~ ([0-9]+)\.([0-9]+) ]] || return 1
    ((BASH_REMATCH[1] > 3 || (BASH_REMATCH[1] == 3 && BASH_REMATCH[2] >= 3)))
}

ensure_tmux() {
    tmux_is_recent && return 0
    apt_install tmux
    tmux_is_recent || die "tmux 3.3 or newer is needed, found: $(tmux -V 2>&1)"
}

ensure_venv() {
    local requirements="$REPO_ROOT/requirements.txt"
    if [[ ! -x $VENV_PY ]]; then
        python3 -c 'import ensurepip, venv' 2>/dev/null || apt_install python3 python3-venv
        note "creating $REPO_ROOT/.venv"
        python3 -m venv "$REPO_ROOT/.venv"
    fi
    "$VENV_PY" "$APP_DIR/requirements_met.py" "$requirements" && return 0
    note "installing $requirements into .venv"
    "$VENV_PY" -m pip install --quiet --disable-pip-version-check -r "$requirements"
}

# The library's bytecode, compiled once and again only for what changed: with
# PYTHONDONTWRITEBYTECODE=1 (usual in containers) Python reads .pyc files but never
# writes them, and every command-line call would compile all it imports.
ensure_bytecode() {
    "$VENV_PY" -m compileall -q "$REPO_ROOT/python" >/dev/null ||
        note "the library's bytecode could not be written (read-only tree?); calls work, they start slower"
}

# node_modules is current when it was installed from exactly the committed
# package.json and package-lock.json; a stamp inside it records their hash.
ensure_web_packages() {
    local stamp="$WEB_DIR/node_modules/.installed-from.sha256" wanted
    wanted=$(cat "$WEB_DIR/package.json" "$WEB_DIR/package-lock.json" | sha256sum)
    wanted=${wanted%% *}
    [[ -f $stamp && $(<"$stamp") == "$wanted" ]] && return 0
    command -v npm >/dev/null || apt_install nodejs npm
    note "installing the web terminal's npm packages"
    (cd "$WEB_DIR" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    printf '%s\n' "$wanted" >"$stamp"
}

ensure_tmux
ensure_venv
ensure_bytecode
ensure_web_packages
