"""Choosing the excerpt of a hit: the passage of the page that answers the query.

Pure functions over block texts plus one helper that tokenises many blocks at once with the
index's own tokenizer (:func:`pdftui.search.keyword.tokenize_many`), so "holds the match"
means exactly what the keyword arm matched (porter stems, prefixes, CJK unigrams, and a
closed compound such as ``frameskip`` written open or hyphenated: ``frame-skipping``).

A page is cut into *passages* (:func:`.page_passages.passages`): each block, grown to
``MIN_CHARS`` with its neighbours when it is a heading or a label (:func:`grow`; the short
tail of a paragraph grows back into it, not on across the next heading: :func:`heading_at`),
joined with the blocks carrying on its last sentence over a column break or an inline formula
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

import math
import re
from collections.abc import Collection, Mapping, Sequence

from ..identifiers import identifiers_in
from .query import phrase_regex
from .keyword import Term, tokenize_many
from .page_passages import (MIN_CHARS, REFERENCE_WEIGHT, Passage, is_reference, kind_weight,
                            lead_block, passage_text, passages, weighted_len)

MAX_CHARS = 2000
#: Share of a term's weight that a passage earns when only the paragraphs it was run on
#: into hold the term (a passage must not win by gathering its neighbours' words).
EXTRA_WEIGHT = 0.5
#: Share of its page rarity a query term keeps when the document's head (title, authors)
#: holds it: the words naming the document found the document, not the passage.
HEAD_WEIGHT = 0.5
#: A first page whose best passage holds under this share of the query's terms shows its
#: abstract: a query describing the paper in other words than its own (:func:`choose`).
SPARSE_SHARE = 1 / 3
#: Characters shown before the match when a long block's excerpt is centred on it (short,
#: so that a display cut to a few lines still shows the match).
LEAD_CHARS = 120
#: A match this near the start of a long passage is shown with the passage's opening (a
#: heading, the sentence introducing a list): six lines of an 80-column excerpt box.
FRONT_CHARS = 480

_ABSTRACT_RE = re.compile(r"^\W*abstract\b", re.I)
_INTRO_RE = re.compile(r"^\W*(\d+\.?\s*)?introduction\b", re.I)
_STATEMENT_RE = re.compile(r"\b(in this (paper|work|article|report|chapter|section)|we (propose|"
                           r"present|introduce|address|describe|show that))\b", re.I)
_ASIDE_RE = re.compile(r"^\W*(\d+(\.\d+)*\.?\s*)?(related work|references|bibliography|"
                       r"acknowledg|background)", re.I)


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
        elif t.text in block_stems or (t.joined and not block_stems.isdisjoint(t.joined)) \
                or (len(t.text) >= 6 and t.text.isalpha() and t.text in squashed):
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
    page = _PageScores(blocks, next_blocks, terms, stems, phrases, head, section_titles)
    cands = passages(blocks, next_blocks, section_starts)
    page.cites = {p: cited_terms(p, blocks, page.held) for p in cands if p.kind == "table"}
    if page.rx and not any(page.has(p) for p in cands):
        # the phrase runs across two blocks no passage joins (a column break): show both
        allb = page.allb
        cands += [Passage(j, (j, j + 1)) for j in range(min(len(blocks), len(allb) - 1))
                  if any(r.search(allb[j].strip() + " " + allb[j + 1].strip())
                         for r in page.rx)]
    best = None
    if not any(page.has(p) or page.score(p) > 0 for p in cands):
        best = _meaning_only(page, cands, section_starts, section_titles, unit_span,
                             page_text, len(next_blocks))
    if best is None and not cands:
        return -1, ""
    if best is None:
        best = _best_scoring(page, cands, terms)
    return best.seed, _capped(passage_text(best, page.allb), terms, page.rx)


class _PageScores:
    """How the passages of one page score against the query, for :func:`choose`: the
    query terms each block holds (``held``), each term's rarity on the page (``w``), the
    terms the prose citing each table holds (``cites``, set once the passages are
    cut), the reference-list entries (``refs``), the required phrases (``rx``, compiled)
    and, per section title, the rarity of the query terms it holds and how deeply it is
    numbered (``rank``)."""

    def __init__(self, blocks: Sequence[str], next_blocks: Sequence[str],
                 terms: Sequence[Term], stems: Sequence[set[str]] | None,
                 phrases: Sequence[str], head: str,
                 section_titles: Mapping[int, str] | None) -> None:
        self.blocks = blocks
        self.allb = list(blocks) + list(next_blocks)
        self.under = section_of(len(blocks), section_titles or {})
        titles = sorted(set(self.under))
        self.held, self.w, titled = _block_terms(blocks, next_blocks, terms, stems, head,
                                                 titles)
        in_title = {t: got for t, got in zip(titles, titled)}
        self.rx = [re.compile(x, re.IGNORECASE) for x in map(phrase_regex, phrases) if x]
        self.cites: dict[Passage, set[int]] = {}
        self.refs = {j for j in range(len(blocks)) if is_reference(blocks[j])}
        # per section title: the rarity of the query terms it holds, and how deeply it is
        # numbered ("4.1 PagedAttention" 2, "4 Method" 1)
        self.rank = {t: (round(math.fsum(self.w[k] for k in sorted(in_title[t])), 9),
                         len(_number(t).split(".")) if _number(t) else 0) for t in titles}
        self._scores: dict[Passage, float] = {}

    def score(self, p: Passage) -> float:
        """The passage's score: the rarity of the query terms its own blocks (and, for a
        table, the prose citing it) hold, :data:`REFERENCE_WEIGHT` of it for a term only
        its reference entries hold, plus :data:`EXTRA_WEIGHT` of the rarity of those only
        its run-on blocks hold; times :func:`kind_weight` of its lead block (not for a
        table). Computed once per passage."""
        if p not in self._scores:
            self._scores[p] = self._score(p)
        return self._scores[p]

    def _score(self, p: Passage) -> float:
        held, w, refs, cites = self.held, self.w, self.refs, self.cites
        own = [j for j in p.members if j not in p.extra]
        got = set().union(*(held[j] for j in own), cites.get(p, ()))
        more = set().union(*(held[j] for j in p.extra)) - got
        # a term only reference entries hold counts as they do (a passage grown from a
        # date line into the reference list is not prose)
        cited = set().union(*(held[j] for j in own if j not in refs), cites.get(p, ()))
        s = math.fsum(w[k] * (1.0 if k in cited or p.seed in refs else REFERENCE_WEIGHT)
                      for k in sorted(got)) + EXTRA_WEIGHT * math.fsum(
            w[k] for k in sorted(more))
        return s if p.kind == "table" else s * kind_weight(
            self.blocks[lead_block(p, self.blocks)])

    def has(self, p: Passage) -> bool:
        """True when the passage holds one of the query's required phrases."""
        return any(r.search(passage_text(p, self.allb)) for r in self.rx) if self.rx \
            else False

    def key(self, p: Passage) -> tuple:
        """The passage's sort key, best last: a required phrase, then the score."""
        # equal scores: a passage in a section whose title names the query's terms ("5.1.3
        # Master Replication"), then in the deeper section (the subsection defining the
        # thing, not its parent's lead-in introducing it), a table whole (not a row grown
        # into its caption), then the earlier passage, which holds the later one's lead-in
        # (a heading, the line introducing a display) or states the thing first
        return (self.has(p), round(self.score(p), 9), *self.rank[self.under[p.seed]],
                p.kind == "table", -p.seed)


def _meaning_only(page: _PageScores, cands: list[Passage], section_starts: Collection[int],
                  section_titles: Mapping[int, str] | None,
                  unit_span: tuple[int, int] | None, page_text: str | None,
                  n_next: int) -> Passage | None:
    """The excerpt of a page no passage of which holds a query term or phrase (found by
    meaning only): what it states (:func:`defining`), else what lies under the best
    embedding unit (``unit_span``, a char range of ``page_text``; :func:`_unit_passage`),
    not a passage picked by position; None when neither is known."""
    blocks = page.blocks
    spans = block_spans(page_text, blocks) if page_text is not None else None
    under_unit = unit_block(spans, unit_span) if spans and unit_span is not None else None
    best = defining(cands, blocks, section_starts, (section_titles or {}).get(-1, ""),
                    unit_block=under_unit, titles=section_titles)
    if best is None and unit_span is not None and page_text is not None:
        best = _unit_passage(cands, spans, n_next, unit_span, page.has, page.key)
    return best


def _best_scoring(page: _PageScores, cands: list[Passage], terms: Sequence[Term]) -> Passage:
    """The passage of ``cands`` that ranks first (:meth:`_PageScores.key`), unless it holds
    no required phrase and under :data:`SPARSE_SHARE` of the query's terms: a query in
    other words than the paper's shows the abstract, not the paragraph sharing one or two
    of its words (when the page has one)."""
    best = max(cands, key=page.key)
    got = set().union(*(page.held[j] for j in best.members if j not in best.extra))
    if not page.has(best) and len(got) < SPARSE_SHARE * len(terms):
        best = defining(cands, page.blocks, abstract_only=True) or best
    return best


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
