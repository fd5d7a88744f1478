// Connects xterm.js in this page to the server's terminado WebSocket, whose
// other end is a tmux client attached to the shared session.
//
// Protocol (terminado): JSON arrays. Server to page: ["setup", {}],
// ["stdout", text], ["disconnect", 1]. Page to server: ["stdin", text],
// ["set_size", rows, cols].
//
// The page measures its size before connecting and sends it in the URL, so
// the tmux client starts at the right size instead of shrinking the shared
// window for a moment. window.sharedTerminal exposes the terminal and the
// connection state so automated checks can see what a person sees; control.js
// adds the agent's side (what it does, pause, approval) to the same object.
(function () {
  "use strict";

  const container = document.getElementById("terminal");
  const stateLabel = document.getElementById("state");

  // A token given as ?token= authenticates this visit (the server also sets a
  // cookie); take it out of the address bar so it is not bookmarked or shown.
  const params = new URLSearchParams(window.location.search);
  const token = params.get("token");
  if (token !== null) {
    params.delete("token");
    const query = params.toString();
    window.history.replaceState(null, "", window.location.pathname + (query ? "?" + query : ""));
  }

  const term = new Terminal({
    cursorBlink: true,
    fontFamily: "'DejaVu Sans Mono', 'Menlo', 'Consolas', monospace",
    fontSize: 14,
    // At 1.0 the DOM renderer clips glyphs that reach below the cell, such
    // as "_" in DejaVu Sans Mono, and underscores vanish from file names.
    lineHeight: 1.15,
    macOptionIsMeta: true,
    theme: { background: "#1e1e1e", foreground: "#d4d4d4" },
  });
  const fitAddon = new FitAddon.FitAddon();
  term.loadAddon(fitAddon);

  // lastKeyAt: when the person last typed here (performance.now()), for the
  // "you have the terminal" indicator.
  const shared = { term: term, state: "loading", token: token, lastKeyAt: null };
  window.sharedTerminal = shared;
  let socket = null;

  function setState(state) {
    shared.state = state;
    document.body.dataset.state = state;
    stateLabel.textContent = state;
  }

  function send(message) {
    if (socket !== null && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(message));
    }
  }

  function socketUrl() {
    const query = new URLSearchParams({ rows: term.rows, cols: term.cols });
    if (token !== null) {
      query.set("token", token);
    }
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    return scheme + "//" + window.location.host + "/ws?" + query.toString();
  }

  function connect() {
    setState("connecting");
    socket = new WebSocket(socketUrl());
    socket.onopen = function () {
      setState("connected");
      term.focus();
    };
    socket.onmessage = function (event) {
      const message = JSON.parse(event.data);
      if (message[0] === "stdout") {
        term.write(message[1]);
      }
    };
    socket.onclose = function () {
      socket = null;
      setState("disconnected");
      term.write("\r\n\x1b[7m disconnected from the shared session: press a key to reconnect \x1b[0m");
    };
  }

  // Alt+F6 leaves the terminal for the controls: inside it, Tab and
  // Shift+Tab belong to the programs, so the keyboard needs a way out.
  term.attachCustomKeyEventHandler(function (event) {
    if (event.type === "keydown" && event.altKey && event.key === "F6") {
      document.getElementById("pause").focus();
      return false;
    }
    return true;
  });

  // Keys and pastes only: onData also carries mouse reports and the
  // terminal's automatic answers, which are not the person typing.
  function typed() {
    shared.lastKeyAt = performance.now();
  }
  term.onKey(typed);
  container.addEventListener("paste", typed, true);

  // The banner's masked field: a secret typed into this terminal once, as the person's keys are
  // (false: not connected, nothing typed).
  shared.typeSecret = function (secret) {
    if (socket === null || socket.readyState !== WebSocket.OPEN) {
      return false;
    }
    typed();
    send(["stdin", secret + "\r"]);
    return true;
  };

  term.onData(function (data) {
    if (shared.state === "disconnected") {
      term.reset();
      connect();
      return;
    }
    send(["stdin", data]);
  });

  term.onResize(function (size) {
    send(["set_size", size.rows, size.cols]);
  });

  // Refit whenever the terminal's box changes (window resize, zoom); the
  // onResize handler above then tells tmux.
  let fitPending = false;
  new ResizeObserver(function () {
    if (!fitPending) {
      fitPending = true;
      window.requestAnimationFrame(function () {
        fitPending = false;
        fitAddon.fit();
      });
    }
  }).observe(container);

  // Measure with the real font, then connect at that size.
  term.open(container);
  document.fonts.ready.then(function () {
    fitAddon.fit();
    connect();
  });
})();
