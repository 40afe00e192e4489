/* Drawing tiles and boards as SVG, from the grid model (no images): every shape is drawn, so a board
   reads without telling colours apart. Q.board(svg, opts) is a pannable, zoomable board view. */
"use strict";
(function (Q) {
  const NS = "http://www.w3.org/2000/svg";
  const COLOURS = {
    red: "#e8413c", orange: "#f58a1f", yellow: "#f7d51d", green: "#3fae49",
    blue: "#2f7fe0", purple: "#9b4fd0", white: "#f4f4f0", black: "#161616",
  };
  // Shapes in a 100×100 box. Classic and colour-blind shapes, then Herkle's ordinaries.
  const star = (n, ro, ri, turn) => {
    const p = [];
    for (let i = 0; i < 2 * n; i++) {
      const a = Math.PI * (i / n) + (turn || 0) - Math.PI / 2, r = i % 2 ? ri : ro;
      p.push((50 + r * Math.cos(a)).toFixed(1) + "," + (50 + r * Math.sin(a)).toFixed(1));
    }
    return '<polygon points="' + p.join(" ") + '"/>';
  };
  const band = (x1, y1, x2, y2, w) => {
    const dx = x2 - x1, dy = y2 - y1, l = Math.hypot(dx, dy), nx = -dy / l * w / 2, ny = dx / l * w / 2;
    return '<polygon points="' + [[x1 + nx, y1 + ny], [x2 + nx, y2 + ny], [x2 - nx, y2 - ny], [x1 - nx, y1 - ny]]
      .map((p) => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" ") + '"/>';
  };
  // Herkle: a heater shield with a grey field on the black block; the ordinary is clipped to the shield
  // (as vision/render_tiles.py paints them).
  const SHIELD = "M7,11H93V52Q93,80 50,96Q7,80 7,52Z";
  const heraldic = (body) => '<path d="' + SHIELD + '" fill="#777a80" stroke="none"/>' +
    '<g clip-path="url(#q-shield)" stroke="#262626" stroke-width="2">' + body + "</g>";
  const SHAPES = {
    circle: '<circle cx="50" cy="50" r="33"/>',
    square: '<rect x="24" y="24" width="52" height="52" rx="2"/>',
    diamond: '<polygon points="50,11 89,50 50,89 11,50"/>',
    "criss-cross": star(4, 43, 13, Math.PI / 4),
    starburst: star(8, 41, 21, 0),
    clover: '<circle cx="50" cy="28" r="16"/><circle cx="50" cy="72" r="16"/><circle cx="28" cy="50" r="16"/>' +
      '<circle cx="72" cy="50" r="16"/><rect x="34" y="34" width="32" height="32"/>',
    fess: heraldic('<rect x="-5" y="31" width="110" height="30"/>'),
    pale: heraldic('<rect x="35" y="-5" width="30" height="110"/>'),
    bend: heraldic(band(0, 0, 100, 100, 30)),
    cross: heraldic('<rect x="-5" y="35.5" width="110" height="21"/><rect x="39.5" y="-5" width="21" height="110"/>'),
    saltire: heraldic(band(0, 0, 100, 100, 21) + band(100, 0, 0, 100, 21)),
    chevron: heraldic('<polygon points="-10,67.5 50,15.5 110,67.5 110,94.5 50,42.5 -10,94.5"/>'),
  };
  // The colour-blind edition's inner marks (the rules name red square, blue diamond, green clover,
  // orange circle; yellow and purple are this app's choice).
  const INNER = { red: "square", blue: "diamond", green: "clover", orange: "circle", yellow: "starburst",
    purple: "criss-cross" };

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  /* The shapes, defined once per page in a hidden SVG that every board and icon refers to. */
  function defs() {
    if (document.getElementById("q-defs")) return;
    let html = '<defs><clipPath id="q-shield" clipPathUnits="userSpaceOnUse"><path d="' + SHIELD + '"/></clipPath>';
    for (const name in SHAPES) html += '<symbol id="q-' + name + '" viewBox="0 0 100 100">' + SHAPES[name] + "</symbol>";
    const svg = el("svg", { id: "q-defs", width: 0, height: 0, "aria-hidden": "true" });
    svg.style.position = "absolute";
    svg.innerHTML = html + "</defs>";
    document.body.prepend(svg);
  }

  /* One tile at (x, y) in board units (a cell is 1×1). */
  function tile(parent, t, x, y, variant) {
    const g = el("g", { class: "tile", transform: "translate(" + x + "," + y + ")" }, parent);
    el("rect", { x: 0.04, y: 0.04, width: 0.92, height: 0.92, rx: 0.12, class: "face" }, g);
    el("use", { href: "#q-" + t.shape, x: 0.1, y: 0.1, width: 0.8, height: 0.8, fill: COLOURS[t.colour] || "#888" }, g);
    if (variant === "colour-blind" && INNER[t.colour]) {
      el("use", { href: "#q-" + INNER[t.colour], x: 0.36, y: 0.36, width: 0.28, height: 0.28, fill: "#111" }, g);
    }
    const title = el("title", {}, g);
    title.textContent = t.colour + " " + t.shape + (t.row !== undefined ? " at (" + t.row + "," + t.col + ")" : "");
    return g;
  }

  /* A small stand-alone SVG of one tile, for lists and pickers. */
  function tileIcon(t, variant, size) {
    const svg = el("svg", { viewBox: "0 0 1 1", width: size || 28, height: size || 28, class: "icon" });
    defs();
    tile(svg, t, 0, 0, variant);
    return svg;
  }

  function bounds(cells, margin) {
    if (!cells.length) return { x: -3, y: -3, w: 7, h: 7 };
    let r0 = Infinity, r1 = -Infinity, c0 = Infinity, c1 = -Infinity;
    for (const [r, c] of cells) { r0 = Math.min(r0, r); r1 = Math.max(r1, r); c0 = Math.min(c0, c); c1 = Math.max(c1, c); }
    return { x: c0 - margin, y: r0 - margin, w: c1 - c0 + 1 + 2 * margin, h: r1 - r0 + 1 + 2 * margin };
  }

  /* A board view inside `svg`. opts: variant, layout, interactive (pan/zoom/tap), onTap(row, col).
     draw(model) takes {tiles, layout, marks: {cells, className}[], lines: [{cells, label}], ghosts}. */
  function board(svg, opts) {
    opts = opts || {};
    defs();
    const layers = {};
    for (const name of ["grid", "tiles", "marks", "labels"]) layers[name] = el("g", { class: name }, svg);
    let view = null, fitted = null, userMoved = false;

    function apply() {
      const box = svg.getBoundingClientRect();
      const aspect = box.width && box.height ? box.width / box.height : 1;
      let { x, y, w, h } = view;
      if (w / h < aspect) { const nw = h * aspect; x -= (nw - w) / 2; w = nw; } else { const nh = w / aspect; y -= (nh - h) / 2; h = nh; }
      svg.setAttribute("viewBox", [x, y, w, h].map((v) => v.toFixed(3)).join(" "));
      view = { x, y, w, h };
    }

    function fit(model) {
      const cells = model.focus || model.tiles.map((t) => [t.row, t.col]);
      if (model.layout && !model.focus) fitted = { x: -0.5, y: -0.5, w: model.layout.cols + 1, h: model.layout.rows + 1 };
      else fitted = bounds(cells, model.focus ? 1.2 : 1.5);
      fitted.w = Math.max(fitted.w, 5); fitted.h = Math.max(fitted.h, 5);
      if (!userMoved || !view) { view = Object.assign({}, fitted); apply(); }
    }

    function draw(model) {
      for (const k in layers) layers[k].textContent = "";
      const variant = model.variant || opts.variant;
      if (model.layout) {
        const L = model.layout;
        el("rect", { x: 0, y: 0, width: L.cols, height: L.rows, class: "printed" }, layers.grid);
        for (const b of L.bonus || []) {
          el("rect", { x: b.col + 0.08, y: b.row + 0.08, width: 0.84, height: 0.84, rx: 0.1, class: "bonus b" + b.points }, layers.grid);
          const t = el("text", { x: b.col + 0.5, y: b.row + 0.62, class: "bonus-label" }, layers.grid);
          t.textContent = "+" + b.points;
        }
      }
      for (const t of model.tiles) tile(layers.tiles, t, t.col, t.row, variant);
      for (const g of model.ghosts || []) tile(layers.tiles, g, g.col, g.row, variant).classList.add("ghost");
      for (const m of model.marks || []) {
        for (const [r, c] of m.cells) el("rect", { x: c + 0.03, y: r + 0.03, width: 0.94, height: 0.94, rx: 0.14, class: "mark " + m.className }, layers.marks);
      }
      (model.lines || []).forEach((line, i) => {
        const b = bounds(line.cells, 0);
        el("rect", { x: b.x - 0.06, y: b.y - 0.06, width: b.w + 0.12, height: b.h + 0.12, rx: 0.2, class: "line l" + (i % 4) }, layers.marks);
        if (line.label) {
          const last = line.cells[line.cells.length - 1];
          const horizontal = line.cells.length > 1 && line.cells[0][0] === last[0];
          const cx = horizontal ? last[1] + 1.35 : last[1] + 0.5, cy = horizontal ? last[0] + 0.5 : last[0] + 1.35;
          el("circle", { cx: cx, cy: cy, r: 0.34, class: "line-badge l" + (i % 4) }, layers.labels);
          const t = el("text", { x: cx, y: cy + 0.13, class: "line-label" }, layers.labels);
          t.textContent = line.label;
        }
      });
      fit(model);
    }

    if (opts.interactive) {
      const pts = new Map();
      let start = null, moved = false;
      const units = (dx) => dx * view.w / (svg.getBoundingClientRect().width || 1);
      const zoomAt = (factor, cx, cy) => {
        const box = svg.getBoundingClientRect();
        const ux = view.x + (cx - box.left) / box.width * view.w, uy = view.y + (cy - box.top) / box.height * view.h;
        const w = Math.min(Math.max(view.w * factor, 3), 80), f = w / view.w;
        view = { x: ux - (ux - view.x) * f, y: uy - (uy - view.y) * f, w: w, h: view.h * f };
        userMoved = true;
        apply();
      };
      svg.addEventListener("pointerdown", (e) => {
        svg.setPointerCapture(e.pointerId);
        pts.set(e.pointerId, { x: e.clientX, y: e.clientY });
        start = { view: Object.assign({}, view), pts: new Map([...pts].map(([k, v]) => [k, Object.assign({}, v)])) };
        if (pts.size === 1) moved = false;
      });
      svg.addEventListener("pointermove", (e) => {
        if (!pts.has(e.pointerId)) return;
        pts.set(e.pointerId, { x: e.clientX, y: e.clientY });
        const now = [...pts.values()], was = [...start.pts.values()];
        if (now.length === 1 && was.length === 1) {
          const dx = now[0].x - was[0].x, dy = now[0].y - was[0].y;
          if (Math.hypot(dx, dy) > 8) moved = true;
          if (moved) { view = Object.assign({}, start.view, { x: start.view.x - units(dx), y: start.view.y - units(dy) }); userMoved = true; apply(); }
        } else if (now.length >= 2 && was.length >= 2) {
          moved = true;
          const d0 = Math.hypot(was[0].x - was[1].x, was[0].y - was[1].y), d1 = Math.hypot(now[0].x - now[1].x, now[0].y - now[1].y);
          view = Object.assign({}, start.view);
          const mx = (now[0].x + now[1].x) / 2, my = (now[0].y + now[1].y) / 2;
          const px = (was[0].x + was[1].x) / 2 - mx, py = (was[0].y + was[1].y) / 2 - my;
          view.x += units(px); view.y += units(py);
          zoomAt(d0 / Math.max(d1, 1), mx, my);
        }
      });
      const up = (e) => {
        if (!pts.has(e.pointerId)) return;
        pts.delete(e.pointerId);
        if (!moved && pts.size === 0 && opts.onTap) {
          const box = svg.getBoundingClientRect();
          const col = Math.floor(view.x + (e.clientX - box.left) / box.width * view.w);
          const row = Math.floor(view.y + (e.clientY - box.top) / box.height * view.h);
          opts.onTap(row, col);
        }
        start = { view: Object.assign({}, view), pts: new Map([...pts].map(([k, v]) => [k, Object.assign({}, v)])) };
      };
      svg.addEventListener("pointerup", up);
      svg.addEventListener("pointercancel", up);
      svg.addEventListener("wheel", (e) => { e.preventDefault(); zoomAt(Math.exp(e.deltaY * 0.002), e.clientX, e.clientY); }, { passive: false });
      svg.addEventListener("dblclick", () => { userMoved = false; view = Object.assign({}, fitted); apply(); });
    }
    window.addEventListener("resize", () => { if (view) apply(); });
    return {
      draw: draw,
      reset: () => { userMoved = false; if (fitted) { view = Object.assign({}, fitted); apply(); } },
    };
  }

  /* The tile set of a variant, from the rules core's own list (embedded in every page). */
  function tileset(variant) {
    const all = JSON.parse(document.getElementById("tilesets").textContent);
    return all[variant] || all.classic;
  }

  /* A picker of every tile of `variant` (and "empty" if asked); onPick(tile or null). */
  function palette(box, variant, onPick, withEmpty) {
    const set = tileset(variant);
    let chosen = null;
    const buttons = [];
    const pick = (button, t) => {
      for (const b of buttons) b.setAttribute("aria-selected", String(b === button));
      chosen = t;
      onPick(t);
    };
    box.textContent = "";
    for (const colour of set.colours) for (const shape of set.shapes) {
      const t = { colour: colour, shape: shape };
      const b = document.createElement("button");
      b.type = "button";
      b.title = colour + " " + shape;
      b.setAttribute("aria-label", colour + " " + shape);
      b.dataset.tile = colour + ":" + shape;
      b.appendChild(tileIcon(t, variant, 40));
      b.addEventListener("click", () => pick(b, t));
      buttons.push(b);
      box.appendChild(b);
    }
    if (withEmpty) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "empty";
      b.textContent = "empty";
      b.dataset.tile = "empty";
      b.addEventListener("click", () => pick(b, null));
      buttons.push(b);
      box.appendChild(b);
    }
    return { chosen: () => chosen };
  }

  Q.colours = COLOURS;
  Q.tileset = tileset;
  Q.palette = palette;
  Q.tile = tile;
  Q.tileIcon = tileIcon;
  Q.board = board;
  Q.svg = el;
})(window.Q = window.Q || {});
