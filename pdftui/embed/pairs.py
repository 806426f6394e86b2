"""Units as pairs of neighbouring tiles (a plan with ``tiles``, :class:`UnitPlan`).

A page is cut into tiles of about half the model's length without overlap
(:func:`pdftui.embed.units.tile_spans`) and only the tiles run through the model; the
searchable units are the pairs of neighbouring tiles: unit ``i`` spans tiles ``i`` and
``i + 1`` (the union of their character spans) and its vector is the normalised sum of
theirs. So units of about the model's full length advance by about half a unit (plan 1's
overlapping windows) for the cost of one pass over the text. A section's head unit is the
pair of the section's first two tiles (:func:`head_tiles`). Pure: spans, indexes and
vectors in, no model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = ["head_tiles", "pair_spans", "pair_vector"]


def pair_spans(tiles: list[tuple[int, int]]) -> list[tuple[int, int, tuple[int, ...]]]:
    """The units of a page cut into ``tiles`` (character spans in order, as
    :func:`~pdftui.embed.units.tile_spans` gives them): ``[(start, end, tile indexes)]``,
    unit ``i`` from tile ``i``'s start to tile ``i + 1``'s end, holding ``(i, i + 1)``;
    a page of one tile has that tile as its one unit (``(0,)``); ``[]`` for none."""
    if len(tiles) == 1:
        return [(tiles[0][0], tiles[0][1], (0,))]
    return [(tiles[i][0], tiles[i + 1][1], (i, i + 1)) for i in range(len(tiles) - 1)]


def pair_vector(vectors: np.ndarray, weights: list[float] | None = None) -> np.ndarray:
    """The vector of a unit made of tiles: the sum of the tiles' vectors (rows of
    ``vectors``, shape (k, dim), k >= 1), each times its weight when ``weights`` (k
    numbers, e.g. the tiles' tokens) are given, scaled to unit length: float32 of shape
    (dim,)."""
    import numpy as np

    rows = np.asarray(vectors, dtype=np.float32)
    if weights is not None:
        rows = rows * np.asarray(weights, dtype=np.float32)[:, None]
    total = rows.sum(axis=0)
    return (total / max(float(np.linalg.norm(total)), 1e-12)).astype(np.float32)


def head_tiles(tiles: list[tuple[int, int]], offset: int, own_chars: int, page_chars: int,
               next_tiles: list[tuple[int, int]], want: int = 2, holding: bool = False
               ) -> list[tuple[int, int]]:
    """The tiles of a section's head unit: its first ``want`` tiles, as ``(0, index)``
    (a tile of the section's start page, cut into ``tiles``) or ``(1, index)`` (of the next
    page, cut into ``next_tiles``). The section starts at character ``offset`` of its page
    (``page_chars`` long; tiles start at headings, so one starts there) and its own text
    holds ``own_chars`` characters (its blocks joined by a blank line, as pages are); a
    tile belongs to it when it starts inside that text, on the start page from ``offset``
    on, then on the next page while the text runs past the page's end; with ``holding``
    (tiles that ignore headings) the first is the tile holding ``offset`` (the last
    starting at or before it). ``[]`` when no tile starts at or after ``offset`` on the
    start page (the caller embeds the head apart)."""
    end = offset + own_chars
    if holding and tiles:
        offset = max([s for s, _e in tiles if s <= offset] or [tiles[0][0]])
    got = [(0, i) for i, (s, _e) in enumerate(tiles) if offset <= s < end][:want]
    if not got:
        return []
    left = end - page_chars - 2   # characters of own text past the page's end and separator
    if len(got) < want and left > 0:
        got += [(1, i) for i, (s, _e) in enumerate(next_tiles) if s < left][:want - len(got)]
    return got
