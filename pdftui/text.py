"""Making untrusted PDF text safe to show in a terminal.

PDF text, metadata, outline titles and file names are untrusted: they may hold ANSI escape
sequences, NUL and other control characters, or markup-like brackets. :func:`clean_text`
removes escape sequences and control characters; callers never pass PDF text to a markup
parser (the TUI and CLI build ``rich.text.Text`` objects, which are literal).
"""

from __future__ import annotations

import re


# CSI / OSC / other ESC sequences (ECMA-48), then any remaining C0/C1 control or bidi override.
_ESC_RE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")
_CTRL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_MARKS_RE = re.compile(r"([\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]{3})"
                       r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")


def clean_text(s: str, keep_newlines: bool = False) -> str:
    """``s`` without terminal escape sequences, control characters or bidi overrides.

    Tabs become spaces; newlines are kept when ``keep_newlines`` else become spaces;
    stacks of more than 3 combining marks are cut to 3 (so "Zalgo" text cannot smear
    over neighbouring lines). Never raises; ``None`` gives ''.
    """
    if not s:
        return ""
    s = _ESC_RE.sub("", s)
    s = s.replace("\t", " ").replace("\r\n", "\n").replace("\r", "\n")
    if not keep_newlines:
        s = s.replace("\n", " ")
    s = _CTRL_RE.sub("", s)
    s = _MARKS_RE.sub(r"\1", s)
    return s


