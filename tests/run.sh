#!/usr/bin/env bash
# The test command (README): installs what the tests need, then runs pytest.
#
# On a fresh Debian machine this brings tmux, the virtualenv, the web
# terminal's packages (apps/shared-terminal/setup.sh), the real programs the
# tests drive (the system python3 for the tool run as an ordinary user, vim, less, sqlite3, zsh, fish, dash, man, top/watch, htop, sudo, screen,
# bc, ed, tclsh, gdb and Perl's debugger (its full package) for the line programs no profile knows, Chromium for the
# browser test; podman, runc and debootstrap for the container of tests/containers.py) and the AI CLIs
# from npm (tests/e2e/clis).  Every step is skipped when already in place.  Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

apps/shared-terminal/setup.sh

need=()
# runc, not podman's default crun, which fails here (tests/containers.py); asked for with podman, it also
# satisfies podman's "crun | runc" so crun is not installed.
for pair in /usr/bin/python3:python3 vim:vim less:less sqlite3:sqlite3 zsh:zsh fish:fish dash:dash htop:htop man:man-db watch:procps sudo:sudo screen:screen chromium:chromium /usr/sbin/sshd:openssh-server \
            bc:bc ed:ed tclsh:tcl gdb:gdb /usr/bin/cpan:perl \
            podman:podman /usr/sbin/runc:runc /usr/sbin/debootstrap:debootstrap; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair#*:}")
done
if ((${#need[@]})); then
    echo "tests/run.sh: installing ${need[*]}" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# The pinned AI CLIs, and beside them the newest release of each (tests/e2e/clis/newest).
for clis in tests/e2e/clis tests/e2e/clis/newest; do
    [[ -f $clis/package-lock.json ]] || continue
    stamp=$clis/node_modules/.installed-from.sha256
    wanted=$(cat "$clis/package.json" "$clis/package-lock.json" | sha256sum | cut -d' ' -f1)
    if [[ ! -f $stamp || $(<"$stamp") != "$wanted" ]]; then
        # `npm install`, not `npm ci`: the lock pins every version, but npm leaves the
        # optional per-platform packages of opencode-ai out of it, and `npm ci` then refuses.
        # The newest Claude Code declares node >= 22 but ships a native binary: engines are not enforced.
        echo "tests/run.sh: installing the AI CLIs (npm install in $clis)" >&2
        (cd "$clis" && npm install --no-audit --no-fund --loglevel=error --engine-strict=false >/dev/null)
        printf '%s\n' "$wanted" >"$stamp"
    fi
done

export LANG="${LANG:-C.UTF-8}"

# Asked for particular tests (a path, or path::name): one pytest.
for arg in "$@"; do
    [[ $arg != -* && -e ${arg%%::*} ]] && exec .venv/bin/python -m pytest -q "$@"
done

# The whole suite: four pytest processes at once, as most tests wait on terminals, not on the CPU:
# the AI CLIs the tool knows by their screens and records, the chat CLIs (and the rest of the
# e2e files), the other machines with the browser and the robustness suites, and in this one the
# rest.  The others' reports follow this one's; the exit code is the worst of the four.
profiled="tests/e2e/test_ai_clis.py tests/e2e/test_newest_clis.py tests/e2e/test_records.py"
chats=$(ls tests/e2e/test_*.py | grep -vxF -f <(tr ' ' '\n' <<<"$profiled") | tr '\n' ' ')
groups=("$profiled" "$chats" "tests/remote tests/browser tests/robustness")
logs=() pids=()
trap 'rm -f "${logs[@]}"' EXIT
for group in "${groups[@]}"; do
    log=$(mktemp "${TMPDIR:-/tmp}/tmux-tool-tests.XXXXXX")
    # A background job starts with SIGINT ignored, which Python keeps: env gives it back its
    # default, so the trap's SIGINT below reaches pytest, whose fixtures then clean up.  In a
    # session of its own, a Ctrl+C at the terminal does not reach it too: one SIGINT, not two
    # (a second would cut its clean-up short).
    # shellcheck disable=SC2086  # a group is a list of paths
    setsid -w env --default-signal=INT .venv/bin/python -m pytest -q "$@" $group >"$log" 2>&1 &
    logs+=("$log") pids+=($!)
done
trap 'kill -INT "${pids[@]}" 2>/dev/null' INT TERM  # their fixtures clean up, as the foreground one's do
status=0
.venv/bin/python -m pytest -q "$@" tests/unit tests/integration tests/scenarios || status=$?
for i in "${!groups[@]}"; do
    group_status=0
    wait "${pids[$i]}" || group_status=$?
    if ((group_status > status)); then status=$group_status; fi
    echo "--- ${groups[$i]} ---"
    cat "${logs[$i]}"
done
exit "$status"
