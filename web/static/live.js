/* The live state every page shares: Server-Sent Events with automatic reconnect, a long-polling
   fallback, the connection dot, and POSTs that carry the CSRF token and ask for the PIN when needed. */
"use strict";
(function (Q) {
  const listeners = [];
  let version = -1, source = null, failures = 0, polling = false, skew = 0;
  Q.state = null;

  /* Seconds left on the turn timer, using the server's clock (the phone's may be off). */
  Q.timeLeft = function (state) {
    if (!state || !state.turn_deadline) return null;
    return state.turn_deadline - (Date.now() / 1000 + skew);
  };

  async function fetchState(query) {
    const r = await fetch("/api/state" + (query || ""), { cache: "no-store" });
    if (!r.ok) throw new Error("HTTP " + r.status);
    const server = Number(r.headers.get("X-Server-Time"));
    if (server) skew = server - Date.now() / 1000;
    return r.json();
  }

  const FOLLOW = {
    watching: "Watching the table", settling: "Hands on the table…", "needs-attention": "Needs a look: tap",
    dispute: "Dispute: tap to see", "camera-lost": "Camera lost, retrying",
  };
  function showFollow(state) {
    const pill = document.getElementById("follow");
    const status = (state.follow || {}).status;
    pill.hidden = !FOLLOW[status];
    pill.className = "follow " + status;
    pill.textContent = FOLLOW[status] || "";
    if (status === "camera-lost" && state.camera && state.camera.error) pill.title = state.camera.error;
  }

  function publish(state) {
    if (!state || typeof state.version !== "number") return;
    if (state.version === version && Q.state) return;
    version = state.version;
    Q.state = state;
    for (const fn of listeners) {
      try { fn(state); } catch (err) { console.error(err); }
    }
  }

  function setLink(mode) {
    const dot = document.getElementById("link");
    if (!dot) return;
    dot.className = "link " + mode;
    dot.title = { live: "live (event stream)", poll: "live (polling)", down: "reconnecting…" }[mode];
  }

  function stream() {
    if (!window.EventSource) return poll();
    source = new EventSource("/events" + (version >= 0 ? "?since=" + version : ""));
    source.addEventListener("state", (e) => { failures = 0; setLink("live"); publish(JSON.parse(e.data)); });
    source.onopen = () => setLink("live");
    source.onerror = () => {
      setLink("down");
      failures += 1;
      // The browser reconnects by itself; after repeated failures (or a refusal) fall back to polling.
      if (source.readyState === EventSource.CLOSED || failures >= 3) { source.close(); source = null; poll(); }
    };
  }

  async function poll() {
    if (polling) return;
    polling = true;
    setLink("poll");
    const until = Date.now() + 60000; // then try the event stream again
    while (Date.now() < until) {
      try {
        publish(await fetchState("?wait=20&since=" + version));
        setLink("poll");
      } catch (err) {
        setLink("down");
        await new Promise((ok) => setTimeout(ok, 2000));
      }
    }
    polling = false;
    failures = 0;
    stream();
  }

  Q.onState = function (fn) {
    listeners.push(fn);
    if (Q.state) fn(Q.state);
  };

  Q.start = function () {
    // The first paint comes from one plain GET, the rest from the stream.
    fetchState().then(publish).catch(() => setLink("down"));
    stream();
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && !source && !polling) stream();
    });
  };

  /* ---- changes: POST with CSRF, PIN on demand ---- */
  const csrf = () => document.querySelector('meta[name="csrf"]').content;

  Q.post = async function (path, body) {
    for (let attempt = 0; attempt < 2; attempt++) {
      const r = await fetch(path, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
        body: JSON.stringify(body || {}),
      });
      const data = await r.json().catch(() => ({ error: "HTTP " + r.status }));
      if (r.status === 401 && attempt === 0 && await Q.unlock()) continue;
      if (!r.ok) throw new Error(data.error || "HTTP " + r.status);
      return data;
    }
    throw new Error("this change needs the table's PIN");
  };

  Q.unlock = function () {
    const dialog = document.getElementById("pin-dialog");
    const form = dialog.querySelector("form"), input = dialog.querySelector("input"), msg = dialog.querySelector(".msg");
    msg.textContent = "";
    input.value = "";
    dialog.showModal();
    input.focus();
    return new Promise((resolve) => {
      form.onsubmit = async (e) => {
        e.preventDefault();
        const r = await fetch("/api/unlock", {
          method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
          body: JSON.stringify({ pin: input.value }),
        });
        if (r.ok) { dialog.close(); document.body.classList.add("unlocked"); resolve(true); return; }
        msg.textContent = (await r.json().catch(() => ({}))).error || "HTTP " + r.status;
        input.select();
      };
      dialog.onclose = () => resolve(document.body.classList.contains("unlocked"));
    });
  };

  Q.toast = function (text, bad) {
    const t = document.getElementById("toast");
    t.textContent = text;
    t.className = "toast show" + (bad ? " bad" : "");
    clearTimeout(t.timer);
    t.timer = setTimeout(() => { t.className = "toast"; }, 3500);
  };

  /* Run a change and report its outcome in a toast. */
  Q.act = async function (path, body, done) {
    try {
      const out = await Q.post(path, body);
      Q.toast(done || "Done");
      return out;
    } catch (err) {
      Q.toast(err.message, true);
      return null;
    }
  };

  /* ---- small shared helpers ---- */
  Q.h = function (tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === "class") e.className = attrs[k];
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), attrs[k]);
      else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) e.setAttribute(k, attrs[k]);
    }
    for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
    return e;
  };

  Q.sides = function (state) {
    const sides = Object.keys(state.scores || {});
    return sides.map((name) => ({ name, score: state.scores[name],
      players: (state.players || []).filter((p) => p.side === name).map((p) => p.name) }));
  };

  Q.moveText = function (turn) {
    const m = turn.move || {};
    switch (m.kind) {
      case "play": return "played " + m.tiles.length + (m.tiles.length === 1 ? " tile" : " tiles");
      case "trade": return "traded " + m.count;
      case "reroll": return "re-rolled " + m.count;
      case "pass": return "passed";
      case "adjust": return "score fixed for " + m.side + (m.note ? " (" + m.note + ")" : "");
      case "finish": return "ended the game";
      default: return m.kind || "?";
    }
  };

  Q.turnText = function (turn) {
    return (turn.move && turn.move.kind === "adjust" ? "" : turn.player + " ") + Q.moveText(turn);
  };

  listeners.push(showFollow);

  document.addEventListener("DOMContentLoaded", () => {
    if (document.body.dataset.unlocked === "1") document.body.classList.add("unlocked");
    const lock = document.getElementById("lock");
    if (lock) lock.addEventListener("click", async () => {
      if (document.body.classList.contains("unlocked")) {
        await fetch("/api/lock", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() }, body: "{}" });
        document.body.classList.remove("unlocked");
        Q.toast("Locked");
      } else if (await Q.unlock()) Q.toast("Unlocked: changes allowed");
    });
    Q.start();
  });
})(window.Q = window.Q || {});
