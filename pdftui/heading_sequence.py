"""The numbering of detected headings: which numbered candidates fit the document's
sequence, and each heading's level.

The heading detector (:func:`pdftui.headings.detect_headings`) keeps candidate rows by
their look; here the numbers of the kept ones are checked against each other: a near miss
whose number fills a gap comes back (:func:`rescue_in_sequence`), and so do rows in a
style of headings (:func:`rescue_by_style`, :func:`rescue_unnumbered_style`,
:func:`rescue_loose_group`); a number that breaks an otherwise consistent sequence goes
(:func:`drop_out_of_sequence`), and so do numbered list items restarting inside a section
(:func:`drop_restarted_lists`) and letters without siblings early in a document
(:func:`drop_isolated_letters`); levels come from the numbering depth, else from the style
(:func:`assign_levels`).

A candidate is a ``(row, label, depth)`` triple: the detector's row (page, order in the
page, text, font, size, bold share), its numbering label ("3.2", "A.1", "" when
unnumbered) and depth (the label's dotted components, 0 when unnumbered).
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from pdftui.heading_rejects import BARE_NUMBER
from pdftui.heading_text import ABSTRACT_WORDS, normalise_title, numbering, strip_number

if TYPE_CHECKING:
    from pdftui.heading_rows import CandidateRow as _Row

__all__ = [
    "RESCUE_MIN_SCORE",
    "STYLE_GROUP",
    "rescue_by_style",
    "CAPS_RUN",
    "SEQUENCE_GAP",
    "UNNUMBERED_BETWEEN",
    "assign_levels",
    "drop_isolated_letters",
    "drop_out_of_sequence",
    "drop_restarted_lists",
    "follows",
    "drop_off_caps_sequence",
    "caps_kind",
    "is_caps_numbered",
    "rescue_caps_sequence",
    "rescue_in_sequence",
    "rescue_loose_group",
    "rescue_roman_gaps",
    "rescue_unnumbered_style",
]


def assign_levels(found: list[tuple[_Row, str, int]]) -> list[int]:
    """Levels from numbering: one more than the number of the label's ancestors found
    before it ("3.1" is level 2 under a found "3", level 1 when "3" was missed, so it is
    not filed under "2 Related Work"); unnumbered headings take the level most often seen
    with numbered headings of the same style (face, size, bold), else a rank by size (a
    size only front-matter headings such as "Abstract" are set in ranks none: they take
    level 1 and hold no sections); in a style of capitals and mixed case headings the
    mixed case ones one level below (:func:`_mixed_case_under_capitals`)."""
    style_depths: dict[tuple, Counter[int]] = defaultdict(Counter)
    for r, label, depth in found:
        if depth:
            style_depths[(r.font, r.size, r.bold_frac >= 0.8)][depth] += 1
    mapped = {k: c.most_common(1)[0][0] for k, c in style_depths.items()}
    # a size only an "Abstract" is set in ranks no level: it holds no sections
    unmapped_sizes = sorted({r.size for r, _, d in found if not d and not _is_front(r)},
                            reverse=True) or [0.0]
    levels: list[int] = []
    seen: set[str] = set()
    for r, label, depth in found:
        if depth:
            parts = label.split(".")
            levels.append(1 + sum(".".join(parts[:k]) in seen for k in range(1, len(parts))))
            seen.add(label)
            continue
        key = (r.font, r.size, r.bold_frac >= 0.8)
        if key in mapped:
            levels.append(mapped[key])
        elif mapped:
            nearest = min(mapped, key=lambda k: (abs(k[1] - r.size), k[2] != key[2]))
            lvl = mapped[nearest]
            if r.size > max(k[1] for k in mapped) + 0.5:
                lvl = 1
            levels.append(lvl)
        elif r.size in unmapped_sizes:
            levels.append(min(6, 1 + unmapped_sizes.index(r.size)))
        else:
            levels.append(1)
    levels = _subheadings_under_numbers(found, levels, set(mapped))
    levels = _mixed_case_under_capitals(found, levels, set(mapped))
    return _letters_under_romans(found, _parts_over_numbers(found, levels))


def _caps(r: _Row) -> bool:
    """The row is set in capitals (four letters or more, none lower case)."""
    letters = [c for c in r.text if c.isalpha()]
    return len(letters) >= 4 and not any(c.islower() for c in letters)


def _mixed_case_under_capitals(found: list[tuple[_Row, str, int]], levels: list[int],
                               numbered_styles: set[tuple]) -> list[int]:
    """Unnumbered headings of a style that sets both capitals and mixed case headings,
    and no numbered heading, rank by case: the mixed case ones sit one level below the
    capitals (a journal's "METHODS" over "Inclusion criteria" in one face and size).
    Front matter headings ("ABSTRACT") do not count as capitals."""
    by_style: dict[tuple, list[int]] = defaultdict(list)
    for i, (r, _label, depth) in enumerate(found):
        key = (r.font, r.size, r.bold_frac >= 0.8)
        if not depth and key not in numbered_styles:
            by_style[key].append(i)
    out = list(levels)
    for idx in by_style.values():
        caps = [i for i in idx if _caps(found[i][0]) and not _is_front(found[i][0])]
        mixed = [i for i in idx if not _caps(found[i][0])]
        if caps and mixed:
            top = min(levels[i] for i in caps)
            for i in mixed:
                out[i] = top + 1
    return out


def _subheadings_under_numbers(found: list[tuple[_Row, str, int]], levels: list[int],
                               numbered_styles: set[tuple]) -> list[int]:
    """Unnumbered headings between two sibling arabic numbers that follow each other
    ("3.3" ... "3.4"), in a style no numbered heading has, sit one level below the
    number before them: MapReduce's "Worker Failure" under "3.3 Fault Tolerance"."""
    numbered = [(i, p) for i, (_r, label, d) in enumerate(found)
                if d and (p := _parts(label)) is not None]
    out = list(levels)
    for (a, p), (b, n) in zip(numbered, numbered[1:]):
        if b - a > 1 and follows(p, n) and len(p) == len(n):
            for k in range(a + 1, b):
                r, _label, d = found[k]
                if not d and (r.font, r.size, r.bold_frac >= 0.8) not in numbered_styles:
                    out[k] = levels[a] + 1
    return out


def _letters_under_romans(found: list[tuple[_Row, str, int]], levels: list[int]) -> list[int]:
    """Lettered headings under roman ones, as an IEEE paper numbers its subsections
    ("III. PREDICTION MODEL ..." > "A. Prediction Model for ...", "B. ..."), one level
    below the roman heading before them: when the letters start again at "A" after two
    roman headings or more and are set in another face or size than the roman ones.
    Else ``levels`` unchanged."""
    romans = [i for i, (r, label, _d) in enumerate(found) if _roman_heading(r, label)]
    if len(romans) < 2:
        return levels
    roman_styles = {(found[i][0].font, found[i][0].size) for i in romans}
    letters = [i for i, (r, label, d) in enumerate(found) if d == 1 and len(label) == 1
               and "A" <= label <= "Z" and not _roman_heading(r, label)
               and (r.font, r.size) not in roman_styles]
    roman_set, letter_set = set(romans), set(letters)
    restarts = 0
    first = False   # the next letter is the first after a roman heading
    for i, (_r, label, _d) in enumerate(found):
        if i in roman_set:
            first = True
        elif i in letter_set:
            restarts += first and label == "A"
            first = False
    if restarts < 2:
        return levels
    out = list(levels)
    under = None
    for i in range(len(found)):
        if i in roman_set:
            under = out[i]
        elif i in letter_set and under is not None:
            out[i] = under + 1
    return out


#: front-matter headings of a paper, set apart from its sections ("Abstract" in 14 pt
#: over sections in 11 pt)
_FRONT = re.compile(rf"^({ABSTRACT_WORDS}|author summary|keywords|index terms)$")


def _is_front(r: _Row) -> bool:
    """Whether row ``r`` is a front-matter heading ("Abstract", "Author summary")."""
    return bool(_FRONT.match(normalise_title(getattr(r, "text", ""))))


#: a part numbered in roman after the word ("PART II: THE DISCRETE CHANNEL WITH NOISE")
_PART_WORD = re.compile(r"^part\s+[IVXLC]{1,6}\b", re.I)


def _is_part(label: str, text: str) -> bool:
    """A roman-numbered heading ("II. ELECTRODYNAMICAL PART", "PART II: THE DISCRETE
    CHANNEL WITH NOISE")."""
    t = (text or "").strip()
    return bool(label) and set(label) <= set("IVXLC") and (
        t.startswith(label + ".") or bool(_PART_WORD.match(t)))


def _parts_over_numbers(found: list[tuple[_Row, str, int]], levels: list[int]) -> list[int]:
    """Roman-numbered parts set larger than every other numbered heading hold them:
    "I. KINEMATICAL PART" over "§ 1.", "§ 2." (numbered on through "II."), so the
    headings after the first part go one level down. Else ``levels`` unchanged."""
    parts = [i for i, (r, label, _d) in enumerate(found) if _is_part(label, getattr(r, "text", ""))]
    others = [r.size for r, label, d in found if d and not _is_part(label, getattr(r, "text", ""))]
    if not parts or not others or \
            min(found[i][0].size for i in parts) < max(others) + 0.5:
        return levels
    part_set = set(parts)
    return [1 if i in part_set else (lvl + 1 if i > parts[0] else lvl)
            for i, lvl in enumerate(levels)]


def _parts(label: str) -> tuple[int, ...] | None:
    """``"3.2"`` -> ``(3, 2)``; None for letter or roman labels."""
    try:
        return tuple(int(x) for x in label.split("."))
    except ValueError:
        return None


def _lettered(label: str) -> tuple[int, ...] | None:
    """``"B.2"`` -> ``(2, 2)`` (an appendix letter as its place in the alphabet); None for
    arabic or roman labels."""
    head, _, rest = label.partition(".")
    if len(head) != 1 or not "A" <= head <= "Z":
        return None
    tail = _parts(rest) if rest else ()
    return None if tail is None else (ord(head) - ord("A") + 1, *tail)


def follows(prev: tuple[int, ...], nxt: tuple[int, ...], gap: int = 1) -> bool:
    """True when section number ``nxt`` can come right after ``prev`` in a document:
    its first child (``3.1`` -> ``3.1.1``), its next sibling (``3.1`` -> ``3.2``) or the
    next sibling of an ancestor (``3.1`` -> ``4``). ``gap`` > 1 also allows up to
    ``gap - 1`` numbers skipped at the last level (headings the detector missed)."""
    if len(nxt) == len(prev) + 1:
        return nxt[:-1] == prev and 1 <= nxt[-1] <= gap
    if len(nxt) > len(prev) or not nxt:
        return False
    d = len(nxt)
    return nxt[:-1] == prev[: d - 1] and 1 <= nxt[-1] - prev[d - 1] <= gap


SEQUENCE_GAP = 4
#: Drop unnumbered headings found between two consecutive numbers (5 -> 5.1): in a
#: numbered document these are figure-box labels ("State", "RequestVote RPC" in Raft) or
#: run-in paragraph heads (bench/sections.py measures what it costs in recall).
UNNUMBERED_BETWEEN = True
"""Numbers a heading may skip and still fit its neighbours (see drop_out_of_sequence)."""


#: unnumbered subheadings of one style that make it a style of subheadings
SUBHEADING_GROUP = 2
#: the most times a subheading's title is found in a document (once per section: a
#: dataset's name under two appendices); a label recurs more
SUBHEADING_REPEATS = 2


def _once(found: list[tuple[_Row, str, int]], subheads: set[int], a: int, b: int) -> set[int]:
    """The ``subheads`` between indexes ``a`` and ``b`` of ``found`` whose text is found
    once there: a section's subheading titles differ ("PASCAL VOC", "MS COCO" under
    appendix A and again under B), a label recurs."""
    texts = Counter(normalise_title(found[k][0].text) for k in range(a + 1, b))
    return {k for k in range(a + 1, b)
            if k in subheads and texts[normalise_title(found[k][0].text)] == 1}


def _subheadings(found: list[tuple[_Row, str, int]]) -> set[int]:
    """Indexes of unnumbered headings that may be subheadings of a numbered section, not
    labels: each opens a paragraph of body text (``opens_text``), reads as a title
    (capitalised, no closing stop), its text found at most ``SUBHEADING_REPEATS`` times
    (and once in its section: :func:`_once`), and ``SUBHEADING_GROUP`` of them or more
    share one style (face, size, bold): MapReduce's bold "Worker Failure", "Master
    Failure" under "3.3 Fault Tolerance". A table's "Model" over its header row, a
    figure's labels, a recurring "Do Now!" or box labels opening alike
    (``LABEL_OPENINGS``) are none."""
    texts = Counter(normalise_title(r.text) for r, _l, _d in found)
    cands = [i for i, (r, _l, d) in enumerate(found)
             if not d and getattr(r, "opens_text", False) and r.text.strip()[:1].isupper()
             and not r.text.rstrip().endswith((".", ":", "!", "?"))
             and texts[normalise_title(r.text)] <= SUBHEADING_REPEATS]
    openings = Counter(_opening(found[i][0].text) for i in cands)
    cands = [i for i in cands if openings[_opening(found[i][0].text)] < LABEL_OPENINGS]
    styles = Counter(_style(found[i][0]) for i in cands)
    return {i for i in cands if styles[_style(found[i][0])] >= SUBHEADING_GROUP}


#: unnumbered rows opening with the same two words this many times are labels of boxes
#: ("Beamer-Template/-Color/-Font headline", "Beamer-Template frame begin"), not headings
LABEL_OPENINGS = 3


def _opening(text: str) -> str:
    """A row's first two words, normalised."""
    return " ".join(normalise_title(text).split()[:2])


def drop_out_of_sequence(found: list[tuple[_Row, str, int]]) -> list[tuple[_Row, str, int]]:
    """Drop numbered candidates that break an otherwise consistent numbering.

    Over the arabic-numbered headings in document order, a candidate L between P and N is
    dropped when N follows P directly (:func:`follows`, no gap) and L does not fit between
    them (P -> L or L -> N fails even allowing ``SEQUENCE_GAP``): a figure label
    "4 Master" found between "3.1" and "3.2" goes, "3.1.1" between them stays
    (bench/sections.py measures it). The first numbered candidate goes when the next two
    follow each other and it does not lead into them ("21 return state action", a
    figure's labels on page 1, before "1 Introduction", "2 Preliminaries"). With at least
    four numbered headings, unnumbered ones between two consecutive numbers go too
    (``UNNUMBERED_BETWEEN``; appendix numbers as well, "A.1" -> "A.2") unless, before
    the next sibling of the section or of an ancestor ("3.3" -> "3.4", "5.2" -> "6",
    "A" -> "B"), they are a style of subheadings opening paragraphs
    (:func:`_subheadings`), and so do those
    before the first number that open with a lowercase letter (a figure's labels on page
    1, a title's second line); the others before the first number (Abstract) or after
    the last (References), and letter and roman labels themselves, are left alone.
    """
    numbered = [(i, _parts(label)) for i, (_r, label, depth) in enumerate(found) if depth]
    numbered = [(i, p) for i, p in numbered if p is not None]
    drop: set[int] = set()
    if len(numbered) >= 3:
        # the first: "21 return state action" (a figure's labels on page 1) before "1
        # Introduction", "2 Preliminaries"
        (i, first), (_, p), (_, n) = numbered[:3]
        if follows(p, n) and not follows(first, p, SEQUENCE_GAP):
            drop.add(i)
    for j in range(1, len(numbered) - 1):
        (_, p), (i, cur), (_, n) = numbered[j - 1], numbered[j], numbered[j + 1]
        if follows(p, n) and not (follows(p, cur, SEQUENCE_GAP)
                                  and follows(cur, n, SEQUENCE_GAP)):
            drop.add(i)
    if UNNUMBERED_BETWEEN and len(numbered) >= 4:
        # appendices too: "A.1" -> "A.2" as (1, 1) -> (1, 2) (DeBERTa's table cell
        # "SuperGLUE" between them, Big Bird's run-in "Encoder" between "B.2" and "B.2.1")
        lettered = [(i, _lettered(label)) for i, (_r, label, depth) in enumerate(found)
                    if depth]
        subheads = _subheadings(found)
        for seq in (numbered, [(i, p) for i, p in lettered if p is not None]):
            for j in range(len(seq) - 1):
                (a, p), (b, n) = seq[j], seq[j + 1]
                if b - a > 1 and follows(p, n):
                    # before the next sibling of the section or of an ancestor ("3.3" ->
                    # "3.4", "5.2" -> "6", appendix "A" -> "B"), a style of subheadings
                    # stays: the section has no numbered children; before a first child
                    # ("B.2" -> "B.2.1") unnumbered rows are run-in heads or labels
                    keep = _once(found, subheads, a, b) if len(n) <= len(p) else set()
                    drop.update(k for k in range(a + 1, b)
                                if not found[k][2] and k not in keep)
        # before a numbered document's first number a heading opens with a capital
        # ("Abstract"): "causal transformer", "linear decoder" on page 1 label a figure
        drop.update(k for k in range(numbered[0][0])
                    if not found[k][2] and found[k][0].text.strip()[:1].islower())
    return [f for i, f in enumerate(found) if i not in drop]


RESCUE_MIN_SCORE = 0.7
"""A numbered row scoring at least this (under ``pdftui.headings.THRESHOLD``) is kept when
its number is exactly the one missing between its kept neighbours (see
:func:`rescue_in_sequence`)."""


def rescue_in_sequence(found: list[tuple[_Row, str, int]],
                       near: list[tuple[_Row, str, int]]) -> list[tuple[_Row, str, int]]:
    """Add the near misses whose number fills the gap between the kept numbered headings
    around them: "3 ATTENTION WITH LINEAR BIASES" (score .8996) between "2.2" and "4" is
    kept because 2.2 -> 3 -> 4 follows (:func:`follows`, no gap) where 2.2 -> 4 does not.
    Rows are ordered by (page, row order)."""
    if not near:
        return found
    pos = lambda f: (f[0].page, f[0].order)  # noqa: E731
    out = list(found)
    numbered = sorted(((pos(f), _parts(f[1])) for f in found if f[2] and _parts(f[1])),
                      key=lambda x: x[0])
    keys = [k for k, _ in numbered]
    for cand in near:
        cur = _parts(cand[1])
        if cur is None:
            continue
        i = bisect.bisect_left(keys, pos(cand))
        if 0 < i < len(numbered):
            p, n = numbered[i - 1][1], numbered[i][1]
            if follows(p, cur) and follows(cur, n) and not follows(p, n):
                out.append(cand)
    out.sort(key=pos)
    return out


#: numbered capitals rows of one style, numbered on from 1, that make a heading sequence
#: (see :func:`rescue_caps_sequence`)
CAPS_RUN = 4
#: numbers the capitals sequence may skip between two of its rows (headings the row
#: merging spoils: "x. 28. THE RATE FOR ..." opens with an equation's tail)
CAPS_SKIP = 2
#: the most words of a capitals heading ("APPENDIX 1" merged with its title: 20)
CAPS_MAX_WORDS = 15
_ARABIC_START = re.compile(r"^\d")
#: the most words of an unnumbered capitals heading in the style of a capitals sequence
CAPS_PLAIN_WORDS = 6
#: an appendix numbered in arabic, its title after the number ("APPENDIX 3 THEOREMS ON
#: ERGODIC SOURCES": a number-only row merged with the title under it)
_APPENDIX_START = re.compile(r"^appendix\s+\d{1,2}\b\W*", re.I)
#: the least letters of a capitals title
_CAPS_LETTERS = 4


def _caps_title(text: str) -> bool:
    """Whether ``text`` (a title without its number) is in capitals: four letters or
    more, every one upper case."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= _CAPS_LETTERS and all(c.isupper() for c in letters)


def caps_kind(r: _Row) -> str | None:
    """The kind of numbered capitals row ``r`` is, None when none: ``""`` for a row
    numbered in arabic, one level deep ("7. THE ENTROPY OF AN INFORMATION SOURCE"),
    alone in its block, at most ``CAPS_MAX_WORDS`` words; ``"appendix"`` for "APPENDIX
    n" and its title first in its block, at most ``CAPS_MAX_WORDS`` + 5 words
    (``"appendix-bare"`` for "APPENDIX n" alone, rejected as a bare number);
    ``"plain"`` for an unnumbered row alone in its block, at most ``CAPS_PLAIN_WORDS``
    words, not ending in a stop or comma ("ACKNOWLEDGMENTS"). The title after the number
    is in capitals (:func:`_caps_title`); the row is not rejected."""
    t = r.text.strip()
    m = _APPENDIX_START.match(t)
    if m and r.rejected == BARE_NUMBER and not t[m.end():].strip():
        return "appendix-bare"
    if r.rejected:
        return None
    if not numbering(t)[1]:
        ok = r.n_block_rows == 1 and len(t.split()) <= CAPS_PLAIN_WORDS \
            and not t.endswith((".", ",", ";")) and _caps_title(t)
        return "plain" if ok else None
    if m:
        ok = r.first_in_block and len(t.split()) <= CAPS_MAX_WORDS + 5 \
            and _caps_title(t[m.end():])
        return "appendix" if ok else None
    if not _ARABIC_START.match(t) or r.n_block_rows != 1 or len(t.split()) > CAPS_MAX_WORDS:
        return None
    label, depth = numbering(t)
    return "" if depth == 1 and label.isdigit() and _caps_title(strip_number(t)) else None


def is_caps_numbered(r: _Row) -> bool:
    """Whether row ``r`` may be one of a sequence of numbered capitals headings
    (:func:`caps_kind`)."""
    return caps_kind(r) is not None


def _caps_run(rows: list[tuple[_Row, str, int]]) -> list[tuple[_Row, str, int]]:
    """The longest run of ``rows`` (one style, document order) numbered on from 1 or 2,
    each number above the one before by 1 to ``CAPS_SKIP`` + 1."""
    best: list[tuple[_Row, str, int]] = []
    for start, first in enumerate(rows):
        if int(first[1]) > 2:
            continue
        run, last = [first], int(first[1])
        for cand in rows[start + 1:]:
            n = int(cand[1])
            if 1 <= n - last <= CAPS_SKIP + 1:
                run.append(cand)
                last = n
        if len(run) > len(best):
            best = run
    return best


def rescue_caps_sequence(found: list[tuple[_Row, str, int]],
                         caps: list[tuple[_Row, str, int]]) -> list[tuple[_Row, str, int]]:
    """Add the numbered capitals rows (:func:`is_caps_numbered`, whatever their score)
    that make a heading sequence: in one style (face, size, bold), numbers 1, 2, 3, ...
    rising through the document (:func:`_caps_run`), ``CAPS_RUN`` rows or more. Section
    headings set in capitals of body size or smaller, neither bold nor in another face
    ("1. THE DISCRETE NOISELESS CHANNEL" ... "29. THE CALCULATION OF RATES" in 8 pt
    under 10 pt text), score far under the threshold; a list's items run in sentence
    case and start again at 1. Appendices in capitals ("APPENDIX 3 THEOREMS ON ERGODIC
    SOURCES") need no sequence; unnumbered capitals rows in the style of a sequence of
    numbered ones are headings too ("ACKNOWLEDGMENTS", "INTRODUCTION"). The numbering check (:func:`drop_out_of_sequence`) then
    drops the numbered list items and equation lines found between two of them. Rows are
    ordered by (page, order)."""
    have = {(r.page, r.order) for r, _l, _d in found}
    out = list(found)
    runs = _caps_runs(caps)
    arabic = {_style(run[0][0]) for run in runs if caps_kind(run[0][0]) == ""}
    plain = [[c] for c in caps if caps_kind(c[0]) == "plain" and _style(c[0]) in arabic]
    for run in runs + plain:
        for cand in run:
            if (cand[0].page, cand[0].order) not in have:
                out.append(cand)
                have.add((cand[0].page, cand[0].order))
    out.sort(key=lambda f: (f[0].page, f[0].order))
    return out


def _caps_runs(cands: list[tuple[_Row, str, int]],
               kinds: tuple[str, ...] = ("", "appendix")) -> list[list[tuple[_Row, str, int]]]:
    """The capitals heading sequences among ``cands`` (of a kind in ``kinds``:
    :func:`caps_kind`): per kind and style, the run of :func:`_caps_run` when it holds
    ``CAPS_RUN`` rows or more. Appendices need one ("APPENDIX" says they are headings),
    in any style: a bare "APPENDIX 6" in body size goes on from "APPENDIX 4 MAXIMIZING
    ..." in capitals (a run of bare ones alone is none)."""
    groups: dict[tuple, list[tuple[_Row, str, int]]] = defaultdict(list)
    for cand in cands:
        kind = caps_kind(cand[0])
        if kind == "appendix-bare" and "appendix" in kinds:
            groups[("appendix",)].append(cand)
        elif kind == "appendix" and kind in kinds:
            groups[("appendix",)].append(cand)
        elif kind in kinds:
            groups[(kind, *_style(cand[0]))].append(cand)
    runs = [(key[0], _caps_run(sorted(rows, key=lambda f: (f[0].page, f[0].order))))
            for key, rows in groups.items()]
    return [run for kind, run in runs
            if (kind == "" and len(run) >= CAPS_RUN)
            or (kind == "appendix" and any(caps_kind(f[0]) == "appendix" for f in run))]


def drop_off_caps_sequence(found: list[tuple[_Row, str, int]]) -> list[tuple[_Row, str, int]]:
    """Drop the rows opening with an arabic number that break a sequence of capitals
    headings (:func:`rescue_caps_sequence`) among ``found``: between two of its headings
    numbered ``p`` and ``n``, a one-level number outside ``p < k < n`` or a deeper one not
    under ``p`` ("4. We have", "1 and", "2 2 dx" between "20. ENTROPY OF A CONTINUOUS
    DISTRIBUTION" and "21. ..."); after its last heading, a number not above it. A run
    of such rows defeats :func:`drop_out_of_sequence`, which needs the neighbours of each
    to follow each other. Headings numbered by a word ("APPENDIX 2", "PART II") stay.
    Rows in document order."""
    pos = lambda f: (f[0].page, f[0].order)  # noqa: E731
    drop: set[tuple[int, int]] = set()
    for run in _caps_runs(found, kinds=("",)):
        members = {pos(f) for f in run}
        bounds = [(pos(f), int(f[1])) for f in run]
        keys = [b[0] for b in bounds]
        for f in found:
            parts = _parts(f[1]) if f[2] else None
            if parts is None or pos(f) in members or not _ARABIC_START.match(f[0].text.strip()):
                continue
            i = bisect.bisect_left(keys, pos(f))
            if i == 0:
                continue
            before = bounds[i - 1][1]
            after = bounds[i][1] if i < len(bounds) else None
            fits = (len(parts) > 1 and parts[0] == before) or (
                len(parts) == 1 and before < parts[0] and (after is None or parts[0] < after))
            if not fits:
                drop.add(pos(f))
    return [f for f in found if pos(f) not in drop]


STYLE_GROUP = 3
"""Numbered rows sharing one style, each alone in its block, that make a style of
headings (see :func:`rescue_by_style`)."""

#: a section's roman number (1 to 39), not a letter ("C. Pearson Correlation", "L. Sun")
_ROMAN_NUMBER = re.compile(r"^(X{0,3})(IX|IV|V?I{0,3})$")
_ROMAN_VALUE = {"I": 1, "V": 5, "X": 10}


def roman_value(label: str) -> int | None:
    """``"IV"`` -> 4 for a roman number up to 39 (letters L, C, D, M are left to
    appendices and initials); None otherwise."""
    if not label or not _ROMAN_NUMBER.match(label):
        return None
    total = 0
    for a, b in zip(label, label[1:] + " "):
        v = _ROMAN_VALUE[a]
        total += -v if b != " " and _ROMAN_VALUE[b] > v else v
    return total


def _roman_heading(r: _Row, label: str) -> int | None:
    """The roman number of a heading numbered "IV." (with its stop), else None."""
    value = roman_value(label)
    return value if value and r.text.strip().startswith(label + ".") else None


def rescue_roman_gaps(found: list[tuple[_Row, str, int]],
                      near: list[tuple[_Row, str, int]]) -> list[tuple[_Row, str, int]]:
    """Add the near misses numbered in roman ("III. PREDICTION MODEL BASED ON ...",
    scoring .4 in small capitals of 8 pt, its title long) whose number lies between the
    numbers of the kept roman headings around them ("II." and "V.") when set in the face
    and size of one of those. Two kept roman headings or more are needed. Rows are
    ordered by (page, order)."""
    pos = lambda f: (f[0].page, f[0].order)  # noqa: E731
    kept = sorted(((pos(f), v, (f[0].font, f[0].size)) for f in found
                   if (v := _roman_heading(f[0], f[1])) is not None), key=lambda k: k[0])
    if len(kept) < 2:
        return found
    keys = [k for k, _v, _s in kept]
    have = {pos(f) for f in found}
    out = list(found)
    for cand in near:
        value = _roman_heading(cand[0], cand[1])
        i = bisect.bisect_left(keys, pos(cand))
        if value is None or pos(cand) in have or not 0 < i < len(kept):
            continue
        (_p, before, style_b), (_n, after, style_a) = kept[i - 1], kept[i]
        if before < value < after and (cand[0].font, cand[0].size) in (style_b, style_a):
            out.append(cand)
            have.add(pos(cand))
    out.sort(key=pos)
    return out


def _style(r: _Row) -> tuple:
    return (r.font, r.size, r.bold_frac >= 0.8)


def rescue_by_style(found: list[tuple[_Row, str, int]],
                    near: list[tuple[_Row, str, int]]) -> list[tuple[_Row, str, int]]:
    """Add the near misses (numbered rows scoring under the threshold, not rejected)
    set in a style of numbered headings: at least ``STYLE_GROUP`` numbered rows of one
    style (face, size, bold), kept or near, each alone in its block. Numbered headings
    in body size and plain face ("3.2 ENHANCED MASK DECODER ...", "1. What is a proof?"
    in small capitals) score just under the threshold, one like the other; the numbering
    check (:func:`drop_out_of_sequence`) runs after. Rows are ordered by (page, order)."""
    cands = [f for f in near if not f[0].rejected and f[0].n_block_rows == 1]
    if not cands:
        return found
    group: Counter[tuple] = Counter(_style(r) for r, _l, d in found + cands
                                    if d and r.n_block_rows == 1)
    have = {(r.page, r.order) for r, _l, _d in found}
    out = list(found) + [f for f in cands if group[_style(f[0])] >= STYLE_GROUP
                         and (f[0].page, f[0].order) not in have]
    out.sort(key=lambda f: (f[0].page, f[0].order))
    return out


def rescue_unnumbered_style(found: list[tuple[_Row, str, int]],
                            loose: list[tuple[_Row, float]],
                            numbered_min: float) -> list[tuple[_Row, str, int]]:
    """Add the ``loose`` rows (unnumbered, alone in their block, scoring under the
    threshold; with their score) set in the style of at least two kept unnumbered
    headings and starting at the left edge of one of them: "Fallacy 1: Narrow
    intelligence is on a continuum with general intelligence" in the bold of
    "Introduction" and "Conclusions". Where a third of the kept headings or more are
    numbered, only rows scoring ``numbered_min`` or more (a numbered document's
    unnumbered rows are mostly labels). Rows are ordered by (page, order)."""
    if not loose:
        return found
    numbered = sum(1 for _r, _l, d in found if d)
    least = numbered_min if 3 * numbered >= len(found) else 0.0
    styles: dict[tuple, list[float]] = defaultdict(list)
    for r, _l, d in found:
        if not d:
            styles[_style(r)].append(r.x0)
    out = list(found)
    for r, score in loose:
        xs = styles.get(_style(r), [])
        if score >= least and len(xs) >= 2 and any(abs(r.x0 - x) <= 3.0 for x in xs):
            out.append((r, "", 0))
    out.sort(key=lambda f: (f[0].page, f[0].order))
    return out


def _top_style(found: list[tuple[_Row, str, int]], upto: int) -> tuple | None:
    """The style of the last arabic-numbered depth-1 heading before index ``upto``."""
    for r, label, depth in reversed(found[:upto]):
        if depth == 1 and _parts(label) is not None:
            return _style(r)
    return None


#: a dotted number after a row's first number: a footnote mark before a heading's own
#: number ("3 5.15.2 manpage.sgml.ex"), not a list item
_DOTTED_AFTER = re.compile(r"^\s*\d+\.?\s+\d+\.\d")


def drop_restarted_lists(found: list[tuple[_Row, str, int]]) -> list[tuple[_Row, str, int]]:
    """Drop numbered list items found as headings: inside a numbered section, a run of
    one-level numbers that starts again at or below the section's own top number
    ("1. Precision", "2. Header line", ... under "1.2 Export"; "1. Boolean type" under
    "4.3 Option types": the last number kept has two levels or more), set in a style
    other than the document's one-level headings.
    The run goes on while the next number follows in the run's style. Rows in document
    order; letter and roman labels are left alone."""
    drop: set[int] = set()
    context: tuple[int, ...] | None = None   # the last arabic number kept
    run_next, run_style = 0, None
    for i, (r, label, depth) in enumerate(found):
        parts = _parts(label) if depth else None
        if parts is None:
            continue
        if len(parts) == 1 and run_style == _style(r) and parts[0] == run_next:
            drop.add(i)
            run_next += 1
            continue
        if len(parts) == 1 and context is not None and len(context) >= 2 \
                and parts[0] <= context[0] and _style(r) != _top_style(found, i) \
                and not _DOTTED_AFTER.match(r.text):
            drop.add(i)
            run_next, run_style = parts[0] + 1, _style(r)
            continue
        context, run_style = parts, None
    return [f for i, f in enumerate(found) if i not in drop]


#: single letters that number parts in roman ("I Gnuplot", "I. KINEMATICAL PART")
_ROMAN_LETTERS = {"I", "V", "X"}


def drop_isolated_letters(found: list[tuple[_Row, str, int]],
                          n_pages: int) -> list[tuple[_Row, str, int]]:
    """Drop letter-numbered headings of one level with no sibling letter next to them
    (no "B" after "A", no "A" before "B") and no child ("A.1"), in the first half of a
    document of ``n_pages`` pages (not "I", "V", "X", parts in roman): a title opening
    with "A" ("A Sparse Johnson-Lindenstrauss Transform"), a journal's initial, a
    table's row "C Time", a broken logo "E LATEX.". Appendices come late, in a series
    or with children."""
    letters = [(i, label) for i, (_r, label, depth) in enumerate(found)
               if depth == 1 and _lettered(label) is not None and label not in _ROMAN_LETTERS]
    drop: set[int] = set()
    for k, (i, label) in enumerate(letters):
        before = letters[k - 1][1] if k else ""
        after = letters[k + 1][1] if k + 1 < len(letters) else ""
        sibling = before == chr(ord(label) - 1) or after == chr(ord(label) + 1)
        end = letters[k + 1][0] if k + 1 < len(letters) else len(found)
        child = any(lb.startswith(label + ".") for _r, lb, _d in found[i + 1:end])
        if not sibling and not child and found[i][0].page < n_pages / 2:
            drop.add(i)
    return [f for i, f in enumerate(found) if i not in drop]


#: loose rows of one style and left edge that make a style of headings by themselves
LOOSE_GROUP = 3
#: the least mean score of such a group
LOOSE_GROUP_MEAN = 0.6


def _heading_like(r: _Row, seen: Counter[str]) -> bool:
    """Whether a loose row reads like a heading: it opens with a capital, asks nothing
    and its text is not found more than twice (``seen``: texts of the loose rows)."""
    t = r.text.strip()
    return t[:1].isupper() and not t.endswith("?") and seen[t.lower()] <= 2


def rescue_loose_group(found: list[tuple[_Row, str, int]],
                       loose: list[tuple[_Row, float]],
                       numbered_min: float) -> list[tuple[_Row, str, int]]:
    """Add the ``loose`` rows (unnumbered, alone in their block, under the threshold;
    with their score) that form a style of headings of their own: at least
    ``LOOSE_GROUP`` rows of one style (face, size, bold) starting at one left edge
    (within 3 pt), set bold or larger than body text (``feats[0]`` / ``feats[2]``), with
    as many different texts, scoring ``LOOSE_GROUP_MEAN`` on average, two thirds of the
    group reading like headings (:func:`_heading_like`; a paper's appendix of prompts in
    bold, "write a conversation ...", "How do I send an HTTP request?", is none): a
    journal's second-level headings in bold body size ("Ethics statement", "Surgical
    preparation", "Electrophysiological recordings" under "Methods"). Where a third of
    the kept headings or more are numbered, only rows scoring ``numbered_min`` or more.
    Rows are ordered by (page, order)."""
    numbered = sum(1 for _r, _l, d in found if d)
    least = numbered_min if 3 * numbered >= max(1, len(found)) else 0.0
    seen = Counter(r.text.strip().lower() for r, _s in loose)
    styled = [(r, s) for r, s in loose if s >= least and (r.feats[0] or r.feats[2] > 0)]
    have = {(r.page, r.order) for r, _l, _d in found}
    out = list(found)
    for r, _s in styled:
        group = [(q, s) for q, s in styled
                 if _style(q) == _style(r) and abs(q.x0 - r.x0) <= 3.0]
        good = [(q, s) for q, s in group if _heading_like(q, seen)]
        if _heading_like(r, seen) and len(good) >= LOOSE_GROUP \
                and 3 * len(good) >= 2 * len(group) \
                and len({q.text.strip().lower() for q, _s in good}) >= LOOSE_GROUP \
                and sum(s for _q, s in good) / len(good) >= LOOSE_GROUP_MEAN \
                and (r.page, r.order) not in have:
            out.append((r, "", 0))
            have.add((r.page, r.order))
    out.sort(key=lambda f: (f[0].page, f[0].order))
    return out
