/* The scoreboard: big totals, whose turn (and the turn timer), the last turn with its lines, the bag,
   Qwirkle celebrations and the final standings with the going-out bonus. */
"use strict";
(function (Q) {
  const h = Q.h;
  let mini = null, seen = null;

  function lastScoring(turns) {
    for (let i = turns.length - 1; i >= 0; i--) if (turns[i].move && !["adjust", "finish"].includes(turns[i].move.kind)) return turns[i];
    return null;
  }

  function drawSides(state) {
    const box = document.getElementById("sides");
    box.dataset.count = String(Q.sides(state).length);
    const last = lastScoring(state.turns || []);
    const mover = state.to_move;
    box.replaceChildren(...Q.sides(state).map((side) => {
      const moving = side.players.includes(mover);
      const members = side.players.length > 1 ? h("div", { class: "members" }, side.players.join(" & ")) : null;
      const delta = last && last.side === side.name && last.points > 0 ? h("span", { class: "delta" }, "+" + last.points) : null;
      const hands = (state.players || []).filter((p) => p.side === side.name).map((p) => p.hand);
      return h("div", { class: "side" + (moving ? " to-move" : ""), "data-side": side.name },
        h("div", { class: "name" }, side.name),
        members,
        h("div", {}, h("span", { class: "total" }, String(side.score)), delta),
        moving ? h("span", { class: "badge" }, side.players.length > 1 ? mover + " to play" : "to play",
          h("span", { class: "timer", "data-timer": "1" })) : null,
        hands.length ? h("div", { class: "hand" }, hands.map((n) => n + " in hand").join(" · ")) : null);
    }));
    tick();
  }

  /* The turn timer counts down from the server's deadline, corrected for the phone's clock. */
  function tick() {
    const el = document.querySelector("[data-timer]");
    const left = Q.timeLeft(Q.state);
    if (!el) return;
    if (left === null) { el.textContent = ""; return; }
    const s = Math.max(0, Math.ceil(left));
    el.textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    el.classList.toggle("late", s <= 10);
  }

  function drawLast(state) {
    const turn = lastScoring(state.turns || []);
    const text = document.getElementById("last-text");
    const svg = document.getElementById("last-board");
    if (!turn) { text.textContent = "No turn yet."; svg.hidden = true; return; }
    text.replaceChildren(...[h("b", {}, turn.player), " " + Q.moveText(turn) + " ",
      turn.move.kind === "play" ? h("span", { class: "pts" }, "+" + turn.points) : null,
      turn.out_bonus ? " (with +" + turn.out_bonus + " for going out)" : null].filter((c) => c !== null));
    if (turn.move.kind !== "play") { svg.hidden = true; return; }
    svg.hidden = false;
    if (!mini) mini = Q.board(svg, {});
    const placed = turn.move.tiles.map((t) => [t.row, t.col]);
    const lines = (turn.lines || []).filter((l) => l.cells.length > 1);
    mini.draw({
      tiles: state.board.tiles, variant: state.variant,
      focus: lines.flatMap((l) => l.cells).concat(placed),
      marks: [{ cells: placed, className: "last" }],
      lines: lines.map((l) => ({ cells: l.cells, label: String(l.points) })),
    });
  }

  function drawFinal(state) {
    const box = document.getElementById("final");
    box.hidden = !state.over;
    if (!state.over) return;
    const outTurn = (state.turns || []).find((t) => t.out_bonus > 0);
    const ranked = Q.sides(state).sort((a, b) => b.score - a.score);
    box.replaceChildren(
      h("h2", {}, "Final standings"),
      h("p", { class: "muted" }, state.ending || ""),
      h("ol", {}, ranked.map((s) => h("li", {},
        h("b", {}, s.name), " " + s.score + " ",
        (state.winners || []).includes(s.name) ? h("span", { class: "out" }, "winner ") : null,
        outTurn && outTurn.side === s.name ? h("span", { class: "out" }, "(+" + outTurn.out_bonus + " for going out)") : null))));
  }

  /* Celebrate a Qwirkle made while the page is open (not one that was already on the board). */
  function celebrate(state) {
    const turns = state.turns || [];
    const latest = turns.length ? turns[turns.length - 1].number : 0;
    if (seen === null || latest < seen) { seen = latest; return; }
    const fresh = turns.filter((t) => t.number > seen);
    seen = latest;
    const turn = fresh.reverse().find((t) => (t.lines || []).some((l) => l.qwirkle));
    if (!turn) return;
    const qwirkles = turn.lines.filter((l) => l.qwirkle).length;
    const box = document.getElementById("celebrate");
    box.querySelector(".big").textContent = qwirkles > 1 ? "DOUBLE QWIRKLE!" : "QWIRKLE!";
    box.querySelector(".who").textContent = turn.player + " +" + turn.points;
    box.hidden = false;
    box.style.animation = "none"; void box.offsetWidth; box.style.animation = "";
    clearTimeout(box.timer);
    box.timer = setTimeout(() => { box.hidden = true; }, 3600);
  }

  Q.onState((state) => {
    drawSides(state);
    document.getElementById("bag").textContent = String(state.bag);
    document.getElementById("turn-no").textContent = String((state.turns || []).filter((t) => t.move.kind !== "adjust").length + (state.over ? 0 : 1));
    drawLast(state);
    drawFinal(state);
    celebrate(state);
  });
  setInterval(tick, 500);
})(window.Q = window.Q || {});
