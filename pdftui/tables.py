"""Ruled tables as searchable rows: each row becomes one record, "Header: value; Header: value".

A table's cells, extracted as text, scatter: "Model BLEU Training cost" then a column of
numbers, so no row can be found or quoted with its header. A cheap prefilter
(:func:`table_drawings`) picks the pages that may hold a ruled table: a "Table N" caption
and text standing in a grid (:func:`looks_tabular`, on the lines already extracted), then
at least :data:`MIN_H_RULES` horizontal and :data:`MIN_V_RULES` vertical rules among the
page's vector drawings (:func:`ruled`, one ``get_cdrawings`` call). On those pages the
cell grid comes from the drawn rules by the lattice method (:func:`grids`); the page's own
text lines are then placed in the cells by their centres (MuPDF's text order and
punctuation) and each row after the header becomes one record (:func:`records`): a row
linearised with its column headers, so a search finds the row and its excerpt reads as the
row with its header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Horizontal rules a page needs before the table finder runs on it.
MIN_H_RULES = 3
#: Vertical rules a page needs (booktabs tables, with none, are not ruled grids).
MIN_V_RULES = 2
#: Shortest segment that counts as a rule, points.
MIN_RULE_PT = 12.0
#: A page with more vector paths than this is a drawing or a plot, not a table page.
MAX_PATHS = 3000
#: Smallest table kept: rows (header included) and columns.
MIN_ROWS, MIN_COLS = 2, 2
#: Share of a table's cells that must hold text (a grid of empty boxes is a form or a plot).
MIN_FILLED = 0.5
#: Largest share of a table's lines that may run over the rules of their cell.
MAX_CROSSING = 0.2

Box = tuple[float, float, float, float]


@dataclass(slots=True)
class Grid:
    """One ruled table: its bbox and its rows of cell boxes (None for a merged cell), in
    points in the page's unrotated space."""

    bbox: Box
    rows: list[list[Box | None]]

    def holds(self, box: Box) -> bool:
        """Is the centre of ``box`` inside the table?"""
        x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        return self.bbox[0] <= x <= self.bbox[2] and self.bbox[1] <= y <= self.bbox[3]


#: A table caption: "Table 3:", "Tab. 2", "TABLE IV", "表7-1".
CAPTION_RE = re.compile(r"^\s*(?:table|tab\.)\s*(?:[0-9]+|[IVX]+\b|[A-Z]\.?[0-9])|^\s*表\s*[0-9]",
                        re.IGNORECASE)
#: Text rows with at least :data:`ROW_CELLS` lines side by side a page needs before its
#: drawings are looked at (prose has one or two lines per baseline, a table row three or more).
MIN_TEXT_ROWS = 3
ROW_CELLS = 3


def looks_tabular(line_boxes: list[Box], block_heads: list[str]) -> bool:
    """Does the page caption a table (a block starting with :data:`CAPTION_RE`) and does
    its text stand in a grid: at least :data:`MIN_TEXT_ROWS` baselines (line centres within
    2 points) each holding :data:`ROW_CELLS` or more separate lines? Pure and cheap (the
    lines come from the extraction already done), so it runs on every page."""
    if not any(CAPTION_RE.match(h) for h in block_heads):
        return False
    per_row: dict[int, int] = {}
    for x0, y0, x1, y1 in line_boxes:
        key = int((y0 + y1) / 4)          # 2-point bands
        per_row[key] = per_row.get(key, 0) + 1
    rows = 0
    for key, n in per_row.items():
        if n + per_row.get(key + 1, 0) >= ROW_CELLS:   # a centre near a band edge
            rows += 1
            if rows >= MIN_TEXT_ROWS:
                return True
    return False


def _rules(items) -> tuple[int, int]:
    """(horizontal, vertical) rules among the items of one drawn path."""
    h = v = 0
    for it in items:
        kind = it[0]
        if kind == "l":
            (x0, y0), (x1, y1) = it[1], it[2]
            dx, dy = abs(x1 - x0), abs(y1 - y0)
            h += dy < 1.0 and dx >= MIN_RULE_PT
            v += dx < 1.0 and dy >= MIN_RULE_PT
        elif kind == "re":
            x0, y0, x1, y1 = it[1]
            w, ht = abs(x1 - x0), abs(y1 - y0)
            if ht < 2.0 and w >= MIN_RULE_PT:
                h += 1
            elif w < 2.0 and ht >= MIN_RULE_PT:
                v += 1
            elif w >= MIN_RULE_PT and ht >= MIN_RULE_PT:
                h, v = h + 2, v + 2   # a cell or a frame: four edges
    return h, v


def ruled(paths) -> bool:
    """Do these drawings (``Page.get_cdrawings()``) hold enough horizontal and vertical
    rules for a ruled table (and not so many paths that they are a plot)?"""
    if not paths or len(paths) > MAX_PATHS:
        return False
    h = v = 0
    for p in paths:
        ph, pv = _rules(p.get("items", ()))
        h, v = h + ph, v + pv
        if h >= MIN_H_RULES and v >= MIN_V_RULES:
            return True
    return False


def table_drawings(page, line_boxes: list[Box], block_heads: list[str]) -> list | None:
    """The prefilter in front of the table finder: the page's drawings when the page may
    hold a ruled table, else None. First :func:`looks_tabular` (pure, on the lines already
    extracted: a caption and a text grid), then :func:`ruled` on the drawings (one
    ``get_cdrawings`` call). Never raises (None on any MuPDF error)."""
    if not looks_tabular(line_boxes, block_heads):
        return None
    try:
        paths = page.get_cdrawings()
    except Exception:  # noqa: BLE001
        return None
    return paths if ruled(paths) else None


#: Snap, join and intersection tolerance of rules, points (pdfplumber's defaults).
TOL = 3.0
#: Shortest merged rule that bounds a cell, points.
MIN_EDGE_PT = 3.0

Edge = tuple[float, float, float]   # (position, start, end): y, x0, x1 or x, y0, y1


def _segments(paths) -> tuple[list[Edge], list[Edge]]:
    """(horizontal, vertical) segments drawn by the paths of ``get_cdrawings``: lines,
    thin rectangles (rules) and the four sides of other rectangles (cells, frames)."""
    hs: list[Edge] = []
    vs: list[Edge] = []
    for p in paths:
        for it in p.get("items", ()):
            if it[0] == "l":
                (x0, y0), (x1, y1) = it[1], it[2]
                if abs(y1 - y0) < 1.0:
                    hs.append(((y0 + y1) / 2, min(x0, x1), max(x0, x1)))
                elif abs(x1 - x0) < 1.0:
                    vs.append(((x0 + x1) / 2, min(y0, y1), max(y0, y1)))
            elif it[0] == "re":
                x0, y0, x1, y1 = it[1]
                x0, x1 = min(x0, x1), max(x0, x1)
                y0, y1 = min(y0, y1), max(y0, y1)
                if y1 - y0 < 2.0:
                    hs.append(((y0 + y1) / 2, x0, x1))
                elif x1 - x0 < 2.0:
                    vs.append(((x0 + x1) / 2, y0, y1))
                else:
                    hs += [(y0, x0, x1), (y1, x0, x1)]
                    vs += [(x0, y0, y1), (x1, y0, y1)]
    return hs, vs


def _near(a: Box, b: Box) -> bool:
    """Do rectangles ``a`` and ``b`` touch or lie within :data:`TOL` of each other?"""
    return (a[0] - TOL <= b[2] and b[0] - TOL <= a[2]
            and a[1] - TOL <= b[3] and b[1] - TOL <= a[3])


def _frames(paths, text_boxes: list[Box]) -> tuple[list[Edge], list[Edge]]:
    """The four sides of each cluster of touching drawings that holds text (a table's
    outline when its rules do not close it: rules only between rows, a shaded header),
    as PyMuPDF's table finder adds them. Returns (horizontal, vertical) edges."""
    rects = sorted({tuple(p["rect"]) for p in paths if "rect" in p},
                   key=lambda r: (r[3], r[0]))
    hs: list[Edge] = []
    vs: list[Edge] = []
    while rects:
        box = rects.pop(0)
        grown = True
        while grown:
            grown = False
            for i in range(len(rects) - 1, -1, -1):
                if _near(box, rects[i]):
                    r = rects.pop(i)
                    box = (min(box[0], r[0]), min(box[1], r[1]),
                           max(box[2], r[2]), max(box[3], r[3]))
                    grown = True
        x0, y0, x1, y1 = box
        if any(x0 <= (t[0] + t[2]) / 2 <= x1 and y0 <= (t[1] + t[3]) / 2 <= y1
               for t in text_boxes):
            hs += [(y0, x0, x1), (y1, x0, x1)]
            vs += [(x0, y0, y1), (x1, y0, y1)]
    return hs, vs


def _merge(segs: list[Edge]) -> list[Edge]:
    """Collinear segments snapped to one position (within :data:`TOL`, at their mean) and
    joined where they overlap or nearly touch; edges under :data:`MIN_EDGE_PT` dropped."""
    out: list[Edge] = []
    segs = sorted(segs)
    k = 0
    while k < len(segs):
        m = k + 1
        while m < len(segs) and segs[m][0] - segs[k][0] <= TOL:
            m += 1
        group = segs[k:m]
        pos = sum(g[0] for g in group) / len(group)
        spans = sorted((g[1], g[2]) for g in group)
        a, b = spans[0]
        for a2, b2 in spans[1:]:
            if a2 <= b + TOL:
                b = max(b, b2)
            else:
                out.append((pos, a, b))
                a, b = a2, b2
        out.append((pos, a, b))
        k = m
    return [e for e in out if e[2] - e[1] >= MIN_EDGE_PT]


def _cells(hs: list[Edge], vs: list[Edge]) -> list[Box]:
    """The smallest rectangles whose four corners are rule crossings joined by rules
    (the lattice method of pdfplumber's ``intersections_to_cells``)."""
    points: dict[tuple[float, float], tuple[set[int], set[int]]] = {}
    for i, (y, x0, x1) in enumerate(hs):
        for j, (x, y0, y1) in enumerate(vs):
            if y0 - TOL <= y <= y1 + TOL and x0 - TOL <= x <= x1 + TOL:
                ids = points.setdefault((x, y), (set(), set()))
                ids[0].add(i)
                ids[1].add(j)
    by_x: dict[float, list[float]] = {}
    by_y: dict[float, list[float]] = {}
    for x, y in sorted(points):
        by_x.setdefault(x, []).append(y)
        by_y.setdefault(y, []).append(x)

    def joined(p: tuple[float, float], q: tuple[float, float], axis: int) -> bool:
        return bool(points[p][axis] & points[q][axis])   # 0: one h rule, 1: one v rule

    cells: list[Box] = []
    for (x, y) in sorted(points):
        found = False
        for yb in (v for v in by_x[x] if v > y):
            if not joined((x, y), (x, yb), 1):
                continue
            for xr in (v for v in by_y[y] if v > x):
                if not joined((x, y), (xr, y), 0):
                    continue
                corner = (xr, yb)
                if (corner in points and joined(corner, (xr, y), 1)
                        and joined(corner, (x, yb), 0)):
                    cells.append((x, y, xr, yb))
                    found = True
                    break
            if found:
                break
    return cells


def _tables(cells: list[Box]) -> list[list[Box]]:
    """Cells grouped into tables: cells sharing a corner belong to one table."""
    parent = list(range(len(cells)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[tuple[float, float], int] = {}
    for i, (x0, y0, x1, y1) in enumerate(cells):
        for corner in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
            if corner in owner:
                parent[root(i)] = root(owner[corner])
            else:
                owner[corner] = i
    groups: dict[int, list[Box]] = {}
    for i, c in enumerate(cells):
        groups.setdefault(root(i), []).append(c)
    return sorted(groups.values(), key=lambda g: (min(c[1] for c in g), min(c[0] for c in g)))


def _grid(cells: list[Box]) -> Grid:
    """One table's cells as rows aligned on its columns (None where a merged cell spans)."""
    xs = sorted({c[0] for c in cells})
    ys = sorted({c[1] for c in cells})
    at = {(c[0], c[1]): c for c in cells}
    rows = [[at.get((x, y)) for x in xs] for y in ys]
    bbox = (min(c[0] for c in cells), min(c[1] for c in cells),
            max(c[2] for c in cells), max(c[3] for c in cells))
    return Grid(bbox, rows)


def grids(paths, text_boxes: list[Box] = ()) -> list[Grid]:
    """The ruled tables drawn by ``paths`` (a page's ``get_cdrawings()`` that :func:`ruled`
    accepted; ``text_boxes`` the bboxes of its text lines), found by the lattice method: rules snapped and joined (with the outline
    of each cluster of drawings holding one of ``text_boxes``: :func:`_frames`), their crossings,
    the smallest cells bounded by rules, cells sharing corners grouped into tables. Tables
    under :data:`MIN_ROWS` x :data:`MIN_COLS` are dropped. Never raises ([] on any error).

    Not ``Page.find_tables``: on the corpus that takes 0.5-2 s a table page, most of it
    building a Python dict per character of the page, which these records do not need
    (cells are filled from the page's own lines); see bench/tables.py, which compares
    the two."""
    try:
        if not paths or len(paths) > MAX_PATHS:
            return []
        hs, vs = _segments(paths)
        fh, fv = _frames(paths, list(text_boxes))
        hs, vs = hs + fh, vs + fv
        out = []
        for cells in _tables(_cells(_merge(hs), _merge(vs))):
            g = _grid(cells)
            if len(g.rows) >= MIN_ROWS and len(g.rows[0]) >= MIN_COLS:
                out.append(g)
        return out
    except Exception:  # noqa: BLE001 - the finder must never cost the page its text
        return []


def finder_grids(page) -> list[Grid]:
    """The same tables from PyMuPDF's ``Page.find_tables`` (line strategy, no layout
    model): the reference bench/tables.py compares :func:`grids` with. Never raises."""
    try:
        found = page.find_tables(use_layout=False)
        out = []
        for tb in found.tables:
            rows = [[tuple(c) if c else None for c in r.cells] for r in tb.rows]
            if len(rows) >= MIN_ROWS and max((len(r) for r in rows), default=0) >= MIN_COLS:
                out.append(Grid(tuple(tb.bbox), rows))
        return out
    except Exception:  # noqa: BLE001
        return []


def _cell_of(grid: Grid, box: Box) -> tuple[int, int] | None:
    """(row, column) of the cell holding the centre of ``box``, or None."""
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for i, row in enumerate(grid.rows):
        for j, c in enumerate(row):
            if c is not None and c[0] <= x <= c[2] and c[1] <= y <= c[3]:
                return i, j
    return None


def fill(grid: Grid, lines: list[tuple[str, Box]], join=" ".join
         ) -> tuple[list[list[str]], list[Box]] | None:
    """The table's rows of cell texts and each row's bbox, from the page's text ``lines``
    ``[(text, bbox)]``; None when fewer than :data:`MIN_FILLED` of the cells hold text
    (not a table of text) or when more than :data:`MAX_CROSSING` of its lines run over
    their cell's rules (prose that drawings happen to box in: a fraction bar, a radical).

    Each line goes to the cell holding its centre; a cell's lines are joined with ``join``
    (a list of strings -> str). A grid row whose first column stacks several labels, each
    level with a line of another column, is several table rows drawn without rules between
    them, and is split into one row per label (:func:`_split`).
    """
    placed: dict[tuple[int, int], list[tuple[float, float, str, Box]]] = {}
    crossing = held = 0
    for text, box in lines:
        at = _cell_of(grid, box)
        if at is not None and text.strip():
            placed.setdefault(at, []).append(((box[1] + box[3]) / 2, box[0], text.strip(),
                                              box))
            cell = grid.rows[at[0]][at[1]]
            held += 1
            crossing += not (cell[0] - 2 <= box[0] and box[2] <= cell[2] + 2
                             and cell[1] - 2 <= box[1] and box[3] <= cell[3] + 2)
    slots = sum(1 for row in grid.rows for c in row if c is not None)
    if not slots or len(placed) < MIN_FILLED * slots or crossing > MAX_CROSSING * held:
        return None
    out: list[list[str]] = []
    boxes: list[Box] = []
    width = max(len(r) for r in grid.rows)
    cuts = [_cuts(placed.get((0, j), []), [placed.get((i, j), [])
                                           for i in range(1, len(grid.rows))])
            for j in range(width)]
    for i, row in enumerate(grid.rows):
        cells = []
        for j in range(len(row)):
            cells.extend(_by_cuts(sorted(placed.get((i, j), [])), cuts[j]))
        for sub in _split(cells):
            out.append([join([item[2] for item in c]) for c in sub])
            held = [item[3] for c in sub for item in c] or [grid.bbox]
            boxes.append((min(b[0] for b in held), min(b[1] for b in held),
                          max(b[2] for b in held), max(b[3] for b in held)))
    return out, boxes


def _levels(items: list[tuple], tol: float = 2.5) -> list[float]:
    """The distinct baselines (y centres within ``tol``) of a cell's lines, top first."""
    out: list[float] = []
    for y in sorted(item[0] for item in items):
        if not out or y - out[-1] > tol:
            out.append(y)
    return out


def _cuts(head: list[tuple], body: list[list[tuple]]) -> list[float]:
    """Where one ruled column holds several unruled ones: x positions between the header
    lines that stand side by side on one baseline ("top-1 err." "top-5 err."), kept when
    most body cells of the column hold as many lines side by side. [] when it is one."""
    if len(head) < 2 or len(_levels(head)) != 1:
        return []
    side = sorted((item[3][0], item[3][2]) for item in head)
    if any(b[0] < a[1] for a, b in zip(side, side[1:])):
        return []
    cuts = [(a[1] + b[0]) / 2 for a, b in zip(side, side[1:])]
    filled = [c for c in body if c]
    fits = sum(1 for c in filled
               if all(len(_by_cuts([it for it in c if abs(it[0] - y) <= 2.5], cuts))
                      == len(cuts) + 1 and all(_by_cuts([it for it in c
                                                         if abs(it[0] - y) <= 2.5], cuts))
                      for y in _levels(c)))
    return cuts if filled and fits >= 0.5 * len(filled) else []


def _by_cuts(items: list[tuple], cuts: list[float]) -> list[list[tuple]]:
    """A cell's lines split into the columns between ``cuts`` (by their x centre)."""
    out: list[list[tuple]] = [[] for _ in range(len(cuts) + 1)]
    for item in items:
        x = (item[3][0] + item[3][2]) / 2
        out[sum(1 for c in cuts if x > c)].append(item)
    return out


def _split(cells: list[list[tuple]], tol: float = 2.5) -> list[list[list[tuple]]]:
    """One grid row's cells (each a sorted list of (y centre, x0, text, bbox)) as one or more
    table rows: split at the labels of its first filled column when it holds several and
    another column has lines on the same baselines."""
    first = next((c for c in cells if c), [])
    ys = [item[0] for item in first]
    if len(ys) < 2 or len(_levels(first, tol)) != len(ys) or not any(
            c is not first and len(_levels(c, tol)) == len(ys)
            and all(abs(a - b) <= tol for a, b in zip(_levels(c, tol), ys)) for c in cells):
        return [cells]
    subs: list[list[list[tuple]]] = [[[] for _ in cells] for _ in ys]
    for j, c in enumerate(cells):
        for item in c:
            k = min(range(len(ys)), key=lambda n: abs(ys[n] - item[0]))
            if item[0] < ys[k] - tol and k > 0:
                k -= 1                      # a wrapped line above a label: the row before
            subs[k][j].append(item)
    return subs


def _is_header(row: list[str]) -> bool:
    """Does a first row read as column headers (mostly filled, mostly not numbers)?"""
    filled = [c for c in row if c]
    if len(filled) < max(1, len(row) // 2):
        return False
    numeric = sum(1 for c in filled if sum(ch.isdigit() for ch in c) > len(c) / 2)
    return numeric <= len(filled) / 2


def records(cells: list[list[str]]) -> list[tuple[int, str]]:
    """``[(row index, record)]``, one record per row: "Header: value; Header: value" (cells
    without a value left out; a merged header cell names the columns it spans). Without a
    header row a record is its values joined by "; ". The header row itself is not a record
    (it is in each)."""
    if not cells:
        return []
    header: list[str] = []
    body = cells
    if _is_header(cells[0]):
        last = ""
        for name in cells[0]:
            last = name or last
            header.append(last)
        body = cells[1:]
    out = []
    for i, row in enumerate(body, start=len(cells) - len(body)):
        parts = []
        for j, value in enumerate(row):
            if not value:
                continue
            name = header[j] if j < len(header) else ""
            parts.append(f"{name}: {value}" if name and name != value else value)
        if parts:
            out.append((i, "; ".join(parts)))
    return out
