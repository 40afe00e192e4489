"""The lit field's hull in a Herkle patch: where a shield lies and how much of it shows.

:mod:`vision.shields` reads a patch's shield as the convex hull of its lit field. What is lit in the
window it is read in can hold more than the shield and less: past the body's rim along the window's
sides, a strip of the lit table or of a neighbour's shield (taken off first, :func:`peeled`); a field run
into the lit table or a neighbour's through a blurred rim (the part in the cell's middle, the bridges
cut: :func:`middle_part`); a hull cut short by a black ordinary reaching the shield's edge or by the
window itself (completed by the frame's shield where it fits: :func:`completed`).

Masks are (S, S) uint8 0/1 or bool in a patch's pixels, ``(row, col)``; sizes in cells are fractions of S.
"""

from __future__ import annotations

import cv2
import numpy as np

#: The lit field is read in a window this far (in cells, along either axis) from the patch's middle: a
#: shield spans 0.85 of its cell, so a centred one lies inside it and its neighbours outside.
WINDOW = 0.44
#: A lit part reaching the window's side is no piece of its shield when it is thinner than this (the
#: radius, in cells, of the widest disc it holds): the thinnest piece a black ordinary leaves of its
#: shield, a saltire's side, holds one of 0.086 on the painted model.
THIN = 0.07
#: A shield lies at most this far (in cells) from its cell's middle.
CENTRED = 0.1
#: A hull cut short is completed by the frame's shield when the shield holds all but this fraction of
#: it and it covers at least HELD of the shield (see :func:`completed`): on the painted
#: model a black ordinary's hull covers 0.80 (saltire) to 0.94 (fess) of its shield, blur and a tilted
#: camera take a little more (on a rendered set, with a bound of 0.6: 0.77 and more for 95 in 100 of the
#: black ordinaries completed, while the two tiles it misread sat at 0.65 and 0.66).
OUTSIDE = 0.05
HELD = 0.7
#: The body's rim around a shield is about 7 % of the tile wide (two pixels of a patch); where blur
#: bridges it, the lit field runs into the lit table or the neighbour's: bridges this many pixels wide are
#: cut (see :func:`middle_part`).
BRIDGE = 2


def window_mask(s: int) -> np.ndarray:
    """The window (S, S) uint8 0/1 the lit field is read in: within WINDOW cells of the middle."""
    u = (np.arange(s) + 0.5) / s - 0.5
    return (np.maximum(np.abs(u)[:, None], np.abs(u)[None, :]) < WINDOW).astype(np.uint8)


def peeled(lit: np.ndarray, field: np.ndarray, window: np.ndarray) -> np.ndarray:
    """The lit mask (S, S) uint8 0/1 without what lies past the body's rim along the window's sides (the
    lit table, a neighbour's field or ordinary), which would widen the shield's hull. The lit field
    reaches every side of its shield (no ordinary covers a whole side), so a line along a side of the
    window (S, S) bool lit over half its length without a pixel of the ``field`` (S, S) bool is no part
    of it: such lines are taken off, from the window's side inwards. A lit part apart from the rest that
    reaches the window's side is taken off where it shows no field, or is thinner than any piece a black
    ordinary leaves of a shield (THIN): a strip of what lies past the rim."""
    out = lit.copy()
    inside = np.flatnonzero(window.any(axis=1))
    # views of the mask and the field from the window's top, bottom, left and right side inwards
    sides = ((out, field), (out[::-1], field[::-1]), (out.T, field.T), (out.T[::-1], field.T[::-1]))
    for seen, shown in sides:
        for row in range(inside[0], len(out) // 2):
            if seen[row].sum() < len(inside) / 2 or (seen[row] & shown[row]).any():
                break
            seen[row] = 0
    count, parts = cv2.connectedComponents(out, connectivity=8)
    labels = np.asarray(parts, np.intp)
    side = window & ~cv2.erode(window.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    # each part's widest disc: the parts touch nowhere, so the mask's distance transform is each part's
    deepest = np.zeros(count, np.float32)
    np.maximum.at(deepest, labels.reshape(-1), cv2.distanceTransform(out, cv2.DIST_L2, 3).reshape(-1))
    reaches, grey = np.zeros(count, bool), np.zeros(count, bool)
    reaches[labels[side]] = True
    grey[labels[field]] = True
    apart = reaches & ((deepest < THIN * len(lit)) | ~grey)
    apart[0] = False  # the unlit background
    out[apart[labels]] = 0
    return out


def middle_part(lit: np.ndarray) -> np.ndarray | None:
    """The convex hull (S, S) uint8 of the part of a lit mask (S, S) uint8 0/1 in the cell's middle, the
    bridges of up to BRIDGE pixels to other lit parts (the table, a neighbour's shield, seen through a
    blurred rim) cut; None when the middle is not lit or the part is too small to be a shield."""
    s = len(lit)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (BRIDGE + 1, BRIDGE + 1))
    _, labels = cv2.connectedComponents(cv2.morphologyEx(lit, cv2.MORPH_OPEN, disc), connectivity=4)
    middle = labels[s // 2 - 2 : s // 2 + 2, s // 2 - 2 : s // 2 + 2]
    own = np.isin(labels, middle[middle > 0]).astype(np.uint8)
    points = np.argwhere((cv2.dilate(own, np.ones((BRIDGE + 1, BRIDGE + 1), np.uint8)) & lit) > 0)
    if len(points) < s * s // 20:
        return None
    hull = np.zeros((s, s), np.uint8)
    cv2.fillConvexPoly(hull, cv2.convexHull(points[:, ::-1].astype(np.int32)), 1)
    return hull


def completed(  # noqa: PLR0917 (view_shields' state, passed along as it is)
    hulls: np.ndarray,
    faces: np.ndarray,
    broken: np.ndarray,
    whole: np.ndarray,
    outline: np.ndarray,
    radius: float,
    *,
    spread: float | None = None,
) -> list[tuple[int, np.ndarray]]:
    """The shields (S, S) uint8 of the ``broken`` (N,) hulls (N, S, S) that were cut short: a dark ordinary
    reaching the shield's edge (a black bend, saltire or cross, a black pale's foot) takes the shield's
    corners off the lit field's hull, and the window the lit field is read in cuts the end off a shield that
    reaches past it (a shield spans 0.85 of its cell, a little off its patch's middle it reaches past WINDOW),
    so the hull is smaller and blunter than a shield but lies inside one. Such a hull is completed by the
    frame's shield (``outline`` (Z, Z), whose shield's root-mean-square radius is ``radius`` of its pixels,
    drawn at the size of the ``whole`` shields, three at least), placed where it fits the hull and the patch's
    ``faces`` (N, S, S) bool (:meth:`_Placed.fit`), when that place is within CENTRED of the cell's middle,
    the shield holds all but OUTSIDE of the hull and the hull covers at least HELD of the shield. A square of
    table framed by tiles, a shield run into the lit table or into its neighbour's, is not held by a shield; a
    piece of a neighbour's shield, or a shield whose patch is off its tile, is not in the cell's middle.
    ``spread``: the frame's shields' root-mean-square radius in pixels, where known (:func:`spread_of` of
    the whole shields of a stack looked at before; NaN: none known, no hull is completed)."""
    if spread is None:
        spread = spread_of(hulls[whole]) if whole.sum() >= 3 else np.nan
    if not np.isfinite(spread) or not broken.any():
        return []
    shields = _Placed(outline, hulls.shape[1], spread, radius)
    out = []
    for i in np.flatnonzero(broken):
        best, held = shields.fit(hulls[i], faces[i])
        if held and hulls[i].sum() >= HELD * shields.size[best]:
            out.append((int(i), shields.drawn[best].astype(np.uint8)))
    return out


class _Placed:
    """The shield ``outline`` (Z, Z) (its root-mean-square radius ``radius`` of its pixels) drawn in an S×S
    patch with the root-mean-square radius ``spread`` pixels, at every quarter turn and every whole-pixel
    shift within twice CENTRED cells of the middle (so that a shield further off than CENTRED is found there,
    not at the nearest place within it): ``drawn`` (K, S, S) bool, ``size`` (K,) pixels, ``centred`` (K,)
    whether within CENTRED."""

    def __init__(self, outline: np.ndarray, s: int, spread: float, radius: float) -> None:
        k = spread / radius
        at = (s - 1) / 2 - k * (len(outline) - 1) / 2
        m = np.array([[k, 0, at], [0, k, at]])
        reach = 2 * int(CENTRED * s)
        out, shifts = [], []
        for turns in range(4):
            drawn = cv2.warpAffine(np.rot90(outline, turns).copy(), m, (s, s), flags=cv2.INTER_LINEAR) > 0.5
            padded = np.pad(drawn, reach)
            for dy in range(-reach, reach + 1):
                for dx in range(-reach, reach + 1):
                    out.append(padded[reach - dy : reach - dy + s, reach - dx : reach - dx + s])
                    shifts.append((dy, dx))
        self.drawn = np.array(out)
        self._flat = self.drawn.reshape(len(out), -1)
        self._window = window_mask(s) > 0
        self.size = self._flat.sum(axis=1)
        self.centred = np.abs(np.array(shifts)).max(axis=1) <= int(CENTRED * s)

    def fit(self, hull: np.ndarray, face: np.ndarray) -> tuple[int, bool]:
        """The place (an index) where the shield differs least from a hull (S, S) 0/1: the lit field
        reaches every side of its shield (no ordinary covers a whole side) but where the window cuts it,
        so the shield's pixels count as unlit except beyond the window on a side the hull reaches, and
        except on the ``face`` (S, S) bool, what is lighter than the body (a field in shadow, darker than
        the lit ordinary taken for the field, is still the shield's); and whether the shield there is
        centred and holds all but OUTSIDE of the hull."""
        lit = hull.astype(bool)
        inside = np.flatnonzero(self._window.any(axis=1))
        first, last = inside[0], inside[-1]
        seen = np.ones_like(lit)
        seen[:first] &= ~lit[first].any()
        seen[last + 1 :] &= ~lit[last].any()
        seen[:, :first] &= ~lit[:, first].any()
        seen[:, last + 1 :] &= ~lit[:, last].any()
        flat = lit.reshape(-1)
        outside = (flat[None] & ~self._flat).sum(axis=1)
        unlit = seen & ~lit & ~face
        best = int(np.argmin(outside + (self._flat & unlit.reshape(-1)[None]).sum(axis=1)))
        return best, bool(self.centred[best] and outside[best] <= OUTSIDE * flat.sum())


def spread_of(shields: np.ndarray) -> float:
    """The median root-mean-square radius, in pixels, of shields (N, S, S) 0/1."""
    s = shields.shape[1]
    u = np.arange(s) - (s - 1) / 2
    r2 = u[:, None] ** 2 + u[None, :] ** 2
    return float(np.median([np.sqrt((h * r2).sum() / h.sum()) for h in _recentred(shields)]))


def _recentred(shields: np.ndarray) -> np.ndarray:
    """Shields (N, S, S) moved to put their centroids in the middle (whole pixels)."""
    s = shields.shape[1]
    out = np.zeros_like(shields)
    for i, m in enumerate(shields):
        rows, cols = np.nonzero(m)
        dy, dx = round((s - 1) / 2 - rows.mean()), round((s - 1) / 2 - cols.mean())
        out[i] = np.roll(m, (dy, dx), axis=(0, 1))
    return out
