"""Choosing the excerpt of a hit: the passage of the page that answers the query.

Pure functions over block texts plus one helper that tokenises many blocks at once with the
index's own tokenizer (:func:`pdftui.search.keyword.tokenize_many`), so "holds the match"
means exactly what the keyword arm matched (porter stems, prefixes, CJK unigrams, and a
closed compound such as ``frameskip`` written open or hyphenated: ``frame-skipping``).

A page is cut into *passages* (:func:`passages`): each block, grown to ``MIN_CHARS`` with
its neighbours when it is a heading or a label (:func:`grow`; the short tail of a paragraph
grows back into it, not on across the next heading: :func:`heading_at`), joined with the
blocks carrying on its last sentence over a column break or an inline formula
(:func:`joined`), run on into the paragraphs after it in its section while shorter than
``PASSAGE_CHARS`` (:func:`extended`: a short lead-in with the paragraph that explains it)
and joined with the block that continues its sentence across a page break; and each table
as one passage (its caption, header and rows: :func:`table_groups`), so a question
answered by a row is shown the row with the column names. A passage scores the sum, over
the distinct query terms it holds, of the term's rarity *on this page* (``log(1 + blocks /
blocks holding it)``, an idf over the page's blocks; a term held only by the paragraphs a
passage was run on into counts ``EXTRA_WEIGHT`` of it), so the paragraph holding the rare
words of the query beats the introduction that repeats its common ones. Passages of a kind
that rarely answers are scaled down (:func:`kind_weight` of the passage's
:func:`lead_block`: figure ticks grown into a caption are the caption): figure captions,
cross-references ("see ... p. 144"), reference-list entries (:func:`is_reference`; a term
only the reference entries of a passage hold counts as they do). A table also holds the
terms of the prose citing it (:func:`cited_terms`), and an abbreviation the page defines
matches its long form (:func:`with_acronyms`). A query term the document's head (title,
authors) holds weighs ``HEAD_WEIGHT`` of its rarity: the words naming the document found
the document, they do not tell its passages apart. Equal scores go to the passage whose
section title holds the rarer query terms, then to the more deeply numbered section (a
subsection, not its parent's lead-in), then to a table, then to the earlier passage. A
table's rows are not text passages of their own: the table shows them with its caption. A
page holding query terms shows the passage scoring best on them, whichever arm found it,
unless it is a first page whose best passage holds under ``SPARSE_SHARE`` of the query's
terms (a query in other words than the paper's): then its abstract. A page that holds no
query term shows its defining passage (:func:`defining`: the abstract, the introduction's
statement of purpose, a section opening (of several, the one under the best embedding
unit unless a subsection of the first: :func:`opening_under`), the introduction's paragraph
the page opens with), else, for a hit the semantic arm found, the passage overlapping the
best embedding unit's character range most. The text is capped near ``MAX_CHARS`` characters at a word boundary,
with an ellipsis; a match past ``FRONT_CHARS`` in a long passage is shown from just before
it.

Query-biased passage selection after Tombros & Sanderson, "Advantages of query biased
summaries in information retrieval" (SIGIR 1998).
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ..store.tokenizer import CJK_RE as _CJK_RE
from ..identifiers import identifiers_in
from .query import phrase_regex
from .keyword import Term, tokenize_many

MIN_CHARS = 80
MAX_CHARS = 2000
#: A passage shorter than this is extended with the paragraphs after it in its section
#: (:func:`extended`): about eight lines of an 80-column pane.
PASSAGE_CHARS = 600
#: Share of a term's weight that a passage earns when only the paragraphs it was run on
#: into hold the term (a passage must not win by gathering its neighbours' words).
EXTRA_WEIGHT = 0.5
#: A CJK character counts as this many characters towards :data:`MIN_CHARS`: one carries
#: about a word (a 12-character Chinese sentence is a paragraph, not a heading).
CJK_WEIGHT = 4
#: Share of its page rarity a query term keeps when the document's head (title, authors)
#: holds it: the words naming the document found the document, not the passage.
HEAD_WEIGHT = 0.5
#: A first page whose best passage holds under this share of the query's terms shows its
#: abstract: a query describing the paper in other words than its own (:func:`choose`).
SPARSE_SHARE = 1 / 3


def weighted_len(text: str) -> int:
    """Length of ``text`` (stripped) with each CJK character counted :data:`CJK_WEIGHT` times."""
    text = text.strip()
    return len(text) + (CJK_WEIGHT - 1) * len(_CJK_RE.findall(text))
#: Characters shown before the match when a long block's excerpt is centred on it (short,
#: so that a display cut to a few lines still shows the match).
LEAD_CHARS = 120
#: A match this near the start of a long passage is shown with the passage's opening (a
#: heading, the sentence introducing a list): six lines of an 80-column excerpt box.
FRONT_CHARS = 480
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
_ABSTRACT_RE = re.compile(r"^\W*abstract\b", re.I)
_INTRO_RE = re.compile(r"^\W*(\d+\.?\s*)?introduction\b", re.I)
_STATEMENT_RE = re.compile(r"\b(in this (paper|work|article|report|chapter|section)|we (propose|"
                           r"present|introduce|address|describe|show that))\b", re.I)
_ASIDE_RE = re.compile(r"^\W*(\d+(\.\d+)*\.?\s*)?(related work|references|bibliography|"
                       r"acknowledg|background)", re.I)


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


def cap(text: str, limit: int = MAX_CHARS, around: int | None = None) -> str:
    """``text`` with whitespace runs collapsed, cut at a word boundary near ``limit``
    characters (an ellipsis marks the cut). ``around``: a character offset in ``text``
    (the match) that the window must hold; when it lies past :data:`FRONT_CHARS` the
    window starts about :data:`LEAD_CHARS` before it (an ellipsis marks that cut too), so
    a match deep inside a very long block is shown, not the block's opening, and a match
    a few lines in is shown below the heading and lead-in above it."""
    if around is not None and around > FRONT_CHARS and len(text) > limit:
        start = text.rfind(" ", 0, max(0, around - LEAD_CHARS)) + 1
        return "… " + cap(text[start:], limit)
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    if cut < limit * 0.8:
        cut = limit
    return text[:cut].rstrip() + " …"


def block_spans(page_text: str, blocks: Sequence[str]) -> list[tuple[int, int]]:
    """Character range of each block inside the page text, ``[(start, end)]``.

    Blocks are searched for in order; a block not found verbatim gets the range between
    its neighbours (an empty range at the running position).
    """
    spans = []
    pos = 0
    for b in blocks:
        i = page_text.find(b, pos) if b else -1
        if i < 0:
            spans.append((pos, pos))
        else:
            spans.append((i, i + len(b)))
            pos = i + len(b)
    return spans


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def matched(block_stems: set[str], terms: Sequence[Term], squashed: str = "") -> set[int]:
    """Indexes of the query terms a block holds: by stem, by prefix for prefix terms, and
    for a closed compound of 6+ letters (``frameskip``) by its letters inside the block's
    letters with spaces and hyphens removed (``frame-skipping``), as the keyword arm's
    decompounding matches it."""
    out = set()
    for k, t in enumerate(terms):
        if t.prefix:
            if any(t.matches(s) for s in block_stems):
                out.add(k)
        elif t.text in block_stems or (len(t.text) >= 6 and t.text.isalpha()
                                       and t.text in squashed):
            out.add(k)
    return out


def held_terms(stems: set[str], terms: Sequence[Term], text: str) -> set[int]:
    """Indexes of the query terms a text holds (:func:`matched`), ``stems`` its stem set
    (:func:`tokenize_many`)."""
    return matched(stems, terms, _squash(text))


def matched_terms(block_stems: set[str], terms: Sequence[Term]) -> int:
    """How many distinct query terms a block's stems contain (prefix terms by prefix)."""
    return len(matched(block_stems, terms))


def match_offset(text: str, terms: Sequence[Term]) -> int | None:
    """Character offset of the first word of ``text`` that a query term matches (a word
    starting with the term's stem, case-insensitively; a stem whose last letter the
    stemmer changed, "happi" for "happy", is tried without it), or None."""
    best = None
    low = text.casefold()
    for t in terms:
        stem = t.text.casefold()
        for probe in (stem, stem[:-1] if len(stem) > 4 else None):
            if not probe:
                continue
            m = re.search(r"(?<!\w)" + re.escape(probe), low)
            if m:
                best = m.start() if best is None else min(best, m.start())
                break
    return best


def _capped(text: str, terms: Sequence[Term], rx: Sequence[re.Pattern] = ()) -> str:
    """:func:`cap` of a chosen passage, centred on the match when the passage is long: on
    the first required phrase it holds (``rx``), else on the first query term."""
    if len(text) <= MAX_CHARS:
        return cap(text)
    found = [m.start() for r in rx if (m := r.search(text))]
    return cap(text, around=min(found) if found else match_offset(text, terms))


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
    words its own (not run-on words at :data:`EXTRA_WEIGHT`). Not across a block in
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


def defining(cands: Sequence[Passage], blocks: Sequence[str],
             section_starts: Collection[int] = (), opens_in: str = "",
             abstract_only: bool = False, unit_block: int | None = None,
             titles: Mapping[int, str] | None = None) -> Passage | None:
    """The passage of a page that states what the page is about, for a page that shares no
    word with the query (found by meaning only; ``abstract_only``: the abstract or None,
    for a page sharing few): the abstract; else, on a page that opens inside the
    introduction (``opens_in``: the title of the section the page's first block lies in,
    its heading on an earlier page), a statement of purpose ("in this paper", "we
    propose") among the introduction's paragraphs before the first heading; else the
    opening of a section starting on the page (its heading and first paragraph; not
    related work, background, references or acknowledgements, nor a numbered subsection
    of one starting on the page: "2.1 RNNs" under "2 Background"); else the
    introduction's first paragraph on the page (not an aside starting after it); else
    the first statement of purpose. None when the page has none of these.

    ``section_starts``: indexes into ``blocks`` of the blocks where a section starts.
    ``unit_block``: the block the best embedding unit overlaps most, if known; of several
    section openings it picks one (:func:`opening_under`). ``titles``: the titles of the
    sections starting on the page by their first block, as :func:`choose` takes them: a
    section titled as an aside whose heading is not printed (a reference list opening on
    "[1] ...") is one too.
    """
    titles = titles or {}
    prose = [p for p in cands if p.kind == "text"]
    aside = _aside_numbers(blocks, section_starts)
    first = min(section_starts, default=len(blocks))
    intro = bool(_INTRO_RE.match(opens_in))

    def carried(p: Passage) -> bool:   # a paragraph of the introduction the page opens in
        return (intro and p.seed < first and kind_weight(blocks[p.seed]) == 1.0
                and weighted_len(blocks[p.seed]) >= MIN_CHARS)

    rules = (lambda p: bool(_ABSTRACT_RE.match(blocks[p.seed])),
             lambda p: carried(p) and bool(_STATEMENT_RE.search(blocks[p.seed])),
             lambda p: p.seed in section_starts and not _ASIDE_RE.match(blocks[p.seed])
             and not _ASIDE_RE.match(titles.get(p.seed, ""))   # "References", unprinted
             and _number(blocks[p.seed]).split(".")[0] not in aside,
             carried,
             lambda p: bool(_STATEMENT_RE.search(blocks[p.seed])))
    for r, ok in enumerate(rules):
        fits = [p for p in prose if ok(p)]
        got = fits[0] if fits else None
        if got is not None and ok is rules[2]:
            got = opening_under(fits, blocks, unit_block)
        if got is not None or abstract_only:
            return got
    return None


def opening_under(openings: Sequence[Passage], blocks: Sequence[str], unit_block: int | None
                  ) -> Passage:
    """Of the section openings of a page found by meaning only (``openings``, in page
    order), the one whose section holds ``unit_block`` (the block the best embedding unit
    overlaps most: what the semantic arm found the page by), unless that section is a
    numbered subsection of the first opening ("14.3.1" under "14.3 Generators": the
    parent's opening states what the subsection elaborates); else the first."""
    first = openings[0]
    if unit_block is None:
        return first
    got = max((p for p in openings if p.seed <= unit_block), key=lambda p: p.seed,
              default=first)
    parent = _number(blocks[first.seed])
    if parent and _number(blocks[got.seed]).startswith(parent + "."):
        return first
    return got


def unit_block(spans: Sequence[tuple[int, int]], unit_span: tuple[int, int]) -> int | None:
    """Index of the block (of character ranges ``spans``) the best embedding unit
    (``unit_span``) overlaps most, or None when it overlaps none."""
    a, b = unit_span
    overlap = [max(0, min(b, e) - max(a, s)) for s, e in spans]
    return max(range(len(overlap)), key=overlap.__getitem__) if any(overlap) else None


_SECTION_NUMBER_RE = re.compile(r"^\s*(appendix\s+)?(([A-Z]|\d{1,2})(\.\d{1,2})*)\.?\s",
                                re.I)


def _number(heading: str) -> str:
    """The section number a heading opens with ("2.1 RNNs": "2.1"), or ""."""
    m = _SECTION_NUMBER_RE.match(heading)
    return m.group(2) if m else ""


def _aside_numbers(blocks: Sequence[str], section_starts: Collection[int]) -> set[str]:
    """Numbers of the aside sections starting on the page ("2 Background": "2"): their
    subsections ("2.1 RNNs") are asides too."""
    return {n for j in section_starts if j < len(blocks) and _ASIDE_RE.match(blocks[j])
            and (n := _number(blocks[j]))}


_ACRONYM_RE = re.compile(r"\(([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)s?\)")
_TABLE_NUMBER_RE = re.compile(r"\s*(?:table|tab)\.?\s*([A-Z]?\d+)", re.I)


def acronyms(blocks: Sequence[str]) -> dict[str, str]:
    """Abbreviations a page defines, ``{"EER": "Equal Error Rate"}``: a long form written
    before an upper-case abbreviation in parentheses, as many words as the abbreviation
    has capitals, the first starting with its first letter (a simplified Schwartz &
    Hearst, "A simple algorithm for identifying abbreviation definitions in biomedical
    text", PSB 2003). The first definition of an abbreviation wins."""
    out: dict[str, str] = {}
    for b in blocks:
        if "(" not in b:
            continue
        for m in _ACRONYM_RE.finditer(b):
            abbr = m.group(1)
            k = sum(1 for c in abbr if c.isupper())
            before = b[max(0, m.start() - 40 * k): m.start()]
            if before[-1:].isspace():
                words = before.split()[-k:]
                if len(words) == k and all(w[0].isalpha() for w in words) and \
                        words[0][0].lower() == abbr[0].lower():
                    out.setdefault(abbr, " ".join(words))
    return out


def with_acronyms(blocks: Sequence[str], stems: Sequence[set[str]], terms: Sequence[Term]
                  ) -> list[set[str]]:
    """``stems`` (one set per block) with, for each block holding an abbreviation the page
    defines (:func:`acronyms`), the query stems of its long form: a table headed "EER(%)"
    matches a query for the "equal error rate" the text defines as EER."""
    defined = [(a, long) for a, long in acronyms(blocks).items()] if terms else []
    out = [set(s) for s in stems]
    if not defined:
        return out
    for (abbr, _long), got in zip(defined, tokenize_many([x for _a, x in defined], list(terms))):
        if got:
            rx = re.compile(r"(?<![\w-])" + re.escape(abbr) + r"(?![\w-])")
            for j, b in enumerate(blocks):
                if rx.search(b):
                    out[j] |= got
    return out


#: Distinct query terms the prose citing a table must hold for the table to inherit them.
MIN_CITED_TERMS = 2


def cited_terms(table: Passage, blocks: Sequence[str], held: Sequence[set[int]]) -> set[int]:
    """The query terms held by the page's other blocks that cite this table ("... are
    summarized in Table 2"): the text describing a table is its anchor text, so a table
    whose describing paragraph matches the query is shown with the values, not the
    paragraph pointing to them."""
    m = _TABLE_NUMBER_RE.match(blocks[table.seed])
    if m is None:
        return set()
    rx = re.compile(r"\b(?:table|tab)\.?\s*" + re.escape(m.group(1)) + r"\b", re.I)
    got = set().union(*(held[j] for j, b in enumerate(blocks)
                        if j not in table.members and rx.search(b)))
    # one query word beside "Table 2" is a passing mention, not a description of the
    # table: the paragraph holding the word is shown (a keyword hit shows its match)
    return got if len(got) >= MIN_CITED_TERMS else set()


def _weights(stems: Sequence[set[str]], terms: Sequence[Term], squashed: Sequence[str]
             ) -> tuple[list[set[int]], list[float]]:
    """Matched term indexes per block and each term's rarity on the page:
    ``log(1 + blocks / blocks holding it)``."""
    held = [matched(s, terms, q) for s, q in zip(stems, squashed)]
    n = len(held)
    df = [sum(1 for h in held if k in h) for k in range(len(terms))]
    return held, [math.log(1.0 + n / d) if d else 0.0 for d in df]


def choose(blocks: Sequence[str], terms: Sequence[Term],
           unit_span: tuple[int, int] | None = None, page_text: str | None = None,
           stems: Sequence[set[str]] | None = None, next_blocks: Sequence[str] = (),
           phrases: Sequence[str] = (), section_starts: Collection[int] = (),
           head: str = "", section_titles: Mapping[int, str] | None = None
           ) -> tuple[int, str]:
    """The excerpt of one page: ``(index of the passage's seed block, capped plain
    text)``; ``(-1, "")`` when the page has no blocks with text (all blank, or blanked as
    its furniture) or no passage.

    ``unit_span`` (with ``page_text``) is the best embedding unit's char range, for hits
    that only the semantic arm found: its passage is shown when no passage holds a query
    term and the page has no defining passage. ``head``: the document's head field (title,
    authors); query terms it holds weigh ``HEAD_WEIGHT``. When the best passage holds
    under ``SPARSE_SHARE`` of the query's terms and the page has an abstract, the abstract
    is shown. ``stems`` are the blocks' stem sets if already known.
    ``next_blocks``: the next page's blocks, so a paragraph broken by the page end is
    shown whole. ``phrases``: the query's required phrases; a passage holding one wins,
    over the best unit's passage too (a semantic hit of a phrase query shows the phrase),
    and a long one is cut around the phrase. ``section_starts``: indexes of the blocks
    where a section starts; when no passage holds a query term, the page's defining
    passage is shown (:func:`defining`). ``section_titles``: the titles of those sections
    by the index of their first block, and under -1 the title of the section the page
    opens inside (:func:`section_of`); equal scores go to the passage whose section's
    title holds the rarer query terms ("master replication": "5.1.3 Master Replication",
    not the garbage-collection paragraph above it naming the master and its replicas),
    then to the more deeply numbered section ("4.1 PagedAttention", not the lead-in of "4
    Method").
    """
    if not any(b.strip() for b in blocks):
        return -1, ""
    allb = list(blocks) + list(next_blocks)
    under = section_of(len(blocks), section_titles or {})
    titles = sorted(set(under))
    held, w, titled = _block_terms(blocks, next_blocks, terms, stems, head, titles)
    in_title = {t: got for t, got in zip(titles, titled)}
    rx = [re.compile(x, re.IGNORECASE) for x in map(phrase_regex, phrases) if x]
    cands = passages(blocks, next_blocks, section_starts)

    cites = {p: cited_terms(p, blocks, held) for p in cands if p.kind == "table"}

    refs = {j for j in range(len(blocks)) if is_reference(blocks[j])}

    # per section title: the rarity of the query terms it holds, and how deeply it is
    # numbered ("4.1 PagedAttention" 2, "4 Method" 1)
    rank = {t: (round(math.fsum(w[k] for k in sorted(in_title[t])), 9),
                len(_number(t).split(".")) if _number(t) else 0) for t in titles}

    @functools.cache
    def score(p: Passage) -> float:
        own = [j for j in p.members if j not in p.extra]
        got = set().union(*(held[j] for j in own), cites.get(p, ()))
        more = set().union(*(held[j] for j in p.extra)) - got
        # a term only reference entries hold counts as they do (a passage grown from a
        # date line into the reference list is not prose)
        cited = set().union(*(held[j] for j in own if j not in refs), cites.get(p, ()))
        s = math.fsum(w[k] * (1.0 if k in cited or p.seed in refs else REFERENCE_WEIGHT)
                      for k in sorted(got)) + EXTRA_WEIGHT * math.fsum(
            w[k] for k in sorted(more))
        return s if p.kind == "table" else s * kind_weight(blocks[lead_block(p, blocks)])

    def has(p: Passage) -> bool:
        return any(r.search(passage_text(p, allb)) for r in rx) if rx else False

    def key(p: Passage) -> tuple:
        # equal scores: a passage in a section whose title names the query's terms ("5.1.3
        # Master Replication"), then in the deeper section (the subsection defining the
        # thing, not its parent's lead-in introducing it), a table whole (not a row grown
        # into its caption), then the earlier passage, which holds the later one's lead-in
        # (a heading, the line introducing a display) or states the thing first
        return (has(p), round(score(p), 9), *rank[under[p.seed]], p.kind == "table", -p.seed)

    if rx and not any(has(p) for p in cands):
        # the phrase runs across two blocks no passage joins (a column break): show both
        cands += [Passage(j, (j, j + 1)) for j in range(min(len(blocks), len(allb) - 1))
                  if any(r.search(allb[j].strip() + " " + allb[j + 1].strip()) for r in rx)]
    best = None
    if not any(has(p) or score(p) > 0 for p in cands):
        # a page found by meaning only: what it states (else what lies under the best
        # embedding unit), not a passage picked by position
        spans = block_spans(page_text, blocks) if page_text is not None else None
        under_unit = unit_block(spans, unit_span) if spans and unit_span is not None else None
        best = defining(cands, blocks, section_starts, (section_titles or {}).get(-1, ""),
                        unit_block=under_unit, titles=section_titles)
        if best is None and unit_span is not None and page_text is not None:
            best = _unit_passage(cands, spans, len(next_blocks),
                                 unit_span, has, key)
    if best is None and not cands:
        return -1, ""
    if best is None:
        best = max(cands, key=key)
        got = set().union(*(held[j] for j in best.members if j not in best.extra))
        if not has(best) and len(got) < SPARSE_SHARE * len(terms):
            # a query in other words than the paper's: the abstract, not the paragraph
            # sharing one or two of its words
            best = defining(cands, blocks, abstract_only=True) or best
    return best.seed, _capped(passage_text(best, allb), terms, rx)


def section_of(n: int, titles: Mapping[int, str]) -> list[str]:
    """The title of the section each of a page's ``n`` blocks lies in: ``titles`` maps the
    index of the block where a section starts to its title, and -1 to the title of the
    section the page opens inside (its heading on an earlier page); "" for none."""
    out, cur = [], titles.get(-1, "")
    for j in range(n):
        cur = titles.get(j, cur)
        out.append(cur)
    return out


def _block_terms(blocks: Sequence[str], next_blocks: Sequence[str], terms: Sequence[Term],
                 stems: Sequence[set[str]] | None, head: str = "",
                 titles: Sequence[str] = ()
                 ) -> tuple[list[set[int]], list[float], list[set[int]]]:
    """The query terms each block holds (the page's blocks, then ``next_blocks``), each
    term's rarity on the page (:func:`_weights`), times :data:`HEAD_WEIGHT` for a term the
    document's ``head`` holds, and the query terms each of ``titles`` (section titles)
    holds; ``stems`` the page's blocks' stem sets when already known. The head and the
    titles are tokenised in the same call as the blocks."""
    allb = list(blocks) + list(next_blocks)
    heads = ([head] if head else []) + list(titles) if terms else []
    if stems is None:
        got = tokenize_many(allb + heads, list(terms)) if terms else [set() for _ in allb]
        stems, head_stems = got[: len(allb)], got[len(allb):]
    else:
        stems = list(stems) + [set() for _ in next_blocks]
        head_stems = tokenize_many(heads, list(terms)) if heads else []
    extra = [matched(st, terms, _squash(t)) for st, t in
             zip(head_stems[len(heads) - len(titles):], titles)] if heads else \
        [set() for _ in titles]
    if any(t.ident for t in terms):   # identifiers as typed (pdftui.identifiers)
        stems = [st | set(identifiers_in(b)) for st, b in zip(stems, allb)]
    squashed = [_squash(b) for b in allb] if terms else [""] * len(allb)
    stems = with_acronyms(allb, stems, terms)
    held, w = _weights(stems[: len(blocks)], terms, squashed[: len(blocks)])
    held += [matched(s, terms, q) for s, q in zip(stems[len(blocks):], squashed[len(blocks):])]
    named = matched(head_stems[0], terms, _squash(head)) if head and terms else set()
    return held, [x * HEAD_WEIGHT if k in named else x for k, x in enumerate(w)], extra


def _unit_passage(cands: list[Passage], spans: Sequence[tuple[int, int]], n_next: int,
                  unit_span: tuple[int, int], has, key) -> Passage | None:
    """The passage that overlaps the best embedding unit (``unit_span``, a char range of
    the page text whose blocks span ``spans``) most, a passage holding a required phrase
    (``has``) first, ties by ``key``; None when none overlaps it."""
    a, b = unit_span
    overlap = [max(0, min(b, e) - max(a, s)) for s, e in spans] + [0] * n_next
    # by its own blocks: a passage run on into the unit's does not lie under it
    over = [(sum(overlap[j] for j in p.members if j not in p.extra), p) for p in cands]
    # a passage holding a required phrase wins over the best unit's passage
    over = [(o, p) for o, p in over if o > 0 or has(p)]
    if not over:
        return None
    return max(over, key=lambda x: (has(x[1]), x[0], key(x[1])))[1]
