"""Herkle's probes: which cells a probe takes although their paint does not stand out as a symbol's does
(:func:`vision.probe_look.look`), because they hold a whole shield of the frame's form
(:func:`whole_shields`): with a black ordinary on it, or a lit one ringed by the tile body, its faint paint
taken only where the shield is lit as the detector's shields around it are (:func:`in_its_light`).
:mod:`vision.occupied` probes with them; :mod:`vision.shields` sees the shields.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import cached_property

import numpy as np

from table import tileset as edition
from vision.features import MAX_REACH, presence
from vision.geometry import cells_off, distances, lengths
from vision.paint_checks import FAINT, MIN_CONTRAST, unlike
from vision.patches import cut_patches
from vision.shield_names import CHROMATIC_CHROMA
from vision.shields import RING_DARK, ShieldView, black, field_colour, shield_outline, view_shields

#: Herkle: a probe's shield whose paint is faint (FAINT to MIN_CONTRAST) is lit within a factor of
#: e^LIGHT_STEP of the detector's shields within NEIGHBOURS cells of it (see :func:`in_its_light`; on the
#: rendered set, seed 31, nine in ten of the 215 such tiles lie within 0.14, while the 8 holes in the
#: layout that pass for such shields, a pale part of the table taken for their field, lie 0.22-0.46 above).
LIGHT_STEP = 0.15
NEIGHBOURS = 1.5
#: A Herkle tile whose shield is not whole is looked at again (:func:`recentred_shields`) centred on the
#: shield seen, in a patch this many cells wide (a shield seen larger than its cell then lies inside the
#: window its lit field is read in; the shield's outline and silhouette are read at the shield's own size,
#: whatever the patch's), up to RELOOKS times, and kept within MOVE cells of where it was first looked
#: at (as a probe's symbol, :data:`vision.probe_look.RECENTRE`). On the rendered set (seed 31), a patch one
#: cell wide found 43 of 96 shields whole again, 1.1 cells 66 of them.
SPAN = 1.1
RELOOKS = 2
MOVE = 0.4
#: A probe whose patch shows a shield off its middle but not whole looks again centred on it up to this
#: many times (:func:`vision.occupied._with_shields`): the window a shield's lit field is read in cuts a
#: shield a fifth of a cell off its patch, so the hull's centroid shows only part of the offset (rendered
#: Herkle set, seed 31: 2 looks +30 right on 46 frames, 3 looks +8 more, 4 none more).
PROBE_LOOKS = 3
#: A probe still refused whose patch shows a black ordinary looks around its last place, SEARCH cells away
#: along each axis and both diagonals (:func:`searched`): a black ordinary splits the field into pieces,
#: and where the window its field is read in cuts them, their hull shows too little of the shield's
#: offset to recentre on.
SEARCH = 0.12
_AROUND = SEARCH * np.array([(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)], float)

#: The per-patch rows of a :class:`vision.shields.ShieldView` (all but the frame's field and sizes).
_ROWS = tuple(f.name for f in fields(ShieldView) if f.name not in {"field", "sizes"})


@dataclass(frozen=True)
class Shields:
    """Herkle: what a probe compares a cell's shield with, from the tiles the detector found: their
    field colour (3,) BGR (:func:`vision.shields.field_colour`), their patches (N, S, S, 3), which
    give the frame's shield size, and their centres (N, 2) in the working copy, where the light on each
    is known."""

    field: np.ndarray
    patches: np.ndarray
    centres: np.ndarray

    @cached_property
    def view(self) -> ShieldView:
        """The detector's shields seen once (:func:`vision.shields.view_shields`): their sizes and the
        light on each, what every probe's shield is compared with."""
        return view_shields(self.patches, self.field, outline=shield_outline(edition("herkle")))


def whole_shields(
    patches: np.ndarray, shields: Shields, table: np.ndarray | None, centres: np.ndarray, axes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which Herkle patches (N, S, S, 3), cut at ``centres`` (N, 2) in ``axes`` (N, 2, 2), a probe takes
    although :func:`vision.probe_look.look` refused them, where the shield seen in each lies (N, 2)
    (:attr:`vision.shields.ShieldView.centre`, 0 where nothing is lit) and which (N,) show a black
    ordinary (:func:`vision.shields.black`, whole or not, its hue weak as
    :data:`vision.shield_names.CHROMATIC_CHROMA` tells a tinted black's). Every one holds a whole
    shield of the frame's field colour, size and form in its middle (:func:`vision.shields.view_shields`,
    seen with the ``shields`` the detector found, which set the size), and

    - a black ordinary is on it (:func:`vision.shields.black`) and the patch's frame is dark or the
      shield is ringed by the body's dark rim (:data:`vision.shields.RING_DARK`): a black ordinary is
      darker than the field it splits, so the paint seen is the grey field only, a symbol too large and
      too faint for :func:`vision.probe_look.look`, and the frame past a shield that fills its face lies
      on the body's thin rim and the table past it, lit where the table is light; or
    - its paint stands out from the body as a tile's does, the shield is ringed by the body's dark rim
      and its ordinary is not the ``table``'s colour: the paint's
      rim and frame tests ask for a dark ring around the paint and a dark frame, which on a shield
      that fills its face lie on the body's thin rim and the table past it, while the table seen
      through a hole in the layout is lit and ringed by the bodies around it just as a shield is
      (None: no table colour, none taken so). Faint paint (FAINT to MIN_CONTRAST) is taken so only
      where the shield is lit as the detector's shields around it are (:func:`in_its_light`).

    Where the shield lies is given for every patch: a probe recentres on it
    (:func:`vision.occupied._with_shields`). Tiles are laid with a little jitter and rows bent by drift,
    so a probe's prediction, moved by its read neighbours' own offsets, still lies 0.1-0.25 of a cell off
    many tiles (the offsets change from one cell to the next: a local affine fit of them predicts no
    better), and a black ordinary's shield, whose frame is not dark and whose paint does not stand out,
    is then cut by the window its field is read in, not whole.
    """
    p = presence(patches)
    framed = p.frame > 0.5
    lit = (p.contrast > FAINT) & (p.reach < MAX_REACH)
    if not len(patches):
        return np.zeros(0, bool), np.zeros((0, 2)), np.zeros(0, bool)
    # the probes' shields against the detector's sizes, seen once (where none of them is whole, the sizes
    # come from the probes' own whole shields too)
    known = shields.view
    outline = shield_outline(edition("herkle"))
    if np.isnan(known.sizes[0]):
        both = view_shields(np.concatenate([shields.patches, patches]), shields.field, outline=outline)
        view = replace(both, **{f: getattr(both, f)[len(shields.patches) :] for f in _ROWS})
    else:
        view = view_shields(patches, shields.field, outline=outline, sizes=known.sizes)
    centre = np.array(view.centre, np.float64)
    ringed = view.ringed >= RING_DARK
    lit &= ringed & (unlike(view.paint, table) if table is not None else False)
    # faint paint is a tile only where its shield is lit as its neighbours are (a hole in the layout)
    falloff = np.concatenate([known.falloff, view.falloff])
    lit &= (p.contrast > MIN_CONTRAST) | in_its_light(falloff, shields, centres, axes)
    dark = black(view)
    taken = view.found & ((dark & (framed | ringed)) | lit)
    # black also by its hue's weakness (a dark red under a warm light passes for black by its lightness)
    dark &= view.chroma < CHROMATIC_CHROMA
    return np.asarray(taken), centre, np.asarray(dark)


def in_its_light(falloff: np.ndarray, shields: Shields, centres: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Which probes' shields (N,) are lit as the detector's shields around them: ``falloff`` (K + N,) the
    shields' :attr:`vision.shields.ShieldView.falloff`, the K detector's first, ``centres`` (N, 2) and
    ``axes`` (N, 2, 2) the probes'. The light falls off smoothly across the table, so a shield's field is
    about as bright as its neighbours' (within a factor of e^LIGHT_STEP of the median of the detector's
    shields within NEIGHBOURS cells, or the nearest one's), while a hole in the layout shows the table,
    whose lighter part (a pale check of a cloth) passes for a field in a brighter light."""
    known = len(shields.patches)
    theirs = np.log(falloff[:known])
    pitch = lengths(axes).mean(axis=1)
    apart = distances(centres, shields.centres) / pitch[:, None]
    near = (apart <= NEIGHBOURS) | (apart <= apart.min(axis=1, keepdims=True))
    around = np.array([np.median(theirs[row]) for row in near])
    return np.asarray(np.abs(np.log(falloff[known:]) - around) <= LIGHT_STEP)


def recentred_shields(
    work: np.ndarray, patches: np.ndarray, centres: np.ndarray, axes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Herkle tiles (their patches (N, S, S, 3) BGR uint8, cut at ``centres`` (N, 2) of the working copy
    ``work`` in ``axes`` (N, 2, 2)) whose shield is not whole (:func:`vision.shields.view_shields`),
    looked at again centred on the shield seen, in a patch SPAN cells wide, up to RELOOKS times.

    A shield spans 0.85 of its cell, so one whose patch is off its tile (a detector's core pulled aside
    by a black ordinary, a probe recentred on an ordinary off the shield's middle) or that is seen larger
    than its cell (the grid's local axes under rows bent by drift or a steep camera) reaches past the
    window its lit field is read in (:data:`vision.hulls.WINDOW`): its hull is cut flat there, not
    shield-shaped, and the tile is left unnamed. (Rendered Herkle set, seed 31: the faces of the 96
    detected tiles refused so lay a median 0.058 of a cell off their patch's middle against 0.024 for
    the whole ones, and one in four spanned 1.06 cells of their patch or more, against one in twenty.)

    Returns the patches, the centres (moved where the shield is now whole, ringed by the body's dark rim
    (:data:`vision.shields.RING_DARK`: a hand over part of a tile lies on it, and its skin passed for a
    lit ordinary) and within MOVE cells of the first look; the rest as they were) and which rows (N,)
    bool changed.
    """
    outline = shield_outline(edition("herkle"))
    patches, centres = patches.copy(), centres.copy()
    changed = np.zeros(len(patches), bool)
    field = field_colour(patches)
    view = view_shields(patches, field, outline=outline)
    rows = np.flatnonzero(~view.found & (np.abs(view.centre).max(axis=1) > 0))
    if not len(rows):
        return patches, centres, changed
    first = patches[rows].copy()
    at, span = centres[rows].copy(), np.ones(len(rows))
    found, centre, ringed = view.found[rows], view.centre[rows], view.ringed[rows]
    for _ in range(RELOOKS):
        move = ~found
        if not move.any():
            break
        # the view's centre is in the patch's own width
        at[move] += np.einsum("nk,nkd->nd", centre[move] * span[move, None], axes[rows][move])
        span[move] = SPAN
        patches[rows[move]] = cut_patches(work, at[move], axes[rows][move], span=SPAN)
        # looked at again alone, against the frame's field and shields as the first look saw them
        again = view_shields(patches[rows[move]], field, outline=outline, sizes=view.sizes)
        found[move], centre[move], ringed[move] = again.found, again.centre, again.ringed
    # ringed by the body's dark rim as a probe's lit shield is: a hand over part of the tile lies on it
    good = found & (ringed >= RING_DARK) & (cells_off(at, centres[rows], axes[rows]) < MOVE)
    patches[rows[~good]] = first[~good]
    centres[rows[good]] = at[good]
    changed[rows[good]] = True
    return patches, centres, changed


def searched(  # noqa: PLR0917 (a probe's state, passed along)
    work: np.ndarray,
    guess: np.ndarray,
    predicted: np.ndarray,
    axes: np.ndarray,
    shields: Shields,
    table: np.ndarray | None,
    *,
    within: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Herkle probes (their last places ``guess`` (N, 2) in the working copy ``work``, predicted at
    ``predicted`` (N, 2), in ``axes`` (N, 2, 2)) looked at around their last place (:data:`SEARCH`),
    within ``within`` cells of the prediction: which (N,) :func:`whole_shields` takes at one of those
    places with a black ordinary, where (N, 2; the place whose shield lies nearest its patch's middle)
    and its patch (N, S, S, 3; zeros where none is taken)."""
    n, k = len(guess), len(_AROUND)
    at = (guess[:, None, :] + np.einsum("kc,ncd->nkd", _AROUND, axes)).reshape(-1, 2)
    ax = np.repeat(axes, k, axis=0)
    near = cells_off(at, np.repeat(predicted, k, axis=0), ax) < within
    patches = cut_patches(work, at, ax)
    taken, centre = np.zeros(n * k, bool), np.zeros((n * k, 2))
    if near.any():
        taken[near], centre[near], dark = whole_shields(patches[near], shields, table, at[near], ax[near])
        taken[near] &= dark
    off = np.where(taken, np.abs(centre).max(axis=1), np.inf).reshape(n, k)
    best = off.argmin(axis=1)
    pick = np.arange(n) * k + best
    found = np.isfinite(off[np.arange(n), best])
    return found, at[pick], np.where(found[:, None, None, None], patches[pick], 0).astype(patches.dtype)
