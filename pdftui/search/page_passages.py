"""The passages of a page: its text blocks cut into the excerpts a hit may show.

Each block grown to ``MIN_CHARS`` with its neighbours when it is a heading or a label
(:func:`grow`; the short tail of a paragraph grows back into it, not on across the next
heading: :func:`heading_at`), joined with the blocks carrying on its last sentence over a
column break or an inline formula (:func:`joined`), run on into the paragraphs after it in
its section while shorter than ``PASSAGE_CHARS`` (:func:`extended`) and joined with the
block that continues its sentence across a page break; and each table as one passage (its
caption, header and rows: :func:`table_groups`). The kind of a block (caption,
cross-reference, reference-list entry, footnote: :func:`kind_weight`) says how likely it
answers a query. :mod:`pdftui.search.excerpt` scores these passages and picks one.

Pure functions over block texts (strings, in reading order); nothing here touches SQLite.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..store.tokenizer import CJK_RE as _CJK_RE

#: A passage (a block grown with its neighbours) holds at least this many characters
#: (CJK weighted, :func:`weighted_len`) when the page has them.
MIN_CHARS = 80

#: A passage shorter than this is extended with the paragraphs after it in its section
#: (:func:`extended`): about eight lines of an 80-column pane.
PASSAGE_CHARS = 600
#: A CJK character counts as this many characters towards :data:`MIN_CHARS`: one carries
#: about a word (a 12-character Chinese sentence is a paragraph, not a heading).
CJK_WEIGHT = 4


def weighted_len(text: str) -> int:
    """Length of ``text`` (stripped) with each CJK character counted :data:`CJK_WEIGHT` times."""
    text = text.strip()
    return len(text) + (CJK_WEIGHT - 1) * len(_CJK_RE.findall(text))


TABLE_CHARS = 300
"""Longest block still read as part of a table (a row, a header or a cell group)."""

_CAPTION_RE = re.compile(r"^\s*(fig(ure)?|table|tab)\.?\s*[A-Z]?\d+(\.\d+)*\s*[.:|]", re.I)
_NUMBERED_HEAD_RE = re.compile(r"^\s*([A-Z]|\d{1,2})(\.\d{1,2})+\.?\s+[A-Z]")
_FIGURE_TALK_RE = re.compile(r"^\s*fig(ure)?\.?\s*[A-Z]?\d+[a-z]?\s+(shows|illustrates|"
                             r"presents|depicts|gives|plots|compares|sketches)\b", re.I)
_TABLE_CAPTION_RE = re.compile(r"^\s*(table|tab)\.?\s*[A-Z]?\d+", re.I)
_XREF_RE = re.compile(r"^\W*((for|a|an|more)\b[^.(]{0,60}?\b)?(?<!\()(see|cf\.|refer to)\b"
                      r"[^.]{0,80}?"
                      r"\b(p\.|pp\.|page|pages|section|sec\.|§|chapter|appendix|figure|fig\.|"
                      r"table)\s*[A-Z]?\d", re.I)
_REFERENCE_RE = re.compile(r"^\s*(\[\d{1,3}\]|\d{1,3}\.)\s+\S.{0,200}?(\(|, )(19|20)\d\d[a-z]?"
                           r"\b", re.S)
_SENTENCE_END = tuple(".!?:;)]}\"'”’")


@dataclass(frozen=True)
class Passage:
    """Blocks of a page shown as one excerpt: ``seed`` is the block it was grown from (a
    table's caption), ``members`` the block indexes it holds, in display order; ``kind``
    is "text" or "table"."""

    seed: int
    members: tuple[int, ...]
    kind: str = "text"
    extra: tuple[int, ...] = ()
    """The members added by :func:`extended` (shown, and scored, but a passage holding
    the match without them wins a tie)."""


def grow(blocks: Sequence[str], i: int, min_chars: int = MIN_CHARS) -> str:
    """Block ``i``'s text, joined with the blocks after it (then before it: at the end
    of the page, or at a heading over another paragraph when block ``i`` is not a
    heading itself, :func:`heading_at`) until it holds ``min_chars`` characters (a CJK
    one counts :data:`CJK_WEIGHT` times): a match in a heading, a one-letter line or a
    caption is shown with the paragraph it belongs to, not alone; the tail of a code
    example with the text introducing it, not with the next section's."""
    return " ".join(blocks[j].strip() for j in _grown(blocks, i, min_chars))


def _grown(blocks: Sequence[str], i: int, min_chars: int = MIN_CHARS,
           lens: Sequence[int] | None = None, heads: Collection[int] | None = None
           ) -> list[int]:
    """The block indexes :func:`grow` joins; ``lens`` (:func:`weighted_len`) and
    ``heads`` (the blocks :func:`heading_at` holds for) when already known."""
    lens = lens if lens is not None else [weighted_len(b) for b in blocks]
    members = [i]
    size = lens[i]
    j = i + 1
    own_head = heading_like(blocks[i])
    while size < min_chars and j < len(blocks):
        if not own_head and (j in heads if heads is not None else heading_at(blocks, j)):
            break   # the tail of a paragraph is not shown with the next heading's text
        if lens[j]:
            members.append(j)
            size += lens[j] + 1
        j += 1
    j = i - 1
    while size < min_chars and j >= 0:
        if lens[j]:
            members.insert(0, j)
            size += lens[j] + 1
        j -= 1
    return members


_HEADING_RE = re.compile(r"^([A-Z]|\d{1,2})?(\.\d{1,2})*\.?\s*[A-Z][^.!?:;=<>{}\\]*$")


def heading_like(text: str) -> bool:
    """True for a block that reads as a heading: a short line (under :data:`MIN_CHARS`)
    of words opening with a capital (after an optional section number), without
    sentence punctuation, code or math ("Quasi-likelihood models", "4.2 Worker
    Failure")."""
    t = " ".join(text.split())
    return (3 <= len(t) < MIN_CHARS and not t.endswith(_SENTENCE_END)
            and bool(_HEADING_RE.match(t)) and sum(c.isalpha() for c in t) >= 0.6 * len(t))


def heading_at(blocks: Sequence[str], j: int) -> bool:
    """True when block ``j`` is :func:`heading_like` and the block after it opens a
    paragraph (a capital letter, at least :data:`MIN_CHARS` characters): a heading over
    its text, not a line of output or a label inside a display."""
    if not heading_like(blocks[j]) or j + 1 >= len(blocks):
        return False
    nxt = blocks[j + 1].strip()
    return len(nxt) >= MIN_CHARS and nxt[:1].isupper()


def continues(a: str, b: str) -> bool:
    """True when block ``b`` carries on the sentence block ``a`` breaks off (a column or
    page break inside a paragraph): ``a`` ends without closing punctuation, or with a
    hyphen, and ``b`` starts with a lower-case letter; or ``a`` ends with a colon (``b`` is
    the example, list or display it introduces)."""
    a, b = a.rstrip(), b.lstrip()
    if len(a) < MIN_CHARS or not b:
        return False
    if a.endswith(":"):
        return True   # an example, a list or a display follows
    return (not a.endswith(_SENTENCE_END) or a.endswith("-")) and b[0].islower()


#: Longest block skipped over between a sentence and its continuation (:func:`joined`):
#: an inline formula or symbol the extractor set apart ("∂LN(yk)"); CJK weighted.
FRAGMENT_CHARS = 40


def _carries_on(a: str, b: str) -> bool:
    """True when ``b`` carries on the sentence ``a`` breaks off: ``a`` (a paragraph, at
    least :data:`MIN_CHARS` long) ends without closing punctuation, or with a hyphen, and
    ``b`` starts with a lower-case letter, or a math symbol before one ("∂yk into
    ...")."""
    a, b = a.rstrip(), b.lstrip()
    if len(a) < MIN_CHARS or not b or (a.endswith(_SENTENCE_END) and not a.endswith("-")):
        return False
    return b[0].islower() or (unicodedata.category(b[0]) == "Sm" and b[1:2].islower())


def joined(blocks: Sequence[str], members: list[int], halt: Collection[int] = ()
           ) -> list[int]:
    """``members`` with the blocks that carry on their last sentence appended
    (:func:`_carries_on`), over at most two short fragments between them (an inline
    formula, :data:`FRAGMENT_CHARS`) and at most two footnotes (:func:`footnote_like`,
    left out of the passage), repeatedly: a paragraph the extractor split at a column
    break, around a formula or at the footnotes closing a column is one passage, its
    words its own (not run-on words at
    :data:`pdftui.search.excerpt.EXTRA_WEIGHT`). Not across a block in
    ``halt`` (:func:`stops`)."""
    out = list(members)
    while True:
        last, j = out[-1], out[-1] + 1
        skipped: list[int] = []
        notes = 0
        while (j < len(blocks) and j not in halt
               and not _carries_on(blocks[last], blocks[j])):
            if notes < 2 and footnote_like(blocks[j]):
                notes += 1
            elif len(skipped) < 2 and weighted_len(blocks[j]) < FRAGMENT_CHARS:
                skipped.append(j)
            else:
                break
            j += 1
        if j >= len(blocks) or j in halt or not _carries_on(blocks[last], blocks[j]):
            return out
        out += skipped + [j]


#: Longest block read as a footnote (:func:`footnote_like`).
FOOTNOTE_CHARS = 600
_FOOTNOTE_RE = re.compile(r"^\s*(\d{1,2}(?=[A-Z][a-z])|[∗*†‡§¶])")


def footnote_like(text: str) -> bool:
    """True for a footnote: a block under :data:`FOOTNOTE_CHARS` opening with its mark, a
    number set against its first word or a symbol ("5Thus, in this paper ...", "∗Equal
    contribution.")."""
    t = text.strip()
    return len(t) <= FOOTNOTE_CHARS and bool(_FOOTNOTE_RE.match(t))


def _tabular(text: str) -> bool:
    """A table row, header or cell group: short, and either mostly numbers or a few words."""
    t = text.strip()
    if not t or len(t) > TABLE_CHARS or _CAPTION_RE.match(t):
        return False
    toks = t.split()
    digits = sum(1 for w in toks if any(c.isdigit() for c in w))
    return digits >= 0.3 * len(toks) or (len(t) < 60 and not t.endswith("."))


def table_groups(blocks: Sequence[str]) -> list[Passage]:
    """One passage per table caption ("Table 3. ...") with the run of table-like blocks
    next to it (before it when there is one, else after it), caption first."""
    out = []
    for i, b in enumerate(blocks):
        if not _TABLE_CAPTION_RE.match(b.strip()):
            continue
        run = []
        j = i - 1
        while j >= 0 and _tabular(blocks[j]):
            run.insert(0, j)
            j -= 1
        if not run:
            j = i + 1
            while j < len(blocks) and _tabular(blocks[j]):
                run.append(j)
                j += 1
        if run:
            out.append(Passage(i, (i, *run), "table"))
    return out


REFERENCE_WEIGHT = 0.4
_REFERENCES_HEAD_RE = re.compile(r"^\W*(\d+\.?\s*)?(references|bibliography)\s+"
                                 r"(\[\d{1,3}\]|\d{1,3}\.)\s", re.I)
_YEAR_RE = re.compile(r"\b(19|20)\d\d[a-z]?\b")


def is_reference(text: str) -> bool:
    """True for a reference-list entry ("[12] A. Vaswani ... 2017"), a run of entries the
    extractor kept as one block (an entry opening it and a year every 300 characters),
    or the list's heading with its first entries ("References 1. Kudsk KA ...")."""
    t = text.strip()
    if _REFERENCES_HEAD_RE.match(t):
        return True
    if not _REFERENCE_RE.match(t):
        return False
    return len(t) < 600 or len(_YEAR_RE.findall(t)) * 300 >= len(t)


def kind_weight(text: str) -> float:
    """How likely a block of this kind answers a query: 1 for prose; 0.6 for a figure or
    table caption alone and for a short block that is a pointer elsewhere ("For an example
    see ... p. 144"); 0.9 for a paragraph opening with what a figure shows ("Figure 1
    shows an example of ..."), which describes the picture rather than the thing (a
    paragraph on a table's values is not: it states the results); 0.4 for a
    reference-list entry."""
    t = text.strip()
    if is_reference(t):
        return REFERENCE_WEIGHT
    if _CAPTION_RE.match(t):
        return 0.6
    if _FIGURE_TALK_RE.match(t):
        return 0.9
    if len(t) < 400 and _XREF_RE.search(t):
        return 0.6
    return 1.0


def lead_block(p: Passage, blocks: Sequence[str]) -> int:
    """The block whose kind (:func:`kind_weight`) is the passage ``p``'s: its seed, unless
    the seed is a fragment of no kind of its own (under :data:`MIN_CHARS`, not a heading
    over a paragraph, not a caption: an axis tick "0.4", a panel label, a piece of a
    display formula) grown into the blocks after it; then its first own member of
    :data:`MIN_CHARS` or more. The ticks of a figure grown into its caption are the
    caption, weighed as one, not prose."""
    seed = blocks[p.seed]
    if weighted_len(seed) >= MIN_CHARS or heading_at(blocks, p.seed) or kind_weight(seed) < 1:
        return p.seed
    return next((j for j in p.members if j not in p.extra and j < len(blocks)
                 and weighted_len(blocks[j]) >= MIN_CHARS), p.seed)


def stops(blocks: Sequence[str], section_starts: Collection[int] = ()) -> set[int]:
    """Indexes of the blocks a passage is not run on into (:func:`extended`): where a
    section starts (``section_starts``), a figure or table caption, and a block opening
    with a dotted section number ("2.5 Chunk Size ...", "C.2 Editing actions"), a heading
    the page's sections may miss."""
    return set(section_starts) | {j for j, b in enumerate(blocks)
                                  if _CAPTION_RE.match(b) or _NUMBERED_HEAD_RE.match(b)}


def extended(blocks: Sequence[str], members: list[int], halt: Collection[int] = (),
             size: int = PASSAGE_CHARS, lens: Sequence[int] | None = None) -> list[int]:
    """``members`` (a grown block run) with the blocks after it appended until it holds
    ``size`` characters (CJK weighted): a short paragraph is shown with the one that
    follows it in its section (a heading's one-line lead-in with the paragraph that
    explains it, a question with its answer). It stops before a block in ``halt``
    (:func:`stops`). ``lens``: :func:`weighted_len` of each block, if already known."""
    lens = lens if lens is not None else [weighted_len(b) for b in blocks]
    have = sum(lens[j] + 1 for j in members)
    out = list(members)
    j = out[-1] + 1
    while have < size and j < len(blocks) and j not in halt:
        if lens[j]:
            out.append(j)
            have += lens[j] + 1
        j += 1
    return out


def passages(blocks: Sequence[str], next_blocks: Sequence[str] = (),
             section_starts: Collection[int] = ()) -> list[Passage]:
    """The candidate passages of a page (see the module docstring); a member index
    ``len(blocks) + k`` is ``next_blocks[k]`` (the next page's first blocks, joined when
    the page's last paragraph continues there). ``section_starts``: indexes of the blocks
    where a section starts (a passage is not extended across them: :func:`extended`)."""
    out = []
    n = len(blocks)
    allb = list(blocks) + list(next_blocks)
    lens = [weighted_len(b) for b in blocks]
    halt = stops(blocks, section_starts)
    heads = {j for j in range(n) if heading_at(blocks, j)}
    last_text = _last_text(blocks) if next_blocks else -1
    tables = table_groups(blocks)
    # a table's rows are shown as the table (caption, header, rows), not as a text passage
    # grown from a row into the caption and run on into the prose after it (a heading
    # the table's run took in, "5 SOURCE ATTRIBUTION", still opens its section)
    rows = {j for t in tables for j in t.members if j != t.seed} - heads - set(section_starts)
    for i in range(n):
        if not lens[i] or i in rows:
            continue
        core = joined(blocks, _grown(blocks, i, lens=lens, heads=heads), halt)
        members = extended(blocks, core, halt, lens=lens)
        last = members[-1]
        nxt = last + 1
        if next_blocks and last == last_text:
            # after it only footnotes, page numbers: the next page's first paragraph
            nxt = n + next((k for k, b in enumerate(next_blocks[:3])
                            if continues(blocks[last], b)), 0)
        if nxt < len(allb) and members[-1] >= i and continues(allb[last], allb[nxt]):
            members = members + [nxt]
        out.append(Passage(i, tuple(members), extra=tuple(j for j in members
                                                          if j not in core and j < n)))
    return out + tables


def _last_text(blocks: Sequence[str]) -> int:
    """Index of the page's last block that is not a page number, running footer or
    footnote."""
    for j in range(len(blocks) - 1, -1, -1):
        if weighted_len(blocks[j]) >= MIN_CHARS and not footnote_like(blocks[j]):
            return j
    return len(blocks) - 1


def passage_text(p: Passage, blocks: Sequence[str]) -> str:
    """The passage's blocks joined by spaces (a hyphen at a line break is kept)."""
    return " ".join(blocks[j].strip() for j in p.members if blocks[j].strip())
