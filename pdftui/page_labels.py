"""Printed page labels ("iii", "A-2", "17") computed from a PDF's /PageLabels rules.

PyMuPDF's ``Page.get_label`` builds a roman numeral or letter label by repeating a letter
once per thousand (or per 26), so a hostile ``/St 99999999999`` makes it build a
100-million-character string for every page. Here the length of a label is known before
it is built, and a label longer than :data:`MAX_LABEL_CHARS` falls back to the page number.

Numbering styles follow ISO 32000-1, 12.4.2 (Table 159): ``D`` decimal, ``R`` / ``r``
upper / lower roman, ``A`` / ``a`` letters (A..Z for the first 26 pages, AA..ZZ for the
next 26, and so on), none: the prefix alone.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Longest label kept; a longer one (hostile start value, huge prefix) becomes the page number.
MAX_LABEL_CHARS = 32

_ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
          (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))


@dataclass(frozen=True, slots=True)
class LabelRule:
    """One /PageLabels range: from 0-based page ``start`` on, labels are ``prefix`` plus
    the number ``first`` (then ``first + 1`` ...) in ``style`` ("D", "R", "r", "A", "a", "")."""

    start: int
    style: str
    prefix: str
    first: int


def _roman(n: int) -> str | None:
    """``n`` as an upper-case roman numeral (thousands as repeated M), or None when that
    would be longer than :data:`MAX_LABEL_CHARS` or ``n`` < 1."""
    if n < 1 or n // 1000 > MAX_LABEL_CHARS:
        return None
    out = []
    for value, letters in _ROMAN:
        k, n = divmod(n, value)
        out.append(letters * k)
    return "".join(out)


def _letters(n: int) -> str | None:
    """``n`` in the PDF letter style (1 -> A, 26 -> Z, 27 -> AA, 53 -> AAA), or None when
    longer than :data:`MAX_LABEL_CHARS` or ``n`` < 1."""
    if n < 1:
        return None
    reps = (n - 1) // 26 + 1
    if reps > MAX_LABEL_CHARS:
        return None
    return chr(ord("A") + (n - 1) % 26) * reps


def number_text(style: str, n: int) -> str | None:
    """The number part of a label, or None when it cannot be shown in
    :data:`MAX_LABEL_CHARS` characters (a decimal never overflows: 11 digits fit)."""
    if style == "D":
        return str(n) if len(str(abs(n))) <= MAX_LABEL_CHARS else None
    if style in ("R", "r"):
        s = _roman(n)
        return s.lower() if s is not None and style == "r" else s
    if style in ("A", "a"):
        s = _letters(n)
        return s.lower() if s is not None and style == "a" else s
    return ""


def page_labels(rules: list[LabelRule], page_count: int) -> list[str]:
    """One label per page (index 0 = page 1); '' for every page when there are no rules.

    A page before the first rule, or whose label would be longer than
    :data:`MAX_LABEL_CHARS` (or empty), is labelled with its 1-based page number. Time and
    memory are O(pages x MAX_LABEL_CHARS) whatever the rules say.
    """
    if not rules:
        return [""] * page_count
    rules = sorted((r for r in rules if 0 <= r.start < page_count), key=lambda r: r.start)
    out: list[str] = []
    k = -1
    for i in range(page_count):
        while k + 1 < len(rules) and rules[k + 1].start <= i:
            k += 1
        if k < 0:
            out.append(str(i + 1))
            continue
        r = rules[k]
        num = number_text(r.style, r.first + i - r.start)
        label = None if num is None else r.prefix + num
        out.append(label if label and len(label) <= MAX_LABEL_CHARS else str(i + 1))
    return out


def rules_from_pymupdf(raw: list[dict]) -> list[LabelRule]:
    """:class:`LabelRule` s from ``pymupdf.Document.get_page_labels()`` dicts (keys
    startpage, style, prefix, firstpagenum); malformed entries are dropped."""
    rules = []
    for d in raw or []:
        try:
            start = int(d.get("startpage", 0))
            first = int(d.get("firstpagenum", 1))
            style = str(d.get("style") or "")
            prefix = str(d.get("prefix") or "")
        except (TypeError, ValueError, AttributeError):
            continue
        # a prefix longer than a label can be is not kept whole (and not copied at all)
        rules.append(LabelRule(start, style if style in ("D", "R", "r", "A", "a") else "",
                               prefix[: MAX_LABEL_CHARS + 1], first))
    return rules
