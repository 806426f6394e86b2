"""Making untrusted PDF text safe to show in a terminal.

PDF text, metadata, outline titles and file names are untrusted: they may hold ANSI escape
sequences, NUL and other control characters, bidi overrides, or markup-like brackets.
:func:`strip_control` removes escape sequences and control characters; :func:`clean_text` is
the one-line display form. Callers never pass PDF text to a markup parser (the TUI and CLI
build ``rich.text.Text`` objects, which are literal).
"""

from __future__ import annotations

import re

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), other 2-byte ESC sequences, 8-bit CSI.
_ANSI_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
# C0 (minus \t \n), DEL, C1, plus bidi overrides/isolates that can reorder terminal output.
_CTRL_CHARS = "".join(chr(c) for c in range(0x00, 0x20) if c not in (0x09, 0x0A)) + "\x7f" + "".join(
    chr(c) for c in range(0x80, 0xA0)
) + "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_CTRL_RE = re.compile("[" + re.escape(_CTRL_CHARS) + "]")
_CTRL_NO_TAB_NL_RE = re.compile("[" + re.escape(_CTRL_CHARS + "\t\n") + "]")


def strip_control(s: str, *, keep_newlines: bool = True, keep_tabs: bool = True) -> str:
    """Make untrusted text safe to print in a terminal.

    Removes ANSI/VT escape sequences (CSI, OSC, DCS/PM/APC, 2-byte ESC, 8-bit CSI), then
    every C0/C1 control character, DEL and NUL, and the Unicode bidi override/isolate
    characters (U+202A-202E, U+2066-2069) that could visually reorder a terminal line.
    ``\\n`` and ``\\t`` are kept unless ``keep_newlines``/``keep_tabs`` is false, in which
    case they become a single space. Never raises for a ``str``; returns a new string.
    """
    if not s:
        return s
    s = _ANSI_RE.sub("", s)
    if keep_newlines and keep_tabs:
        return _CTRL_RE.sub("", s)
    if not keep_newlines:
        s = s.replace("\r\n", " ").replace("\n", " ")
    if not keep_tabs:
        s = s.replace("\t", " ")
    return _CTRL_NO_TAB_NL_RE.sub("", s) if not (keep_newlines or keep_tabs) else _CTRL_RE.sub("", s)


_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_MARKS_RE = re.compile(f"([{_MARKS}]{{3}})[{_MARKS}]+")


#: Variation selectors 15 and 16 (text / emoji presentation): terminals disagree on the
#: width they add (tmux counts U+FE0F as 0, others as 1), which shifts table columns.
_VS_RE = re.compile("[\ufe0e\ufe0f]")


def clean_text(s: str | None, keep_newlines: bool = False) -> str:
    """``s`` for display: :func:`strip_control`, tabs as spaces, newlines as spaces unless
    ``keep_newlines``, stacks of more than 3 combining marks cut to 3 (so "Zalgo" text
    cannot smear over neighbouring lines), and the emoji variation selectors U+FE0E and
    U+FE0F removed (they make terminals disagree on a cell's width). Never raises;
    ``None`` gives ''.
    """
    if not s:
        return ""
    if s.isascii() and s.isprintable():   # nothing to remove (most titles and names)
        return s
    s = _VS_RE.sub("", s)
    s = s.replace("\r\n", "\n").replace("\r", "\n")
    s = strip_control(s, keep_newlines=keep_newlines, keep_tabs=False)
    return _MARKS_RE.sub(r"\1", s)


#: Longest title (document or outline entry) kept from a PDF, in characters.
MAX_TITLE_CHARS = 300
#: Longest single note kept on a document, and most notes kept.
MAX_NOTE_CHARS = 300
MAX_NOTES = 40


def clip(s: str | None, limit: int) -> str:
    """``s`` cut to at most ``limit`` characters (the last one an ellipsis when cut);
    None gives ''. Used on every string taken from a PDF that is not page text, so that no
    single title, label or note can grow the index or the screen without bound."""
    if not s:
        return ""
    if len(s) <= limit:
        return s
    return s[: max(0, limit - 1)].rstrip() + "…"
