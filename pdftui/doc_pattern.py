"""Document patterns: how a person names documents of the folder, one rule everywhere
(the ``doc:`` query field, ``--doc`` of ``pdftui search``, DOC of ``read`` and ``mark``).

The rule (:func:`doc_pattern_matches`): case is ignored, and so is a leading ``./``; a
pattern without a glob character (``*``, ``?``, ``[``) names every document whose path
(relative to the folder) holds it where a word starts: at the path's start, after a
character that is not a letter or digit (``- _ . /`` or a space), or at a letter after a
digit (an arXiv version: ``v7`` names ``…1706.03762v7-….pdf``). So ``raft`` names
``raft-2014-….pdf`` but not ``papermage-2023-08-draft.pdf``, ``attention`` names the two
versions of "Attention Is All You Need" but not ``…-flashattention.pdf``, and a pattern
that starts with such a character (``-draft``, ``.pdf``) is found anywhere. A glob
matches the path or any end of it that starts where a word starts, by the same rule
(``resnet*``, ``arxiv-17*``, ``raft*`` not ``…-draft.pdf``); a glob that starts with ``*``
or ``?`` therefore matches anywhere (``*.pdf``, ``*raft*``).

A filter (``doc:``, ``--doc``) takes every document a pattern names (:func:`match_docs`).
A command acting on one document (:func:`resolve_doc`) takes the document named exactly,
else the only one the pattern names; several are an ambiguity and none is "not found",
each with the message :func:`ambiguity_message` / :func:`no_match_message` words (the
latter names the glob that finds a pattern inside words: ``'*former*' matches 2``).
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
    '/'-separated) by the module's rule: holds it where a word starts, or matches it as a
    glob from any '/' or character onward; case-insensitive. The empty pattern names
    every document."""
    doc_f, pat_f = doc.casefold(), _plain(pattern).casefold()
    if doc_f == pat_f:
        return True
    if not _is_glob(pat_f):
        return _at_word_start(doc_f, pat_f)
    return any(fnmatchcase(doc_f[i:], pat_f) for i in _word_starts(doc_f))


def _is_glob(pattern: str) -> bool:
    return any(c in pattern for c in GLOB_CHARS)


def _word_starts(doc: str) -> list[int]:
    """Offsets in ``doc`` where a word starts: 0, after a character that is not a letter
    or digit, and at a letter after a digit."""
    return [i for i in range(len(doc)) if i == 0 or _starts_word(doc, i)]


def _starts_word(doc: str, i: int) -> bool:
    before = doc[i - 1]
    return not before.isalnum() or (before.isdigit() and doc[i].isalpha())


def _at_word_start(doc: str, pattern: str) -> bool:
    """Does the plain ``pattern`` occur in ``doc`` (both case-folded) where a word starts
    (the path's start, after a character that is not a letter or digit, or a letter after
    a digit)? A pattern that starts with such a character (``-draft``) brings its own
    boundary: anywhere."""
    if not pattern or not pattern[0].isalnum():
        return pattern in doc
    i = doc.find(pattern)
    while i >= 0:
        if i == 0 or _starts_word(doc, i):
            return True
        i = doc.find(pattern, i + 1)
    return False


def match_docs(known: list[str], pattern: str) -> list[str]:
    """The documents of ``known`` (in its order) that ``pattern`` names."""
    return [d for d in known if doc_pattern_matches(d, pattern)]


def resolve_doc(known: list[str], pattern: str) -> str:
    """The one document of ``known`` that ``pattern`` names: the document named exactly
    (case-insensitively, a leading ``./`` ignored) if there is one, else the only match.

    Raises :class:`AmbiguousDocument` (several match) or :class:`NotFound` (none), with
    the message of :func:`ambiguity_message` / :func:`no_match_message`."""
    exact = [d for d in known if d.casefold() == _plain(pattern).casefold()]
    found = exact if len(exact) == 1 else match_docs(known, pattern)
    if len(found) == 1:
        return found[0]
    if found:
        raise AmbiguousDocument(ambiguity_message(pattern, found))
    raise NotFound(no_match_message(pattern, known))


#: Most candidates a message lists; more are counted (``… and 3 more``).
SHOWN = 8


def ambiguity_message(pattern: str, found: list[str], shown: int = SHOWN) -> str:
    """``'attention' matches 4 documents (a.pdf, b.pdf, c.pdf, d.pdf): name one``; past
    ``shown`` candidates the rest are counted (``…, h.pdf and 3 more``)."""
    return f"{pattern!r} matches {len(found)} documents ({_listed(found, shown)}): name one"


def _listed(found: list[str], shown: int) -> str:
    """``a, b, c`` or, past ``shown`` names, ``a, b and 3 more``."""
    head = ", ".join(found[:shown])
    return head + (f" and {len(found) - shown} more" if len(found) > shown else "")


def no_match_message(pattern: str, known: list[str]) -> str:
    """``no indexed document matches 'x' (...)``, then the glob that finds a plain
    pattern inside words when one does (``; '*former*' matches 2: a.pdf, b.pdf``), else
    the closest document name when one is close (``; did you mean 'y.pdf'?``)."""
    head = (f"no indexed document matches {pattern!r} (give the start of a word of its "
            "path, or a glob)")
    inside = _inside_words(pattern, known)
    if inside:
        return head + f"; {inside}"
    close = difflib.get_close_matches(_plain(pattern), known, n=1, cutoff=0.6)
    return head + (f"; did you mean {close[0]!r}?" if close else "")


def _inside_words(pattern: str, known: list[str], shown: int = SHOWN) -> str:
    """``'*former*' matches 2: a.pdf, b.pdf`` when the plain ``pattern`` is found only
    inside words of ``known`` names; '' for a glob or when it is nowhere."""
    pattern = _plain(pattern)
    if not pattern or _is_glob(pattern):
        return ""
    glob = f"*{pattern}*"
    found = match_docs(known, glob)
    if not found:
        return ""
    return f"{glob!r} matches {len(found)}: {_listed(found, shown)}"
