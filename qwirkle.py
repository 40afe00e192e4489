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

from table.tiles import VARIANTS

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
    from table import GameError
    from vision.frames import SourceError
    from web import create_app
    from web.server import Server, open_service, public_url, terminal_qr

    settings = _serve_settings(args)
    tiles, layout = rules_context(args)
    if not (args.variant or args.layout):
        layout = None  # new games start with the edition chosen on the phone
    # Frames are read with the calibration (made for the edition of --variant) while the game's edition
    # is that one; the wizard (/calibrate) replaces it and saves it to ``saves_to``, which is read again
    # on the next start (skipped with a warning when it no longer fits).
    saves_to = _calibration_path(args)
    calibration = _calibration(args.calibration, tiles) if args.calibration else None
    if calibration is None and saves_to and Path(saves_to).exists():
        try:
            calibration = _calibration(saves_to, tiles)
        except CommandError as err:
            print(f"qwirkle serve: not using the saved calibration: {err}", file=sys.stderr)
    try:
        service = open_service(
            args.source,
            store=args.store,
            variant=args.variant,
            layout=layout,
            lens_position=settings.get("lens_position"),
            fps=settings.get("fps", 2.0),
            locked=calibration.camera if calibration is not None else None,
        )
    except SourceError as err:
        raise CommandError(str(err)) from None
    if calibration is not None:
        try:
            service.set_calibration(calibration)
        except GameError as err:
            if not args.calibration:
                print(f"qwirkle serve: not using the saved calibration {saves_to}: {err}", file=sys.stderr)
            else:
                service.close()
                raise CommandError(f"{args.calibration}: {err}") from None
    config: dict[str, Any] = {"PUBLIC_URL": None, "CALIBRATION_PATH": saves_to}
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


def _calibration_path(args: argparse.Namespace) -> str | None:
    """Where the wizard saves an accepted calibration: ``--calibration``'s file, the config's, else beside
    the game store (None for the demo's throw-away store)."""
    if args.calibration or args.calibration_path:
        return str(args.calibration or args.calibration_path)
    if args.store is None and args.source == "demo":
        return None
    from web.server import default_store

    return str(Path(args.store or default_store()).with_name("calibration.json"))


def _serve_settings(args: argparse.Namespace) -> dict[str, Any]:
    """Fill the ``serve`` options left unset from ``--config`` (the Pi's /etc/qwirkle/config.toml);
    options given on the command line win. Returns the camera settings that have no option."""
    defaults = {"host": "0.0.0.0", "port": 8000}
    if not args.config:
        for key, value in defaults.items():
            if getattr(args, key) is None:
                setattr(args, key, value)
        return {}
    from device.config import load_config

    cfg = load_config(args.config)
    calibration = cfg.calibration if cfg.calibration and cfg.calibration.exists() else None
    for key, value in {
        "source": cfg.source,
        "host": cfg.host,
        "port": cfg.port,
        "store": str(cfg.store),
        "variant": cfg.variant,
        "pin": cfg.pin,
        "calibration": str(calibration) if calibration else None,
    }.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.calibration_path = str(cfg.calibration) if cfg.calibration else None  # where the wizard saves
    return {"lens_position": cfg.lens_position, "fps": cfg.fps}


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
    from calibration import read_calibrated

    tiles, layout = rules_context(args)
    calibration = _calibration(args.calibration, tiles) if args.calibration else None
    image = _read_photo(args.photo)
    reading = read_calibrated(image, calibration, tileset=tiles, layout=layout)
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
    reader = None
    if calibration is not None:
        from calibration import read_calibrated

        def reader(image: Any) -> Any:
            return read_calibrated(image, calibration, tileset=tiles, layout=layout)

    try:
        results = follow_photos(args.photos, tileset=tiles, layout=layout, reader=reader)
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
    """The calibration file at ``path`` (:func:`calibration.load`; the older bare prototypes JSON too)."""
    from calibration import CalibrationError, load

    try:
        found = load(path)
    except CalibrationError as err:
        raise CommandError(str(err)) from None
    if found.tileset != tiles.name:
        raise CommandError(f"{path}: calibrated for {found.tileset}, not {tiles.name}")
    return found


def cmd_calibrate(args: argparse.Namespace) -> int:
    from calibration import CalibrationFailed, arrangement, calibrate_from_photo, save
    from table.codec import board_from_json

    tiles, layout = rules_context(args)
    if args.known:
        known, how = board_from_json(load_json(args.known), where=args.known, tileset=tiles), "board"
    elif args.arrangement:
        known, how = arrangement(tiles), "arrangement"
    elif args.layout and layout is not None:
        known, how = layout.start_tiles, "layout"
    else:
        raise CommandError(
            "say which tiles the photo shows: --layout L.json, --known BOARD.json or --arrangement"
        )
    base = _calibration(args.base, tiles) if args.base else None
    image = _read_photo(args.photo)
    try:
        found, report = calibrate_from_photo(
            image, known, tileset=tiles, layout=layout, base=base, photo=Path(args.photo).name, how=how
        )
    except CalibrationFailed as err:
        raise CommandError(f"{args.photo}: {err}") from None
    try:
        save(found, args.output)
    except OSError as err:
        raise CommandError(f"{args.output}: cannot write ({err.strerror or err})") from None
    if args.sheet and not _write_image(args.sheet, report.contact_sheet):
        raise CommandError(
            f"{args.sheet}: cannot write the contact sheet (a .png or .jpg name in a folder that exists)"
        )
    data = {"calibration": args.output, **report.to_json()}
    lines = [
        f"learned from {report.found} of {report.known} known tiles; read back right: {report.read_right}",
        "colour margins (spreads): "
        + ", ".join(f"{k} {v:.1f}" for k, v in report.colour_margins.worst.items()),
        "shape margins (spreads): "
        + ", ".join(f"{k} {v:.1f}" for k, v in report.shape_margins.worst.items()),
        *(f"warning: {w}" for w in report.warnings),
        f"wrote {args.output} in {report.elapsed_ms:.0f} ms"
        + (f"; contact sheet {args.sheet}" if args.sheet else ""),
    ]
    emit(args, data, "\n".join(lines))
    return 0


def _read_photo(path: str) -> Any:
    """The photo at ``path`` as a BGR uint8 array; a missing or unreadable file is bad input."""
    import cv2

    image = cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None
    if image is None:
        raise CommandError(f"{path}: missing or not a readable image")
    return image


def _write_image(path: str, image: Any) -> bool:
    import cv2

    try:
        return bool(cv2.imwrite(path, image))
    except cv2.error:
        return False


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


def _add_variant(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--variant", choices=VARIANTS, help=help)


def _add_rules_options(p: argparse.ArgumentParser) -> None:
    _add_variant(p, "the edition (default: classic, or the layout's)")
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
    p.add_argument(
        "--config", metavar="CONFIG.toml", help="settings file (the Pi's /etc/qwirkle/config.toml)"
    )
    p.add_argument("--host", help="address to listen on (default: every interface)")
    p.add_argument("--port", type=int, help="port (default 8000; 0 picks a free one)")
    p.add_argument(
        "--store", metavar="GAMES.sqlite3", help="where games are kept (default: ~/.local/share/qwirkle)"
    )
    p.add_argument("--pin", help="the table's PIN for changes, 4 to 8 digits (default: a random one)")
    _add_variant(p, "the edition of new games (default: classic)")
    p.add_argument("--layout", metavar="L.json", help="a printed board's layout (Qwirkle Connect)")
    p.add_argument(
        "--calibration", metavar="CAL.json", help="from qwirkle calibrate (for --variant's edition)"
    )
    p.set_defaults(handler=cmd_serve, calibration_path=None)

    p = sub.add_parser("render-dataset", help="write a labelled dataset of rendered table photos")
    p.add_argument("out", metavar="OUT", help="the dataset folder (frames/, truth/, board.json, moves.jsonl)")
    p.add_argument("--n", type=int, default=100, help="how many frames (default 100)")
    p.add_argument("--seed", type=int, default=0, help="the same seed writes the same dataset (default 0)")
    _add_variant(p, "the edition (default: classic)")
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
    p.add_argument("--calibration", metavar="C.json", help="a calibration file (qwirkle calibrate)")
    p.set_defaults(handler=cmd_read)

    p = sub.add_parser("follow", help="the turns of one game from photos of the table after each move")
    p.add_argument("photos", metavar="PHOTO", nargs="+")
    _add_rules_options(p)
    p.add_argument("--calibration", metavar="C.json", help="a calibration file (qwirkle calibrate)")
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

    p = sub.add_parser("calibrate", help="learn the tiles' colours and shapes from a photo of known tiles")
    p.add_argument("--photo", required=True, metavar="PHOTO", help="the photo of the known tiles")
    p.add_argument("--known", metavar="BOARD.json", help="the tiles the photo shows (board JSON)")
    p.add_argument(
        "--arrangement",
        action="store_true",
        help="the photo shows the 36 distinct tiles, one row per colour and one column per shape, in the "
        "edition's order",
    )
    p.add_argument("-o", "--output", required=True, metavar="CAL.json", help="where to write the calibration")
    p.add_argument("--sheet", metavar="SHEET.png", help="also write the contact sheet (what was learned)")
    p.add_argument("--base", metavar="CAL.json", help="keep this calibration's lens, plane and camera values")
    _add_rules_options(p)
    p.set_defaults(handler=cmd_calibrate)

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
