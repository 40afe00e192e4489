/* The calibration wizard: choose the known tiles, take the photo (the camera's latest frame), look at
   what was learned (contact sheet, margins, warnings), then accept or retake. Changes go through Q.post
   (CSRF token, PIN asked once). */
"use strict";
(function (Q) {
  const h = Q.h;
  const $ = (id) => document.getElementById(id);
  const view = Q.board($("known-view"), {});
  let attempt = null;

  const known = () => document.querySelector('input[name="known"]:checked').value;

  /* The tiles the person lays out for each choice, in the rules core's order for the game's edition. */
  function drawKnown() {
    const state = Q.state;
    if (!state) return;
    const kind = known();
    let tiles = [], layout = null, note = "";
    if (kind === "arrangement") {
      const set = Q.tileset(state.variant);
      set.colours.forEach((colour, row) => set.shapes.forEach((shape, col) =>
        tiles.push({ row: row, col: col, colour: colour, shape: shape })));
      note = "One row per colour (top to bottom) and one column per shape (left to right), as the camera sees it.";
    } else if (kind === "start") {
      layout = state.layout;
      tiles = layout ? layout.start_tiles : [];
      note = layout ? "The printed start tiles, on their printed squares." : "A Qwirkle Connect board: its printed start tiles.";
    } else {
      tiles = state.board.tiles;
      layout = state.layout;
      note = tiles.length ? tiles.length + " confirmed tiles, where they are now." : "No confirmed tiles yet: choose another.";
    }
    $("known-note").textContent = note;
    view.draw({ tiles: tiles, variant: state.variant, layout: layout, marks: [] });
  }

  function showCurrent(state) {
    const cal = state.calibration;
    $("current").textContent = !cal ? "Calibration: none yet (the tile set's defaults)."
      : "Calibration in use: learned from the " + cal.learned_from + (cal.when ? ", " + cal.when : "") + ".";
  }

  function marginRows(kind, margins) {
    return Object.keys(margins).map((name) => {
      const m = margins[name];
      return h("tr", { class: m.margin < 1 ? "risk" : "" }, h("td", {}, kind + " " + name),
        h("td", {}, m.margin.toFixed(2)), h("td", {}, m.nearest || ""));
    });
  }

  function showReport(out) {
    const r = out.report;
    attempt = out.id;
    $("summary").textContent = "Found " + r.found + " of the " + r.known + " known tiles; read back " + r.read_right
      + " right" + (r.ok ? ". All good." : ".");
    $("warnings").replaceChildren(...r.warnings.map((w) => h("li", {}, w)));
    $("sheet").src = "/api/calibrate/sheet.jpg?attempt=" + out.id;
    $("margins").replaceChildren(...marginRows("colour", r.colour_margins), ...marginRows("shape", r.shape_margins));
    $("step-result").hidden = false;
    $("step-accept").hidden = false;
    $("step-result").scrollIntoView({ behavior: "smooth" });
  }

  async function take() {
    $("take").disabled = true;
    $("busy").hidden = false;
    try {
      showReport(await Q.post("/api/calibrate", { known: known() }));
    } catch (err) {
      Q.toast(err.message, true);
    } finally {
      $("take").disabled = false;
      $("busy").hidden = true;
    }
  }

  function retake() {
    attempt = null;
    $("step-result").hidden = true;
    $("step-accept").hidden = true;
    $("step-photo").scrollIntoView({ behavior: "smooth" });
  }

  async function accept() {
    if (attempt === null) return;
    const out = await Q.act("/api/calibrate/accept", { id: attempt }, "Calibration in use");
    if (out) {
      if (out.saved) Q.toast("Calibration in use, saved to " + out.saved);
      retake();
    }
  }

  function refreshPreview() {
    if (document.visibilityState === "visible") $("preview").src = "/camera.jpg?t=" + Date.now();
  }

  for (const radio of document.querySelectorAll('input[name="known"]')) radio.addEventListener("change", drawKnown);
  $("take").addEventListener("click", take);
  $("retake").addEventListener("click", retake);
  $("accept").addEventListener("click", accept);
  $("preview").addEventListener("error", () => { $("preview").alt = "no camera picture yet"; });
  Q.onState((state) => { showCurrent(state); drawKnown(); });
  refreshPreview();
  setInterval(refreshPreview, 3000);
})(window.Q = window.Q || {});
