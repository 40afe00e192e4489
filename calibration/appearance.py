"""Learning the tiles' appearance from one photo of known tiles, and refining it from confirmed boards.

:func:`calibrate_from_photo` is the whole of calibration from one photo:

1. straighten the lens (when an earlier calibration fitted it) and estimate the frame's white balance
   (:mod:`calibration.balance`); the weakest correction (none, part or all of it) under which the reader
   finds every known tile is kept (when none does, a stronger one only where it finds significantly
   more), and every later frame gets the same gains before it is read;
2. find the known tiles (:func:`vision.measure_tiles`; for a user's arrangement that the default colours
   cannot name, by position alone) and learn colour and shape prototypes from them
   (:func:`vision.learn_prototypes`: the symbols' outlines weighed against the edition's by how noisy
   this light makes the photo's own tiles), keeping the learned outlines only where they name tiles
   they were not learned from at least as well as the edition's (:func:`_outlines_that_hold`); for a
   dim photo, also through a noise filter, kept where that names the tiles better
   (:mod:`calibration.denoise`: frames are then read twice, plainly and through the filter);
3. read the same photo again with what was learned, and check: which known tiles it reads right (fewer
   than half: refused), how well separated each colour and shape is, the light, glare and sharpness
   (:mod:`calibration.checks`); draw the contact sheet (:mod:`calibration.contact`);
4. keep the view's geometry (tile size, grid, play area) to notice later that the camera moved.

:func:`refine` adds the tiles of a confirmed board (every confirmed turn of the running game can) to the
prototypes, weighing them against how many tiles taught each prototype so far, and keeps the blended
outlines only where they hold, as calibration does.

Known tiles come as a :class:`table.Board`: a printed board's start tiles (``layout.start_tiles``), a
confirmed board, or :func:`arrangement`, the 36 distinct tiles laid out in a stated order.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from calibration.balance import apply_balance, chart_balance, estimate_balance
from calibration.checks import (
    MIN_PAINT_LEVELS,
    Margins,
    colour_margins,
    margin_warnings,
    photo_checks,
    shape_margins,
)
from calibration.contact import RIGHT, contact_sheet
from calibration.denoise import denoised, held_out_shapes, named_through_filter
from calibration.file import Calibration
from calibration.geometry import geometry_from_reading, undistort
from calibration.known import MIN_TILES, measure_known, verdicts
from device.doctor import MIN_BRIGHT
from table import Board, Layout, PlacedTile, Tile, TileSet
from vision.classify import name_shapes
from vision.features import Measurements
from vision.learning import learn_prototypes, pair_doubts
from vision.paint_checks import MIN_CONTRAST
from vision.pi_camera import CameraSettings
from vision.prototypes import Prototypes, default_prototypes
from vision.reader import MAX_FIT, MIN_CONFIDENCE, measure_tiles, read_table
from vision.reading import Reading
from vision.shields import views_remembered

#: When refining, earlier tiles count at most this many per class (so the prototypes follow slow drift).
MAX_WEIGHT = 60
#: A stronger white balance is kept over a weaker one when the tiles it finds are this unlikely by chance.
SIGNIFICANCE = 0.05


class CalibrationFailed(ValueError):
    """Calibration could not learn from this photo; the message says why in one line."""


@dataclass(frozen=True)
class Report:
    """What a calibration found and how sure it is (for the wizard and ``qwirkle calibrate``).

    Attributes
    ----------
    known : int
        Known tiles.
    found : int
        Known tiles found in the photo and learned from.
    read_right : int
        Of the known tiles, how many the calibrated reader reads right on the same photo.
    colour_margins, shape_margins : Margins
        Per class: worst margin of its calibration tiles and nearest other prototype, in spreads.
    photo : dict
        The photo's measures (:func:`calibration.checks.photo_checks`).
    warnings : list of str
        One line each: dim light, glare, blur, strong cast, classes at risk or unseen.
    contact_sheet : ndarray, shape (H, W, 3), dtype uint8
        BGR picture of what was learned (:func:`calibration.contact.contact_sheet`).
    elapsed_ms : float
    """

    known: int
    found: int
    read_right: int
    colour_margins: Margins
    shape_margins: Margins
    photo: dict[str, Any]
    warnings: list[str]
    contact_sheet: np.ndarray = field(repr=False)
    elapsed_ms: float = 0.0

    @property
    def ok(self) -> bool:
        """Every known tile read right and nothing to warn about."""
        return self.read_right == self.known and not self.warnings

    def to_json(self) -> dict[str, Any]:
        """Everything but the picture."""
        return {
            "known": self.known,
            "found": self.found,
            "read_right": self.read_right,
            "colour_margins": self.colour_margins.to_json(),
            "shape_margins": self.shape_margins.to_json(),
            "photo": self.photo,
            "warnings": self.warnings,
            "ok": self.ok,
            "elapsed_ms": round(self.elapsed_ms, 1),
        }


def arrangement(tileset: TileSet) -> Board:
    """The 36 distinct tiles in the stated order: row ``i`` holds colour ``tileset.colours[i]``, column ``j``
    shape ``tileset.shapes[j]``, as seen in the photo (row 0 at its top, column 0 at its left)."""
    return Board.of(
        PlacedTile(i, j, Tile(colour, shape))
        for i, colour in enumerate(tileset.colours)
        for j, shape in enumerate(tileset.shapes)
    )


def prepare(image: np.ndarray, calibration: Calibration | None) -> np.ndarray:
    """The frame as the reader should see it under ``calibration``: lens straightened, white-balanced."""
    if calibration is None:
        return image
    if calibration.geometry.lens is not None:
        image = undistort(image, calibration.geometry.lens)
    return apply_balance(image, calibration.balance)


def read_calibrated(
    image: np.ndarray, calibration: Calibration | None, *, tileset: TileSet, layout: Layout | None = None
) -> Reading:
    """:func:`vision.read_table` on the frame :func:`prepare` makes, with the learned prototypes; where the
    calibration learned through the noise filter (a dim light), read a second time through it and put
    together (:func:`calibration.denoise.named_through_filter`)."""
    protos = None if calibration is None else calibration.prototypes
    seen = prepare(image, calibration)
    if calibration is None or calibration.filtered is None:
        return read_table(seen, tileset=tileset, layout=layout, calibration=protos)
    # the plain reading's guesses of shapes too (tiles under MIN_CONFIDENCE whose colour is sure), for the
    # filtered one to confirm
    plain = read_table(
        seen,
        tileset=tileset,
        layout=layout,
        calibration=protos,
        min_confidence=0.0,
        min_colour_confidence=MIN_CONFIDENCE,
    )
    filtered = read_table(denoised(seen), tileset=tileset, layout=layout, calibration=calibration.filtered)
    return named_through_filter(plain, filtered)


@views_remembered()  # Herkle's known tiles are viewed on their shields to learn, to chart and to report
def calibrate_from_photo(
    image: np.ndarray,
    known: Board,
    *,
    tileset: TileSet,
    layout: Layout | None = None,
    base: Calibration | None = None,
    photo: str | None = None,
    how: str | None = None,
    camera: CameraSettings | None = None,
) -> tuple[Calibration, Report]:
    """Learn the tile set's appearance from one photo whose tiles are known.

    Parameters
    ----------
    image : ndarray, shape (H, W, 3), dtype uint8
        The photo, BGR.
    known : Board
        Its tiles: ``layout.start_tiles``, a confirmed board, or :func:`arrangement`.
    tileset : TileSet
        The edition (names of the colours and shapes).
    layout : Layout, optional
        A printed board: ``known`` is then in board cells, and its outline is the play area.
    base : Calibration, optional
        An earlier calibration whose lens, plane and camera settings are kept.
    photo, how : str, optional
        Recorded in the file's ``source`` (the photo's name; ``layout``, ``board`` or ``arrangement``).
    camera : CameraSettings, optional
        What the camera that took the photo is locked to (:func:`calibration.camera.camera_lock` of the
        open source); default: ``base``'s.

    Returns
    -------
    Calibration, Report

    Raises
    ------
    CalibrationFailed
        Fewer than :data:`MIN_TILES` of the known tiles could be found, or what was learned reads fewer
        than half of them right on the photo itself (a misplaced or misread layout: learning from it
        would make reading worse); the message says how many.
    """
    started = time.perf_counter()
    _check_image(image)
    if len(known) == 0:
        raise CalibrationFailed("no known tiles to learn from")
    lens = base.geometry.lens if base is not None else None
    straight = undistort(image, lens) if lens is not None else image
    balance, seen, measured, tiles, cast = _balanced(straight, known, tileset)
    if len(tiles) < MIN_TILES:
        raise CalibrationFailed(
            f"only {len(tiles)} of the {len(known)} known tiles were found in the photo (need {MIN_TILES}); "
            "is the whole layout in view, in focus and lit?"
        )
    prototypes, reading, verdicts, to_known = _learned(seen, measured, tiles, known, tileset, layout=layout)
    clear = int((measured.contrast > MIN_CONTRAST).sum())
    if _right(verdicts) < len(known) and (clear < len(known) or _right(verdicts) < len(known) / 2):
        # no correction found every known tile, or the tiles stand out but what is learned cannot read
        # them back (Herkle's shields are found on their grey field, which an uncorrected tungsten lamp
        # turns orange): the known paints, used as a colour chart, may know the light better than the
        # grey-edge estimate; kept when what is learned under it reads more of them right (so not tried
        # when every known tile is read right already)
        chart = chart_balance(measured, tiles, tileset, balance)
        under = apply_balance(straight, chart)
        found = measure_known(under, known, tileset)
        if len(found[1]) >= MIN_TILES:
            learned = _learned(under, *found, known, tileset, layout=layout)
            if _right(learned[2]) > _right(verdicts):
                balance, seen, (measured, tiles) = chart, under, found
                prototypes, reading, verdicts, to_known = learned
    geometry = geometry_from_reading(reading.geometry, to_known=to_known, layout=layout)
    if base is not None:
        geometry = replace(geometry, plane=base.geometry.plane, lens=base.geometry.lens)
    cm, sm = colour_margins(measured, tiles, prototypes), shape_margins(measured, tiles, prototypes)
    numbers, warnings = photo_checks(straight, measured, cast)
    numbers["balance"] = [round(float(g), 3) for g in balance]
    warnings += margin_warnings("colour", cm, seen=[t.colour for t in tiles], every=tileset.colours)
    warnings += margin_warnings("shape", sm, seen=[t.shape for t in tiles], every=tileset.shapes)
    right = _right(verdicts)
    if right < len(known) / 2:
        raise CalibrationFailed(
            f"with what it learned, the reader reads only {right} of the {len(known)} known tiles right on "
            "the photo itself; are the tiles laid out as stated, all in view and lit?"
        )
    if right < len(known):
        warnings.append(f"read back, {right} of the {len(known)} known tiles are read right")
    filtered = None
    if numbers["bright"] < MIN_BRIGHT or numbers["paint_levels"] < MIN_PAINT_LEVELS:
        filtered = _through_filter(seen, known, tileset, measured, tiles)
    numbers["noise_filter"] = filtered is not None
    sheet = contact_sheet(
        seen,
        geometry.cell_to_image,
        known,
        verdicts,
        tileset=tileset,
        prototypes=prototypes,
        colour_margins=cm,
        shape_margins=sm,
    )
    h, w = image.shape[:2]
    calibration = Calibration(
        tileset=tileset.name,
        prototypes=prototypes,
        balance=balance,
        size=(w, h),
        samples=_counts(tiles),
        geometry=geometry,
        camera=camera or (base.camera if base is not None else None),
        source={
            "photo": photo,
            "known": how or ("layout" if layout is not None else "board"),
            "tiles": len(tiles),
            "refined": 0,
        },
        filtered=filtered,
    )
    elapsed = (time.perf_counter() - started) * 1000
    return calibration, Report(len(known), len(tiles), right, cm, sm, numbers, warnings, sheet, elapsed)


def refine(calibration: Calibration, image: np.ndarray, board: Board, *, tileset: TileSet) -> Calibration:
    """The calibration with the tiles of a confirmed ``board`` in ``image`` added to its prototypes.

    Each class's prototype becomes the weighted mean of the old one (weight: the tiles that taught it, at
    most :data:`MAX_WEIGHT`) and this photo's tiles of that class (its symbol outlines learned with the
    calibration's as what was known before, :func:`vision.learn_prototypes`); the spreads likewise. The
    blended outlines are kept only where they hold on this photo's tiles (the check
    :func:`calibrate_from_photo` makes, :func:`_outlines_that_hold`); else the edition's come back. The
    white balance and geometry stay (frames must stay comparable). A photo in which fewer than
    :data:`MIN_TILES` tiles are found changes nothing.
    """
    _check_image(image)
    if tileset.name != calibration.tileset:
        raise ValueError(f"calibrated for {calibration.tileset}, not {tileset.name}")
    try:
        measured, tiles, _ = measure_tiles(
            prepare(image, calibration), board, tileset=tileset, calibration=calibration.prototypes
        )
    except ValueError:
        return calibration
    if len(tiles) < MIN_TILES:
        return calibration
    prototypes = _outlines_that_hold(
        lambda m, t: _blended(calibration, m, t, tileset), measured, tiles, tileset
    )
    before, now = calibration.samples, _counts(tiles)
    samples = {
        kind: {k: before[kind].get(k, 0) + now[kind].get(k, 0) for k in set(before[kind]) | set(now[kind])}
        for kind in ("colours", "shapes")
    }
    source = {**calibration.source, "refined": int(calibration.source.get("refined", 0)) + 1}
    return replace(calibration, prototypes=prototypes, samples=samples, source=source, created="")


# --- helpers ---------------------------------------------------------------------------------------------


def _blended(
    calibration: Calibration, measured: Measurements, tiles: list[Tile], tileset: TileSet
) -> Prototypes:
    """``calibration``'s prototypes blended with those learned from ``tiles`` (see :func:`refine`)."""
    old = calibration.prototypes
    new = learn_prototypes([(measured, tiles)], tileset=tileset, base=old)
    before, now = calibration.samples, _counts(tiles)
    n_old = min(sum(before["colours"].values()), MAX_WEIGHT * len(old.colours))
    mix = len(tiles) / (n_old + len(tiles))
    changes: dict[str, Any] = {}
    for f in fields(Prototypes):
        was, learned = getattr(old, f.name), getattr(new, f.name)
        if f.name == "doubts":  # told by the blend's own held-out tiles (:func:`_outlines_that_hold`)
            continue
        if isinstance(was, dict):
            kind = "colours" if set(was) & set(tileset.colours) else "shapes"  # what the table is keyed by
            changes[f.name] = {  # what only this photo shows (a shape's scatter first measured) as learned
                **learned,
                **{
                    k: _blend(v, learned.get(k, v), before[kind].get(k, 0), now[kind].get(k, 0))
                    for k, v in was.items()
                },
            }
        elif isinstance(was, float):
            changes[f.name] = float((1 - mix) * was + mix * learned)
    return replace(old, **changes)


def _outlines_that_hold(
    learn: Callable[[Measurements, list[Tile]], Prototypes],
    measured: Measurements,
    tiles: list[Tile],
    tileset: TileSet,
) -> Prototypes:
    """What ``learn`` makes of the photo's known ``tiles``, or that with the edition's outlines back when
    those name the photo's own tiles better.

    Each tile is named against what ``learn`` makes of the others (leave one out), as the reader names
    it: its shape right, with confidence (:data:`vision.reader.MIN_CONFIDENCE`) and within
    :data:`vision.reader.MAX_FIT` of it. The learned outlines (their middles and spreads under this light)
    are kept when they name at least as many of the tiles that way as the edition's do; else the
    edition's come back, without learned spreads (outlines learned from misplaced tiles, or blended into
    a calibration's that were wrong). Silhouettes (Herkle's) and the colour-blind inner marks are kept as
    learned. With the outlines kept go the pairs of shapes the photo's tiles leave in doubt
    (:func:`vision.learning.pair_doubts`): each tile held out under learned outlines; under the edition's,
    which the photo did not teach, the tiles as they are."""
    learned = learn(measured, tiles)
    if not learned.outlines:
        return learned
    default = default_prototypes(tileset)
    edition = replace(learned, outlines=default.outlines, learned_spreads={}, doubts={})
    held_out = 0
    doubts: dict[tuple[str, str, str], float] = {}
    for i, tile in enumerate(tiles):
        one, others = measured.take(np.array([i])), np.arange(len(tiles)) != i
        without = learn(measured.take(others), tiles[:i] + tiles[i + 1 :])
        held_out += _named_right(one, [tile], without)
        for key, need in pair_doubts(one, [tile], without).items():
            doubts[key] = max(need, doubts.get(key, need))
    if held_out >= _named_right(measured, tiles, edition):
        return replace(learned, doubts=doubts)
    # the edition's outlines are not learned from the photo: its tiles tell their doubts as they are
    return replace(edition, doubts=pair_doubts(measured, tiles, edition))


def _through_filter(
    seen: np.ndarray, known: Board, tileset: TileSet, measured: Measurements, tiles: list[Tile]
) -> Prototypes | None:
    """Prototypes learned on the photo ``seen`` (balanced) through the noise filter
    (:func:`calibration.denoise.denoised`), when its known tiles are all found there as plainly and its
    outlines, so learned, name the tiles they were not learned from better: more of them right, or as
    many with a higher mean log-probability of each tile's own shape
    (:func:`calibration.denoise.held_out_shapes`); else None. Editions named by silhouette (Herkle) have
    no outlines to learn: None."""
    if not default_prototypes(tileset).outlines:
        return None
    found, known_there = measure_known(denoised(seen), known, tileset)
    if Counter(known_there) != Counter(tiles):
        return None

    def learn(m: Measurements, t: list[Tile]) -> Prototypes:
        return learn_prototypes([(m, t)], tileset=tileset)

    plain = held_out_shapes(measured, tiles, learn)
    through = held_out_shapes(found, known_there, learn)
    if through <= plain:  # more named right, or as many with their own shapes more probable
        return None
    return _outlines_that_hold(learn, found, known_there, tileset)


def _named_right(measured: Measurements, tiles: list[Tile], prototypes: Prototypes) -> int:
    """How many measured tiles the reader names with ``tiles``' shapes, with confidence
    (:func:`vision.classify.name_shapes`)."""
    shapes, confidence, fit = name_shapes(measured, prototypes)
    sure = (confidence >= MIN_CONFIDENCE) & (fit <= MAX_FIT)
    return sum(bool(ok) and shape == t.shape for ok, shape, t in zip(sure, shapes, tiles, strict=True))


def _learned(
    seen: np.ndarray,
    measured: Measurements,
    tiles: list[Tile],
    known: Board,
    tileset: TileSet,
    *,
    layout: Layout | None,
) -> tuple[Prototypes, Reading, dict[tuple[int, int], str], np.ndarray | None]:
    """What the photo ``seen`` (balanced) teaches from its measured known ``tiles``, the photo read again
    with it, the verdict on every known cell and the known-to-reading cell transform (:func:`_verdicts`)."""
    prototypes = _outlines_that_hold(
        lambda m, t: learn_prototypes([(m, t)], tileset=tileset), measured, tiles, tileset
    )
    reading = read_table(seen, tileset=tileset, layout=layout, calibration=prototypes)
    return (prototypes, reading, *verdicts(reading, known, layout))


def _right(verdicts: dict[tuple[int, int], str]) -> int:
    return sum(v == RIGHT for v in verdicts.values())


def _blend(old: np.ndarray, new: np.ndarray, n_old: int, n_new: int) -> np.ndarray:
    if n_new == 0:
        return old
    w = min(n_old, MAX_WEIGHT)
    return np.asarray((w * old + n_new * new) / (w + n_new), dtype=old.dtype)


def _counts(tiles: list[Tile]) -> dict[str, dict[str, int]]:
    colours: dict[str, int] = {}
    shapes: dict[str, int] = {}
    for t in tiles:
        colours[t.colour] = colours.get(t.colour, 0) + 1
        shapes[t.shape] = shapes.get(t.shape, 0) + 1
    return {"colours": colours, "shapes": shapes}


def _balanced(
    image: np.ndarray, known: Board, tileset: TileSet
) -> tuple[np.ndarray, np.ndarray, Measurements, list[Tile], np.ndarray]:
    """The white balance to keep, the photo under it, the known tiles measured there, and the full
    grey-edge gains (the light's cast).

    The grey-edge balance is right for the light, but a strongly coloured table misleads it, a channel it
    amplifies several times brings up that channel's noise, and the reader already balances colours on the
    tiles' black bodies; so the weakest correction under which the reader finds every known tile is kept:
    none, then the 1/2, 3/4 and full power of the grey-edge gains. A tile counts where its paint stands
    out from its body as a tile's does (:data:`vision.occupied.MIN_CONTRAST`): the reader also takes
    fainter symbols (:data:`vision.occupied.FAINT`), but a correction that leaves a known tile that faint
    leaves the next frames' tiles too faint for the detector. When no correction finds every known tile,
    a stronger one replaces a weaker only when it finds significantly more of them (:func:`_finds_more`):
    in dim light the grey-edge estimate is mostly noise (a neutral light read as a cast of 0.8), and the
    tiles found at the edge of the detector's reach come and go with it by chance.
    """
    gains = estimate_balance(image)
    best: tuple[np.ndarray, np.ndarray, Measurements, list[Tile]] | None = None
    kept: Counter[Tile] = Counter()
    for candidate in (np.ones(3), gains**0.5, gains**0.75, gains):
        seen = apply_balance(image, candidate)
        measured, tiles = measure_known(seen, known, tileset)
        clear = Counter(t for t, c in zip(tiles, measured.contrast.tolist(), strict=True) if c > MIN_CONTRAST)
        if clear.total() == len(known):
            return candidate, seen, measured, tiles, gains
        if best is None or _finds_more(clear, kept):
            best, kept = (candidate, seen, measured, tiles), clear
    assert best is not None
    return (*best, gains)


def _finds_more(found: Counter[Tile], before: Counter[Tile]) -> bool:
    """Whether ``found`` holds significantly more known tiles than ``before`` (the same photo under another
    correction): of the tiles only one of them holds, so many are ``found``'s that an even chance of
    either would give that many or more with probability under :data:`SIGNIFICANCE` (a one-sided sign
    test on the paired tiles)."""
    gained, lost = (found - before).total(), (before - found).total()
    n = gained + lost
    tail = sum(math.comb(n, k) for k in range(gained, n + 1)) / 2**n
    return gained > lost and tail < SIGNIFICANCE


def _check_image(image: object) -> None:
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        shape = getattr(image, "shape", None)
        dtype = getattr(image, "dtype", type(image).__name__)
        raise ValueError(f"image must be BGR uint8 of shape (H, W, 3), got shape {shape} dtype {dtype}")
