/* History: every turn with its tiles, lines and points; per-player stats (best turn, Qwirkles, average). */
"use strict";
(function (Q) {
  const h = Q.h;

  function stats(state) {
    const rows = (state.players || []).map((p) => ({ name: p.name, side: p.side, points: 0, best: 0, qwirkles: 0, turns: 0 }));
    const by = Object.fromEntries(rows.map((r) => [r.name, r]));
    for (const t of state.turns || []) {
      const m = t.move || {};
      if (m.kind === "adjust") { const r = by[m.side]; if (r) r.points += t.points; continue; }
      const r = by[t.player];
      if (!r || m.kind === "finish") continue;
      r.turns += 1;
      r.points += t.points;
      r.best = Math.max(r.best, t.points);
      r.qwirkles += (t.lines || []).filter((l) => l.qwirkle).length;
    }
    return rows;
  }

  Q.onState((state) => {
    const turns = (state.turns || []).slice().reverse();
    document.getElementById("turns").replaceChildren(...turns.map((t) => Q.turnItem(t, state.variant)));
    document.getElementById("no-turns").hidden = turns.length > 0;
    const tbody = document.querySelector("#stats tbody");
    tbody.replaceChildren(...stats(state).map((r) => h("tr", {},
      h("td", {}, r.name), h("td", {}, String(r.points)), h("td", {}, String(r.best)),
      h("td", {}, String(r.qwirkles)), h("td", {}, r.turns ? (r.points / r.turns).toFixed(1) : "–"))));
  });
})(window.Q = window.Q || {});
