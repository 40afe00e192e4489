"""Learning prototypes from photos of known tiles: what calibration (:mod:`calibration.appearance`) makes
of a start position, an arrangement of the 36 distinct tiles or a confirmed board.

Every estimate here weighs what the photo's few tiles show against what was known before (the edition's
:class:`vision.prototypes.Prototypes`, or an earlier calibration's), each by how uncertain it is: a clean
photo moves the prototypes to its tiles, a dim, noisy one or a class seen once moves them less.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from table import Tile, TileSet
from vision.classify import decision_distances, shape_distance
from vision.features import Measurements, concat
from vision.ordinaries import arch, shield_templates
from vision.outline import asymmetry, outline
from vision.prototypes import (
    LIGHTNESS_WEIGHT,
    MIN_MARK_TILES,
    OPEN,
    OUTLINE_FLOOR,
    Prototypes,
    colour_features,
    default_prototypes,
    mark_descriptor,
    white_balance,
)
from vision.reader import MAX_FIT, MIN_CONFIDENCE
from vision.shield_names import ARCH_SPREAD
from vision.shields import field_gains, shield_view

#: A known tile whose outline lies further than this from its own shape (in the reader's fit, twice its
#: limit :data:`vision.reader.MAX_FIT`) is no whole symbol, and teaches no outline (:func:`_whole_outlines`).
#: A noisy whole symbol stays well within it: green tiles of rendered photos in a tenth of the light, whose
#: paint stands out least, reach 6.4 (classic) and 4.9 (Connect); an outline with another mark or paint
#: joined to it measured 17.6.
BROKEN_FIT = 2 * MAX_FIT
#: The fewest known tiles of a shape from which calibration learns its coverage (the median of one
#: tile's is that tile's noise).
MIN_COVERAGE_TILES = 2
#: How much nearer (log-odds) than a calibration photo's tile came to another shape a tile of its colour
#: must be to be named that other shape with confidence (:func:`pair_doubts`). The photo shows one tile of
#: each colour and shape, one draw of where that light puts them; the game's tiles scatter about it. Chosen
#: on nine rendered games' dim captures, replayed (classic, colour-blind and Connect, 22,157 tiles, right /
#: silent): no doubts 21,419 / 200; a margin of 0 21,405 / 186, 1 21,374 / 167, 2 21,326 / 144, 3 21,269 /
#: 131, 4 21,183 / 122.
DOUBT_MARGIN = 2.0


def learn_prototypes(
    frames: Sequence[tuple[Measurements, Sequence[Tile]]], *, tileset: TileSet, base: Prototypes | None = None
) -> Prototypes:
    """Prototypes from measured tiles of known identity (calibration).

    ``frames`` pairs each photo's measurements (:func:`vision.reader.measure_tiles`) with its known tiles;
    their colours are learned under one white balance of the tile bodies, kept as ``body_gains`` for the
    reader to name colours under (a frame's own bodies, fewer and laid out otherwise, move the balance
    from frame to frame): ``base``'s when it has one (a calibration refined, whose colours were learned
    under it), else all the photos' bodies' (:func:`white_balance`); Herkle's on its shields' grey field,
    as the reader names them (:func:`named_gains`). Colours and shapes no tile shows keep ``base``'s values
    (default: the tile set's defaults). The colour-blind edition's inner marks are learned as the photo
    shows them (:func:`_learned_marks`). The symbols' outlines are learned as an estimate under noise
    (:func:`_learned_outlines`): each shape's middle weighs ``base``'s (uncertain by its spread) against the
    photo's tiles (uncertain by how noisy this light makes them), its spreads stay ``base``'s (a photo's
    few tiles of a shape tell where it lies, not every printing's range), and how far the next tile of it
    under this light will lie from that middle is kept as ``learned_spreads``; what the light makes of a
    whole symbol's symmetry, as ``asymmetry_noise``. The colour and silhouette spreads are the photo's
    scatter weighed against ``base``'s (:func:`_spread`), and Herkle's ordinaries' arches are learned as
    the outlines are (:func:`_learned_arches`); each shape's coverage of its cell is the photo's
    (:func:`_learned_coverages`).
    """
    base = base or default_prototypes(tileset)
    for m, known in frames:
        if len(m) != len(known):
            raise ValueError(f"{len(m)} measurements but {len(known)} tiles")
    tiles = [t for _, known in frames for t in known]
    if not tiles:
        return base
    measured = concat([m for m, _ in frames])
    body_gains = base.body_gains if base.body_gains is not None else white_balance(measured.body)
    feats = [colour_features(named_paint(m, tileset), named_gains(m, tileset, body_gains)) for m, _ in frames]
    f, sil = np.concatenate(feats), measured.silhouette
    whole = _whole_outlines(measured, [t.shape for t in tiles], base)
    radial, cover = measured.radial[whole], measured.coverage[whole]
    outlined = [t.shape for t, w in zip(tiles, whole.tolist(), strict=True) if w]
    every = len(tileset.tiles())
    colours, colour_err = _means(
        f,
        [t.colour for t in tiles],
        tileset.colours,
        base.colours,
        lambda d: np.linalg.norm(d * [LIGHTNESS_WEIGHT, 1, 1], axis=1),
    )
    shapes, shape_err = _means(
        sil,
        [t.shape for t in tiles],
        tileset.shapes,
        base.shapes,
        lambda d: np.sqrt((d.reshape(len(d), -1) ** 2).mean(axis=1)),
    )
    outlines, learned_spreads = _learned_outlines(outline(radial), outlined, base)
    marks, mark_spreads = _learned_marks(np.concatenate([m.hole for m, _ in frames]), tiles, tileset, base)
    arches = _learned_arches(frames, tileset, base)
    return Prototypes(
        tileset.name,
        colours,
        shapes,
        _spread(colour_err, len({t.colour for t in tiles}), base.colour_spread, every - len(tileset.colours)),
        _spread(shape_err, len({t.shape for t in tiles}), base.shape_spread, every - len(tileset.shapes)),
        outlines,
        dict(base.outline_spreads),
        marks,
        mark_spreads,
        learned_spreads,
        float(np.sqrt(np.mean(asymmetry(radial) ** 2))) if len(radial) else base.asymmetry_noise,
        arches,
        _learned_coverages(cover, outlined, base),
        body_gains,
    )


def pair_doubts(
    m: Measurements, tiles: Sequence[Tile], prototypes: Prototypes
) -> dict[tuple[str, str, str], float]:
    """Where known tiles (N, measured ``m``) leave a pair of shapes in doubt under ``prototypes`` (learned
    without them: held out): for each tile and each other shape, the log-odds of that shape over the
    tile's own (:func:`vision.classify.decision_distances`) plus :data:`DOUBT_MARGIN`, kept when that
    reaches the reader's confidence cut (:data:`vision.reader.MIN_CONFIDENCE`), keyed by (the tile's
    colour, the other shape, the tile's shape): :attr:`vision.prototypes.Prototypes.doubts`, the
    log-odds a tile of that colour must have before it is named the other shape with confidence.

    A calibration photo in a tenth of the light showed a purple clover that, held out, lay nearer the
    diamond (log-odds 1.0) than its own shape; the reader, whose confidence comes from spreads pooled over
    every shape, then named that game's purple clovers diamonds with confidence 0.6 to 0.9 (30 of them
    over 100 frames). Editions without outlines (Herkle): none."""
    if not prototypes.outlines or not len(tiles):
        return {}
    names, distance = decision_distances(m, prototypes)
    cut = float(np.log(MIN_CONFIDENCE / (1 - MIN_CONFIDENCE)))
    doubts: dict[tuple[str, str, str], float] = {}
    for row, tile in zip(distance, tiles, strict=True):
        own = row[names.index(tile.shape)]
        for other, d in zip(names, row.tolist(), strict=True):
            need = 0.5 * (own**2 - d**2) + DOUBT_MARGIN
            key = (tile.colour, other, tile.shape)
            if other != tile.shape and need >= cut and need > doubts.get(key, -np.inf):
                doubts[key] = float(need)
    return doubts


def _whole_outlines(m: Measurements, shapes: Sequence[str], base: Prototypes) -> np.ndarray:
    """Which measured known tiles (N, their ``shapes``) show a whole symbol's outline, however noisy (a
    mask), to learn outlines, sizes and the light's noise from: those whose outline lies within
    :data:`BROKEN_FIT` of their own shape as the photo's tiles teach it (learned middles and sizes, the
    edition's spreads, as the reader's fit test measures it: :func:`vision.classify.shape_distance`).

    A tile further off fits no shape, not even its own: something else was measured there (the
    colour-blind inner mark joined to the outline, paint run in). Its descriptor tells nothing of where
    this light puts the shape, and it alone can dominate the light's noise, a root-mean-square: one
    green criss-cross of a rendered colour-blind photo in a tenth of the light measured an asymmetry of
    0.68 (fit 17.6), the photo's 35 other tiles at most 0.13 (fit 3.6), and the noise came out 0.126
    instead of 0.058, so the reader took every noisy tile's asymmetry for noise already counted (9 shapes
    named wrong in that game). Every tile where ``base`` has no outlines (Herkle)."""
    every = np.ones(len(shapes), bool)
    if not base.outlines or not len(shapes):
        return every
    outlines, _ = _learned_outlines(outline(m.radial), shapes, base)
    learned = dataclasses.replace(
        base, outlines=outlines, coverages=_learned_coverages(m.coverage, shapes, base)
    )
    names, distance = shape_distance(m, learned)
    fit = distance[np.arange(len(shapes)), [names.index(s) for s in shapes]]
    return np.asarray(fit <= BROKEN_FIT)


def _means(
    values: np.ndarray,
    labels: Sequence[str],
    names: Sequence[str],
    before: dict[str, np.ndarray],
    distance: Callable[[np.ndarray], np.ndarray],
) -> tuple[dict[str, np.ndarray], list[float]]:
    """Each class's mean of the photo's ``values`` (N, ...) by their ``labels`` (N), for the classes
    ``names`` the photo shows (``before``'s for the rest); and every value's ``distance`` from its own
    class's mean (the function takes the differences (K, ...) of one class and gives K distances)."""
    means = dict(before)
    errors: list[float] = []
    for name in names:
        pick = [i for i, label in enumerate(labels) if label == name]
        if pick:
            means[name] = values[pick].mean(axis=0)
            errors.extend(distance(values[pick] - means[name]))
    return means, errors


def named_paint(m: Measurements, tiles: TileSet) -> Measurements:
    """The measurements with the paint the classifier names: for Herkle the ordinary's, told from its
    shield's field (:mod:`vision.shields`), where a shield is found."""
    if tiles.name != "herkle" or len(m) == 0:
        return m
    view = shield_view(m.patch, outline=False)
    return dataclasses.replace(m, paint=np.where(view.found[:, None], view.paint, m.paint))


def named_gains(m: Measurements, tiles: TileSet, body_gains: np.ndarray | None = None) -> np.ndarray:
    """The frame's gains (3,) the classifier names the paint under: for Herkle the shields' grey
    field's (:func:`vision.shields.field_gains`), where one is found; the tile bodies' balance
    otherwise: ``body_gains``, or (None) the frame's own (:func:`vision.prototypes.white_balance`)."""
    gains = white_balance(m.body) if body_gains is None else body_gains
    if tiles.name != "herkle" or len(m) == 0:
        return gains
    return field_gains(shield_view(m.patch, outline=False), gains)


def _learned_outlines(
    desc: np.ndarray, shapes: Sequence[str], base: Prototypes
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Each shape's outline middle and scatter from a photo's known tiles (their descriptors (N, 4) and
    shapes), an estimate under noise with ``base``'s outlines as what was known before.

    How noisy this light and camera make a descriptor is measured on the photo's own tiles: each shape's
    tiles scatter about their mean by the noise alone. A shape shows only a few tiles (six in an
    arrangement, two to six on a printed board's start), so its own variance is pooled with that of all the
    photo's shapes, the pool weighing as much as one shape's tiles on average (an empirical-Bayes
    estimate: the noise of one light differs little between symbols, and a shape with one or two tiles
    still gets the light's). Never below :data:`OUTLINE_FLOOR`.

    The middle is then the precision-weighted mean of ``base``'s middle (its uncertainty: ``base``'s
    spread, the range of printings and cameras) and the median of the photo's ``n`` tiles (theirs: the
    noise over ``sqrt(n)``); a clean photo moves the middle to its tiles, a noisy one or a shape seen
    once moves it less. The scatter is how far the next tile under this light lies from that middle: the
    noise and the middle's own uncertainty, added in quadrature. Features ``base`` leaves open (a
    starburst's eightfold phase) keep ``base``'s middle and spread. Shapes the photo does not show, and
    every shape when no shape shows two tiles (no noise to measure), keep ``base``'s.
    """
    outlines, scatter = dict(base.outlines), dict(base.learned_spreads)
    shown = {k: base.outlines[k] for k in base.outlines if k in set(shapes)}
    spreads = {k: base.outline_spreads[k] for k in shown}
    middles, nexts = _estimates(desc, shapes, shown, spreads, floor=OUTLINE_FLOOR)
    for k in middles:
        closed = spreads[k] < OPEN
        outlines[k] = np.where(closed, middles[k], shown[k])
        scatter[k] = np.where(closed, nexts[k], spreads[k])
    return outlines, scatter


def _learned_coverages(
    coverage: np.ndarray, shapes: Sequence[str], base: Prototypes
) -> dict[str, np.ndarray]:
    """Each shape's paint coverage of its cell (:attr:`vision.features.Measurements.coverage`) as the photo
    shows it: the median of its known tiles (N) there, for the shapes with an outline shown on at least
    :data:`MIN_COVERAGE_TILES` tiles; ``base``'s for the others (none for an edition's defaults).

    How much of its cell a symbol's paint covers depends on the printing, the camera's blur and the
    light (where the paint's edge is cut: the classic circle covers 0.375 of its cell in a tenth of the
    light, 0.425 under a cool one, on the same rendered game), so it is learned, not given: the reader
    uses it only calibrated, beside the outline (:func:`vision.classify.name_shapes`)."""
    coverages = dict(base.coverages)
    for k in base.outlines:
        pick = np.array([s == k for s in shapes], bool)
        if pick.sum() >= MIN_COVERAGE_TILES:
            coverages[k] = np.asarray(float(np.median(coverage[pick])))
    return coverages


def _estimates(
    values: np.ndarray,
    labels: Sequence[str],
    prior: dict[str, np.ndarray],
    spread: dict[str, np.ndarray],
    *,
    floor: np.ndarray,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Each class's middle, and how far the next value of it lies from that middle, from a photo's
    values (N, F) of known classes (``labels``), with ``prior`` (per class (F,), uncertain by ``spread``)
    as what was known before; classes in ``prior`` only. See :func:`_learned_outlines` for the method.
    Empty when no class shows two values (no noise to measure)."""
    names = [k for k in prior if k in set(labels)]
    picks = {k: np.array([s == k for s in labels]) for k in names}
    own = {k: ((values[p] - values[p].mean(axis=0)) ** 2).sum(axis=0) for k, p in picks.items()}
    dof = {k: int(p.sum()) - 1 for k, p in picks.items()}
    shown = [k for k in names if dof[k] > 0]
    if not shown:
        return {}, {}
    total = sum(dof[k] for k in shown)
    pooled = sum(own[k] for k in shown) / total
    weight = total / len(shown)  # the pool counts as one class's values, on average
    middles, nexts = {}, {}
    for k in names:
        n = int(picks[k].sum())
        noise = np.maximum(np.sqrt((own[k] + weight * pooled) / (dof[k] + weight)), floor)
        precision = n / noise**2 + 1 / spread[k] ** 2
        middles[k] = (
            np.median(values[picks[k]], axis=0) * n / noise**2 + prior[k] / spread[k] ** 2
        ) / precision
        nexts[k] = np.sqrt(noise**2 + 1 / precision)
    return middles, nexts


def _learned_arches(
    frames: Sequence[tuple[Measurements, Sequence[Tile]]], tiles: TileSet, base: Prototypes
) -> dict[str, np.ndarray]:
    """Herkle: each ordinary's arch (:func:`vision.ordinaries.arch`) on the photos' whole shields, an estimate
    under noise (:func:`_estimates`, no floor but a guard against none) with ``base``'s (default: the
    painted model's shields), uncertain by :data:`vision.shield_names.ARCH_SPREAD`, as what was known before.

    The painted model's chevron rises 0.68; on a rendered 40-pixel photo in a tenth of the light it
    measures 0.36 to 0.54, a fess 0.05 to 0.17 against the model's 0.07: the reader, deciding under
    the edition's spread, then names a dim chevron nearer the photo's than a fess. Other editions: none.
    """
    if tiles.name != "herkle":
        return dict(base.arches)
    templates = shield_templates(tiles)
    painted = dict(zip(templates, arch(np.array(list(templates.values()))), strict=True))
    prior = {k: np.atleast_1d(base.arches.get(k, painted[k])).astype(np.float64) for k in tiles.shapes}
    values: list[np.ndarray] = []
    labels: list[str] = []
    for m, known in frames:
        if not len(m):
            continue
        view = shield_view(m.patch, outline=True)
        found = np.flatnonzero(view.found)
        values.append(arch(view.silhouette[found]))
        labels.extend(known[i].shape for i in found.tolist())
    if not labels:
        return dict(base.arches)
    spread = {k: np.array([ARCH_SPREAD]) for k in prior}
    middles, _ = _estimates(np.concatenate(values)[:, None], labels, prior, spread, floor=np.array([1e-3]))
    return {**base.arches, **{k: np.asarray(float(v[0])) for k, v in middles.items()}}


def _scatter(values: np.ndarray) -> np.ndarray:
    """How far the next photo's values (K, F) lie from the mean of these ``K``: their standard deviation,
    widened by ``sqrt(1 + 1/K)`` for the mean itself being learned from ``K`` of them."""
    return np.asarray(values.std(axis=0, ddof=1) * np.sqrt(1 + 1 / len(values)))


def _learned_marks(
    hole: np.ndarray, tiles: Sequence[Tile], tileset: TileSet, base: Prototypes
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The inner marks as a calibration photo shows them (the colour-blind edition's second colour cue).

    The default marks were measured on rendered tiles in daylight; in dim light or on small tiles the
    mark, some 8 pixels wide, is blurred into the outer symbol's corners, and an orange tile's round mark
    can measure as red's square one. Each colour whose mark the photo shows on at least
    :data:`MIN_MARK_TILES` tiles takes their mean descriptor (:func:`mark_descriptor`) and, as spread, their
    scatter about it, widened by ``sqrt(1 + 1/n)`` for the mean learned from ``n`` tiles and never narrower
    than the default spread (a photo's few tiles cannot show every printing). An arrangement shows each
    colour on every shape, so that scatter also holds how the mark differs between the symbols it sits
    in. Colours with fewer tiles keep ``base``'s marks.

    Parameters
    ----------
    hole : ndarray, shape (N, RAYS)
        The known tiles' hole profiles (:attr:`vision.features.Measurements.hole`).
    tiles : sequence of Tile
        The known tiles (N).
    tileset : TileSet
    base : Prototypes
        What colours without enough tiles keep.

    Returns
    -------
    marks, mark_spreads : dict of str to (2,) ndarray
    """
    marks, spreads = dict(base.marks), dict(base.mark_spreads)
    if not marks:
        return marks, spreads
    default = default_prototypes(tileset).mark_spreads
    desc, seen = mark_descriptor(hole)
    for name in marks:
        pick = [i for i, t in enumerate(tiles) if t.colour == name and seen[i]]
        if len(pick) < MIN_MARK_TILES:
            continue
        marks[name] = desc[pick].mean(axis=0)
        spreads[name] = np.maximum(default[name], _scatter(desc[pick]))
    return marks, spreads


def _spread(errors: list[float], classes: int, prior: float, prior_dof: int) -> float:
    """A spread learned from calibration tiles' distances to their own class's mean (``errors``, over
    ``classes`` classes), as an estimate under the few tiles a photo holds.

    The photo's tiles scatter about means learned from them, which leaves ``len(errors) - classes``
    degrees of freedom; the next tile lies from such a mean by that scatter widened by ``1 + 1/n`` (in
    variance) for the mean itself, ``n`` the tiles per class. That estimate is pooled with ``prior``
    (the edition's spread, or an earlier calibration's) as a conjugate (scaled inverse chi-squared) prior
    counting ``prior_dof`` degrees of freedom: as much as a photo of every distinct tile would give. A
    photo's few tiles move the spread only as far as they can tell it: a colour's tiles seen once in dim
    light do not make every later colour call of that light uncertain.
    """
    dof = len(errors) - classes
    if dof <= 0:
        return prior
    measured = float(np.sum(np.square(errors))) / dof * (1 + classes / len(errors))
    return float(np.sqrt((prior_dof * prior**2 + dof * measured) / (prior_dof + dof)))
