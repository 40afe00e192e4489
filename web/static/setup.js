/* Set-up and corrections: what needs a look, this turn's actions, undo/redo, fixing a tile or a score,
   and a new game. Every change goes through Q.act (CSRF token, PIN asked once). */
"use strict";
(function (Q) {
  const h = Q.h;
  let variant = null, picker = null, cell = null;
  const view = Q.board(document.getElementById("board"), { interactive: true, onTap: (r, c) => { cell = [r, c]; drawBoard(); } });
  const $ = (id) => document.getElementById(id);

  function drawBoard() {
    const state = Q.state;
    if (!state) return;
    const pending = (state.follow || {}).pending;
    const marks = [];
    if (pending && pending.cells) marks.push({ cells: pending.cells, className: "bad" });
    if (cell) marks.push({ cells: [cell], className: "chosen" });
    view.draw({ tiles: state.board.tiles, variant: state.variant, layout: state.layout, marks: marks });
    const here = cell && state.board.tiles.find((t) => t.row === cell[0] && t.col === cell[1]);
    $("fix-cell").textContent = !cell ? "No cell chosen."
      : "Cell (" + cell[0] + "," + cell[1] + "): " + (here ? here.colour + " " + here.shape : "empty") + ". Pick what it really is.";
  }

  function drawAttention(state) {
    const follow = state.follow || {}, pending = follow.pending, declared = follow.declared;
    const box = $("attention"), actions = $("attention-actions");
    box.hidden = !pending && !declared;
    if (box.hidden) return;
    const why = pending ? (pending.reasons || []).join("; ") : "";
    $("attention-text").textContent = pending
      ? (pending.kind === "dispute" ? "Dispute: " : "The camera disagrees with the board: ") + why + ". Fix the tiles on the table, or:"
      : declared.player + " declared a " + declared.kind + " of " + declared.count + "; it counts once the table shows nothing new.";
    const button = (label, action, cls) => h("button", { type: "button", class: cls || "", "data-resolve": action,
      onclick: () => Q.act("/api/game/resolve", { action: action }, label) }, label);
    actions.replaceChildren(...[
      pending ? button("Accept what the camera sees", "accept") : null,
      pending ? button("Keep the board as it is", "keep", "quiet") : null,
      declared ? button("Cancel the " + declared.kind, "cancel", "quiet") : null].filter(Boolean));
  }

  Q.onState((state) => {
    if (state.variant !== variant) {
      variant = state.variant;
      picker = Q.palette($("palette"), variant, (t) => {
        if (!cell) { Q.toast("Tap a cell on the board first"); return; }
        Q.act("/api/game/tile", { row: cell[0], col: cell[1], tile: t },
          "Cell (" + cell[0] + "," + cell[1] + ") is now " + (t ? t.colour + " " + t.shape : "empty"));
      }, true);
    }
    const game = state.players && state.players.length;
    $("to-move").textContent = !game ? "No game yet: start one below." : state.over ? "The game is over (" + state.ending + ")."
      : state.to_move + " to move · " + state.bag + " tiles in the bag";
    $("reroll").hidden = state.variant !== "cubes";
    $("trade").hidden = state.variant === "cubes";
    $("undo").disabled = !state.can_undo;
    $("redo").disabled = !state.can_redo;
    const sides = $("adjust-side"), current = sides.value;
    sides.replaceChildren(...(state.sides || []).map((s) => h("option", { value: s }, s)));
    if ((state.sides || []).includes(current)) sides.value = current;
    drawAttention(state);
    drawBoard();
  });

  const count = () => Number($("trade-n").value);
  $("trade").addEventListener("click", () => Q.act("/api/game/trade", { count: count() }, "Trade of " + count() + " declared"));
  $("reroll").addEventListener("click", () => Q.act("/api/game/reroll", { count: count() }, "Re-roll of " + count() + " declared"));
  $("pass").addEventListener("click", () => Q.act("/api/game/pass", {}, "Passed"));
  $("undo").addEventListener("click", () => Q.act("/api/game/undo", {}, "Undone"));
  $("redo").addEventListener("click", () => Q.act("/api/game/redo", {}, "Redone"));
  $("end").addEventListener("click", () => { if (confirm("End the game now? No one gets the going-out bonus.")) Q.act("/api/game/end", {}, "Game ended"); });

  $("adjust").addEventListener("submit", (e) => {
    e.preventDefault();
    const f = e.target;
    const points = Number(f.points.value);
    Q.act("/api/game/adjust", { side: f.side.value, points: points, note: f.note.value },
      (points > 0 ? "+" : "") + points + " for " + f.side.value);
  });

  for (const up of document.querySelectorAll(".players .up")) {
    up.addEventListener("click", () => {
      const row = up.parentElement, prev = row.previousElementSibling;
      if (prev && prev.tagName === "DIV") row.parentElement.insertBefore(row, prev);
    });
  }
  $("new-game").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = e.target;
    const players = [...f.querySelectorAll('input[name="player"]')].map((i) => i.value.trim()).filter(Boolean);
    const body = { players: players, variant: f.variant.value, teams: f.teams.checked, turn_seconds: Number(f.turn_seconds.value) || 0 };
    if (Q.state && Q.state.players.length && !Q.state.over && !confirm("Start a new game? The current one stays in the history.")) return;
    if (await Q.act("/api/game/new", body, "New game: " + players.join(", "))) cell = null;
  });
})(window.Q = window.Q || {});
