"""The HTML pages. Each is a thin shell: the page's script draws it from the live state.

The join page is drawn on the server: the URL as text, its QR code as inline SVG made locally by segno
(nothing fetched from another host), and, only for a request from the device itself, the table's PIN.
"""

from __future__ import annotations

from typing import Any

import segno
from flask import Blueprint, current_app, render_template, request
from flask.typing import ResponseReturnValue

from table import TILESETS
from web.context import table
from web.security import is_local_request

bp = Blueprint("pages", __name__)


@bp.app_context_processor
def tile_sets() -> dict[str, Any]:
    """Every edition's colours and shapes, from the rules core, for the pages' tile pickers."""
    return {"tilesets": {name: {"colours": ts.colours, "shapes": ts.shapes} for name, ts in TILESETS.items()}}


def _page(name: str) -> ResponseReturnValue:
    return render_template(f"{name}.html", page=name)


@bp.get("/")
def scoreboard() -> ResponseReturnValue:
    return _page("scoreboard")


@bp.get("/board")
def board() -> ResponseReturnValue:
    return _page("board")


@bp.get("/history")
def history() -> ResponseReturnValue:
    return _page("history")


@bp.get("/dispute")
def dispute() -> ResponseReturnValue:
    return _page("dispute")


@bp.get("/setup")
def setup() -> ResponseReturnValue:
    return _page("setup")


def join_url() -> str:
    """The address phones should open: the configured public URL, else the one this request used."""
    return str(current_app.config.get("PUBLIC_URL") or request.host_url)


def qr_svg(url: str) -> str:
    """The QR code of ``url`` as an inline SVG that scales to its container."""
    code = segno.make(url, error="m")
    svg: str = code.svg_inline(scale=1, border=2, dark="#111", light="#fff", omitsize=True)
    return svg


@bp.get("/join")
def join() -> ResponseReturnValue:
    url = join_url()
    pin = table().pin if is_local_request() else None
    return render_template("join.html", page="join", url=url, qr_svg=qr_svg(url), pin=pin)
