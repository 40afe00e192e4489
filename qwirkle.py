"""The ``qwirkle`` command line: parse arguments, call the packages, print the result.

Each subcommand imports what it needs when it runs, so ``qwirkle check`` never loads OpenCV and the rules
core stays importable on its own. Bad input ends with one line on stderr naming what is at fault, exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

EXIT_BAD_INPUT = 2


class CommandError(Exception):
    """Bad input met by a subcommand: printed as one line, exit 2."""


def load_json(path: str) -> Any:
    """Parse the JSON file at ``path``; every failure becomes one line naming the file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CommandError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise CommandError(f"{path}: cannot read ({err})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise CommandError(
            f"{path}: not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})"
        ) from None


def emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    """Print ``data`` as JSON with ``--json``, else the human-readable ``text``."""
    print(json.dumps(data) if getattr(args, "json", False) else text)


def rules_context(args: argparse.Namespace) -> tuple[Any, Any]:
    """The tile set and layout named by ``--variant`` and ``--layout``."""
    from table import connect_layout, tileset
    from table.codec import layout_from_json

    layout = None
    if getattr(args, "layout", None):
        layout = layout_from_json(load_json(args.layout), where=args.layout)
    variant = args.variant or (layout.variant if layout else "classic")
    if layout is None and variant == "connect":
        layout = connect_layout()
    return tileset(variant), layout


def cmd_check(args: argparse.Namespace) -> int:
    from table import check, check_board
    from table.codec import board_from_json, check_to_json, placement_from_json
    from table.lines import describe

    tiles, layout = rules_context(args)
    board = board_from_json(load_json(args.board), where=args.board, tileset=tiles)
    check_board(board, tileset=tiles, layout=layout)
    placement = placement_from_json(load_json(args.placement), where=args.placement, tileset=tiles)
    found, points = check(board, placement, tileset=tiles, layout=layout)
    data = check_to_json(found, points)
    if points is None:
        text = "illegal:\n" + "\n".join(f"  - {v.message} [{v.rule}]" for v in found)
    else:
        parts = [
            f"  {describe(line.cells) if len(line.cells) > 1 else 'a lone tile'}: {line.points}"
            + (" (Qwirkle!)" if line.qwirkle else "")
            for line in points.lines
        ]
        if points.bonus:
            parts.append(f"  bonus cells: {points.bonus}")
        text = f"legal: {points.total} points\n" + "\n".join(parts)
    emit(args, data, text)
    return 0


def cmd_spots(args: argparse.Namespace) -> int:
    from table import check_board, spots
    from table.codec import board_from_json

    tiles, layout = rules_context(args)
    board = board_from_json(load_json(args.board), where=args.board, tileset=tiles)
    check_board(board, tileset=tiles, layout=layout)
    tile = tiles.parse(args.tile)
    cells = spots(board, tile, tileset=tiles, layout=layout)
    text = f"{tile} fits at " + ", ".join(f"({r},{c})" for r, c in cells) if cells else f"{tile} fits nowhere"
    emit(args, {"cells": [list(c) for c in cells]}, text)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from vision.frames import SourceError
    from web import create_app
    from web.server import Server, open_service, public_url, terminal_qr

    _, layout = rules_context(args) if args.variant or args.layout else (None, None)
    try:
        service = open_service(args.source, store=args.store, variant=args.variant, layout=layout)
    except SourceError as err:
        raise CommandError(str(err)) from None
    config: dict[str, Any] = {"PUBLIC_URL": None}
    if args.pin:
        config["PIN"] = args.pin
    try:
        app = create_app(service, config)
        server = Server(app, host=args.host, port=args.port)
    except ValueError as err:
        service.close()
        raise CommandError(str(err)) from None
    except OSError as err:
        service.close()
        raise CommandError(f"cannot listen on {args.host}:{args.port} ({err.strerror or err})") from None
    url = public_url(args.host, server.port)
    app.config["PUBLIC_URL"] = url
    print(terminal_qr(url), end="")
    print(f"Scoreboard: {url}   (PIN for changes: {app.extensions['qwirkle'].pin})", flush=True)
    service.start()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        service.close()
    return 0


def _add_rules_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--variant",
        choices=["classic", "colour-blind", "herkle", "cubes", "connect"],
        help="the edition (default: classic, or the layout's)",
    )
    p.add_argument("--layout", metavar="L.json", help="a printed board's layout (Qwirkle Connect)")
    p.add_argument("--json", action="store_true", help="print JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="qwirkle", description="Qwirkle table companion.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("check", help="is a placement legal on a board, and what does it score")
    p.add_argument("--board", required=True, metavar="B.json")
    p.add_argument("--placement", required=True, metavar="P.json")
    _add_rules_options(p)
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("spots", help="every cell where one tile may legally go")
    p.add_argument("--board", required=True, metavar="B.json")
    p.add_argument("--tile", required=True, metavar="COLOUR:SHAPE")
    _add_rules_options(p)
    p.set_defaults(handler=cmd_spots)

    p = sub.add_parser("serve", help="the live scoreboard for phones, following the table through a camera")
    p.add_argument("--source", metavar="SPEC", help="picamera2, opencv:INDEX_OR_URL, dir:PATH or demo")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every interface)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument(
        "--store", metavar="GAMES.sqlite3", help="where games are kept (default: ~/.local/share/qwirkle)"
    )
    p.add_argument("--pin", help="the table's PIN for changes, 4 to 8 digits (default: a random one)")
    p.add_argument(
        "--variant",
        choices=["classic", "colour-blind", "herkle", "cubes", "connect"],
        help="the edition of new games (default: classic)",
    )
    p.add_argument("--layout", metavar="L.json", help="a printed board's layout (Qwirkle Connect)")
    p.set_defaults(handler=cmd_serve)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from table.errors import QwirkleError

    try:
        code: int = args.handler(args)
    except (CommandError, QwirkleError) as err:
        print(f"qwirkle {args.command}: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return code


if __name__ == "__main__":
    sys.exit(main())
