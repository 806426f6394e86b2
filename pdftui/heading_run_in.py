"""Run-in headings: a bold or italic lead-in opening a paragraph ("Residual Dropout. We
apply dropout ...", "Distributed Grep: The map function ...").

A candidate row of the heading detector (:class:`~pdftui.heading_rows.CandidateRow`) carries
its styled lead in ``lead``; :func:`run_in_heads` keeps the leads that read as headings:
opening a paragraph, capitalised, short, closed by a stop or colon or followed by a new
sentence, with a sentence after them (a table's header row, "Model MNLI-m/mm SQuAD v1.1",
has none), not a theorem, caption or algorithm label, not a reference's journal title in
italics, and in a style that opens two paragraphs or more of the document (one bold
phrase is emphasis) unless it is an abstract's "Abstract.", and not a label repeated
``RUN_IN_REPEATS`` times.

Units: ``y`` in PDF points from the top of the page.
"""

from __future__ import annotations

import re
from collections import Counter

from pdftui.heading_rows import CandidateRow
from pdftui.heading_text import normalise_title

__all__ = ["RUN_IN_MAX_WORDS", "RUN_IN_REPEATS", "is_run_in_lead", "run_in_heads"]

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
#: a word of lower-case letters (two or more): what a sentence after the lead is made of
_LOWER_WORD = re.compile(r"(?<![\w-])[a-z]{2,}(?![\w-])")
#: the abstract's own lead ("Abstract." opening the first paragraph)
_ABSTRACT = re.compile(r"^(abstract|summary)$")
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


def _closed(lead: str, rest: str) -> bool:
    """The lead ends as a heading does: with a stop, colon or dash, or a new sentence
    starts after it ("Residual Dropout" | "We apply ..."); not a phrase the sentence goes
    on from ("Map" | ", written by the user")."""
    if lead.rstrip()[-1:] in ".:—–":
        return True
    r = rest.lstrip()
    return bool(rest[:1].isspace() or lead.endswith(" ")) and r[:1].isupper()


def full_lead(row: CandidateRow) -> str:
    """The row's lead with a citation or stop that closes it ("Mixed Precision
    (Micikevicius et al., 2017):"), else the lead as it is; '' when the row does not open
    with it."""
    lead = row.lead.strip()
    if not lead or not row.text.startswith(lead):
        return ""
    cited = _CITED.match(row.text[len(lead):])
    return lead + cited.group(0) if cited else lead


def is_run_in_lead(row: CandidateRow, after: str = "") -> bool:
    """Whether ``row``'s lead (:func:`full_lead`) reads as a run-in heading by its text:
    capitalised, at most ``RUN_IN_MAX_WORDS`` words, not a label (:data:`_LABEL`, "Phase
    1."), no year in it (a reference's authors), not ending on "of" or "and", closed (:func:`_closed`) and followed by a
    sentence (``SENTENCE_WORDS`` lower-case words in the rest of the row and ``after``,
    the text of the block's next row). The row opens a paragraph: it is its block's
    first."""
    lead = full_lead(row)
    if not lead or not row.first_in_block:
        return False
    rest = row.text[len(lead):]
    words = lead.split()
    if not lead[:1].isupper() or len(words) > RUN_IN_MAX_WORDS or _LABEL.match(lead) \
            or _WORD_NUMBER.match(lead) or _YEAR.search(row.lead):
        return False
    if sum(c.isalpha() for c in lead) < 3 or _OPEN_END.search(lead) \
            or not _closed(lead + (" " if row.lead.endswith(" ") else ""), rest):
        return False
    return len(_LOWER_WORD.findall(f"{rest} {after}")) >= SENTENCE_WORDS


def run_in_heads(rows: list[CandidateRow]) -> list[CandidateRow]:
    """The rows of ``rows`` (a document's candidate rows, in reading order) opening with a
    run-in heading: :func:`is_run_in_lead`, not hard-rejected (a caption, running head,
    math, an author list), when two rows of the document or more open so (one bold
    phrase is emphasis) or the lead is "Abstract."; a lead opening ``RUN_IN_REPEATS``
    rows or more (its words before a bracket, or its first two) labels them and is
    left out."""
    cands = []
    for i, r in enumerate(rows):
        if r.rejected or r.contents_page or not r.lead:
            continue
        nxt = rows[i + 1] if i + 1 < len(rows) else None
        after = nxt.text if nxt is not None and nxt.page == r.page and nxt.block == r.block \
            else ""
        if is_run_in_lead(r, after):
            cands.append(r)
    per_key = Counter(_label_key(r) for r in cands)
    return [r for r in cands if per_key[_label_key(r)] < RUN_IN_REPEATS
            and (len(cands) >= 2 or _ABSTRACT.match(normalise_title(r.lead)))]


def _label_key(row: CandidateRow) -> str:
    """What repeated labels share: the lead's words before a bracket, or its first two
    ("MODEL ANSWER (CORRECT):", "MODEL ANSWER (INCORRECT):")."""
    words = normalise_title(full_lead(row).split("(")[0]).split()
    return " ".join(words[:2])
