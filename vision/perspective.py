"""A steep camera's perspective, found from how the spacing of the symbols changes across the image, and
taken out of their positions before the grid is fitted (:func:`vision.lattice.fit_lattice`).

Under a camera tilted 35° the tiles on the near side of a layout can be twice the size of those on the
far side: no one pitch fits them all, and a spanning tree grown with the pitch of the middle takes the
far steps for half-steps. The projective part of the table's homography is estimated here from the
points alone, so that the grid can be fitted where the tiles are all of one size again. The same camera
foreshortens the table along its lean, which a grid fitted as a similarity (a few tiles, or two or three
rows) cannot show: :func:`foreshortening` fits the map through such a layout's tiles that can
(:mod:`vision.occupied` cuts the patches again in it), and where the tiles cannot measure it, their
symbols can (:func:`leftover_stretch`). Points are ``(row, col)`` pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.geometry import (
    FORESHORTEN_SPREAD,
    fit_homography,
    holds,
    spread,
)

#: A perspective this strong (the spacing changing by this factor across the points) is taken out before
#: the grid is fitted: the tree's local bases follow a change of a fifth, not more.
STRENGTH = 1.3
#: Fewer spacings than this cannot tell a trend across the image from gaps and diagonal neighbours.
MIN_POINTS = 12


@dataclass(frozen=True)
class Perspective:
    """The projective part of the table's homography about the points' middle: a table point ``u``
    (relative to ``middle``) is seen at ``u / (1 + g·u)``.

    Attributes
    ----------
    middle : ndarray, shape (2,)
        The points' mean, ``(row, col)`` pixels; it stays where it is.
    g : ndarray, shape (2,)
        Per pixel, along rows and columns.
    """

    middle: np.ndarray
    g: np.ndarray

    def flatten(self, points: np.ndarray) -> np.ndarray:
        """The points as the table would show them without the perspective, shape (N, 2)."""
        x = np.asarray(points, np.float64) - self.middle
        return np.asarray(x / (1 - x @ self.g)[:, None] + self.middle)

    def to_image(self) -> np.ndarray:
        """The homography from flattened points to the image, 3×3 (homogeneous ``(row, col, 1)``)."""
        there, back, projective = np.eye(3), np.eye(3), np.eye(3)
        there[:2, 2], back[:2, 2] = self.middle, -self.middle
        projective[2, :2] = self.g
        return there @ projective @ back


def estimate_perspective(
    points: np.ndarray, nearest: np.ndarray, *, strength: float = STRENGTH, min_points: int = MIN_POINTS
) -> Perspective | None:
    """The perspective of the plane the points lie on, from how their spacing changes across the image.

    Under the projective map of :class:`Perspective` the linear scale at image point ``x`` goes as
    ``(1 - g·(x - middle))^(3/2)``, so each point's nearest-neighbour distance to the power 2/3 is linear in
    its position. The line is fitted robustly (a nearest neighbour can be a diagonal one, or one across a
    gap), three times trimming points beyond 2.5 robust deviations.

    Parameters
    ----------
    points : ndarray, shape (N, 2), float
        Symbol centres, ``(row, col)`` pixels.
    nearest : ndarray, shape (N,), float
        Each point's distance to its nearest neighbour in pixels; ``inf`` for points to leave out.
    strength : float
        Only a perspective under which the spacing changes by more than this factor across the points is
        returned.
    min_points : int
        Fewer usable points than this (or half as many left after trimming) estimate nothing.

    Returns
    -------
    Perspective or None
        None when the perspective is weaker than ``strength`` or cannot be estimated.
    """
    pts = np.asarray(points, np.float64)
    near = np.asarray(nearest, np.float64)
    if pts.ndim != 2 or pts.shape[1] != 2 or near.shape != (len(pts),):
        raise ValueError(f"points must be (N, 2) and nearest (N,), got {pts.shape} and {near.shape}")
    ok = np.isfinite(near)
    if ok.sum() < min_points:
        return None
    middle = pts[ok].mean(axis=0)
    x = pts[ok] - middle
    y = near[ok] ** (2 / 3)
    a = np.column_stack([np.ones(len(x)), x])
    keep = np.ones(len(x), bool)
    for _ in range(3):
        coef, *_ = np.linalg.lstsq(a[keep], y[keep], rcond=None)
        res = y - a @ coef
        mad = float(np.median(np.abs(res[keep]))) * 1.4826 + 1e-9
        keep = np.abs(res) < 2.5 * mad
        if keep.sum() < min_points // 2:
            return None
    if coef[0] <= 0:
        return None
    g = -coef[1:] / coef[0]
    fitted = 1 - x @ g
    if fitted.min() <= 0 or (fitted.max() / fitted.min()) ** 1.5 < strength:
        return None
    return Perspective(middle, g)


def foreshortening(
    grid: np.ndarray,
    cells: np.ndarray,
    centres: np.ndarray,
    *,
    within: float,
    least_spread: float = FORESHORTEN_SPREAD,
) -> np.ndarray | None:
    """The map (3, 3) from cells to the image through a layout's tiles, for a grid fitted as a similarity
    (its candidates too few, or on two or three rows): a similarity has one scale for both axes, while a
    tilted camera foreshortens the table along its lean, so patches cut in its axes come out stretched by
    up to 1/cos of the tilt. Through four tiles or more spread a cell or more this is a homography
    (:func:`vision.geometry.fit_homography`; the probes may have found them beyond the candidates), through
    fewer or narrower ones an affine map, which still measures the foreshortening where the tiles do
    not lie on one line (:func:`vision.geometry.foreshortened` fits a homography to eight or more).

    Parameters
    ----------
    grid : ndarray, shape (3, 3)
        The grid's homography (cell to image), whose handedness the map keeps.
    cells : ndarray, shape (N, 2), float
        The tiles' cells.
    centres : ndarray, shape (N, 2), float
        Their symbols' centres, ``(row, col)`` pixels.
    within : float
        Every tile lies within this many cells of where the map puts it.
    least_spread : float
        The cells spread at least this much across their main line (:func:`vision.geometry.spread`):
        along one row of tiles the scale across it is not measured.

    Returns
    -------
    ndarray, shape (3, 3), or None
        None with fewer than three tiles, tiles on one line, a tile further than ``within``, or a map
        that turns a cell inside out.
    """
    src = np.asarray(cells, np.float64)
    dst = np.asarray(centres, np.float64)
    if src.shape != dst.shape or src.ndim != 2 or src.shape[1:] != (2,):
        raise ValueError(f"cells and centres must both be (N, 2), got {src.shape} and {dst.shape}")
    wide = spread(src)
    if len(src) < 3 or wide < least_spread:
        return None
    if len(src) >= 4 and wide >= 1.0:
        fitted = fit_homography(src, dst, spanning=True)
    else:
        coef, *_ = np.linalg.lstsq(np.column_stack([src, np.ones(len(src))]), dst, rcond=None)
        fitted = np.vstack([coef.T, [0.0, 0.0, 1.0]])
    return np.asarray(fitted) if holds(fitted, grid, src, dst, within=within) else None


#: The most a layout's patches are taken to be left stretched by its grid: 1/cos of a 40° tilt (at 35° a
#: similarity leaves up to 1.22). A frame whose symbols look stretched more than this shows something
#: else (a cube's side face is squashed by far more), and its patches are left as they are.
MOST_STRETCH = 1.0 / np.cos(np.radians(40.0))
#: Symbols this nearly as wide one way as the other (the ratio of the pooled axes) are left as cut.
LEAST_STRETCH = 1.03
#: Fewer symbols than this do not pool into a stretch.
MIN_SYMBOLS = 3
#: At least this fraction of the symbols must each show half the pooled stretch or more along it.
AGREEING = 0.75


def leftover_stretch(
    radial: np.ndarray,
    *,
    least: float = LEAST_STRETCH,
    most: float = MOST_STRETCH,
    min_symbols: int = MIN_SYMBOLS,
    agreeing: float = AGREEING,
) -> np.ndarray | None:
    """The linear map (2, 2) that takes the patches' symbols back to their faces, from their second
    moments pooled over the frame: every symbol of the star-shaped editions looks the same after a
    quarter turn, so its second moment is the same along every direction, and a patch cut stretched
    (a grid with one scale for both axes under a tilted camera, or a map through a few tiles) stretches
    them all alike. A symbol's moment is found from its outline, ``∫ r⁴/4 · u uᵀ da`` over the rays ``u``
    of its radial profile, scaled to a determinant of one; the frame's stretch is the median of their
    entries.

    Parameters
    ----------
    radial : ndarray, shape (N, RAYS), float
        The symbols' radial profiles (:attr:`vision.features.Measurements.radial`: ray ``k`` leaves at
        ``2πk/RAYS`` from the column axis, turning towards the row axis).
    least, most : float
        The ratio of the pooled stretch's axes below which nothing is returned (the patches are square
        enough), and above which nothing is either (not a camera's foreshortening).
    min_symbols : int
        Fewer symbols than this return nothing.
    agreeing : float
        Nothing is returned unless at least this fraction of the symbols each show half the pooled
        stretch or more along it (symbols misread, or cut off their tiles, each lean their own way).

    Returns
    -------
    ndarray, shape (2, 2), or None
        Symmetric, determinant one, in ``(row, col)`` patch axes: a patch point ``p`` of the face is seen
        at ``M p`` in the patch (so a cell's axes ``A`` (2, 2), rows its steps down and right, become
        ``M @ A``).
    """
    r = np.asarray(radial, np.float64)
    if r.ndim != 2:
        raise ValueError(f"radial must be (N, RAYS), got shape {r.shape}")
    if len(r) < min_symbols:
        return None
    a = np.arange(r.shape[1]) * (2 * np.pi / r.shape[1])
    down, across = np.sin(a), np.cos(a)
    w = r**4
    rr, rc, cc = w @ (down * down), w @ (down * across), w @ (across * across)  # (N,) each
    det = np.sqrt(np.maximum(rr * cc - rc * rc, 1e-12))
    moment = np.median(np.stack([rr / det, rc / det, cc / det]), axis=1)
    c = np.array([[moment[0], moment[1]], [moment[1], moment[2]]])
    values, vectors = np.linalg.eigh(c / np.sqrt(max(float(np.linalg.det(c)), 1e-12)))
    if values[0] <= 0:
        return None
    ratio = float(np.sqrt(values[1] / values[0]))
    if not least <= ratio <= most:
        return None
    # each symbol's stretch as a vector at twice its angle, (cc - rr, 2 rc) over the trace: a camera
    # stretches them all alike, while symbols misread or cut off their tiles each lean their own way
    lean = np.stack([cc - rr, 2 * rc]) / (rr + cc)
    pooled = np.array([c[1, 1] - c[0, 0], 2 * c[0, 1]]) / (c[0, 0] + c[1, 1])
    if np.mean(pooled @ lean >= pooled @ pooled / 2) < agreeing:
        return None
    return np.asarray((vectors * np.sqrt(values)) @ vectors.T)
