/* One turn as a list item: who, what, the tiles drawn, the lines and points (history and dispute pages). */
"use strict";
(function (Q) {
  const h = Q.h;

  Q.turnItem = function (turn, variant) {
    const m = turn.move || {};
    const lines = (turn.lines || []).filter((l) => l.cells.length > 1);
    const parts = lines.map((l) => (l.qwirkle ? h("span", { class: "q" }, "Qwirkle (6 + 6)") : "line of " + l.cells.length));
    if (turn.bonus) parts.push("bonus cells +" + turn.bonus);
    if (turn.out_bonus) parts.push("going out +" + turn.out_bonus);
    const adjust = m.kind === "adjust";
    return h("li", { "data-turn": turn.number },
      h("div", { class: "head" },
        h("span", {}, h("span", { class: "muted" }, "#" + turn.number + " "), h("span", { class: "who" }, adjust ? m.side : turn.player),
          " " + Q.moveText(turn).replace(" for " + m.side, "")),
        h("span", { class: "pts" + (turn.points ? "" : " zero") }, (turn.points > 0 ? "+" : "") + turn.points)),
      m.kind === "play" ? h("div", { class: "tiles" }, m.tiles.map((t) => Q.tileIcon(t, variant, 26))) : null,
      parts.length ? h("div", { class: "lines" }, parts.flatMap((p, i) => (i ? [", ", p] : [p]))) : null);
  };
})(window.Q = window.Q || {});
