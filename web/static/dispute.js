/* The dispute checker: propose a placement on the drawn board, or tap a past turn, and see legal or
   illegal with every broken rule in plain words and its cells highlighted; "where can this tile go". */
"use strict";
(function (Q) {
  const h = Q.h;
  const proposed = new Map(); // "row,col" -> placed tile
  let picker = null, variant = null, overlay = {}, pastTurn = null;
  const key = (r, c) => r + "," + c;
  const view = Q.board(document.getElementById("board"), { interactive: true, onTap: tap });

  function tap(row, col) {
    if (pastTurn !== null) { pastTurn = null; overlay = {}; markTurn(); }
    const k = key(row, col);
    if (proposed.has(k)) proposed.delete(k);
    else {
      if ((Q.state.board.tiles || []).some((t) => t.row === row && t.col === col)) return;
      const t = picker && picker.chosen();
      if (!t) { Q.toast("Pick a tile first"); return; }
      proposed.set(k, { row: row, col: col, colour: t.colour, shape: t.shape });
    }
    overlay = {};
    redraw();
  }

  function redraw() {
    const state = Q.state;
    if (!state) return;
    let tiles = state.board.tiles, ghosts = [...proposed.values()];
    if (pastTurn !== null) {
      // The board as it was before that turn, with the turn's tiles as the proposal.
      const later = new Set(state.turns.filter((t) => t.number >= pastTurn.number && t.move.kind === "play")
        .flatMap((t) => t.move.tiles.map((p) => key(p.row, p.col))));
      tiles = tiles.filter((t) => !later.has(key(t.row, t.col)));
      ghosts = pastTurn.move.tiles;
    }
    view.draw({
      tiles: tiles, ghosts: ghosts, variant: state.variant, layout: state.layout,
      marks: [{ cells: ghosts.map((t) => [t.row, t.col]), className: "proposed" }].concat(overlay.marks || []),
      lines: overlay.lines || [],
    });
  }

  function verdict(result) {
    const box = document.getElementById("verdict");
    box.hidden = false;
    box.className = "verdict " + (result.legal ? "legal" : "illegal");
    if (result.legal) {
      const lines = result.lines.filter((l) => l.cells.length > 1);
      box.replaceChildren(h("h3", {}, "Legal: " + result.score + (result.score === 1 ? " point" : " points")),
        h("ul", {}, lines.map((l) => h("li", {}, "a line of " + l.cells.length + ": " + l.points + (l.qwirkle ? " (Qwirkle! +6)" : ""))),
          result.bonus ? h("li", {}, "bonus cells: +" + result.bonus) : null,
          lines.length ? null : h("li", {}, "a single tile on an empty table: 1")));
      overlay = { lines: lines.map((l) => ({ cells: l.cells, label: String(l.points) })) };
    } else {
      box.replaceChildren(h("h3", {}, "Illegal"),
        h("ul", {}, result.violations.map((v) => h("li", {}, v.message, " ", h("span", { class: "rule" }, "(" + v.rule + ")")))));
      overlay = { marks: [{ cells: result.violations.flatMap((v) => v.cells), className: "bad" }] };
    }
    redraw();
  }

  async function check(body) {
    try {
      const r = await fetch("/api/check", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      const data = await r.json();
      if (!r.ok) throw new Error(data.error || "HTTP " + r.status);
      verdict(data);
    } catch (err) { Q.toast(err.message, true); }
  }

  function markTurn() {
    for (const li of document.querySelectorAll("#turns li")) li.classList.toggle("chosen", pastTurn !== null && Number(li.dataset.turn) === pastTurn.number);
  }

  document.getElementById("check").addEventListener("click", () => {
    if (pastTurn !== null) return check({ turn: pastTurn.number });
    if (!proposed.size) { Q.toast("Put at least one tile on the board"); return; }
    check({ placement: { tiles: [...proposed.values()] } });
  });
  document.getElementById("clear").addEventListener("click", () => {
    proposed.clear(); overlay = {}; pastTurn = null; markTurn();
    document.getElementById("verdict").hidden = true;
    redraw();
  });
  document.getElementById("spots").addEventListener("click", async () => {
    const t = picker && picker.chosen();
    if (!t) { Q.toast("Pick a tile first"); return; }
    try {
      const r = await fetch("/api/spots", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ tile: t }) });
      const data = await r.json();
      if (!r.ok) throw new Error(data.error || "HTTP " + r.status);
      const box = document.getElementById("verdict");
      box.hidden = false;
      box.className = "verdict";
      box.replaceChildren(h("h3", {}, data.cells.length ? t.colour + " " + t.shape + " fits in " + data.cells.length + (data.cells.length === 1 ? " place" : " places") : t.colour + " " + t.shape + " fits nowhere"),
        h("p", { class: "muted" }, "Highlighted in green on the board."));
      overlay = { marks: [{ cells: data.cells, className: "spot" }] };
      redraw();
    } catch (err) { Q.toast(err.message, true); }
  });

  Q.onState((state) => {
    if (state.variant !== variant) {
      variant = state.variant;
      picker = Q.palette(document.getElementById("palette"), variant, () => {});
    }
    const turns = (state.turns || []).filter((t) => t.move.kind === "play").reverse();
    document.getElementById("turns").replaceChildren(...turns.map((t) => {
      const li = Q.turnItem(t, state.variant);
      li.addEventListener("click", () => {
        pastTurn = t; proposed.clear(); overlay = {}; markTurn();
        check({ turn: t.number });
        document.getElementById("board").scrollIntoView({ behavior: "smooth", block: "center" });
      });
      return li;
    }));
    document.getElementById("no-turns").hidden = turns.length > 0;
    markTurn();
    redraw();
  });
})(window.Q = window.Q || {});
