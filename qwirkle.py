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


def cmd_doctor(args: argparse.Namespace) -> int:
    from device.config import ConfigError
    from device.doctor import PROBLEM, diagnose, report

    try:
        findings = diagnose(args.config, source=args.source)
    except ConfigError as err:
        raise CommandError(str(err)) from None
    problems = any(f.status == PROBLEM for f in findings)
    emit(args, {"ok": not problems, "findings": [f.to_json() for f in findings]}, report(findings))
    return 1 if problems else 0


def cmd_read(args: argparse.Namespace) -> int:
    import cv2

    from vision import read_table

    tiles, layout = rules_context(args)
    calibration = _calibration(args.calibration, tiles) if args.calibration else None
    image = cv2.imread(args.photo, cv2.IMREAD_COLOR) if Path(args.photo).is_file() else None
    if image is None:
        raise CommandError(f"{args.photo}: missing or not a readable image")
    reading = read_table(image, tileset=tiles, layout=layout, calibration=calibration)
    data = reading.to_json()
    lines = [
        f"{t['colour']}:{t['shape']} at ({t['row']},{t['col']})  {t['confidence']:.2f}" for t in data["tiles"]
    ]
    lines += [f"? ({u['row']},{u['col']}) {u['reason']}" for u in data["uncertain"]]
    emit(args, data, "\n".join([*lines, f"{len(data['tiles'])} tiles, {reading.elapsed_ms:.0f} ms"]))
    return 0


def cmd_follow(args: argparse.Namespace) -> int:
    from live.follow import PhotoError, follow_photos

    tiles, layout = rules_context(args)
    calibration = _calibration(args.calibration, tiles) if args.calibration else None
    try:
        results = follow_photos(args.photos, tileset=tiles, layout=layout, calibration=calibration)
    except PhotoError as err:
        raise CommandError(str(err)) from None
    for r in results:
        if args.json:
            print(json.dumps(r))
            continue
        placed = (
            " ".join(f"{t['colour']}:{t['shape']}@{t['row']},{t['col']}" for t in r["placed"]) or "nothing"
        )
        verdict = (
            f"{r['score']} points"
            if r["legal"]
            else "illegal: " + "; ".join(v["message"] for v in r["violations"])
        )
        print(f"{r['after']}: {placed} -> {verdict}")
        for note in r["attention"]:
            print(f"  attention: {note}")
    return 0


def _calibration(path: str, tiles: Any) -> Any:
    """Prototypes from a calibration file: the prototypes object itself or one under ``"prototypes"``."""
    from vision import Prototypes

    data = load_json(path)
    if isinstance(data, dict) and "prototypes" in data:
        data = data["prototypes"]
    try:
        found = Prototypes.from_json(data, where=path)
    except ValueError as err:
        raise CommandError(str(err)) from None
    if found.tileset != tiles.name:
        raise CommandError(f"{path}: calibrated for {found.tileset}, not {tiles.name}")
    return found


def cmd_evaluate(args: argparse.Namespace) -> int:
    from vision.evaluate import DatasetError, evaluate, report_text

    try:
        result = evaluate(
            Path(args.dataset), calibrate_on=args.calibrate_on, scale=args.scale, limit=args.limit
        )
    except DatasetError as err:
        raise CommandError(str(err)) from None
    emit(args, result, report_text(result))
    return 0


def cmd_render_dataset(args: argparse.Namespace) -> int:
    from vision.render_dataset import write_dataset

    size = _parse_size(args.size)
    fixed = {k: v for k, v in vars(args).items() if k in _RENDER_CONDITIONS and v is not None}
    if args.no_jpeg:
        fixed["jpeg_quality"] = None
    try:
        summary = write_dataset(
            args.out,
            n=args.n,
            seed=args.seed,
            variant=args.variant or "classic",
            size=size,
            games=args.games,
            hand=args.hand,
            **fixed,
        )
    except ValueError as err:
        raise CommandError(str(err)) from None
    except OSError as err:
        raise CommandError(f"{args.out}: cannot write ({err.strerror or err})") from None
    text = f"wrote {summary['frames']} frames" + (f" and {summary['moves']} moves" if args.games else "")
    emit(args, summary, f"{text} to {summary['path']}")
    return 0


_RENDER_CONDITIONS = ("light", "table", "px_per_tile", "tilt", "rotation", "blur", "noise", "jpeg_quality")


def _parse_size(text: str) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` (as image tools write it) -> (height, width)."""
    w, sep, h = text.lower().partition("x")
    if not sep or not w.isdigit() or not h.isdigit():
        raise CommandError(f"--size {text!r}: expected WIDTHxHEIGHT, for example 1024x768")
    return int(h), int(w)


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

    p = sub.add_parser("render-dataset", help="write a labelled dataset of rendered table photos")
    p.add_argument("out", metavar="OUT", help="the dataset folder (frames/, truth/, board.json, moves.jsonl)")
    p.add_argument("--n", type=int, default=100, help="how many frames (default 100)")
    p.add_argument("--seed", type=int, default=0, help="the same seed writes the same dataset (default 0)")
    p.add_argument(
        "--variant",
        choices=["classic", "colour-blind", "herkle", "cubes", "connect"],
        help="the edition (default: classic)",
    )
    p.add_argument("--size", default="1024x768", metavar="WxH", help="frame size (default 1024x768)")
    p.add_argument("--games", action="store_true", help="game sequences with moves.jsonl, not single frames")
    p.add_argument("--hand", type=float, default=0.25, help="chance a hand covers part of a frame (0.25)")
    p.add_argument("--light", choices=["neutral", "warm", "cool", "dim"], help="default: random per frame")
    p.add_argument(
        "--table",
        choices=["light-wood", "dark-wood", "white-laminate", "green-felt", "cloth-pattern"],
        help="default: random per frame",
    )
    p.add_argument("--px-per-tile", dest="px_per_tile", type=float, help="pixels per cell (default: random)")
    p.add_argument("--tilt", type=float, help="camera tilt in degrees, 0..60 (default: random)")
    p.add_argument("--rotation", type=float, help="layout rotation in degrees (default: random)")
    p.add_argument("--blur", type=float, help="lens blur sigma in pixels (default: random)")
    p.add_argument("--noise", type=float, help="sensor noise in 8-bit levels (default: random)")
    p.add_argument("--jpeg-quality", dest="jpeg_quality", type=int, help="10..100 (default: random)")
    p.add_argument("--no-jpeg", action="store_true", help="no camera JPEG step (frames saved at quality 97)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_render_dataset)

    p = sub.add_parser("read", help="read the tiles in a photo of the table")
    p.add_argument("photo", metavar="PHOTO")
    _add_rules_options(p)
    p.add_argument("--calibration", metavar="C.json", help="colour and shape prototypes from calibration")
    p.set_defaults(handler=cmd_read)

    p = sub.add_parser("follow", help="the turns of one game from photos of the table after each move")
    p.add_argument("photos", metavar="PHOTO", nargs="+")
    _add_rules_options(p)
    p.add_argument("--calibration", metavar="C.json", help="colour and shape prototypes from calibration")
    p.set_defaults(handler=cmd_follow)

    p = sub.add_parser("evaluate", help="accuracy and speed of read against a labelled dataset")
    p.add_argument("dataset", metavar="DATASET_DIR")
    p.add_argument(
        "--calibrate-on", dest="calibrate_on", metavar="ID", help="learn prototypes from this frame first"
    )
    p.add_argument("--scale", type=float, default=1.0, help="resize every frame by this factor (default 1)")
    p.add_argument("--limit", type=int, help="only the first N frames")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_evaluate)

    p = sub.add_parser("doctor", help="camera, focus, light, calibration, disk, service and port checks")
    p.add_argument("--config", metavar="C.toml", help="the config file (default: /etc/qwirkle/config.toml)")
    p.add_argument("--source", metavar="SPEC", help="check this source instead of the config's camera")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_doctor)

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
