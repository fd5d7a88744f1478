"""Fresh HOME directories that point each AI CLI at the scripted model server.

Every CLI keeps first-run state (onboarding, trust, key approval, login) in its
HOME, so a fresh temporary HOME per run makes screens repeatable; the flags
here decide which first-run dialogs are answered in advance and which are left
for a capture or a test to meet. Each function returns a `Launch`: the argv
(a list, never an interpolated string), the environment and the directories.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

CLIS_DIR = Path(__file__).resolve().parent
BIN_DIR = CLIS_DIR / "node_modules" / ".bin"
DUMMY_KEY = "sk-scripted-0000000000000000000000000000-offline"

# Switches every Node/Rust CLI here honours for "no network except the model".
_QUIET_ENV = {
    "NO_UPDATE_NOTIFIER": "1",
    "NPM_CONFIG_UPDATE_NOTIFIER": "false",
    "DO_NOT_TRACK": "1",
}


@dataclass(frozen=True)
class Launch:
    """How to start one CLI: run `argv` in `cwd` with `env` (already includes HOME and PATH)."""

    program: str
    argv: list[str]
    env: dict[str, str]
    home: Path
    cwd: Path
    # the argv that ends what the CLI leaves running after it exits, run in `env` and `cwd` (Cline's hub
    # daemon); None when it leaves nothing
    stop: list[str] | None = None

    def command(self) -> str:
        """The argv as one shell-quoted line, for typing into a shell pane."""
        return shlex.join(self.argv)


def _base_env(home: Path, extra_path: Path | None = None) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(extra_path or BIN_DIR), os.environ.get("PATH", "/usr/bin:/bin")) if p)
    return {"HOME": str(home), "PATH": path, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local" / "state"),
            **_QUIET_ENV}


def _write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def claude(base_url: str, home: Path, cwd: Path, *, onboarding: bool = False, key_approval: bool = False,
           trust: bool = False, auto_mode: bool = False, api_key: str = DUMMY_KEY, max_retries: int = 0) -> Launch:
    """Claude Code against `base_url` (Anthropic Messages API).

    `onboarding` leaves the theme picker and welcome flow, `key_approval` the
    "use this API key?" question, `trust` the trust-folder dialog,
    `auto_mode` the offer of newer releases to make auto mode the default.
    `max_retries` bounds how often it retries a failed request before the
    error is shown (its default retries for minutes).
    """
    state: dict[str, object] = {
        "hasCompletedOnboarding": not onboarding,
        "theme": "dark",
        "autoUpdates": False,
        "customApiKeyResponses": {"approved": [] if key_approval else [api_key[-20:]], "rejected": []},
        "projects": {str(cwd): {"hasTrustDialogAccepted": not trust, "allowedTools": [],
                                "hasCompletedProjectOnboarding": True}},
    }
    if onboarding:
        state.pop("theme")
    _write_json(home / ".claude.json", state)
    # Newer releases run tools in "auto mode" without asking, or ask whether to make it the default;
    # the tests want the permission question itself (and the offer only when asked for).
    permissions = {"defaultMode": "default"} if auto_mode else {"defaultMode": "default", "disableAutoMode": "disable"}
    _write_json(home / ".claude" / "settings.json", {"autoUpdates": False, "permissions": permissions})
    env = _base_env(home) | {
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": api_key,
        "CLAUDE_CODE_MAX_RETRIES": str(max_retries),
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_GROWTHBOOK": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
        "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL": "1",
    }
    return Launch("claude", ["claude"], env, home, cwd)


def gemini(base_url: str, home: Path, cwd: Path, *, auth_dialog: bool = False, trust: bool = False,
           theme: bool = False, api_key: str = DUMMY_KEY) -> Launch:
    """Gemini CLI against `base_url` (Gemini API, `GOOGLE_GEMINI_BASE_URL`).

    `auth_dialog` leaves the "how would you like to authenticate" choice
    (no auth type selected), `trust` the trust-folder dialog (folder trust on,
    folder not listed), `theme` the theme picker (no theme chosen).
    """
    settings: dict[str, object] = {
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True, "enableAutoUpdate": False,
                    "enableAutoUpdateNotification": False},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "security": {"folderTrust": {"enabled": True}},
        "ide": {"enabled": False, "hasSeenNudge": True},
        "ui": {"theme": "Default"},
    }
    if not auth_dialog:
        settings["security"] = {"folderTrust": {"enabled": True}, "auth": {"selectedType": "gemini-api-key"}}
    if theme:
        settings.pop("ui")
    _write_json(home / ".gemini" / "settings.json", settings)
    _write_json(home / ".gemini" / "trustedFolders.json", {} if trust else {str(cwd): "TRUST_FOLDER"})
    env = _base_env(home) | {
        "GOOGLE_GEMINI_BASE_URL": base_url,
        "GEMINI_CLI_NO_RELAUNCH": "true",
        "GEMINI_TELEMETRY_ENABLED": "false",
    }
    if not auth_dialog:
        env["GEMINI_API_KEY"] = api_key
    return Launch("gemini", ["gemini"], env, home, cwd)


def codex(base_url: str, home: Path, cwd: Path, *, trust: bool = False, login: bool = False,
          api_key: str = DUMMY_KEY) -> Launch:
    """Codex against `base_url` (OpenAI Responses API through a custom provider).

    `login` leaves the sign-in screen (no stored key), `trust` the
    "do you trust this folder" question: the project is not marked trusted
    and is made a git repository, the only kind Codex asks about.
    The key is stored the way `codex login --with-api-key` stores it.
    """
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    lines = [
        'model = "gpt-5-codex"',
        'model_provider = "scripted"',
        "check_for_update_on_startup = false",
        "",
        "[model_providers.scripted]",
        'name = "scripted"',
        f"base_url = {json.dumps(base_url + '/v1')}",
        'wire_api = "responses"',
        "requires_openai_auth = true",
        "supports_websockets = false",
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
        "[analytics]",
        "enabled = false",
        "",
        "[notice]",
        "hide_full_access_warning = true",
        "",
    ]
    if trust:
        subprocess.run(["git", "init", "-q", str(cwd)], check=True, timeout=30, capture_output=True)
    else:
        lines += [f"[projects.{json.dumps(str(cwd))}]", 'trust_level = "trusted"', ""]
    (codex_home / "config.toml").write_text("\n".join(lines), encoding="utf-8")
    if not login:
        _write_json(codex_home / "auth.json", {"OPENAI_API_KEY": api_key, "tokens": None, "last_refresh": None})
    env = _base_env(home) | {"CODEX_HOME": str(codex_home), "OPENAI_BASE_URL": base_url + "/v1"}
    # Without --no-daemon, 0.169 starts a shared `codex app-server` daemon that outlives the TUI.
    return Launch("codex", ["codex", "--no-daemon"], env, home, cwd)


def opencode(base_url: str, home: Path, cwd: Path, *, api_key: str = DUMMY_KEY,
             argv: list[str] | None = None) -> Launch:
    """OpenCode against `base_url` (chat completions via `@ai-sdk/openai-compatible`).

    `argv` replaces the default interactive `opencode` (e.g. `["opencode", "run", "hi"]`).
    """
    config = {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "permission": {"bash": "ask", "edit": "ask"},
        "model": "scripted/scripted-model",
        "small_model": "scripted/scripted-model",
        "provider": {"scripted": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Scripted",
            "options": {"baseURL": base_url + "/v1", "apiKey": api_key},
            "models": {"scripted-model": {"name": "Scripted Model", "tool_call": True,
                                          "limit": {"context": 128000, "output": 8192}}},
        }},
    }
    _write_json(home / ".config" / "opencode" / "opencode.json", config)
    # At every start OpenCode installs its plugin package (@opencode-ai/plugin and 27 more, from the npm
    # registry) into each config folder whose lock file does not list it yet: in a fresh HOME that is
    # every test's start, and on a loaded machine the download and unpacking kept it drawing nothing for
    # 40 s and more, and taking no prompt after.  No plugin is configured here, so the lock file says the
    # package is in, as a HOME that has run OpenCode once says it.
    (home / ".config" / "opencode" / "node_modules").mkdir(exist_ok=True)
    _write_json(home / ".config" / "opencode" / "package-lock.json",
                {"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}})
    env = _base_env(home) | {
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "OPENCODE_DISABLE_SHARE": "1",
        "OPENCODE_DISABLE_TERMINAL_TITLE": "1",
    }
    return Launch("opencode", argv or ["opencode"], env, home, cwd)


def kimi(base_url: str, home: Path, cwd: Path, *, api_key: str = DUMMY_KEY, venv: Path = Path("/tmp/aivenv-kimi"),
         yolo: bool = False) -> Launch:
    """Kimi CLI (PyPI `kimi-cli` 1.51.0, needs Python >= 3.12 but not 3.12.1) against `base_url` (chat completions).

    From 1.52.0 on, `kimi` no longer starts this CLI: it runs the installer of
    its successor, fetched from the network, or prints a notice.

    It is installed in its own virtualenv `venv`, not the project's. Kimi
    refuses `TERM=tmux-256color` on recent versions, so TERM is set to
    xterm-256color.
    """
    config = "\n".join([
        'default_model = "scripted"',
        f"default_yolo = {'true' if yolo else 'false'}",
        "telemetry = false",
        "",
        "[providers.scripted]",
        'type = "openai_legacy"',
        f"base_url = {json.dumps(base_url + '/v1')}",
        f"api_key = {json.dumps(api_key)}",
        "",
        "[models.scripted]",
        'provider = "scripted"',
        'model = "scripted-model"',
        "max_context_size = 128000",
        "",
    ])
    (home / ".kimi").mkdir(parents=True, exist_ok=True)
    (home / ".kimi" / "config.toml").write_text(config, encoding="utf-8")
    env = _base_env(home, venv / "bin") | {"KIMI_CLI_NO_AUTO_UPDATE": "1", "TERM": "xterm-256color"}
    return Launch("kimi", ["kimi"], env, home, cwd)


def aider(base_url: str, home: Path, cwd: Path, *, api_key: str = DUMMY_KEY,
          venv: Path = Path("/tmp/aivenv-aider")) -> Launch:
    """Aider (PyPI `aider-chat`) against `base_url` through litellm's OpenAI-compatible route.

    Installed in its own virtualenv `venv`. Every network side trip (update
    check, analytics, model-price download) is switched off by flag or env.
    """
    env = _base_env(home, venv / "bin") | {
        "OPENAI_API_BASE": base_url + "/v1",
        "OPENAI_API_KEY": api_key,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "AIDER_CHECK_UPDATE": "false",
        "AIDER_ANALYTICS": "false",
    }
    argv = ["aider", "--model", "openai/scripted-model", "--no-git", "--no-check-update", "--analytics-disable",
            "--no-show-model-warnings", "--no-show-release-notes", "--no-auto-commits", "--no-gitignore",
            "--pretty"]
    return Launch("aider", argv, env, home, cwd)


def pi(base_url: str, home: Path, cwd: Path, *, api_key: str = DUMMY_KEY) -> Launch:
    """pi (`@mariozechner/pi-coding-agent`) against `base_url` (chat completions).

    A provider of its own in `~/.pi/agent/models.json` (`api: openai-completions`),
    chosen as the default in `settings.json`; `PI_OFFLINE` leaves out every start-up
    request (update checks, install telemetry). pi asks no permission for tools.
    """
    agent = home / ".pi" / "agent"
    _write_json(agent / "models.json", {"providers": {"scripted": {
        "baseUrl": base_url + "/v1", "api": "openai-completions", "apiKey": api_key,
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        "models": [{"id": "scripted-model", "name": "Scripted Model", "contextWindow": 128000, "maxTokens": 8192}],
    }}})
    _write_json(agent / "settings.json", {"defaultProvider": "scripted", "defaultModel": "scripted-model",
                                          "enableInstallTelemetry": False, "collapseChangelog": True})
    env = _base_env(home) | {"PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}
    return Launch("pi", ["pi"], env, home, cwd)


def qwen(base_url: str, home: Path, cwd: Path, *, api_key: str = DUMMY_KEY) -> Launch:
    """Qwen Code (`@qwen-code/qwen-code`, a Gemini CLI descendant) against `base_url` (chat completions).

    Its OpenAI-compatible auth chosen in `~/.qwen/settings.json`, the model
    and base URL from `OPENAI_*`; usage statistics, telemetry and update checks off.
    Tools ask before they run (`approvalMode: default`; a fresh HOME would judge
    them by a model-backed classifier), and its grep is the built-in one (the
    bundled ripgrep needs an install script npm does not run here).  Its own
    model calls beside the turn (a suggested next prompt, memory extraction
    after a turn) are switched off: they offer tools, so the scripted server
    would take them for turns.
    """
    settings = {
        "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
        "tools": {"approvalMode": "default", "useRipgrep": False},
        "model": {"name": "scripted-model"},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False},
        "ide": {"enabled": False, "hasSeenNudge": True},
        "ui": {"theme": "Default", "enableFollowupSuggestions": False, "enableSpeculation": False},
        "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False, "enableAutoSkill": False},
    }
    _write_json(home / ".qwen" / "settings.json", settings)
    env = _base_env(home) | {"OPENAI_API_KEY": api_key, "OPENAI_BASE_URL": base_url + "/v1",
                             "OPENAI_MODEL": "scripted-model", "QWEN_CODE_NO_RELAUNCH": "true"}
    return Launch("qwen", ["qwen"], env, home, cwd)


def cn(base_url: str, home: Path, cwd: Path, *, api_key: str = DUMMY_KEY) -> Launch:
    """Continue's CLI `cn` (`@continuedev/cli`) against `base_url` (chat completions).

    One model of provider `openai` with its `apiBase` in a config file given
    with `--config` (no sign-in to Continue's hub), telemetry off.
    """
    config = home / ".continue" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join([
        "name: scripted",
        "version: 1.0.0",
        "schema: v1",
        "models:",
        "  - name: scripted-model",
        "    provider: openai",
        "    model: scripted-model",
        f"    apiBase: {json.dumps(base_url + '/v1')}",
        f"    apiKey: {json.dumps(api_key)}",
        "    roles: [chat, edit, apply]",
        "",
    ]), encoding="utf-8")
    env = _base_env(home) | {"CONTINUE_CLI_ENABLE_TELEMETRY": "0", "CONTINUE_GLOBAL_DIR": str(config.parent)}
    return Launch("cn", ["cn", "--config", str(config)], env, home, cwd)


def copilot(base_url: str, home: Path, cwd: Path, *, api_key: str = DUMMY_KEY, trust: bool = False) -> Launch:
    """GitHub Copilot CLI (`@github/copilot`, a native binary under a Node loader) against `base_url`.

    Its "bring your own key" mode: `COPILOT_PROVIDER_BASE_URL` (chat completions, the default wire),
    a model named by `COPILOT_MODEL`; no GitHub sign-in is asked for then.  `COPILOT_OFFLINE` leaves
    out every other request (sign-in, telemetry, web tools, GitHub's MCP server, updates).
    `trust` leaves the trust-folder question ("Confirm folder trust"); otherwise the project folder
    is listed in `~/.copilot/config.json` as its answer "remember this folder" lists it, with the
    first launch and the desktop-app tip marked as past.  The token limits are given because the
    model is not in its catalog (it warns at every start otherwise).
    """
    config: dict[str, object] = {"banner": "never", "firstLaunchAt": "2026-01-01T00:00:00.000Z",
                                 "appTipShown": True}
    if not trust:
        config["trustedFolders"] = [str(cwd)]
    _write_json(home / ".copilot" / "config.json", config)
    env = _base_env(home) | {
        "COPILOT_PROVIDER_BASE_URL": base_url + "/v1",
        "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_PROVIDER_API_KEY": api_key,
        "COPILOT_MODEL": "scripted-model",
        "COPILOT_PROVIDER_MAX_PROMPT_TOKENS": "128000",
        "COPILOT_PROVIDER_MAX_OUTPUT_TOKENS": "8192",
        "COPILOT_OFFLINE": "true",
        "COPILOT_AUTO_UPDATE": "false",
    }
    return Launch("copilot", ["copilot"], env, home, cwd)


def kilo(base_url: str, home: Path, cwd: Path, *, api_key: str = DUMMY_KEY) -> Launch:
    """Kilo CLI (`@kilocode/cli`, an OpenCode fork: a native binary under a Node loader) against `base_url`.

    7.7.7 is the newest release the npm registry serves whole: 7.8.1's platform package
    (`@kilocode/cli-linux-x64@7.8.1`) is not there, so its install script fails.  The config is
    OpenCode's, in `~/.config/kilo/kilo.json`: a provider of its own through
    `@ai-sdk/openai-compatible` (bundled, nothing installed at start), and `enabled_providers` so
    that Kilo's own gateway (`api.kilo.ai`) and Apertis are not asked for their model lists.
    The `KILO_*` switches (OpenCode's, renamed) leave out the rest: the models.dev catalog, the
    update check, PostHog telemetry (any level but "all" is off), sharing and session upload, LSP
    downloads and the default plugins.  `KILO_NO_DAEMON` keeps it from using a shared background
    server that another run (or a user's Kilo) left behind.  Tools ask before they run.
    """
    config = {
        "$schema": "https://app.kilo.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "permission": {"bash": "ask", "edit": "ask"},
        "enabled_providers": ["scripted"],
        "model": "scripted/scripted-model",
        "small_model": "scripted/scripted-model",
        "provider": {"scripted": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Scripted",
            "options": {"baseURL": base_url + "/v1", "apiKey": api_key},
            "models": {"scripted-model": {"name": "Scripted Model", "tool_call": True,
                                          "limit": {"context": 128000, "output": 8192}}},
        }},
    }
    _write_json(home / ".config" / "kilo" / "kilo.json", config)
    env = _base_env(home) | {
        "KILO_DISABLE_AUTOUPDATE": "1",
        "KILO_DISABLE_MODELS_FETCH": "1",
        "KILO_DISABLE_LSP_DOWNLOAD": "1",
        "KILO_DISABLE_DEFAULT_PLUGINS": "1",
        "KILO_DISABLE_SHARE": "1",
        "KILO_DISABLE_SESSION_INGEST": "1",
        "KILO_DISABLE_TERMINAL_TITLE": "1",
        "KILO_TELEMETRY_LEVEL": "off",
        "KILO_NO_DAEMON": "1",
    }
    return Launch("kilo", ["kilo"], env, home, cwd)
def grok(base_url: str, home: Path, cwd: Path, *, api_key: str = DUMMY_KEY) -> Launch:
    """Grok CLI (`@vibe-kit/grok-cli`, an Ink TUI through the `openai` client) against `base_url`.

    A CLI no profile here names, for the generic reading alone: its input is a rounded box
    (`╭─…─╮ │ ❯ … │ ╰─…─╯`) under its banner.  The base URL and model go on its command line,
    the key in `GROK_API_KEY`; it asks the network for nothing else at start (its only other
    address, Morph's, is for an edit tool used with a Morph key).  Its settings file,
    `~/.grok/user-settings.json`, is written at first start.
    """
    env = _base_env(home) | {"GROK_API_KEY": api_key}
    return Launch("grok", ["grok", "--base-url", base_url + "/v1", "--model", "scripted-model"], env, home, cwd)


def _free_port() -> int:
    """A loopback port no one listens on now (the kernel's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cline(base_url: str, home: Path, cwd: Path, *, api_key: str = DUMMY_KEY, offer: bool = False) -> Launch:
    """Cline CLI (`cline`, a Bun-compiled binary under a Node resolver) against `base_url` (chat completions).

    Its provider `openai-compatible` with the base URL, key and model in
    `~/.cline/data/settings/providers.json`, as `cline auth -p openai-compatible -b URL -k KEY
    -m MODEL` writes it; `global-settings.json` turns off its default "auto-approve all" (the tests
    want its permission question), telemetry and auto-update.  `offer` leaves its start-up offers
    ("Try ClinePass", then "Introducing Cline Desktop" at the next start: "Press Enter to open, any
    other key to close"); otherwise `cli-notices.json` marks both as shown.

    At its first start the TUI spawns a hub daemon (`cline --cline-hub-daemon ... --port 25463`,
    after setsid) that outlives the TUI; a later TUI of any HOME connects to a daemon already on that
    port and takes its state (the other HOME's notices, sessions).  So each launch gets a hub port of
    its own (`CLINE_HUB_PORT`); `stop` ends this HOME's daemon (`cline hub stop`).
    """
    settings = home / ".cline" / "data" / "settings"
    _write_json(settings / "providers.json", {
        "version": 1,
        "lastUsedProvider": "openai-compatible",
        "modes": {},
        "providers": {"openai-compatible": {
            "settings": {"provider": "openai-compatible", "apiKey": api_key, "model": "scripted-model",
                         "baseUrl": base_url + "/v1"},
            "updatedAt": "2026-01-01T00:00:00.000Z",
            "tokenSource": "manual",
        }},
    })
    _write_json(settings / "global-settings.json", {"telemetryOptOut": True, "autoUpdateEnabled": False,
                                                    "toolAutoApprove": False})
    if not offer:
        _write_json(settings / "cli-notices.json",
                    {"shown": {"cline-cli-cline-pass-intro": True, "cline-cli-desktop-launch": True}})
    env = _base_env(home) | {"CLINE_NO_AUTO_UPDATE": "1", "CLINE_HUB_PORT": str(_free_port())}
    return Launch("cline", ["cline"], env, home, cwd, stop=["cline", "hub", "stop"])
