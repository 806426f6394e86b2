"""Document patterns: how a person names documents of the folder, one rule everywhere
(the ``doc:`` query field, ``--doc`` of ``pdftui search``, DOC of ``read`` and ``mark``).

The rule (:func:`doc_pattern_matches`): case is ignored, and so is a leading ``./``; a
pattern without a glob character (``*``, ``?``, ``[``) names every document whose path
(relative to the folder) contains it (``attention`` names four papers of the corpus); a
glob matches the path or any end of it (``resnet*``, ``arxiv-17*``, ``*.pdf``).

A filter (``doc:``, ``--doc``) takes every document a pattern names (:func:`match_docs`).
A command acting on one document (:func:`resolve_doc`) takes the document named exactly,
else the only one the pattern names, else the only one holding a plain pattern at the
start of a word (``raft`` names ``raft-2014-….pdf`` and ``papermage-2023-08-draft.pdf``;
``mark raft keep`` marks the first); several are an ambiguity and none is "not found",
each with the message :func:`ambiguity_message` / :func:`no_match_message` words.
"""

from __future__ import annotations

import difflib
from fnmatch import fnmatchcase

from .errors import NotFound

GLOB_CHARS = "*?["


class AmbiguousDocument(NotFound):
    """A pattern that was to name one document names several."""

    kind = "ambiguous"


def _plain(pattern: str) -> str:
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return pattern


def doc_pattern_matches(doc: str, pattern: str) -> bool:
    """True when ``pattern`` names the document ``doc`` (its path relative to the folder,
    '/'-separated) by the module's rule: contains it, or matches it as a glob from any
    '/' or character onward; case-insensitive. The empty pattern names every document."""
    pattern = _plain(pattern)
    if doc == pattern:
        return True
    doc_f, pat_f = doc.casefold(), pattern.casefold()
    if not any(c in pat_f for c in GLOB_CHARS):
        return pat_f in doc_f
    return fnmatchcase(doc_f, pat_f) or fnmatchcase(doc_f, "*" + pat_f)


def _at_word_start(doc: str, pattern: str) -> bool:
    """Does the plain ``pattern`` occur in ``doc`` (both case-folded) where a word starts
    (the path's start, or after a character that is not a letter or digit)?"""
    i = doc.find(pattern)
    while i >= 0:
        if i == 0 or not doc[i - 1].isalnum():
            return True
        i = doc.find(pattern, i + 1)
    return False


def match_docs(known: list[str], pattern: str) -> list[str]:
    """The documents of ``known`` (in its order) that ``pattern`` names."""
    return [d for d in known if doc_pattern_matches(d, pattern)]


def _word_start_only(found: list[str], pattern: str) -> list[str]:
    """Of ``found``, those holding the plain ``pattern`` at a word start (all of them for
    a glob, or when none does)."""
    pat_f = _plain(pattern).casefold()
    if not pat_f or any(c in pat_f for c in GLOB_CHARS):
        return found
    return [d for d in found if _at_word_start(d.casefold(), pat_f)] or found


def resolve_doc(known: list[str], pattern: str) -> str:
    """The one document of ``known`` that ``pattern`` names: the document named exactly
    (case-insensitively, a leading ``./`` ignored) if there is one, else the only match,
    else the only match holding a plain pattern at the start of a word.

    Raises :class:`AmbiguousDocument` (several match) or :class:`NotFound` (none), with
    the message of :func:`ambiguity_message` / :func:`no_match_message`."""
    exact = [d for d in known if d.casefold() == _plain(pattern).casefold()]
    found = exact if len(exact) == 1 else match_docs(known, pattern)
    if len(found) > 1 and len(_word_start_only(found, pattern)) == 1:
        found = _word_start_only(found, pattern)
    if len(found) == 1:
        return found[0]
    if found:
        raise AmbiguousDocument(ambiguity_message(pattern, found))
    raise NotFound(no_match_message(pattern, known))


def ambiguity_message(pattern: str, found: list[str], shown: int = 3) -> str:
    """``'attention' matches 4 documents (a.pdf, b.pdf, c.pdf, …): name one``."""
    more = ", …" if len(found) > shown else ""
    return (f"{pattern!r} matches {len(found)} documents ({', '.join(found[:shown])}{more}):"
            " name one")


def no_match_message(pattern: str, known: list[str]) -> str:
    """``no indexed document matches 'x' (...)``, with the closest document name when one
    is close (``; did you mean 'y.pdf'?``)."""
    close = difflib.get_close_matches(_plain(pattern), known, n=1, cutoff=0.6)
    return (f"no indexed document matches {pattern!r} (give a part of its path, or a glob)"
            + (f"; did you mean {close[0]!r}?" if close else ""))
