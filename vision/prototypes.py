"""Prototypes: the reference appearance of each colour and shape of a tile set, as data.

The classifier (:mod:`vision.classify`) compares every tile's measurements with these. They are values,
not code: :func:`default_prototypes` derives colours and silhouettes from the project's model of the
physical tiles (the renderer's face painter, :func:`vision.render_tiles.paint_face`, whose paints were
measured on real tiles in daylight) and takes the symbols' outlines from measured tables
(:data:`CLASSIC_OUTLINES`, :data:`COLOUR_BLIND_OUTLINES`) that span both the real tiles and the painted
model; calibration replaces them with :func:`vision.learning.learn_prototypes` run on a photo of known
tiles under the user's own light (:func:`vision.reader.measure_tiles` gives the measurements).

Colours are compared as CIE L*a*b* of the *normalised paint*: paint minus the body it sits on, in linear
light, divided by the frame's white balance (taken from the tile bodies, which are neutral black) and
scaled so its brightest channel is 1. Exposure and colour cast thus mostly cancel, and Lab keeps the
hard pairs (red and orange, yellow and white) as far apart as the eye sees them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from table import Tile, TileSet
from vision.features import MASK, Measurements, measure
from vision.outline import outline
from vision.patches import PATCH

#: Weight of L* against a* and b* in colour distances (lightness varies most with light and angle).
LIGHTNESS_WEIGHT = 0.5
#: Typical spread of one colour's normalised Lab between tiles, lights and cameras. In the linear-light
#: paint (:func:`colour_features`), the real Connect photos (``connect-game1``) as they are and under warm,
#: dim and cool shifts showed 5.6 to 8.2 (one and a half times their tiles' root-mean-square distance from
#: their colour's mean); on 30 rendered games (every edition; warm, cool and dim) 6 leaves as many tiles
#: uncertain and as few read wrong as 5 did with the paint subtracted in 8-bit values, 7 fewer uncertain
#: but more wrong. Calibration weighs a photo's own scatter against it (:func:`_spread`).
COLOUR_SPREAD = 6.0
#: Typical distance of a silhouette from its shape's prototype (root-mean-square over the mask, 0..1).
SHAPE_SPREAD = 0.05
#: The least spread of each outline feature (:func:`vision.outline.outline`): what blur, noise and a
#: 32-pixel patch leave of any symbol's descriptor.
OUTLINE_FLOOR = np.array([0.012, 0.008, 0.008, 0.006])
#: An outline feature whose spread is this wide says nothing about the shape (a starburst's eightfold
#: phase: its fourfold harmonic is too weak to fix the frame it is read in); calibration leaves it open.
OPEN = 0.1
#: The classic symbols' outlines (classic, Connect and Cubes share them): per shape the middle and the
#: spread of each outline feature, measured on the real Connect photos (``connect-game1``, 85 px per
#: tile, daylight) and on rendered classic sets (40..130 px per tile, every light, blur up to 1.4 px).
#: The range between the two is part of the spread: other printings and cameras fall inside it.
CLASSIC_OUTLINES: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "circle": ((0.004, 0.0, 0.002, 0.002), (0.006, 0.003, 0.003, 0.002)),
    "criss-cross": ((-0.336, 0.112, 0.112, 0.048), (0.056, 0.025, 0.025, 0.017)),
    "diamond": ((0.131, 0.036, 0.036, 0.013), (0.007, 0.007, 0.007, 0.005)),
    "square": ((-0.127, 0.033, 0.033, 0.012), (0.007, 0.005, 0.005, 0.004)),
    "starburst": ((0.002, -0.001, 0.193, 0.004), (0.013, 0.233, 0.037, 0.004)),
    "clover": ((0.229, -0.045, 0.045, 0.005), (0.044, 0.018, 0.018, 0.004)),
}
#: The colour-blind edition's larger outer symbols (the inner mark leaves a hole in them), measured on
#: rendered colour-blind sets (40..130 px per tile, every light): no photo of the real edition was at hand.
COLOUR_BLIND_OUTLINES: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "circle": ((0.007, 0.0, 0.005, 0.004), (0.007, 0.004, 0.003, 0.002)),
    "criss-cross": ((-0.226, 0.076, 0.076, 0.029), (0.01, 0.012, 0.012, 0.01)),
    "diamond": ((0.129, 0.035, 0.035, 0.012), (0.008, 0.007, 0.007, 0.005)),
    "square": ((-0.124, 0.032, 0.033, 0.011), (0.007, 0.006, 0.006, 0.004)),
    "starburst": ((0.003, 0.017, 0.1, 0.005), (0.012, 0.2, 0.017, 0.003)),
    "clover": ((0.187, -0.028, 0.028, 0.007), (0.015, 0.009, 0.008, 0.005)),
}
#: The colour-blind edition's inner marks, the second cue to each colour (square red, diamond blue,
#: clover green, circle orange, starburst yellow, criss-cross purple): per colour the middle and spread
#: of the mark's descriptor (:func:`mark_descriptor`: its signed fourfold harmonic, the size of its
#: eightfold one), measured on rendered colour-blind sets (40..130 px per tile, every light, the spread
#: half as wide again as measured): no photo of the real edition was at hand. The mark is only some
#: 8 pixels wide in a patch, so it tells corners on the axes from corners on the diagonals from none, and
#: a starburst's points weakly: what it adds is the red/orange, blue/purple and orange/yellow pairs.
COLOUR_BLIND_MARKS: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "red": ((-0.069, 0.008), (0.045, 0.009)),
    "blue": ((0.065, 0.007), (0.05, 0.009)),
    "green": ((0.095, 0.007), (0.068, 0.009)),
    "orange": ((0.004, 0.004), (0.03, 0.006)),
    "yellow": ((-0.005, 0.029), (0.03, 0.035)),
    "purple": ((-0.127, 0.02), (0.1, 0.02)),
}
#: A hole narrower than this fraction of the symbol's mean radius is no inner mark seen (a solid symbol,
#: or a mark blurred shut): the mark then says nothing about the colour.
MIN_MARK = 0.15
#: The fewest known tiles of a colour showing its inner mark from which calibration learns the mark.
MIN_MARK_TILES = 3
#: Which editions have inner marks.
MARKS = {"colour-blind": COLOUR_BLIND_MARKS}
#: The editions whose holes in the layout are told by the table's colour showing through them
#: (:func:`vision.cube_faces.without_holes`): a hole ringed by four tiles passes every presence test and
#: shows a blunt square, which the shape fit alone kept out, at its limit. On Qwirkle Connect's printed
#: board a hole shows a white square, the colour of its white tiles' paint: there the fit stays the guard
#: (:func:`vision.classify.shape_distance`).
HOLES_BY_COLOUR = ("classic", "colour-blind", "cubes")
#: Which editions' symbols have which outlines (Herkle's ordinaries are named by silhouette).
OUTLINES = {
    "classic": CLASSIC_OUTLINES,
    "connect": CLASSIC_OUTLINES,
    "cubes": CLASSIC_OUTLINES,
    "colour-blind": COLOUR_BLIND_OUTLINES,
}


@dataclass(frozen=True)
class Prototypes:
    """Reference values of one tile set.

    Attributes
    ----------
    tileset : str
        The variant name.
    colours : dict of str to (3,) ndarray
        Normalised-paint Lab of each colour.
    shapes : dict of str to (MASK, MASK) ndarray
        Mean silhouette of each shape, 0..1, centred, in the grid's axes.
    colour_spread, shape_spread : float
        Distances at which a match is one standard deviation off.
    outlines : dict of str to (4,) ndarray
        Middle outline descriptor of each shape (:func:`vision.outline.outline`). When given (every
        edition but Herkle), shapes are named by outline; the silhouettes are then not used.
    outline_spreads : dict of str to (4,) ndarray
        Per shape, the spread of each outline feature.
    marks, mark_spreads : dict of str to (2,) ndarray
        The colour-blind edition's inner mark of each colour (:func:`mark_descriptor`) and its spread;
        empty for the other editions.
    learned_spreads : dict of str to (4,) ndarray
        Per shape, how far the next tile of that shape seen under a calibration photo's light and camera
        will lie from the learned middle: that light's noise, measured on the photo's own tiles, and the
        middle's own uncertainty (:func:`vision.learning.learn_prototypes`); empty when not calibrated.
        Where given, the classifier names shapes under it (:func:`vision.classify.classify`).
    asymmetry_noise : float
        What a calibration photo's light and camera make of a whole symbol's departure from its fourfold
        symmetry (:func:`vision.outline.asymmetry`, root-mean-square over the photo's known tiles): its
        noise alone, which every tile under that light shows; 0 when not calibrated. A calibrated
        classifier counts only a tile's asymmetry beyond it as the tile's own noise.
    arches : dict of str to () ndarray
        Herkle: each ordinary's arch on its shield (:func:`vision.ordinaries.arch`) as a calibration photo
        shows it, learned as an estimate under that light's noise
        (:func:`vision.learning._learned_arches`); empty when not calibrated (the painted model's shields
        then give them).
    coverages : dict of str to () ndarray
        Per shape, the fraction of its cell its paint covers (:attr:`vision.features.Measurements.coverage`)
        as a calibration photo shows it (the median of the photo's tiles of that shape): the symbol's size
        under this camera and light, a cue that does not depend on the outline's noise; empty when not
        calibrated. Used when it names every shape with an outline (:func:`vision.classify.name_shapes`).
    body_gains : (3,) ndarray or None
        The white balance of a calibration photo's tile bodies (:func:`white_balance`), under which its
        colours were learned; None when not calibrated. Where given, the classifier names colours under
        it instead of each frame's own bodies' balance (:func:`vision.classify.classify`): the colours
        were learned under it, and a frame's own bodies, fewer and laid out otherwise than the photo's,
        move the balance from frame to frame (:func:`vision.learning.learn_prototypes`).
    doubts : dict of (str, str, str) to float
        Calibrated: per (colour, shape named, shape it may be), the log-odds the named shape must have over
        the other before a tile of that colour is named it with confidence, because the calibration photo's
        own tile of that colour and other shape, named by what its other tiles teach, came that near
        (:func:`vision.learning.pair_doubts`); empty when not calibrated or the photo showed no such pair.
        Where given, the classifier leaves such tiles' shapes in doubt (:func:`vision.classify.classify`).
    """

    tileset: str
    colours: dict[str, np.ndarray]
    shapes: dict[str, np.ndarray]
    colour_spread: float = COLOUR_SPREAD
    shape_spread: float = SHAPE_SPREAD
    outlines: dict[str, np.ndarray] = field(default_factory=dict)
    outline_spreads: dict[str, np.ndarray] = field(default_factory=dict)
    marks: dict[str, np.ndarray] = field(default_factory=dict)
    mark_spreads: dict[str, np.ndarray] = field(default_factory=dict)
    learned_spreads: dict[str, np.ndarray] = field(default_factory=dict)
    asymmetry_noise: float = 0.0
    arches: dict[str, np.ndarray] = field(default_factory=dict)
    coverages: dict[str, np.ndarray] = field(default_factory=dict)
    body_gains: np.ndarray | None = None
    doubts: dict[tuple[str, str, str], float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        gains = {} if self.body_gains is None else {"body_gains": np.round(self.body_gains, 4).tolist()}
        return {
            "tileset": self.tileset,
            "colours": {k: np.round(v, 3).tolist() for k, v in self.colours.items()},
            "shapes": {k: np.round(v, 4).tolist() for k, v in self.shapes.items()},
            "colour_spread": self.colour_spread,
            "shape_spread": self.shape_spread,
            "outlines": {k: np.round(v, 4).tolist() for k, v in self.outlines.items()},
            "outline_spreads": {k: np.round(v, 4).tolist() for k, v in self.outline_spreads.items()},
            "marks": {k: np.round(v, 4).tolist() for k, v in self.marks.items()},
            "mark_spreads": {k: np.round(v, 4).tolist() for k, v in self.mark_spreads.items()},
            "learned_spreads": {k: np.round(v, 4).tolist() for k, v in self.learned_spreads.items()},
            "asymmetry_noise": round(self.asymmetry_noise, 4),
            "arches": {k: round(float(v), 4) for k, v in self.arches.items()},
            "coverages": {k: round(float(v), 4) for k, v in self.coverages.items()},
            **gains,
            **_doubts_json(self.doubts),
        }

    @classmethod
    def from_json(cls, data: Any, *, where: str) -> Prototypes:
        """Read :meth:`to_json`'s form; errors name ``where`` and the entry at fault."""
        if not isinstance(data, dict):
            raise ValueError(f"{where}: expected a prototypes object, got {type(data).__name__}")
        try:
            colours = {str(k): np.asarray(v, np.float64).reshape(3) for k, v in data["colours"].items()}
            shapes = {
                str(k): np.asarray(v, np.float32).reshape(MASK, MASK) for k, v in data["shapes"].items()
            }
            outlines = {
                str(k): np.asarray(v, np.float64).reshape(4) for k, v in data.get("outlines", {}).items()
            }
            spreads = {
                str(k): np.asarray(v, np.float64).reshape(4)
                for k, v in data.get("outline_spreads", {}).items()
            }
            if set(spreads) != set(outlines) or any((v <= 0).any() for v in spreads.values()):
                raise ValueError("outlines and outline_spreads must name the same shapes, spreads > 0")
            marks = {str(k): np.asarray(v, np.float64).reshape(2) for k, v in data.get("marks", {}).items()}
            mark_spreads = {
                str(k): np.asarray(v, np.float64).reshape(2) for k, v in data.get("mark_spreads", {}).items()
            }
            if set(marks) != set(mark_spreads) or any((v <= 0).any() for v in mark_spreads.values()):
                raise ValueError("marks and mark_spreads must name the same colours, spreads > 0")
            # ("outline_scatter", written before 22 Nov 2026 from a photo's few tiles about middles that
            # were not moved with them, is not this and is left out: refine learns these)
            learned = {
                str(k): np.asarray(v, np.float64).reshape(4)
                for k, v in data.get("learned_spreads", {}).items()
            }
            if not set(learned) <= set(outlines) or any(not (v > 0).all() for v in learned.values()):
                raise ValueError("learned_spreads must name shapes with outlines, spreads > 0")
            noise = float(data.get("asymmetry_noise", 0.0))
            if not 0 <= noise < np.inf:
                raise ValueError(f"asymmetry_noise must be finite and >= 0, got {noise}")
            arches = {str(k): np.asarray(float(v)) for k, v in data.get("arches", {}).items()}
            if not set(arches) <= set(shapes) or not all(np.isfinite(v) for v in arches.values()):
                raise ValueError(f"arches must be finite and name shapes, got {sorted(arches)}")
            coverages = {str(k): np.asarray(float(v)) for k, v in data.get("coverages", {}).items()}
            if not set(coverages) <= set(shapes) or not all(0 < v < 1 for v in coverages.values()):
                got = {k: float(v) for k, v in coverages.items()}
                raise ValueError(f"coverages must name shapes and lie between 0 and 1, got {got}")
            gains = data.get("body_gains")
            body_gains = None if gains is None else np.asarray(gains, np.float64).reshape(3)
            if body_gains is not None and not (np.isfinite(body_gains).all() and (body_gains > 0).all()):
                raise ValueError(f"body_gains must be three finite gains > 0, got {gains}")
            doubts = _doubts_from_json(data.get("doubts", []), colours, outlines)
            return cls(
                str(data["tileset"]),
                colours,
                shapes,
                float(data.get("colour_spread", COLOUR_SPREAD)),
                float(data.get("shape_spread", SHAPE_SPREAD)),
                outlines,
                spreads,
                marks,
                mark_spreads,
                learned,
                noise,
                arches,
                coverages,
                body_gains,
                doubts,
            )
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ValueError(f"{where}: malformed prototypes ({err})") from None


def _doubts_json(doubts: dict[tuple[str, str, str], float]) -> dict[str, Any]:
    """``{"doubts": [[colour, named, other, log-odds], ...]}`` (nothing when there are none)."""
    if not doubts:
        return {}
    return {"doubts": [[*k, round(float(v), 3)] for k, v in sorted(doubts.items())]}


def _doubts_from_json(
    data: Any, colours: dict[str, np.ndarray], outlines: dict[str, np.ndarray]
) -> dict[tuple[str, str, str], float]:
    """:attr:`Prototypes.doubts` from :func:`_doubts_json`'s list; each entry must name a colour, two
    shapes with outlines and a finite log-odds."""
    doubts: dict[tuple[str, str, str], float] = {}
    for entry in data:
        colour, named, other, log_odds = entry
        key = (str(colour), str(named), str(other))
        if key[0] not in colours or not {key[1], key[2]} <= set(outlines) or not np.isfinite(float(log_odds)):
            raise ValueError(f"doubts must name a colour, two shapes with outlines and a number, got {entry}")
        doubts[key] = float(log_odds)
    return doubts


def white_balance(bodies: np.ndarray) -> np.ndarray:
    """Per-channel gains (3,) of the frame's light, from the BGR of the tile bodies (N, 3) (neutral black)."""
    if len(bodies) == 0:
        return np.ones(3)
    b = np.median(bodies, axis=0)
    b = np.maximum(b, 1.0)
    return np.asarray(b / b.mean())


def colour_features(m: Measurements, gains: np.ndarray, *, reflection: bool = False) -> np.ndarray:
    """Normalised-paint Lab (N, 3) of measured tiles under a frame's ``gains`` (:func:`white_balance`).

    A tile's body is measured on a thin ring around its paint, which a lighter bevel, glare or the table
    past a leaning tile's edge can lighten; all tiles of a frame share the same black, so no body is
    taken lighter than the frame's median one (a lightened body would eat the paint's weaker channels and
    turn orange into red). With ``reflection``, what the body has over that black in all its channels
    alike (the least of the three, in linear light) is taken for a lamp's reflection on the glossy top,
    which lies on the paint as on the body (the same light added to every channel), and is taken off the
    paint too: near the lamp's spot a red was pale enough to lie more than five spreads from every colour.
    A light table past the tile's edge lightens the ring alike, so this is one of two readings of a tile's
    colour (:func:`vision.classify.classify` keeps the one that fits a colour better).

    The paint and the body are balanced, then subtracted in linear light: light adds up there, so the
    ratio of the paint's channels (what tells red from orange) stays as it is when the light is dimmer,
    where 8-bit values near black would shrink a weak channel to nothing."""
    body = np.minimum(m.body, np.median(m.body, axis=0)) if len(m) else m.body
    black = srgb_to_linear(body / gains / 255.0)
    if reflection:
        black += (srgb_to_linear(m.body / gains / 255.0) - black).min(axis=1, keepdims=True)
    c = np.maximum(srgb_to_linear(m.paint / gains / 255.0) - black, 1e-4)
    c = c / c.max(axis=1, keepdims=True)
    lab = cv2.cvtColor(c[None].astype(np.float32), cv2.COLOR_LBGR2LAB)[0]
    return np.asarray(lab, dtype=np.float64)


def srgb_to_linear(v: np.ndarray) -> np.ndarray:
    """Linear light of sRGB-encoded values (0..1, and beyond 1 along the same curve; IEC 61966-2-1)."""
    v = np.maximum(np.asarray(v, np.float64), 0.0)
    return np.asarray(np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4))


def default_prototypes(tiles: TileSet) -> Prototypes:
    """The tile set's default prototypes (:func:`painted_prototypes`)."""
    return painted_prototypes(tiles)


@functools.cache
def painted_prototypes(tiles: TileSet) -> Prototypes:
    """The tile set's prototypes from the painted model of its tiles, square-on in daylight."""
    stack, every = painted_patches(tiles)
    m = measure(stack)
    feats = colour_features(m, np.ones(3))
    colours = {c: feats[[t.colour == c for t in every]].mean(axis=0) for c in tiles.colours}
    shapes = {s: m.silhouette[[t.shape == s for t in every]].mean(axis=0) for s in tiles.shapes}
    outlines: dict[str, np.ndarray] = {}
    spreads: dict[str, np.ndarray] = {}
    if tiles.name in OUTLINES:
        for name, (middle, spread) in OUTLINES[tiles.name].items():
            outlines[name] = np.asarray(middle)
            spreads[name] = np.hypot(np.asarray(spread), OUTLINE_FLOOR)
    marks = {c: np.asarray(middle) for c, (middle, _) in MARKS.get(tiles.name, {}).items()}
    mark_spreads = {c: np.asarray(spread) for c, (_, spread) in MARKS.get(tiles.name, {}).items()}
    return Prototypes(
        tiles.name,
        colours,
        shapes,
        outlines=outlines,
        outline_spreads=spreads,
        marks=marks,
        mark_spreads=mark_spreads,
    )


def painted_patches(tiles: TileSet) -> tuple[np.ndarray, list[Tile]]:
    """One cell patch per tile of the set (:func:`paint_patches`, flawless), and the tiles in order."""
    every = list(tiles.tiles())
    return paint_patches(every, variant=tiles.name, rng=np.random.default_rng(0)), every


def paint_patches(
    tiles: Sequence[Tile], *, variant: str, rng: np.random.Generator, imperfection: float = 0.0
) -> np.ndarray:
    """Cell patches (PATCH×PATCH BGR uint8, stacked (N, PATCH, PATCH, 3)), one per tile, each painted by
    the renderer's face painter square-on in daylight on the body colour; ``imperfection`` (0..1) as
    :func:`vision.render_tiles.paint_face` takes it."""
    from vision.render_tiles import BODY, paint_face

    face = round(PATCH * 29 / 30.5)
    at = (PATCH - face) // 2
    stack = np.empty((len(tiles), PATCH, PATCH, 3), np.uint8)
    for i, tile in enumerate(tiles):
        patch = np.empty((PATCH, PATCH, 3), np.float32)
        patch[:] = BODY
        painted = paint_face(tile, variant=variant, size=face, rng=rng, imperfection=imperfection)
        alpha = painted[..., 3:].astype(np.float32) / 255
        window = patch[at : at + face, at : at + face]
        window[:] = painted[..., :3] * alpha + window * (1 - alpha)
        stack[i] = np.clip(patch, 0, 255).astype(np.uint8)
    return stack


def mark_descriptor(hole: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The inner mark's descriptor (N, 2) from the hole profiles (N, RAYS) (:attr:`Measurements.hole`), and
    whether a mark is seen at all (N,) bool.

    The columns are the mark's own outline's signed fourfold harmonic and the size of its eightfold one
    (:func:`vision.outline.outline` of the hole's profile over its mean).
    """
    if len(hole) == 0:
        return np.zeros((0, 2)), np.zeros(0, bool)
    h = np.asarray(hole, np.float64)
    size = h.mean(axis=1)
    desc = outline(h / np.maximum(size, 1e-6)[:, None])
    return np.asarray(desc[:, [0, 2]]), np.asarray(size >= MIN_MARK)
