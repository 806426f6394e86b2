"""Choosing the excerpt of a hit: the passage of the page that answers the query.

Pure functions over block texts plus one helper that tokenises many blocks at once with the
index's own tokenizer (:func:`pdftui.search.keyword.tokenize_many`), so "holds the match"
means exactly what the keyword arm matched (porter stems, prefixes, CJK unigrams, and a
closed compound such as ``frameskip`` written open or hyphenated: ``frame-skipping``).

A page is cut into *passages* (:func:`passages`): each block, grown to ``MIN_CHARS`` with
its neighbours when it is a heading or a label (:func:`grow`), run on into the paragraphs
after it in its section while shorter than ``PASSAGE_CHARS`` (:func:`extended`: a short
lead-in with the paragraph that explains it) and joined with the block that continues its
sentence across a column or page break; and each table as one passage
(its caption, header and rows: :func:`table_groups`), so a question answered by a row is
shown the row with the column names. A passage scores the sum, over the distinct query
terms it holds, of the term's rarity *on this page* (``log(1 + blocks / blocks holding
it)``, an idf over the page's blocks; a term held only by the paragraphs a passage was
run on into counts ``EXTRA_WEIGHT`` of it), so the paragraph holding the rare words of the
query beats the introduction that repeats its common ones. Passages of a kind that rarely
answers are scaled down (:func:`kind_weight`): figure captions, cross-references ("see
... p. 144"), reference-list entries. A table also holds the terms of the prose citing it
(:func:`cited_terms`), and an abbreviation the page defines matches its long form
(:func:`with_acronyms`). Equal scores go to a table, then to the earlier passage. A page
that holds no query term shows its defining passage (:func:`defining`). For a hit that only
the semantic arm found, the passage overlapping the best embedding unit's character range
most is shown (ties: the better term score). The text is capped near ``MAX_CHARS``
characters at a word boundary, with an ellipsis.

Query-biased passage selection after Tombros & Sanderson, "Advantages of query biased
summaries in information retrieval" (SIGIR 1998).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..cache import _CJK_RE
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


def weighted_len(text: str) -> int:
    """Length of ``text`` (stripped) with each CJK character counted :data:`CJK_WEIGHT` times."""
    text = text.strip()
    return len(text) + (CJK_WEIGHT - 1) * len(_CJK_RE.findall(text))
#: Characters shown before the match when a long block's excerpt is centred on it (short,
#: so that a display cut to a few lines still shows the match).
LEAD_CHARS = 120
TABLE_CHARS = 300
"""Longest block still read as part of a table (a row, a header or a cell group)."""

_CAPTION_RE = re.compile(r"^\s*(fig(ure)?|table|tab)\.?\s*[A-Z]?\d+(\.\d+)*\s*[.:|]", re.I)
_NUMBERED_HEAD_RE = re.compile(r"^\s*([A-Z]|\d{1,2})(\.\d{1,2})+\.?\s+[A-Z]")
_FIGURE_TALK_RE = re.compile(r"^\s*fig(ure)?\.?\s*[A-Z]?\d+[a-z]?\s+(shows|illustrates|"
                             r"presents|depicts|gives|plots|compares|sketches)\b", re.I)
_TABLE_CAPTION_RE = re.compile(r"^\s*(table|tab)\.?\s*[A-Z]?\d+", re.I)
_XREF_RE = re.compile(r"^\W*((for|a|an|more)\b[^.]{0,60}?\b)?(see|cf\.|refer to)\b[^.]{0,80}?"
                      r"\b(p\.|pp\.|page|pages|section|sec\.|§|chapter|appendix|figure|fig\.|"
                      r"table)\s*[A-Z]?\d", re.I)
_REFERENCE_RE = re.compile(r"^\s*(\[\d{1,3}\]|\d{1,3}\.)\s+\S.{0,200}?(\(|, )(19|20)\d\d[a-z]?"
                           r"\b", re.S)
_SENTENCE_END = tuple(".!?:;)]}\"'”’")
_ABSTRACT_RE = re.compile(r"^\W*abstract\b", re.I)
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
    (the match) that the window must hold; the window then starts about
    :data:`LEAD_CHARS` before it (an ellipsis marks that cut too), so a match deep inside a very
    long block is shown, not the block's opening."""
    if around is not None and around > LEAD_CHARS and len(text) > limit:
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
    """Block ``i``'s text, joined with the blocks after it (then before it, at the end of
    the page) until it holds ``min_chars`` characters (a CJK one counts :data:`CJK_WEIGHT`
    times): a match in a heading, a one-letter line or a caption is shown with the paragraph it belongs to, not alone."""
    return " ".join(blocks[j].strip() for j in _grown(blocks, i, min_chars))


def _grown(blocks: Sequence[str], i: int, min_chars: int = MIN_CHARS,
           lens: Sequence[int] | None = None) -> list[int]:
    lens = lens if lens is not None else [weighted_len(b) for b in blocks]
    members = [i]
    size = lens[i]
    j = i + 1
    while size < min_chars and j < len(blocks):
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


def kind_weight(text: str) -> float:
    """How likely a block of this kind answers a query: 1 for prose; 0.6 for a figure or
    table caption alone and for a short block that is a pointer elsewhere ("For an example
    see ... p. 144"); 0.9 for a paragraph opening with what a figure shows ("Figure 1
    shows an example of ..."), which describes the picture rather than the thing (a
    paragraph on a table's values is not: it states the results); 0.4 for a
    reference-list entry."""
    t = text.strip()
    if _REFERENCE_RE.match(t) and len(t) < 600:
        return 0.4
    if _CAPTION_RE.match(t):
        return 0.6
    if _FIGURE_TALK_RE.match(t):
        return 0.9
    if len(t) < 400 and _XREF_RE.search(t):
        return 0.6
    return 1.0


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
    last_text = _last_text(blocks) if next_blocks else -1
    for i in range(n):
        if not lens[i]:
            continue
        core = _grown(blocks, i, lens=lens)
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
    return out + table_groups(blocks)


def _last_text(blocks: Sequence[str]) -> int:
    """Index of the page's last block that is not a page number or running footer."""
    for j in range(len(blocks) - 1, -1, -1):
        if weighted_len(blocks[j]) >= MIN_CHARS:
            return j
    return len(blocks) - 1


def passage_text(p: Passage, blocks: Sequence[str]) -> str:
    """The passage's blocks joined by spaces (a hyphen at a line break is kept)."""
    return " ".join(blocks[j].strip() for j in p.members if blocks[j].strip())


def defining(cands: Sequence[Passage], blocks: Sequence[str],
             section_starts: Collection[int] = ()) -> Passage | None:
    """The passage of a page that states what the page is about, for a page that shares no
    word with the query (found by meaning only): the abstract; else the opening of a
    section starting on the page (its heading and first paragraph; not related work,
    background, references or acknowledgements); else the first statement of purpose
    ("in this paper", "we propose"). None when the page has none of these.

    ``section_starts``: indexes into ``blocks`` of the blocks where a section starts.
    """
    prose = [p for p in cands if p.kind == "text"]
    for ok in (lambda p: bool(_ABSTRACT_RE.match(blocks[p.seed])),
               lambda p: p.seed in section_starts and not _ASIDE_RE.match(blocks[p.seed]),
               lambda p: bool(_STATEMENT_RE.search(blocks[p.seed]))):
        got = next((p for p in prose if ok(p)), None)
        if got is not None:
            return got
    return None


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
           phrases: Sequence[str] = (), section_starts: Collection[int] = ()
           ) -> tuple[int, str]:
    """The excerpt of one page: ``(index of the passage's seed block, capped plain
    text)``; ``(-1, "")`` when the page has no blocks.

    ``unit_span`` (with ``page_text``) is the best embedding unit's char range, for hits
    that only the semantic arm found. ``stems`` are the blocks' stem sets if already known.
    ``next_blocks``: the next page's blocks, so a paragraph broken by the page end is
    shown whole. ``phrases``: the query's required phrases; a passage holding one wins,
    over the best unit's passage too (a semantic hit of a phrase query shows the phrase),
    and a long one is cut around the phrase. ``section_starts``: indexes of the blocks
    where a section starts; when no passage holds a query term, the page's defining
    passage is shown (:func:`defining`).
    """
    if not blocks:
        return -1, ""
    allb = list(blocks) + list(next_blocks)
    held, w = _block_terms(blocks, next_blocks, terms, stems)
    rx = [re.compile(x, re.IGNORECASE) for x in map(phrase_regex, phrases) if x]
    cands = passages(blocks, next_blocks, section_starts)

    cites = {p: cited_terms(p, blocks, held) for p in cands if p.kind == "table"}

    @functools.cache
    def score(p: Passage) -> float:
        got = set().union(*(held[j] for j in p.members if j not in p.extra),
                          cites.get(p, ()))
        more = set().union(*(held[j] for j in p.extra)) - got
        s = math.fsum(w[k] for k in sorted(got)) + EXTRA_WEIGHT * math.fsum(
            w[k] for k in sorted(more))
        return s if p.kind == "table" else s * kind_weight(blocks[p.seed])

    def has(p: Passage) -> bool:
        return any(r.search(passage_text(p, allb)) for r in rx) if rx else False

    def key(p: Passage) -> tuple:
        # equal scores: a passage holding a query term before it is extended (not a
        # paragraph matching nothing, extended into the match), a table whole (not a row
        # grown into its caption), then the earlier passage, which holds the later one's
        # lead-in (a heading, the line introducing a display) or states the thing first
        return (has(p), round(score(p), 9), p.kind == "table", -p.seed)

    if rx and not any(has(p) for p in cands):
        # the phrase runs across two blocks no passage joins (a column break): show both
        cands += [Passage(j, (j, j + 1)) for j in range(min(len(blocks), len(allb) - 1))
                  if any(r.search(allb[j].strip() + " " + allb[j + 1].strip()) for r in rx)]
    if not any(has(p) or score(p) > 0 for p in cands):
        # a page found by meaning only: what it states, not a passage picked by position
        best = defining(cands, blocks, section_starts)
        if best is not None:
            return best.seed, _capped(passage_text(best, allb), terms, rx)
    best = None
    if unit_span is not None and page_text is not None:
        best = _unit_passage(cands, block_spans(page_text, blocks), len(next_blocks),
                             unit_span, has, key)
    if best is None:
        best = max(cands, key=key)
    return best.seed, _capped(passage_text(best, allb), terms, rx)


def _block_terms(blocks: Sequence[str], next_blocks: Sequence[str], terms: Sequence[Term],
                 stems: Sequence[set[str]] | None) -> tuple[list[set[int]], list[float]]:
    """The query terms each block holds (the page's blocks, then ``next_blocks``), and each
    term's rarity on the page (:func:`_weights`); ``stems`` the page's blocks' stem sets
    when already known."""
    allb = list(blocks) + list(next_blocks)
    if stems is None:
        stems = tokenize_many(allb, list(terms)) if terms else [set() for _ in allb]
    else:
        stems = list(stems) + [set() for _ in next_blocks]
    if any(t.ident for t in terms):   # identifiers as typed (pdftui.identifiers)
        stems = [st | set(identifiers_in(b)) for st, b in zip(stems, allb)]
    squashed = [_squash(b) for b in allb] if terms else [""] * len(allb)
    stems = with_acronyms(allb, stems, terms)
    held, w = _weights(stems[: len(blocks)], terms, squashed[: len(blocks)])
    held += [matched(s, terms, q) for s, q in zip(stems[len(blocks):], squashed[len(blocks):])]
    return held, w


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
