/* The board page: the whole board (pan and zoom with fingers), the last placement marked, and the
   camera's view with the recognised grid overlaid, refreshed as snapshots. */
"use strict";
(function (Q) {
  let timer = null;

  function lastPlay(turns) {
    for (let i = turns.length - 1; i >= 0; i--) if (turns[i].move && turns[i].move.kind === "play") return turns[i];
    return null;
  }

  function refreshCamera() {
    const img = document.getElementById("camera");
    const next = new Image();
    next.onload = () => { img.src = next.src; img.hidden = false; document.getElementById("camera-none").hidden = true; };
    next.onerror = () => { img.hidden = true; document.getElementById("camera-none").hidden = false; };
    next.src = "/camera.jpg?t=" + Date.now();
  }

  // Deferred scripts run once the page is parsed: the elements exist.
  const view = Q.board(document.getElementById("board"), { interactive: true });
  document.getElementById("fit").addEventListener("click", () => view.reset());
  const live = document.getElementById("camera-live");
  live.addEventListener("change", () => {
    clearInterval(timer);
    if (live.checked) timer = setInterval(() => { if (document.visibilityState === "visible") refreshCamera(); }, 2000);
  });
  let cameraKnown = false;

  Q.onState((state) => {
    const camera = state.camera || {};
    document.getElementById("camera-note").textContent = camera.source
      ? "What the camera (" + camera.source + ") sees, with the grid it recognised." + (camera.error ? " " + camera.error : "")
      : "No camera: moves come from the phones.";
    if (camera.source && !cameraKnown) refreshCamera();
    cameraKnown = Boolean(camera.source);
    const last = lastPlay(state.turns || []);
    view.draw({
      tiles: state.board.tiles, variant: state.variant, layout: state.layout,
      marks: last ? [{ cells: last.move.tiles.map((t) => [t.row, t.col]), className: "last" }] : [],
    });
  });
})(window.Q = window.Q || {});
