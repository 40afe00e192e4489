"""Writing rendered datasets in the format of ``../shared/datasets`` (``qwirkle render-dataset``).

A dataset folder holds ``frames/<id>.jpg``, ``truth/<id>.json`` (the renderer's truth, with ``image``),
``board.json`` for printed-board editions, and for game sequences ``moves.jsonl`` (one line per play:
``before``, ``after``, ``placed``, ``legal``, ``score``, ``bonus_points``, ``line_points``).

Two kinds: independent frames (each a random legal board under random conditions; ids ``00000``,
``00001``, ...) or game sequences (``--games``: seeded games photographed after every play with the
camera moving a little between photos, ids ``<game>_<photo>`` such as ``0_00``, as in the real set).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from table import Board, connect_layout
from table.codec import board_to_json, layout_to_json
from vision.demo import TurnRecord, framing, play_game
from vision.render import Conditions, Rendered, Scene, random_conditions, random_hand, random_scene, render


def frame_seed(seed: int, index: int) -> int:
    """The seed of frame ``index`` of a dataset seeded with ``seed`` (independent of the other frames)."""
    return int(np.random.SeedSequence([seed & 0xFFFFFFFF, index]).generate_state(1)[0])


def _write(out: Path, ident: str, rendered: Rendered) -> None:
    data = rendered.jpeg
    if data is None:
        ok, buf = cv2.imencode(".jpg", rendered.image, [cv2.IMWRITE_JPEG_QUALITY, 97])
        if not ok:
            raise RuntimeError(f"frame {ident}: OpenCV could not encode it as JPEG")
        data = buf.tobytes()
    (out / "frames" / f"{ident}.jpg").write_bytes(data)
    truth = {"image": f"frames/{ident}.jpg", **rendered.truth}
    (out / "truth" / f"{ident}.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")


def write_dataset(
    out: str | Path,
    *,
    n: int,
    seed: int = 0,
    variant: str = "classic",
    size: tuple[int, int] = (768, 1024),
    games: bool = False,
    hand: float = 0.25,
    progress: Callable[[int, int], None] | None = None,
    **conditions: Any,
) -> dict[str, Any]:
    """Render ``n`` frames into the dataset folder ``out`` (created; existing frames are overwritten).

    Parameters
    ----------
    out : path
        The dataset folder.
    n : int
        How many frames (1..100000).
    seed : int
        The same seed writes the same dataset, byte for byte.
    variant : str
        The edition.
    size : (int, int)
        Frame height and width.
    games : bool
        Game sequences (with ``moves.jsonl``) rather than independent frames.
    hand : float
        Chance (0..1) that a hand hides part of a frame.
    progress : callable, optional
        Called with (frames done, n) after each frame.
    **conditions
        Fixed :class:`vision.render.Conditions` values; the others are drawn per frame (per game for
        sequences).

    Returns
    -------
    dict
        ``{"frames": n, "moves": m, "path": str}``.
    """
    if not 1 <= n <= 100_000:
        raise ValueError(f"n must be 1..100000 frames, got {n}")
    if not 0.0 <= hand <= 1.0:
        raise ValueError(f"hand must be a chance 0..1, got {hand}")
    Conditions(**conditions)  # unknown names or values out of range fail before anything is written
    Scene(Board(), variant, size=size)  # so do a bad variant or size
    root = Path(out)
    (root / "frames").mkdir(parents=True, exist_ok=True)
    (root / "truth").mkdir(parents=True, exist_ok=True)
    if variant == "connect":
        text = json.dumps(layout_to_json(connect_layout()), indent=1) + "\n"
        (root / "board.json").write_text(text, encoding="utf-8")
    moves = 0
    if games:
        moves = _write_games(
            root, n=n, seed=seed, variant=variant, size=size, hand=hand, progress=progress, **conditions
        )
    else:
        for i in range(n):
            scene = random_scene(
                seed=frame_seed(seed, i), variant=variant, size=size, hand=hand, **conditions
            )
            _write(root, f"{i:05d}", render(scene))
            if progress:
                progress(i + 1, n)
    return {"frames": n, "moves": moves, "path": str(root)}


def game_scenes(
    table_seed: int, *, variant: str, size: tuple[int, int], hand: float = 0.0, **conditions: Any
) -> Iterator[tuple[Scene, TurnRecord | None]]:
    """The photos of the seeded game ``table_seed`` as ``write_dataset(games=True)`` takes them.

    Yields the start and then the board after every play, each with the play that made it (None for the
    start), the camera moving a little between photos and a hand in each with chance ``hand``; scenes are
    cheap, :func:`vision.render.render` draws them.
    """
    turns = [t for t in play_game(variant=variant, seed=table_seed) if t.kind == "play"]
    boards = [turns[0].before if turns else Board(), *(t.after for t in turns)]
    rng = np.random.default_rng([table_seed, 2])
    base = random_conditions(rng, variant=variant, **conditions)
    centre, fit = framing(boards[-1], variant=variant, size=size, rotation=base.rotation)
    if "px_per_tile" not in conditions:
        base = replace(base, px_per_tile=min(fit, base.px_per_tile))
    for k, board in enumerate(boards):
        shake = replace(
            base,
            shift=(base.shift[0] + float(rng.normal(0, 0.15)), base.shift[1] + float(rng.normal(0, 0.15))),
            rotation=base.rotation + float(rng.normal(0, 0.6)) * ("rotation" not in conditions),
        )
        scene = Scene(
            board,
            variant,
            shake,
            size,
            centre=centre,
            hand=random_hand(rng) if rng.random() < hand else None,
            table_seed=table_seed,
            seed=frame_seed(table_seed, k),
        )
        yield scene, turns[k - 1] if k else None


def _write_games(
    root: Path,
    *,
    n: int,
    seed: int,
    variant: str,
    size: tuple[int, int],
    hand: float,
    progress: Callable[[int, int], None] | None,
    **conditions: Any,
) -> int:
    """Photograph seeded games after every play until ``n`` photos are written; returns the moves."""
    done, moves, game = 0, 0, 0
    with (root / "moves.jsonl").open("w", encoding="utf-8") as log:
        while done < n:
            scenes = game_scenes(
                frame_seed(seed, 1_000_000 + game), variant=variant, size=size, hand=hand, **conditions
            )
            for k, (scene, turn) in enumerate(scenes):
                if done >= n:
                    break
                ident = f"{game}_{k:02d}"
                _write(root, ident, render(scene))
                if turn is not None:
                    assert turn.score is not None
                    line = {
                        "before": f"{game}_{k - 1:02d}",
                        "after": ident,
                        "placed": board_to_json(turn.placed)["tiles"],
                        "legal": True,
                        "score": turn.score.total,
                        "bonus_points": turn.score.bonus,
                        "line_points": turn.score.line_points,
                    }
                    log.write(json.dumps(line) + "\n")
                    moves += 1
                done += 1
                if progress:
                    progress(done, n)
            game += 1
    return moves
