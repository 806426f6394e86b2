"""Run-in headings: a bold or italic lead-in opening a paragraph ("Residual Dropout. We
apply dropout ...", "Distributed Grep: The map function ...").

A candidate row of the heading detector (:class:`~pdftui.heading_rows.CandidateRow`) carries
its styled lead in ``lead``; :func:`run_in_heads` keeps the leads that read as headings:
opening a paragraph, capitalised, short, closed by a stop or colon or followed by a new
sentence, with a sentence after them (a table's header row, "Model MNLI-m/mm SQuAD v1.1",
has none), not a theorem, caption or algorithm label, not a reference's journal title in
italics, and in a style that opens two paragraphs or more of the document (one bold
phrase is emphasis) unless it is an abstract's "Abstract.", and not a label repeated
``RUN_IN_REPEATS`` times. A lead set apart by its face alone (neither bold nor italic)
counts in a face of the document's headings: a journal's structured abstract, "Background
Recent guidelines ...", sets its labels in the face of "METHODS". A paragraph opens a
block, or a row of a block after a line that ends short of the block's right edge
(:func:`opens_paragraph`). The lead is judged by its own text: a citation list in the
paragraph after it ("[20, 17]") does not make the row an author list.

Units: ``y`` in PDF points from the top of the page.
"""

from __future__ import annotations

import re
from collections import Counter

from pdftui.heading_rejects import lead_reason
from pdftui.heading_rows import CandidateRow
from pdftui.heading_text import ABSTRACT_WORDS, normalise_title

__all__ = ["RUN_IN_MAX_WORDS", "RUN_IN_REPEATS", "SHORT_LINE", "full_lead", "is_run_in_lead",
           "opens_paragraph", "run_in_heads"]

#: a lead longer than this many words is a sentence set in bold, not a heading
RUN_IN_MAX_WORDS = 12
#: leads that label a block rather than head a section: theorem-like blocks, captions,
#: algorithm lines, exercises and the like ("Lemma 2.", "Proof.", "Input:", "Note:")
_LABEL = re.compile(
    r"^(?:theorem|lemma|corollary|proposition|definition|proof|remark|example|exercise|"
    r"problem|solution|claim|conjecture|assumption|hypothesis|observation|fact|note|notes|"
    r"hint|answer|question|step|case|figure|fig|table|tab|algorithm|alg|listing|equation|"
    r"eq|input|inputs|output|outputs|require|ensure|return|returns|keywords?|key words|"
    r"index terms|see also|warning|caution|tip|important|q|a|e\.g|i\.e)\b",
    re.I)
#: the labels of a paper's front-matter fields and of a figure's panels, which head no
#: section ("Date: July 3, 2026", "Correspondence: ...", "How to cite this article Webb
#: et al. (2017)", a caption's "Right: a residual network ...")
_FIELD_LABEL = re.compile(
    r"^(?:e-?mail(?: address(?:es)?)?|correspondence|corresponding author|date|received|"
    r"accepted|published|reviewed on \w+|citation|how to cite(?: this article)?|"
    r"copyright|doi|subjects?|academic editor|edited by|"
    r"left|right|middle|top|bottom)\s*[.:]?$", re.I)
#: a word of lower-case letters (two or more): what a sentence after the lead is made of
_LOWER_WORD = re.compile(r"(?<![\w-])[a-z]{2,}(?![\w-])")
#: the abstract's own lead ("Abstract." opening the first paragraph)
_ABSTRACT = re.compile(rf"^({ABSTRACT_WORDS})$")
#: lower-case words after the lead that make it a sentence, not a table's header row
SENTENCE_WORDS = 3
#: a lead this many times in a document labels a block ("MODEL ANSWER (CORRECT):")
RUN_IN_REPEATS = 3
#: a lead ending in a word like these stops mid-phrase ("Public API of" | "LLMs. ...")
_OPEN_END = re.compile(r"\b(?:of|and|or|the|a|an|for|to|in|on|with|by|from|at|as)$")


#: a citation or a stop set plain closing a lead ("Mixed Precision" | " (Micikevicius et
#: al., 2017): Using ...", "Improving Optimizer Efficiency" | ": Microbatching ...")
_CITED = re.compile(r"^\s*(?:\([^()]{2,60}\)\s*)?[.:](?=\s)")
#: a year in a lead: a reference's authors set bold ("Blackburne BP, Whelan S. 2013.")
_YEAR = re.compile(r"\b(?:1[89]|20)\d\d[a-z]?\b")
#: a lead that is a word and a number labels a step of a list ("Phase 1.", "Stage 2:")
_WORD_NUMBER = re.compile(r"^[^\W\d_]+\s+\d+[a-z]?[.:]?$")
#: a number fused with a word opening a lead, as a capital opens one ("50-layer ResNet:",
#: "3D reconstruction."); a number alone ("1.", "2)") numbers a list item, and a
#: footnote's mark before a capital ("1Our code ...") opens no heading
_NUMBER_WORD = re.compile(r"^\d+(?:-[^\W\d_]|[A-Z](?![a-z]))")
#: a paragraph of one short sentence after a back-matter heading ("Competing interests
#: None.", "Patient consent Obtained.", "Funding Not applicable.")
_SHORT_ANSWER = re.compile(r"^\s*[A-Z][a-z]+(?:\s+[a-z]+){0,2}\.\s*$")
#: a row above a paragraph's first row in its block ends this many sizes short of the
#: block's right edge (a paragraph's last line, a heading set in the paragraph's block)
SHORT_LINE = 3.0


def _closed(lead: str, rest: str) -> bool:
    """The lead ends as a heading does: with a stop, colon or dash, or a new sentence
    starts after it ("Residual Dropout" | "We apply ..."); not a phrase the sentence goes
    on from ("Map" | ", written by the user")."""
    if lead.rstrip()[-1:] in ".:—–":
        return True
    r = rest.lstrip()
    return bool(rest[:1].isspace() or lead.endswith(" ")) and r[:1].isupper()


def lead_of(row: CandidateRow, faces: frozenset[str] = frozenset()) -> str:
    """The row's run-in lead: its bold or italic lead, else its face lead
    (:attr:`CandidateRow.face_lead`) when set in one of ``faces`` (the faces of the
    document's headings other than its body text's); else ''."""
    if row.lead:
        return row.lead
    return row.face_lead if row.face_lead and row.face_lead_font in faces else ""


def full_lead(row: CandidateRow, lead: str | None = None) -> str:
    """The row's lead (``lead``, by default :attr:`CandidateRow.lead`) with a citation or
    stop that closes it ("Mixed Precision (Micikevicius et al., 2017):"), else the lead as
    it is; '' when the row does not open with it."""
    raw = row.lead if lead is None else lead
    lead = raw.strip()
    if not lead or not row.text.startswith(lead):
        return ""
    cited = _CITED.match(row.text[len(lead):])
    return lead + cited.group(0) if cited else lead


def is_run_in_lead(row: CandidateRow, after: str = "", lead: str | None = None,
                   opens: bool | None = None) -> bool:
    """Whether ``row``'s lead (``lead``, by default its bold or italic one; with its
    closing citation: :func:`full_lead`) reads as a run-in heading by its text:
    capitalised (or opening with a number fused with a word, "50-layer ResNet:"), at most
    ``RUN_IN_MAX_WORDS`` words, not a label (:data:`_LABEL`, "Phase 1.", a front-matter
    field's: :data:`_FIELD_LABEL`), no year in it (a
    reference's authors), not ending on "of" or "and", closed (:func:`_closed`) and
    followed by a sentence (``SENTENCE_WORDS`` lower-case words in the rest of the row and
    ``after``, the text of the block's next row; or a paragraph of one short sentence,
    "Competing interests None."). The row opens a paragraph (``opens``,
    by default: it is its block's first)."""
    raw = row.lead if lead is None else lead
    full = full_lead(row, raw)
    if not full or not (row.first_in_block if opens is None else opens):
        return False
    rest = row.text[len(full):]
    words = full.split()
    if not (full[:1].isupper() or _NUMBER_WORD.match(full)) or len(words) > RUN_IN_MAX_WORDS \
            or _LABEL.match(full) or _FIELD_LABEL.match(full) or _WORD_NUMBER.match(full) \
            or _YEAR.search(raw):
        return False
    if sum(c.isalpha() for c in full) < 3 or _OPEN_END.search(full) \
            or not _closed(full + (" " if raw.endswith(" ") else ""), rest):
        return False
    return len(_LOWER_WORD.findall(f"{rest} {after}")) >= SENTENCE_WORDS \
        or (not after and _SHORT_ANSWER.match(rest) is not None)


def _right_edges(rows: list[CandidateRow]) -> dict[tuple[int, int], float]:
    """The right edge (largest ``x1``) of each (page, block) of ``rows``."""
    edges: dict[tuple[int, int], float] = {}
    for r in rows:
        key = (r.page, r.block)
        edges[key] = max(edges.get(key, r.x1), r.x1)
    return edges


def opens_paragraph(rows: list[CandidateRow], i: int, right: float,
                    stopped: bool = False) -> bool:
    """Whether ``rows[i]`` opens a paragraph: it opens its block, or the row above it in
    the block ends ``SHORT_LINE`` sizes or more short of the block's right edge
    (``right``, points) after a closing stop or in another face: a paragraph's last line
    ("number of species." over "Methods. We present ...") or a heading set in the
    paragraph's block ("ABSTRACT" over "Background Recent guidelines ...", "MS COCO"
    over "Box refinement. Our box ..."). With ``stopped`` (the row opens with a bold lead
    closed by a stop or colon) a sentence's stop ending the row above is enough: a
    paragraph whose last line fills the column ("... within a UNIX environment." over
    "Results. We have benchmarked ..."); italics there are an emphasis or a cited title
    ("We've recovered our code structure.", a reference's "MONAI: An open-source ...")."""
    r = rows[i]
    if r.first_in_block:
        return True
    prev = rows[i - 1] if i else None
    if prev is None or prev.page != r.page or prev.block != r.block:
        return False
    stop = prev.text.rstrip().endswith((".", ":", "!", "?"))
    short = right - prev.x1 >= SHORT_LINE * max(r.size, 1.0)
    return (stop or prev.font != r.font) and short or (stop and stopped)


def run_in_heads(rows: list[CandidateRow],
                 faces: frozenset[str] = frozenset()) -> list[tuple[CandidateRow, str]]:
    """``(row, lead)`` for the rows of ``rows`` (a document's candidate rows, in reading
    order) opening a paragraph (:func:`opens_paragraph`) with a run-in heading (its lead
    :func:`lead_of`, a face lead counting in ``faces``, the faces of the document's
    headings; read as one by :func:`is_run_in_lead`; ``lead`` with its closing citation,
    :func:`full_lead`), not hard-rejected (a caption, running head, math, an author list;
    a row rejected by its text only when the lead itself is: :func:`lead_reason`), when
    two rows of the document or more open so (one bold phrase is emphasis) or the lead is
    "Abstract."; a lead opening ``RUN_IN_REPEATS`` rows or more (its words before a
    bracket, numbers aside) labels them and is left out, and so are a description list's
    terms (:func:`_list_terms`)."""
    right = _right_edges(rows)
    cands: list[tuple[CandidateRow, str]] = []
    for i, r in enumerate(rows):
        lead = lead_of(r, faces)
        if r.contents_page or not lead:
            continue
        if r.rejected and lead_reason(r, full_lead(r, lead) or lead) != "":
            continue
        nxt = rows[i + 1] if i + 1 < len(rows) else None
        after = nxt.text if nxt is not None and nxt.page == r.page and nxt.block == r.block \
            else ""
        stopped = r.lead_bold and full_lead(r, lead).rstrip().endswith((".", ":"))
        if is_run_in_lead(r, after, lead,
                          opens_paragraph(rows, i, right[(r.page, r.block)], stopped)):
            cands.append((r, full_lead(r, lead)))
    styled = len(cands)   # paragraphs a styled lead opens, a description list's too
    terms = _list_terms(rows, [r for r, _lead in cands])
    cands = [(r, lead) for r, lead in cands if id(r) not in terms]
    per_key = Counter(_label_key(lead) for _r, lead in cands)
    return [(r, lead) for r, lead in cands if per_key[_label_key(lead)] < RUN_IN_REPEATS
            and (styled >= 2 or _ABSTRACT.match(normalise_title(lead)))]


#: the most sizes between the tops of two neighbouring items of a description list
LIST_ITEM_GAP = 3.0


def _hanging(rows: list[CandidateRow], i: int) -> bool:
    """Whether the row right below ``rows[i]`` (on its page, within a line's height,
    under it) starts an em or more to the right of it: a hanging indent."""
    r = rows[i]
    nxt = rows[i + 1] if i + 1 < len(rows) else None
    return nxt is not None and nxt.page == r.page and 0 <= nxt.y0 - r.y1 < r.size \
        and nxt.x0 < r.x1 and nxt.x0 - r.x0 >= max(r.size, 1.0)


def _list_terms(rows: list[CandidateRow], cands: list[CandidateRow]) -> set[int]:
    """The ``id`` of the ``cands`` (rows opening with a run-in lead, in reading order)
    that are the terms of a description list, not headings: the item's next line hangs
    indented under the term ("Modification Any procedure that ..." over "cable law -
    for example ..."), and the leads next to such a term in the list (the same page and
    left edge, at most ``LIST_ITEM_GAP`` sizes above or below: "Work Any work being
    distributed under this License.", one line long)."""
    index = {id(r): i for i, r in enumerate(rows)}
    hanging = [_hanging(rows, index[id(r)]) for r in cands]
    out: set[int] = set()
    for k, r in enumerate(cands):
        near = [j for j in (k - 1, k + 1) if 0 <= j < len(cands)
                and cands[j].page == r.page and abs(cands[j].x0 - r.x0) <= 1.0
                and abs(cands[j].y0 - r.y0) <= LIST_ITEM_GAP * max(r.size, 1.0)]
        if hanging[k] or any(hanging[j] for j in near):
            out.add(id(r))
    return out


def _label_key(lead: str) -> str:
    """What repeated labels share: the lead's words before a bracket, numbers aside
    ("MODEL ANSWER (CORRECT):", "MODEL ANSWER (INCORRECT):"); headings that share their
    first words go on apart ("Results of C4 backbone.", "Results of FPN backbone.")."""
    words = normalise_title(lead.split("(")[0]).split()
    return " ".join(w for w in words if not w.isdigit())
