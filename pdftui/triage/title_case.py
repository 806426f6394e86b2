"""Titles for BibTeX: title case, with the words whose case must survive protected in
braces (acronyms, names with inner capitals, proper nouns), so a bibliography style that
lowercases titles leaves ``{BERT}`` and ``{Amazon}`` as they are.

Title case as the Chicago Manual has it (every word capitalised but articles, short
conjunctions and prepositions, unless first or after a colon). Which words keep their
case is read from the paper itself (its first pages, :func:`word_forms`): a title set in
capitals ("AN IMAGE IS WORTH 16X16 WORDS") takes each word as the text writes it
("Transformers", "DeBERTa", "image"), and a capitalised word the text never writes in
lower case ("Amazon", "Bitcoin") is a proper noun.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

#: Words written in lower case inside a title-cased title.
SMALL_WORDS = frozenset("a an the and but or nor as at by for in of off on per to up via "
                        "vs vs. with from into onto over than".split())
#: A word (letters and digits of any script, an inner apostrophe), a space run, or one
#: other character.
_TOKEN_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|\s+|[\W_]")
_WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
#: A capitalised word after a word in lower case: a name inside a sentence ("of Amazon").
_MID_RE = re.compile(r"(?<![\w'’])[a-z]+,?\s+([A-Z][a-z]+)\b")
#: The second of two names joined by a dash inside a sentence ("the Johnson–Lindenstrauss
#: lemma"), a name as much as the first.
_MID_JOINED_RE = re.compile(r"(?<![\w'’])[a-z]+,?\s+[A-Z][a-z]+[-‐–—]([A-Z][a-z]+)\b")
#: Mail and web addresses, whose lower-case host names ("research.google.com") say
#: nothing of how the text writes a name.
_ADDRESS_RE = re.compile(r"\S+@\S+|(?:https?://|www\.)\S+|"
                         r"\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|edu|io|ai|gov)\b\S*", re.I)
_POSSESSIVE_RE = re.compile(r"['’]s$")


@dataclass
class WordForms:
    """The spellings of the words of a text: ``all`` counts each word as written;
    ``mid`` the capitalised words written after a word in lower case (inside a
    sentence, so capitalised for being names); ``without`` the title left out of them."""

    all: Counter = field(default_factory=Counter)
    mid: Counter = field(default_factory=Counter)
    #: The title whose occurrences were left out of the text counted ("": none).
    without: str = ""
    _folded: dict[str, dict[str, int]] | None = field(default=None, repr=False,
                                                      compare=False)

    def spellings(self, word: str) -> dict[str, int]:
        """``{form: count}`` of the spellings of ``word`` in ``all`` (any case; counts
        may be 0 or less where the title's own were taken out), indexed at the first
        call: a title's words looked up one by one had scanned every form each time."""
        if self._folded is None:
            self._folded = {}
            for form, n in self.all.items():
                self._folded.setdefault(form.casefold(), {})[form] = n
        return self._folded.get(word.casefold(), {})


def word_forms(text: str, title: str = "") -> WordForms:
    """:class:`WordForms` of ``text`` (a paper's first pages) without the occurrences of
    ``title`` in it (any case and spacing: its title line and running heads, whose
    capitals say nothing of how the text writes a word)."""
    text = _ADDRESS_RE.sub(" ", text or "")
    words = _WORD_RE.findall(title or "")
    if len(words) >= 2:
        pattern = r"[\W_]+".join(re.sub("['’]", "['’]", re.escape(w)) for w in words)
        text = re.sub(pattern, " ", text, flags=re.I)
    mid = Counter(_MID_RE.findall(text))
    mid.update(_MID_JOINED_RE.findall(text))
    return WordForms(Counter(_WORD_RE.findall(text)), mid, title if len(words) >= 2 else "")


def caps_title(title: str) -> bool:
    """Is ``title`` set in capitals (at least 4 Latin letters, 80% of them capitals)?"""
    letters = [c for c in title if c.isalpha() and c.isascii()]
    return len(letters) >= 4 and sum(c.isupper() for c in letters) / len(letters) >= 0.8


def _as_written(word: str, forms: WordForms) -> str | None:
    """The spelling the text uses most for ``word``, None when the text has it nowhere
    (``forms`` are :func:`word_forms` of the text, the title's own lines already left
    out: subtracting the title's words again had hidden a word the text writes once)."""
    seen = {f: n for f, n in forms.spellings(word).items() if n > 0}
    return max(seen, key=lambda f: (seen[f], f)) if seen else None


def _inner_caps(word: str) -> bool:
    """An acronym or a name with capitals inside (BERT, FlashAttention, LLMs, E5)."""
    return any(c.isupper() for c in word[1:]) or (len(word) > 1 and word.isupper())


def title_case(title: str, forms: WordForms | None = None,
               escape: Callable[[str], str] = lambda s: s) -> str:
    """``title`` in title case for a BibTeX ``title`` field, each word whose case must
    stay as written (see the module docstring) in braces: ``{BERT}``, ``{Amazon}``.
    ``forms``: :func:`word_forms` of the paper's first pages (None: only the title's own
    spelling is known). ``escape`` is applied to every piece of text (the BibTeX
    escaping), never to the braces added here."""
    forms = forms or WordForms()
    caps = caps_title(title)
    if forms.without != title:   # the text counted with the title's own lines in it
        in_title = word_forms(title).all
        forms = WordForms(Counter({f: n - in_title.get(f, 0) for f, n in forms.all.items()}),
                          forms.mid, title)
    tokens = _join_tokens(_TOKEN_RE.findall(title), forms.all)
    words = [i for i, t in enumerate(tokens) if _WORD_RE.fullmatch(t)]
    out: list[str] = []
    start = True   # the first word, or the first after a colon
    lead = _lead_word(tokens)
    sentence = not caps and _sentence_case(tokens)
    named = _one_name(tokens, forms)
    for i, tok in enumerate(tokens):
        if _FILE_NAME_RE.fullmatch(tok):
            out.append("{" + escape(tok) + "}")    # fancybox.sty: as written
            start = False
            continue
        if not _WORD_RE.fullmatch(tok):
            out.append(escape(tok))
            if ":" in tok or "?" in tok or "!" in tok or "—" in tok:
                start = True
            continue
        last = i == words[-1]
        if i in named:
            out.append("{" + escape(tok) + "}")    # Big Bird, which the text writes BigBird
        elif sentence and not start and _capitalised(tok):
            out.append("{" + escape(tok) + "}")    # a name in a sentence-case title
        else:
            out.append(_word(tok, caps, start, last, i == lead, forms, escape))
        start = False
    return "".join(out)


def _one_name(tokens: list[str], forms: WordForms) -> set[int]:
    """The indices of capitalised words that the text writes as one name with the next
    or the previous word, with capitals inside it ("Big Bird" as "BigBird" or "BIGBIRD"):
    a style that lowercases titles must leave them as they are."""
    out: set[int] = set()
    for i in range(len(tokens) - 2):
        a, gap, b = tokens[i], tokens[i + 1], tokens[i + 2]
        if gap != " " or not (_capitalised(a) and _capitalised(b)) \
                or not (a.isalpha() and b.isalpha()):
            continue
        if any(n > 0 and _inner_caps(f) for f, n in forms.spellings(a + b).items()):
            out |= {i, i + 2}
    return out


#: Words joined by dots with no space between: a file or package name ("fancybox.sty").
_FILE_NAME_RE = re.compile(r"[^\W_]+(?:\.[^\W_]+)+")
#: Sizes written with an "x" between numbers ("16x16", "224x224").
_DIMENSION_RE = re.compile(r"\d+[xX]\d+")
#: The TeX family's logos, which text extraction reads as capitals (the raised "A" and
#: lowered "E" are set apart): "LATEX" is LaTeX.
_LOGOS = {w.upper(): w for w in ("TeX", "LaTeX", "BibTeX", "XeTeX", "LuaTeX", "ConTeXt",
                                 "AMS-TeX", "XeLaTeX", "LuaLaTeX", "pdfTeX", "pdfLaTeX")}


def _join_tokens(tokens: list[str], forms: Counter) -> list[str]:
    """The title's tokens with a file name made one token ("fancybox" "." "sty") and a
    word broken over a title's two lines rejoined where the text writes it whole
    ("DIS" "-" "ENTANGLED" when the paper writes "disentangled")."""
    known = {f.casefold() for f, n in forms.items() if n > 0}
    out: list[str] = []
    for tok in tokens:
        if len(out) >= 2 and out[-1] == "." and _WORD_RE.fullmatch(tok) and \
                (_WORD_RE.fullmatch(out[-2]) or _FILE_NAME_RE.fullmatch(out[-2])) and \
                tok.islower() and out[-2].split(".")[0].islower():
            out[-2:] = [out[-2] + "." + tok]
        elif len(out) >= 2 and out[-1] == "-" and _WORD_RE.fullmatch(tok) and \
                _WORD_RE.fullmatch(out[-2]) and (out[-2] + tok).casefold() in known and \
                out[-2].casefold() not in known | SMALL_WORDS:
            out[-2:] = [out[-2] + tok]
        else:
            out.append(tok)
    return out


def _capitalised(word: str) -> bool:
    """A word with a capital first letter and the rest in lower case ("Malawi")."""
    return word[:1].isupper() and word[1:].islower() and word.isalpha()


def _sentence_case(tokens: list[str]) -> bool:
    """Is the title in sentence case ("Iron deficiency anaemia can be improved after
    eradication of Helicobacter pylori")? Its words after the first (and after a colon),
    small words, one-letter words, acronyms and the second halves of hyphenated words
    left out: at least two in lower case and no fewer than are capitalised. Then a
    capitalised word there is a name (Helicobacter, Malawi, "Extensions of Lipschitz
    mappings into a Hilbert space") and keeps its case."""
    lower = upper = 0
    start, prev = True, ""
    for tok in tokens:
        if not _WORD_RE.fullmatch(tok):
            start = start or any(c in tok for c in ":?!—")
            prev = tok
            continue
        if not start and prev != "-" and len(tok) > 1 and tok.casefold() not in SMALL_WORDS:
            lower += tok.islower()
            upper += _capitalised(tok)
        start, prev = False, tok
    return lower >= 2 and upper <= lower


def _lead_word(tokens: list[str]) -> int:
    """The index of a lone word before the first colon ("DEBERTA: ..."), the system's
    name; -1 when the title does not start so."""
    words = [i for i, t in enumerate(tokens) if _WORD_RE.fullmatch(t)]
    if len(words) >= 2 and ":" in "".join(tokens[words[0] + 1:words[1]]):
        return words[0]
    return -1


def _word(tok: str, caps: bool, start: bool, last: bool, lead: bool, wf: WordForms,
          escape) -> str:
    """One word of the title, cased and protected."""
    letters = re.sub("['’]", "", tok)   # Developer's, O'Connell are words
    written = _as_written(tok, wf)
    base = _POSSESSIVE_RE.sub("", tok)
    logo = _LOGOS.get(base.upper())
    if logo is not None and (base.isupper() or base == logo):
        return "{" + escape(logo + tok[len(base):]) + "}"   # LATEX -> {LaTeX}
    if caps and any(c.isdigit() for c in tok) and not tok.isdigit():
        if written is None and _DIMENSION_RE.fullmatch(tok):
            written = tok.lower()                  # 16X16 is 16x16
        if written is not None:
            return "{" + escape(written) + "}"     # as the text writes it
    if not letters.isascii() or not letters.isalpha() and not tok.isdigit() and \
            any(c.isdigit() for c in tok) and not caps:
        return "{" + escape(tok) + "}"             # wav2vec, E5, non-Latin words as written
    if not letters.isalpha():
        return "{" + escape(tok) + "}" if any(c.isupper() for c in tok) else escape(tok)
    if caps:
        if tok.isupper() and written is not None and (_inner_caps(written)
                                                      or written.isupper()):
            return "{" + escape(written) + "}"     # DeBERTa, BERT as the text has them
        if lead or (tok.islower() and len(tok) > 1):
            return "{" + escape(tok) + "}"         # CTRL:, "mixup" in a caps title
        word = tok.lower()
    else:
        if _inner_caps(tok):
            return "{" + escape(tok) + "}"
        if tok[0].isupper() and wf.mid.get(base, 0) >= 2 \
                and not any(f.islower() for f in wf.spellings(base)):
            return "{" + escape(tok) + "}"         # a proper noun: Amazon, Bitcoin
        word = tok
    if word.casefold() in SMALL_WORDS and not start and not last:
        return escape(word.lower())
    return escape(word[0].upper() + word[1:])
