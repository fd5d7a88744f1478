// The agent's side of the page: what it does in the terminal, and the
// person's say over it (pause, approve each step, the activity trail).
//
// The state lives in user options of the shared tmux session, where the tool
// and agent.sh read and write it too; the page polls it from GET /api/state.
// Switches and answers go out as JSON POSTs carrying the token in a header,
// never as forms: the server accepts state changes only in that shape and
// only from this page's own origin.
(function () {
  "use strict";

  const shared = window.sharedTerminal;
  const POLL_MS = 300;
  const RETRY_MS = 2000;
  // "you have the terminal" stays this long after the person's last key.
  const YOU_MS = 3000;
  // Typing takes the tool milliseconds; the header says "typing" for the
  // first second of the wait that follows, long enough to be read.
  const JUST_TYPED_S = 1.0;
  const LOG_LIMIT = 200;
  const OPEN_KEY = "tmux_tool.activity_open";

  function byId(id) {
    return document.getElementById(id);
  }
  const agentLabel = byId("agent");
  const agentCount = byId("agent-count");
  const youLabel = byId("you");
  const pauseSwitch = byId("pause");
  const approveSwitch = byId("approve-mode");
  const toggle = byId("activity-toggle");
  const countLabel = byId("activity-count");
  const panel = byId("activity");
  const list = byId("activity-list");
  const empty = byId("activity-empty");
  const screenBox = byId("screen-after");
  const screenTitle = byId("screen-after-title");
  const screenText = byId("screen-after-text");
  const approval = byId("approval");
  const notice = byId("notice");

  // control: the last /api/state answer (undefined before the first, null
  // when the server did not answer); agentLog: every header sentence shown,
  // in order, so automated checks can see what a person saw.
  shared.control = undefined;
  shared.agentLog = [];

  let revision = 0;
  let epoch = null; // the server's trail: entries of another one are dropped
  let clockOffset = 0; // server time minus this browser's time, in seconds
  let answered = null; // id of the approval request this page has answered
  const entries = new Map();

  function serverNow() {
    return Date.now() / 1000 + clockOffset;
  }

  function headers(json) {
    const result = {};
    if (shared.token !== null) {
      result.Authorization = "Bearer " + shared.token;
    }
    if (json) {
      result["Content-Type"] = "application/json";
    }
    return result;
  }

  async function request(method, path, body) {
    const init = { method: method, headers: headers(body !== undefined), cache: "no-store", credentials: "same-origin" };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    let data = null;
    try {
      data = await response.json();
    } catch (error) {
      data = null;
    }
    if (!response.ok) {
      throw new Error((data && data.error) || "the server answered " + response.status);
    }
    return data;
  }

  let noticeTimer = null;
  function tell(message) {
    notice.textContent = message;
    notice.hidden = false;
    window.clearTimeout(noticeTimer);
    noticeTimer = window.setTimeout(function () {
      notice.hidden = true;
    }, 6000);
  }
  // For agent_sessions.js: the same requests (token, JSON) and notices.
  // secretAsked: the shared terminal's row while it asks for a secret (set there).
  shared.request = request;
  shared.tell = tell;
  shared.secretAsked = null;
  shared.focusTerminal = function () {
    shared.term.focus();
  };

  // One line, short: the header has room for a command, not a script.
  function quoted(text) {
    let line = String(text || "").replace(/\r?\n/g, " ⏎ ");
    if (line.length > 60) {
      line = line.slice(0, 59) + "…";
    }
    return "`" + line + "`";
  }

  function agentState(state) {
    if (state === undefined) {
      return ["unknown", "agent: …"];
    }
    if (state === null) {
      return ["unknown", "agent: no answer from the server"];
    }
    if (!state.session_alive) {
      return ["unknown", "agent: the session is not running"];
    }
    // The shared terminal asks the human for a secret (agent_sessions.js hears it).
    const asked = shared.secretAsked;
    if (asked) {
      return ["needs-you", "needs you: the shared terminal asks " + (asked.question ? quoted(asked.question) : "for a secret")];
    }
    if (state.paused) {
      return ["paused", "agent paused"];
    }
    if (state.pending) {
      return ["approval", "agent waiting for your approval"];
    }
    const activity = state.activity;
    if (!activity || activity.state === "idle") {
      return ["idle", "agent idle"];
    }
    const age = Math.max(0, serverNow() - Number(activity.since || 0));
    if (activity.state === "typing" || (activity.state === "waiting" && activity.text && age < JUST_TYPED_S)) {
      return ["typing", "agent typing " + quoted(activity.text)];
    }
    if (activity.state === "held") {
      return ["held", "agent held back" + (activity.reason ? ": " + activity.reason : "")];
    }
    if (activity.state === "waiting") {
      const why = activity.reason ? " " + activity.reason : "";
      return ["waiting", "agent waiting" + why, " (" + Math.floor(age) + " s)"];
    }
    return ["unknown", "agent " + activity.state];
  }

  function youHaveIt(state) {
    const recent = shared.lastKeyAt !== null && performance.now() - shared.lastKeyAt < YOU_MS;
    const heldForYou = state && state.activity && state.activity.state === "held" &&
      /\byou\b/.test(state.activity.reason || "");
    return recent || Boolean(heldForYou);
  }

  // The running count stays out of the live region: a screen reader hears
  // "agent waiting for the prompt" once, not every second.
  function renderHeader() {
    const state = shared.control;
    const [kind, sentence, count] = agentState(state);
    document.body.dataset.agent = kind;
    if (agentLabel.textContent !== sentence) {
      agentLabel.textContent = sentence;
    }
    agentCount.textContent = count || "";
    const shown = sentence + (count || "");
    if (shared.agentLog[shared.agentLog.length - 1] !== shown) {
      shared.agentLog.push(shown);
      if (shared.agentLog.length > LOG_LIMIT) {
        shared.agentLog.shift();
      }
    }
    const you = youHaveIt(state) ? "you have the terminal" : "";
    if (youLabel.textContent !== you) {
      youLabel.textContent = you;
    }
    document.body.dataset.you = you ? "1" : "";
    const paused = Boolean(state && state.paused);
    // A switch keeps its name; on or off is its checked state (and the lit dot).
    pauseSwitch.setAttribute("aria-checked", String(paused));
    approveSwitch.setAttribute("aria-checked", String(Boolean(state && state.approve)));
  }

  function renderApproval() {
    const state = shared.control;
    const pending = state && state.pending;
    if (!pending || pending.id === answered) {
      approval.hidden = true;
      delete approval.dataset.id;
      return;
    }
    if (approval.dataset.id !== pending.id) {
      approval.dataset.id = pending.id;
      byId("approval-text").textContent = pending.text || "";
      byId("approval-text").hidden = !pending.text;
      const keys = (pending.keys || []).join(" ");
      const parts = [];
      if (keys) {
        parts.push("keys: " + keys);
      }
      if (pending.enter) {
        parts.push("then Enter");
      }
      byId("approval-keys").textContent = parts.join(", ");
      byId("approve").disabled = false;
      byId("reject").disabled = false;
    }
    const left = Math.max(0, Math.floor(Number(pending.expires) - serverNow()));
    byId("approval-expires").textContent = "expires in " + left + " s";
    approval.hidden = false;
  }

  async function answer(verdict) {
    const pending = shared.control && shared.control.pending;
    if (!pending) {
      return;
    }
    byId("approve").disabled = true;
    byId("reject").disabled = true;
    try {
      await request("POST", "/api/approval", { id: pending.id, verdict: verdict, digest: pending.digest });
      answered = pending.id;
    } catch (error) {
      tell("Not sent: " + error.message);
      byId("approve").disabled = false;
      byId("reject").disabled = false;
    }
    renderApproval();
  }

  function clock(seconds) {
    const date = new Date(Number(seconds) * 1000);
    return [date.getHours(), date.getMinutes(), date.getSeconds()]
      .map(function (n) {
        return String(n).padStart(2, "0");
      })
      .join(":");
  }

  function entryItem(entry) {
    const item = document.createElement("li");
    item.dataset.id = entry.id;
    item.dataset.status = entry.status || "pending";
    const time = document.createElement("time");
    if (entry.time) {
      time.dateTime = new Date(Number(entry.time) * 1000).toISOString();
      time.textContent = clock(entry.time);
    }
    const action = document.createElement("span");
    action.className = "action";
    action.textContent = entry.action;
    const what = document.createElement("code");
    what.className = "what";
    const typed = [];
    if (entry.text) {
      typed.push(entry.text);
    }
    if (entry.keys.length) {
      typed.push("[" + entry.keys.join(" ") + "]");
    }
    if (entry.enter) {
      typed.push("⏎");
    }
    what.textContent = typed.join(" ");
    const status = document.createElement("span");
    status.className = "status";
    status.textContent = entry.status || "…";
    item.append(time, " ", action, " ", what, " ", status);
    if (entry.screen) {
      const link = document.createElement("button");
      link.type = "button";
      link.className = "link";
      link.textContent = "screen after";
      link.setAttribute("aria-label", "screen after " + entry.action + " at " + clock(entry.time));
      link.addEventListener("click", function () {
        showScreen(entry);
      });
      item.append(" ", link);
    }
    return item;
  }

  function renderEntries() {
    const ordered = Array.from(entries.values()).sort(function (a, b) {
      return a.seq - b.seq;
    });
    const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 8;
    list.replaceChildren.apply(list, ordered.map(entryItem));
    countLabel.textContent = String(ordered.length);
    empty.hidden = ordered.length > 0;
    if (stick) {
      list.scrollTop = list.scrollHeight;
    }
  }

  async function showScreen(entry) {
    try {
      const data = await request("GET", "/api/screen?id=" + encodeURIComponent(entry.id));
      screenTitle.textContent = "Screen after " + entry.action + " at " + clock(entry.time);
      screenText.textContent = data.screen;
      screenBox.hidden = false;
      screenText.focus();
    } catch (error) {
      tell("No screen: " + error.message);
    }
  }

  function setPanel(open) {
    panel.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    try {
      window.localStorage.setItem(OPEN_KEY, open ? "1" : "");
    } catch (error) {
      // storage may be off; the panel just starts closed next time
    }
    if (open) {
      list.scrollTop = list.scrollHeight;
    }
  }

  async function poll() {
    let delay = POLL_MS;
    try {
      const sent = Date.now() / 1000;
      const data = await request("GET", "/api/state?since=" + revision);
      clockOffset = data.now - (sent + Date.now() / 1000) / 2;
      if (data.epoch !== epoch && revision !== 0) {
        // The server restarted or the trail was replaced: start over.
        entries.clear();
        renderEntries();
        revision = 0;
        delay = 0;
      } else {
        epoch = data.epoch;
        revision = data.revision;
        for (const entry of data.entries) {
          entries.set(entry.id, entry);
        }
        if (data.entries.length) {
          renderEntries();
        }
      }
      shared.control = data;
    } catch (error) {
      shared.control = null;
      delay = RETRY_MS;
    }
    renderHeader();
    renderApproval();
    window.setTimeout(poll, delay);
  }

  async function flip(field, value) {
    try {
      const body = {};
      body[field] = value;
      const data = await request("POST", "/api/control", body);
      shared.control = Object.assign({}, shared.control, data);
      renderHeader();
      renderApproval();
    } catch (error) {
      tell("Not changed: " + error.message);
    }
  }

  pauseSwitch.addEventListener("click", function () {
    flip("paused", pauseSwitch.getAttribute("aria-checked") !== "true");
  });
  approveSwitch.addEventListener("click", function () {
    flip("approve", approveSwitch.getAttribute("aria-checked") !== "true");
  });
  toggle.addEventListener("click", function () {
    setPanel(panel.hidden);
  });
  byId("activity-close").addEventListener("click", function () {
    setPanel(false);
    toggle.focus();
  });
  byId("screen-after-close").addEventListener("click", function () {
    screenBox.hidden = true;
  });
  byId("approve").addEventListener("click", function () {
    answer("approve");
  });
  byId("reject").addEventListener("click", function () {
    answer("reject");
  });
  // Escape in the controls goes back to the terminal (Alt+F6 comes here): the
  // one on show (agent_sessions.js sets focusTerminal while a view of an
  // agent's terminal is open). In any terminal, Escape is the program's.
  document.addEventListener("keydown", function (event) {
    const active = document.activeElement;
    if (event.key === "Escape" && !(active && active.closest(".xterm, #agent-view"))) {
      shared.focusTerminal();
    }
  });
  shared.term.onKey(function () {
    renderHeader();
  });
  shared.renderHeader = renderHeader;
  window.setInterval(renderHeader, 500);

  let startOpen = false;
  try {
    startOpen = window.localStorage.getItem(OPEN_KEY) === "1";
  } catch (error) {
    startOpen = false;
  }
  setPanel(startOpen);
  poll();
})();
