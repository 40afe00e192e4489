"""Serving the app: waitress (a real multi-threaded WSGI server) in this one process, so the camera the
game service holds is opened once; the URL phones should use, and its QR code for the console.

Each event stream and each MJPEG viewer holds one of waitress's threads for as long as it is open, so the
thread pool is sized for them plus ordinary requests (``threads``; the app caps streams below it).
"""

from __future__ import annotations

import io
import os
import socket
import tempfile
import threading
from pathlib import Path
from typing import Any

import segno
from flask import Flask
from waitress.server import create_server
from waitress.wasyncore import close_all

from web.context import Table


class Server:
    """One waitress server for ``app``; :meth:`run` blocks, :meth:`start` runs it in a thread.

    Parameters
    ----------
    app : Flask
        From :func:`web.create_app`.
    host, port : str, int
        Where to listen; port 0 picks a free one (see :attr:`port`).
    threads : int
        Worker threads; at least the app's ``SSE_MAX_STREAMS + MJPEG_MAX_VIEWERS`` plus a few.
    """

    def __init__(
        self, app: Flask, *, host: str = "127.0.0.1", port: int = 8000, threads: int | None = None
    ) -> None:
        self.app = app
        streams = int(app.config["SSE_MAX_STREAMS"]) + int(app.config["MJPEG_MAX_VIEWERS"])
        self.threads = threads or streams + 8
        if self.threads <= streams:
            raise ValueError(
                f"threads: {self.threads} cannot serve {streams} open streams and other requests"
            )
        self._server: Any = create_server(
            app,
            host=host,
            port=port,
            threads=self.threads,
            connection_limit=max(100, 2 * self.threads),
            channel_timeout=120,
            # A slow phone must not make the server buffer megabytes for it: past 1 MB of unsent output
            # its stream's thread waits (and then sends only the newest state), past 256 kB buffers spill.
            outbuf_high_watermark=1 << 20,
            outbuf_overflow=256 << 10,
            ident="qwirkle",
        )
        self.host = host
        self.port: int = self._server.effective_port
        self._thread: threading.Thread | None = None

    def run(self) -> None:
        """Serve until :meth:`stop` or Ctrl-C."""
        try:
            self._server.run()
        finally:
            self._table().closing.set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="qwirkle-web", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """End open streams, close every connection and the worker threads."""
        self._table().closing.set()
        if self._thread is not None and self._thread.is_alive():
            # Close the sockets in the server's own loop thread, which then ends for lack of sockets.
            self._server.trigger.pull_trigger(lambda: close_all(self._server._map))
            self._thread.join(5)
        else:
            close_all(self._server._map)
        self._server.task_dispatcher.shutdown(timeout=5)

    def _table(self) -> Table:
        found: Table = self.app.extensions["qwirkle"]
        return found


def lan_address() -> str:
    """This machine's address on the local network (what phones can reach), or 127.0.0.1 offline.

    Connecting a UDP socket sends nothing; it only asks the kernel which interface would be used.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.254.254.254", 1))
            address: str = probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"
    return address


def public_url(host: str, port: int) -> str:
    """The URL to show people: the LAN address when listening on every interface."""
    shown = lan_address() if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def terminal_qr(url: str) -> str:
    """The QR code of ``url`` drawn with Unicode half blocks, for the console."""
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


#: The demo films games of this many turns, one after another (each new game starts on the scoreboard).
DEMO_TURNS = 30
#: The demo's camera and table: a steady overhead view of a dark wooden table under neutral light, the
#: tiles as large as the game's final table allows (the reader is measured on harder ones: docs/vision.md).
DEMO_CONDITIONS: dict[str, Any] = {
    "light": "neutral",
    "table": "dark-wood",
    "tilt": 4.0,
    "rotation": 0.0,
    "gaps": 0.0,
    "drift": 0.0,
    "glare": 0.0,
    "blur": 0.5,
    "noise": 1.5,
    "jpeg_quality": 90,
    "px_per_tile": 110.0,
}


def default_store() -> Path:
    """Where ``qwirkle serve`` keeps its games: ``$XDG_DATA_HOME/qwirkle`` (``~/.local/share/qwirkle``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "qwirkle" / "games.sqlite3"


def open_service(
    spec: str | None,
    *,
    store: str | None,
    variant: str | None,
    layout: Any = None,
    reader: Any = None,
    lens_position: float | None = None,
    fps: float | None = 2.0,
    locked: Any = None,
) -> Any:
    """The game service for ``--source SPEC`` (None: no camera, moves come from the phones); ``reader``
    replaces the service's default frame reader (a calibrated one, say); ``lens_position``, ``fps`` and
    ``locked`` (a calibration's camera values) go to the camera (see :func:`vision.sources.open_source`).

    The demo plays rendered games in front of a virtual camera: it gets a fresh store of its own (unless
    ``store`` names one), its game is started with the demo's players and edition, its players press their
    buttons on the phone (:class:`live.demo.DemoPhone`) and wait for the scoreboard before the next turn.
    """
    from live.service import GameService
    from vision.sources import open_source

    demo = spec == "demo"
    if demo:
        from vision.demo import DemoSource

        source: Any = DemoSource(loop=True, max_turns=DEMO_TURNS, conditions=DEMO_CONDITIONS)
    else:
        source = open_source(spec, lens_position=lens_position, fps=fps, locked=locked) if spec else None
    if store is None:
        path = Path(tempfile.mkdtemp(prefix="qwirkle-demo-")) / "games.sqlite3" if demo else default_store()
        path.parent.mkdir(parents=True, exist_ok=True)
        store = str(path)
    game_variant = getattr(source, "variant", None) if demo else variant
    phone = None
    if demo:  # the demo's players press their phones' buttons (trade, pass) and wait for the scoreboard
        from live.demo import DemoPhone

        phone = DemoPhone()
    service = GameService(
        store,
        source=source,
        reader=reader,
        variant=game_variant or "classic",
        layout=layout,
        phone=phone,
    )
    if demo:
        service.new_game(list(getattr(source, "players", ("Ann", "Bob"))), variant=game_variant)
        source.wait_for = lambda turns: len(service.state()["turns"]) >= turns
    return service
