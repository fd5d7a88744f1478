// The agent's own terminals (its private tmux server) in the page: listed
// under the header with what each does, and watched in a view over the shared
// terminal.
//
// GET /api/sessions?since=REV gives the list (the server keeps it up to date;
// the page asks every half second). A view is a second xterm.js connected to
// /agent-ws, a tmux client of the agent's session drawn at that session's own
// size (the font shrinks to fit) and read-only in tmux itself unless the human
// holds the session: "Take over" POSTs /api/hold and reconnects with write=1,
// "Hand back" lets go and reconnects read-only. A terminal that waits for a
// secret (a password) "needs you", the shared one too (the list's "shared"):
// the page marks it (a badge, the tab's title, a banner whose button opens it
// with the keyboard) and never moves the keyboard by itself, since keys meant
// for one terminal would go, unseen, into another's password prompt. The
// server hands the keyboard back once the secret is typed. Opening the page
// at #session=NAME opens that view, unless the human has typed meanwhile.
// A view whose session ends keeps its last screen.
//
// Built for many terminals and for a phone: the strip counts them, puts the
// ones that need the human first, groups the rest by host, filters by name and
// scrolls (wheel, finger) while the shared tab stays put; on a touch screen a
// view keeps a legible font and scrolls sideways, and the banner's masked field
// types a secret into its terminal once, through the same socket as keys.
//
// window.agentSessions exposes the list, the view and every sentence
// announced, so automated checks can see what a person sees.
(function () {
  "use strict";

  const shared = window.sharedTerminal;
  const POLL_MS = 500;
  const RETRY_MS = 2000;
  const FONT_MAX = 14;
  const FONT_MIN = 6;
  // On a phone (or any touch screen) a view's font stays legible: a screen wider than the box
  // scrolls sideways instead, and says so.
  const FONT_LEGIBLE = 11;
  const small = window.matchMedia("(max-width: 700px), (pointer: coarse)");
  const NEEDS_PREFIX = "(needs you) ";
  const LOG_LIMIT = 200;
  // Sessions from which the strip offers its filter and its tabs are short (name and status; the
  // program and what it does in the tab's title).
  const FILTER_FROM = 5;

  function byId(id) {
    return document.getElementById(id);
  }
  const sharedTab = byId("shared-tab");
  const list = byId("agent-list");
  const filter = byId("agent-filter");
  const total = byId("agent-total");
  const none = byId("agent-none");
  const announcer = byId("agent-announce");
  const sharedBox = byId("terminal");
  const viewBox = byId("agent-view");
  const viewName = byId("agent-view-name");
  const viewMode = byId("agent-view-mode");
  const viewEvidence = byId("agent-view-evidence");
  const viewAsk = byId("agent-view-ask");
  const answerBox = byId("agent-view-answer");
  const answerQuestion = byId("agent-view-question");
  const answerOptions = byId("agent-view-options");
  const answered = byId("agent-view-answered");
  const viewWide = byId("agent-view-wide");
  const viewTerm = byId("agent-view-term");
  const takeButton = byId("agent-take");
  const giveButton = byId("agent-give");
  const closeButton = byId("agent-close");
  const sharedBadge = byId("shared-badge");
  const needsBox = byId("needs-you");
  const needsList = byId("needs-you-list");
  const baseTitle = document.title;
  const notified = new Set(); // the prompts a system notification was shown for (notifyNeeds)

  // rows: the last list, by name; sharedRow: the shared terminal as the list
  // judges it; view: the open view (null when none); announced: every
  // sentence said in the live region, in order; shown: every "session status"
  // the list has shown, in order.
  const agent = { revision: null, rows: new Map(), sharedRow: null, view: null, announced: [], shown: [] };
  window.agentSessions = agent;

  // #session=NAME: opened as soon as it is listed, unless a key is typed first.
  let wanted = hashSession();
  let wantedAt = performance.now();
  const told = new Set(); // secrets announced in the live region (terminal + question)
  let lastPollStart = 0;
  // When the human last pressed a key or pasted anywhere in the page: the
  // keyboard is moved only for a request made after it (a click, an address).
  let lastKeyAt = -1;
  for (const type of ["keydown", "paste", "beforeinput"]) {
    document.addEventListener(type, function () {
      lastKeyAt = performance.now();
    }, true);
  }

  function untypedSince(time) {
    return lastKeyAt < time;
  }

  function hashSession() {
    const match = /^#session=([A-Za-z0-9_.-]{1,64}(?:@[A-Za-z0-9_][A-Za-z0-9_.@:%+-]{0,127})?)$/.exec(window.location.hash);
    return match ? match[1] : null;
  }

  function announce(sentence) {
    announcer.textContent = sentence;
    agent.announced.push(sentence);
    if (agent.announced.length > LOG_LIMIT) {
      agent.announced.shift();
    }
  }

  function remember(sentence) {
    agent.shown.push(sentence);
    if (agent.shown.length > LOG_LIMIT) {
      agent.shown.shift();
    }
  }

  function heldByPage(row) {
    return Boolean(row && (row.held === "page" || row.held === "page:secret"));
  }

  // --- the list ------------------------------------------------------------------
  function tab(row) {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "tab agent-tab";
    button.dataset.session = row.session;
    button.dataset.status = row.status || "";
    button.dataset.needs = row.needs_human ? "1" : "";
    button.setAttribute("aria-current", String(Boolean(agent.view && agent.view.session === row.session)));
    const parts = [];
    function part(cls, text) {
      const span = document.createElement("span");
      span.className = cls;
      span.textContent = text;
      parts.push(span);
      return span;
    }
    part("name", row.session);
    if (row.program) {
      part("program", row.program);
    }
    part("status", row.status || "?");
    if (row.needs_human) {
      part("badge", "needs you");
    } else if (heldByPage(row)) {
      part("held", "yours");
    } else if (row.held) {
      part("held", "held by " + row.held);
    }
    part("evidence", row.evidence || "");
    button.append.apply(button, parts);
    button.title = row.session + (row.program ? " (" + row.program + ")" : "") + ": " +
      (row.evidence || row.status || "") +
      (row.question ? "\nasks: " + row.question : "");
    button.addEventListener("click", function () {
      open(row.session, row.needs_human ? "secret" : undefined); // one click to the prompt's keyboard
    });
    item.append(button);
    return item;
  }

  // The host of a listed name (NAME@HOST), "" for this machine.
  function hostOf(name) {
    const at = name.indexOf("@");
    return at < 0 ? "" : name.slice(at + 1);
  }

  function groupItem(text) {
    const item = document.createElement("li");
    item.className = "group";
    item.textContent = text;
    return item;
  }

  // What the strip shows, in order: the terminals that need the human first (one click away at the
  // strip's start), then one group per host (this machine's first), each by name; only the names that
  // have the filter's text. Groups are named only when the terminals are on more than one machine.
  function listed(rows) {
    const wanted = filter.value.trim().toLowerCase();
    const shown = rows.filter(function (row) {
      return row.session.toLowerCase().includes(wanted);
    });
    const needing = shown.filter(function (row) {
      return row.needs_human;
    });
    const groups = new Map();
    for (const row of shown.filter(function (r) { return !r.needs_human; })) {
      const host = hostOf(row.session);
      groups.set(host, (groups.get(host) || []).concat([row]));
    }
    const hosts = Array.from(groups.keys()).sort();
    const named = new Set(shown.map(function (row) { return hostOf(row.session); })).size > 1;
    const items = [];
    if (needing.length > 0 && named) {
      items.push(groupItem("needs you"));
    }
    items.push.apply(items, needing.map(tab));
    for (const host of hosts) {
      if (named) {
        items.push(groupItem(host === "" ? "here" : "on " + host));
      }
      items.push.apply(items, groups.get(host).map(tab));
    }
    return { items: items, count: shown.length };
  }

  function renderList() {
    const rows = Array.from(agent.rows.values()).sort(function (a, b) {
      return a.session < b.session ? -1 : (a.session > b.session ? 1 : 0);
    });
    const focused = document.activeElement && document.activeElement.closest(".agent-tab");
    const focusedName = focused ? focused.dataset.session : null;
    const shown = listed(rows);
    list.replaceChildren.apply(list, shown.items);
    none.hidden = rows.length > 0;
    filter.hidden = rows.length < FILTER_FROM && filter.value === "";
    list.dataset.many = rows.length >= FILTER_FROM ? "1" : "";
    total.textContent = shown.count === rows.length ? String(rows.length) : shown.count + " of " + rows.length;
    if (focusedName !== null) {
      const again = list.querySelector('.agent-tab[data-session="' + focusedName + '"]');
      if (again) {
        again.focus();
      }
    }
    sharedTab.setAttribute("aria-current", String(agent.view === null));
    renderNeeds();
  }

  // --- "needs you": told, never taken ------------------------------------------------
  function sharedAsks() {
    return agent.sharedRow !== null && agent.sharedRow.needs_human ? agent.sharedRow : null;
  }

  function asksFor(row) {
    const question = row.question || "";
    if (/passphrase/i.test(question)) {
      return "a passphrase";
    }
    return /password|passcode|\bPIN\b/i.test(question) ? "a password" : "a secret";
  }

  // One item of the banner: its button opens the terminal with the keyboard (hidden for the one in
  // front that has it), and a masked field whose secret is typed there once (touch keyboards and
  // password managers fill a field, not a terminal).
  function needsItem(need) {
    const item = document.createElement("li");
    item.dataset.key = need.session;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "open";
    button.dataset.session = need.session;
    button.addEventListener("click", function () {
      if (need.session === "") {
        close();
      } else {
        open(need.session, "secret");
      }
    });
    item.append(button, secretForm(need.session));
    return item;
  }

  function secretForm(name) {
    const form = document.createElement("form");
    form.className = "secret";
    const field = document.createElement("input");
    field.type = "password";
    field.name = "secret";
    field.autocomplete = "current-password";
    field.placeholder = "type it here";
    const where = name === "" ? "the shared terminal" : name;
    field.setAttribute("aria-label", "The secret " + where + " asks for, typed into it once");
    const submit = document.createElement("button");
    submit.type = "submit";
    submit.textContent = "Type it";
    submit.setAttribute("aria-label", "Type the secret into " + where + " and press Enter");
    form.append(field, submit);
    form.addEventListener("submit", function (event) {
      event.preventDefault(); // nothing leaves the page but the keys, through the view's socket
      const secret = field.value;
      field.value = "";
      if (secret !== "") {
        typeSecret(name, secret);
      }
    });
    return form;
  }

  function need(session, name, row, openable) {
    return { session: session, openable: openable, label: "Open " + name + " – it asks for " + asksFor(row),
             title: row.question ? "it asks: " + row.question : "" };
  }

  // The badge of the shared tab, the tab's title, and the banner: one item per terminal that asks for
  // a secret (the shared one: "" as session). Items are kept across renders, so a field being typed
  // in, or a button the keyboard is on, stays.
  function renderNeeds() {
    const needing = Array.from(agent.rows.values()).filter(function (r) {
      return r.needs_human;
    });
    const sharedRow = sharedAsks();
    const any = needing.length > 0 || sharedRow !== null;
    document.title = (any ? NEEDS_PREFIX : "") + baseTitle;
    document.body.dataset.needsYou = any ? "1" : "";
    sharedBadge.textContent = sharedRow !== null ? "needs you" : "";
    const needs = needing.map(function (row) {
      const front = agent.view !== null && agent.view.session === row.session && agent.view.writable;
      return need(row.session, row.session, row, !front);
    });
    if (sharedRow !== null) {
      needs.unshift(need("", "the shared terminal", sharedRow, agent.view !== null));
    }
    const kept = new Map(Array.from(needsList.children, function (item) {
      return [item.dataset.key, item];
    }));
    const items = needs.map(function (need) {
      const item = kept.get(need.session) || needsItem(need);
      const button = item.querySelector("button.open");
      button.textContent = need.label;
      button.title = need.title;
      button.hidden = !need.openable;
      return item;
    });
    if (items.length !== needsList.children.length || items.some(function (item, i) {
      return needsList.children[i] !== item;
    })) {
      needsList.replaceChildren.apply(needsList, items);
    }
    needsBox.hidden = needs.length === 0;
    notifyNeeds(needs);
  }

  // A prompt that comes while the page is in a background tab is told to the system too (the browser's
  // Notification API, once the human allowed it): one notification per prompt, with the terminal's name
  // and what it asks for, never more of the screen. A click on it brings the page and opens that terminal as the banner's button
  // does. The human is asked for the permission at their first click in the page, never unasked.
  function notifyNeeds(needs) {
    const keys = new Set(needs.map(function (n) { return n.session + "\n" + n.title; }));
    for (const key of Array.from(notified)) {
      if (!keys.has(key)) {
        notified.delete(key); // answered: a new prompt there is told again
      }
    }
    if (!("Notification" in window) || Notification.permission !== "granted" || !document.hidden) {
      return;
    }
    for (const n of needs) {
      const key = n.session + "\n" + n.title;
      if (notified.has(key)) {
        continue;
      }
      notified.add(key);
      const told = new Notification("needs you: " + (n.session || "the shared terminal"),
                                    { body: n.label.replace(/^Open /, ""), tag: "tmux-tool-" + n.session });
      told.onclick = function () {
        window.focus();
        if (n.openable && n.session !== "") {
          open(n.session, "secret");
        }
        told.close();
      };
    }
  }
  if ("Notification" in window && Notification.permission === "default") {
    document.addEventListener("click", function ask() {
      document.removeEventListener("click", ask);
      Notification.requestPermission();
    });
  }

  // The banner's secret for ``name``: typed into its view once that view has the keyboard and its
  // screen is drawn (opened and taken for the secret first, as its button would), then forgotten.
  // The shared terminal's ("") is typed into it at once, brought in front first.
  function typeSecret(name, secret) {
    if (name === "") {
      close({ focus: false });
      if (sharedAsks() === null) {
        shared.tell("Not typed into the shared terminal: it no longer asks for a secret");
      } else if (shared.typeSecret(secret)) {
        announce("typed into the shared terminal, then Enter");
      } else {
        shared.tell("Not typed into the shared terminal: it is not connected");
      }
      return;
    }
    const view = agent.view;
    if (view !== null && view.session === name && view.writable && view.drawn) {
      typed(view, secret);
      return;
    }
    open(name, "secret");
    agent.view.keyboardAskedAt = null; // the keyboard stays where the human typed the secret
    agent.view.pendingSecret = secret;
    if (agent.view.writable && agent.view.drawn) {
      typed(agent.view, agent.view.pendingSecret);
    }
  }

  // Typed only while the last look still says the terminal asks for a secret: one whose prompt went
  // meanwhile (answered elsewhere) would take the secret as a command line, echoed and run.
  function typed(view, secret) {
    view.pendingSecret = null;
    const row = view.row();
    if (!row || !row.needs_human) {
      shared.tell("Not typed into " + view.session + ": it no longer asks for a secret");
      return;
    }
    send(view, ["stdin", secret + "\r"]);
    announce("typed into " + view.session + ", then Enter");
  }

  function dropSecret(view, why) {
    if (view.pendingSecret !== null) {
      view.pendingSecret = null;
      shared.tell("Not typed into " + view.session + ": " + why);
    }
  }

  // Each secret asked for is said once in the live region.
  function announceNeeds() {
    const asking = Array.from(agent.rows.values()).filter(function (r) {
      return r.needs_human;
    });
    const sharedRow = sharedAsks();
    const now = new Set();
    for (const row of asking) {
      now.add(row.session + "\n" + (row.question || ""));
    }
    if (sharedRow !== null) {
      now.add("\n" + (sharedRow.question || ""));
    }
    for (const key of now) {
      if (!told.has(key)) {
        const name = key.split("\n")[0];
        const question = key.slice(name.length + 1);
        announce((name || "the shared terminal") + " needs you: it asks " + (question || "for a secret") +
          (name ? "; the banner's button opens it" : ""));
      }
    }
    told.clear();
    now.forEach(function (key) {
      told.add(key);
    });
  }

  // --- the view ----------------------------------------------------------------------
  function viewRow() {
    return agent.view ? agent.view.row() : null;
  }

  function renderView() {
    const view = agent.view;
    viewBox.hidden = view === null;
    sharedBox.inert = view !== null;
    if (view === null) {
      return;
    }
    const row = view.row();
    viewName.textContent = view.session;
    viewBox.dataset.writable = view.writable ? "1" : "";
    viewBox.dataset.status = row ? row.status : "gone";
    let mode;
    if (!row || view.ended) {
      mode = "the session has ended; this is its last screen";
    } else if (view.socket === null) {
      mode = "disconnected: press a key to connect again";
    } else if (view.writable) {
      mode = "you have the keyboard";
    } else if (view.connecting) {
      mode = "connecting…";
    } else {
      mode = "read-only: Take over to type";
    }
    if (viewMode.textContent !== mode) {
      viewMode.textContent = mode;
    }
    viewEvidence.textContent = row
      ? [row.program, row.status].filter(Boolean).join(" · ") + (row.evidence ? ": " + row.evidence : "")
      : "";
    const asking = Boolean(row && row.needs_human && view.writable);
    viewAsk.hidden = !asking;
    if (asking) {
      viewAsk.textContent = "It asks " + (row.question ? "“" + row.question + "”" : "for a secret") +
        ": type it here, then Enter. It goes to the terminal, never to the agent; the keyboard goes back " +
        "to the agent by itself afterwards.";
    }
    renderAnswers(view, row);
    takeButton.hidden = view.writable;
    giveButton.hidden = !view.writable;
    takeButton.disabled = !row || view.ended;
    takeButton.setAttribute("aria-label", "Take over " + view.session);
    giveButton.setAttribute("aria-label", "Hand " + view.session + " back to the agent");
    closeButton.setAttribute("aria-label", "Close the view of " + view.session);
  }

  // One tap answers a question the session is blocked on (not a secret: only the human's keys type
  // one): a button per option the tool parsed.  The server types it only if the question the page
  // showed is still on screen at the keystroke, and says so when it was not.
  function renderAnswers(view, row) {
    const offered = Boolean(row && !view.ended && row.status === "blocked" && !row.needs_human &&
      row.question && row.options && row.options.length);
    answerBox.hidden = !offered;
    const key = offered ? view.session + "\n" + row.asked + "\n" + row.question + "\n" + row.options.join("\n") : "";
    if (answerBox.dataset.key === key) {
      return;
    }
    answerBox.dataset.key = key;
    answerOptions.replaceChildren();
    if (!offered) {
      return; // what the last press did stays said until another question is offered
    }
    answered.textContent = "";
    answerQuestion.textContent = "It asks “" + row.question + "”:";
    for (const option of row.options) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = option;
      button.setAttribute("aria-label", "Answer " + option);
      button.addEventListener("click", function () {
        answer(view.session, row.question, row.asked, option);
      });
      answerOptions.append(button);
    }
  }

  // ``asked`` tells this question from another in the same words (Claude Code asks "Do you want to
  // proceed?" about every command): a press made for one never answers the next.
  async function answer(name, question, asked, option) {
    answered.textContent = "typing " + option + "…";
    try {
      const done = await shared.request("POST", "/api/answer",
        { session: name, question: question, asked: asked, option: option });
      answered.textContent = "answered " + option + " (typed: " +
        [done.text].concat(done.keys).filter(Boolean).join(" ") + ")";
    } catch (error) {
      answered.textContent = error.message;
      shared.tell(name + ": " + error.message); // told even when the question, and its buttons, are gone
    }
  }

  function socketUrl(view, write) {
    const query = new URLSearchParams({ session: view.session, rows: view.term.rows, cols: view.term.cols });
    if (write) {
      query.set("write", "1");
    }
    if (shared.token !== null) {
      query.set("token", shared.token);
    }
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    return scheme + "//" + window.location.host + "/agent-ws?" + query.toString();
  }

  function send(view, message) {
    if (view.socket !== null && view.socket.readyState === WebSocket.OPEN) {
      view.socket.send(JSON.stringify(message));
    }
  }

  // (Re)connect the view, read-only or writable (the server decides: write=1
  // counts only while the page holds the session). The old tmux client goes.
  function connect(view, write) {
    if (view.socket !== null) {
      const old = view.socket;
      view.socket = null;
      old.onclose = null;
      old.close();
    }
    view.writable = false;
    view.connecting = true;
    view.outputs = 0;
    view.drawn = false;
    view.term.reset();
    const socket = new WebSocket(socketUrl(view, write));
    view.socket = socket;
    socket.onmessage = function (event) {
      if (view.socket !== socket) {
        return;
      }
      const message = JSON.parse(event.data);
      if (message[0] === "setup") {
        view.connecting = false;
        view.writable = Boolean(message[1] && message[1].writable);
        if (!view.writable) {
          dropSecret(view, "the page could not take its keyboard");
        }
        renderView();
        renderList();
        if (view.writable && view.keyboardAskedAt !== null && untypedSince(view.keyboardAskedAt)) {
          view.term.focus();
        }
      } else if (message[0] === "stdout") {
        view.term.write(message[1]);
        view.outputs += 1;
        view.drawn = view.outputs > 1;
        if (view.drawn && view.writable && view.pendingSecret !== null) {
          typed(view, view.pendingSecret);
        }
      } else if (message[0] === "ended") {
        view.ended = true; // the server kept the client's last clear from the view: the screen stays
      }
    };
    socket.onclose = function () {
      if (view.socket !== socket) {
        return;
      }
      view.socket = null;
      view.writable = false;
      view.connecting = false;
      dropSecret(view, "its connection closed");
      renderView();
      renderList();
    };
    renderView();
  }

  // The session's own size, in a font small enough for the view's box (but legible on a phone).
  function fit(view) {
    const least = small.matches ? FONT_LEGIBLE : FONT_MIN;
    const row = view.row();
    const cols = (row && row.cols) || view.term.cols;
    const rows = (row && row.rows) || view.term.rows;
    if (view.term.cols !== cols || view.term.rows !== rows) {
      view.term.resize(cols, rows);
      send(view, ["set_size", rows, cols]);
    }
    let size = view.term.options.fontSize;
    let room = view.fitAddon.proposeDimensions();
    if (!room || !room.cols || !room.rows) {
      return;
    }
    const scale = Math.min(room.cols / cols, room.rows / rows);
    const next = Math.max(least, Math.min(FONT_MAX, Math.floor(size * scale * 2) / 2));
    if (next !== size) {
      size = next;
      view.term.options.fontSize = size;
    }
    // Rounding: shrink by half points until the whole screen fits (or the font is at its least).
    for (let i = 0; i < 16 && size > least; i++) {
      room = view.fitAddon.proposeDimensions();
      if (!room || (room.cols >= cols && room.rows >= rows)) {
        break;
      }
      size -= 0.5;
      view.term.options.fontSize = size;
    }
    const wide = viewTerm.scrollWidth > viewTerm.clientWidth + 1;
    viewWide.hidden = !wide;
    viewWide.textContent = wide ? "↔ " + cols + " columns wide: scroll sideways for the rest" : "";
  }

  function newView(name) {
    const term = new Terminal({
      cursorBlink: false,
      fontFamily: "'DejaVu Sans Mono', 'Menlo', 'Consolas', monospace",
      fontSize: FONT_MAX,
      lineHeight: 1.15,
      macOptionIsMeta: true,
      theme: { background: "#141414", foreground: "#d4d4d4" },
    });
    const fitAddon = new FitAddon.FitAddon();
    term.loadAddon(fitAddon);
    const row = agent.rows.get(name);
    if (row && row.cols && row.rows) {
      term.resize(row.cols, row.rows);
    }
    const view = {
      session: name,
      term: term,
      fitAddon: fitAddon,
      socket: null,
      writable: false,
      connecting: false,
      ended: false, // its session ended under it
      heldAt: 0, // performance.now() when this page last took the keyboard
      keyboardAskedAt: null, // performance.now() when the human asked for this view's keyboard
      pendingSecret: null, // the banner's secret, until typed once the view has the keyboard
      outputs: 0, // messages drawn since connected: the history, then the tmux client's screen
      drawn: false, // the tmux client has drawn the session's screen (keys typed now reach it)
      row: function () {
        return agent.rows.get(name) || null;
      },
      resizeObserver: null,
    };
    term.attachCustomKeyEventHandler(function (event) {
      // Alt+F6 leaves the terminal for the view's buttons, as in the shared one.
      if (event.type === "keydown" && event.altKey && event.key === "F6") {
        (view.writable ? giveButton : takeButton).focus();
        return false;
      }
      return true;
    });
    term.onData(function (data) {
      if (view.socket === null && !view.connecting) {
        if (view.row() && !view.ended) {
          connect(view, heldByPage(view.row()) && Boolean(view.heldAt));
        }
        return;
      }
      if (view.writable) {
        send(view, ["stdin", data]);
      }
    });
    // A key in a read-only view goes nowhere: the mode says why (no notice
    // above the terminals, which would change their size).
    term.onKey(function () {
      if (!view.writable) {
        viewMode.classList.remove("flash");
        void viewMode.offsetWidth; // restart the animation
        viewMode.classList.add("flash");
      }
    });
    return view;
  }

  // Open the view of ``name`` with the keyboard, as the human asked (a click, an
  // address); ``why`` "secret": the keyboard of the session too, for its password.
  function open(name, why) {
    if (agent.view !== null && agent.view.session === name) {
      agent.view.keyboardAskedAt = performance.now();
      if (why === "secret" && !agent.view.writable) {
        take(agent.view, "secret");
      } else {
        agent.view.term.focus();
      }
      return;
    }
    close({ focus: false });
    const view = newView(name);
    view.keyboardAskedAt = performance.now();
    agent.view = view;
    viewBox.hidden = false;
    sharedBox.inert = true;
    view.term.open(viewTerm);
    window.history.replaceState(null, "", window.location.pathname + window.location.search + "#session=" + name);
    let fitPending = false;
    view.resizeObserver = new ResizeObserver(function () {
      if (!fitPending) {
        fitPending = true;
        window.requestAnimationFrame(function () {
          fitPending = false;
          if (agent.view === view) {
            fit(view);
          }
        });
      }
    });
    view.resizeObserver.observe(viewTerm);
    fit(view);
    renderView();
    renderList();
    const current = list.querySelector('.agent-tab[aria-current="true"]');
    if (current) {
      current.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
    if (why === "secret") {
      take(view, "secret");
    } else if (heldByPage(view.row())) {
      connect(view, true); // this page (another tab, a reload) already holds it
    } else {
      connect(view, false);
      view.term.focus();
    }
  }

  // Close the view (a keyboard this page holds goes back to the agent).
  function close(options) {
    const view = agent.view;
    if (view === null) {
      return;
    }
    if (view.row() !== null && (view.writable || view.heldAt)) {
      hold(view.session, false).catch(function () {});
    }
    dropSecret(view, "its view was closed");
    agent.view = null;
    if (view.socket !== null) {
      const old = view.socket;
      view.socket = null;
      old.onclose = null;
      old.close();
    }
    view.resizeObserver.disconnect();
    view.term.dispose();
    viewTerm.replaceChildren();
    if (hashSession() !== null) {
      window.history.replaceState(null, "", window.location.pathname + window.location.search);
    }
    renderView();
    renderList();
    if (!options || options.focus !== false) {
      shared.term.focus();
    }
  }

  function hold(name, held, why) {
    const body = { session: name, held: held };
    if (held) {
      body.why = why || "take";
    }
    return shared.request("POST", "/api/hold", body);
  }

  async function take(view, why) {
    takeButton.disabled = true;
    try {
      await hold(view.session, true, why);
      view.heldAt = performance.now();
      if (agent.view === view) {
        connect(view, true);
        announce(why === "secret"
          ? view.session + " needs you: the keyboard of its view is yours, type the secret there"
          : "you have the keyboard of " + view.session + "; the agent types nothing there until you hand it back");
      }
    } catch (error) {
      view.pendingSecret = null;
      shared.tell("Not taken: " + error.message);
    } finally {
      takeButton.disabled = false;
      renderView();
    }
  }

  async function give(view) {
    const asked = performance.now();
    giveButton.disabled = true;
    try {
      await hold(view.session, false);
      view.heldAt = 0;
      if (agent.view === view) {
        connect(view, false);
        announce(view.session + " is the agent's again; the view is read-only");
        if (untypedSince(asked)) {
          takeButton.focus();
        }
      }
    } catch (error) {
      shared.tell("Not handed back: " + error.message);
    } finally {
      giveButton.disabled = false;
      renderView();
    }
  }

  // --- following the list ---------------------------------------------------------------
  function react(pollStart) {
    // A secret asked for is told (announceNeeds, renderNeeds), never opened by
    // itself. The address's session opens once listed, unless the human typed
    // since the address was opened: then it stays in the list for a click.
    announceNeeds();
    if (wanted !== null && agent.rows.has(wanted)) {
      const name = wanted;
      wanted = null;
      if (untypedSince(wantedAt) && !(agent.view && agent.view.session === name)) {
        open(name, agent.rows.get(name).needs_human ? "secret" : undefined);
      }
    }
    const view = agent.view;
    if (view === null) {
      return;
    }
    const row = view.row();
    if (row === null) {
      if (view.socket !== null || view.writable) {
        view.writable = false;
      }
      renderView();
      return;
    }
    // The keyboard went back to the agent (the secret is typed, or another tab or
    // agent.sh let go): read-only again. Only a look begun after this page took it counts.
    if ((view.writable || view.heldAt) && !heldByPage(row) && pollStart > view.heldAt) {
      const wasSecret = Boolean(view.heldAt) && !row.needs_human;
      view.heldAt = 0;
      connect(view, false);
      announce(wasSecret
        ? view.session + " has what it asked for; the keyboard is the agent's again and the view is read-only"
        : view.session + " is the agent's again; the view is read-only");
    }
    if ((row.cols && row.cols !== view.term.cols) || (row.rows && row.rows !== view.term.rows)) {
      fit(view);
    }
    renderView();
  }

  async function poll() {
    let delay = POLL_MS;
    const started = performance.now();
    lastPollStart = started;
    try {
      const since = agent.revision === null ? "" : "?since=" + agent.revision;
      const data = await shared.request("GET", "/api/sessions" + since);
      if (!data.unchanged) {
        agent.revision = data.revision;
        agent.sharedRow = data.shared || null;
        shared.secretAsked = sharedAsks();
        const before = agent.rows;
        agent.rows = new Map(data.sessions.map(function (row) {
          return [row.session, row];
        }));
        for (const row of agent.rows.values()) {
          const old = before.get(row.session);
          if (!old || old.status !== row.status) {
            remember(row.session + " " + row.status);
          }
        }
        for (const name of before.keys()) {
          if (!agent.rows.has(name)) {
            remember(name + " gone");
          }
        }
        renderList();
        if (shared.renderHeader) {
          shared.renderHeader();
        }
      }
      react(started);
    } catch (error) {
      delay = RETRY_MS;
    }
    window.setTimeout(poll, delay);
  }

  // --- wiring ---------------------------------------------------------------------------
  // xterm.js takes every finger's move over a terminal for its own scrollback (and cancels the
  // browser's scrolling), so a sideways move over a view wider than its box scrolls the box here.
  let touchX = null;
  viewTerm.addEventListener("touchstart", function (event) {
    touchX = event.touches.length === 1 ? event.touches[0].clientX : null;
  }, { capture: true, passive: true });
  viewTerm.addEventListener("touchmove", function (event) {
    if (touchX !== null && event.touches.length === 1) {
      const x = event.touches[0].clientX;
      viewTerm.scrollLeft += touchX - x;
      touchX = x;
    }
  }, { capture: true, passive: true });
  filter.addEventListener("input", renderList);
  // The strip scrolls sideways under a mouse wheel too (touch and trackpads scroll it natively).
  list.addEventListener("wheel", function (event) {
    if (event.deltaX === 0 && event.deltaY !== 0 && list.scrollWidth > list.clientWidth) {
      list.scrollLeft += event.deltaMode === WheelEvent.DOM_DELTA_LINE ? event.deltaY * 16 : event.deltaY;
      event.preventDefault();
    }
  }, { passive: false });
  sharedTab.addEventListener("click", function () {
    close();
  });
  closeButton.addEventListener("click", function () {
    const name = agent.view && agent.view.session;
    close({ focus: false });
    const again = name && list.querySelector('.agent-tab[data-session="' + name + '"]');
    (again || sharedTab).focus();
  });
  takeButton.addEventListener("click", function () {
    if (agent.view !== null) {
      agent.view.keyboardAskedAt = performance.now();
      // Taken for a secret, it goes back to the agent by itself once typed.
      const row = agent.view.row();
      take(agent.view, row && row.needs_human ? "secret" : "take");
    }
  });
  giveButton.addEventListener("click", function () {
    if (agent.view !== null) {
      give(agent.view);
    }
  });
  // Escape on the view's buttons goes back to the view's terminal.
  viewBox.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && agent.view !== null && !event.target.closest(".xterm")) {
      agent.view.term.focus();
    }
  });
  shared.focusTerminal = function () {
    (agent.view !== null ? agent.view.term : shared.term).focus();
  };
  window.addEventListener("hashchange", function () {
    const name = hashSession();
    if (name !== null && !(agent.view && agent.view.session === name)) {
      wanted = name;
      wantedAt = performance.now();
      react(lastPollStart);
    }
  });
  // Leaving the page gives back a keyboard it holds: nobody would type there.
  window.addEventListener("pagehide", function () {
    const view = agent.view;
    if (view !== null && (view.writable || view.heldAt)) {
      const headers = { "Content-Type": "application/json" };
      if (shared.token !== null) {
        headers.Authorization = "Bearer " + shared.token;
      }
      fetch("/api/hold", {
        method: "POST", keepalive: true, credentials: "same-origin", headers: headers,
        body: JSON.stringify({ session: view.session, held: false }),
      }).catch(function () {});
    }
  });

  agent.open = open;
  agent.close = close;
  renderList();
  document.fonts.ready.then(poll);
})();
