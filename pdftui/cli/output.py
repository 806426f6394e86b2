"""What the commands print besides their answers: errors (one line on stderr, and the JSON
error object on stdout when the command was asked for JSON), JSON lines, and text cut to
a width.

Exit codes: 0 success, 1 runtime failure, 2 bad input (:data:`BAD_INPUT`).
"""

from __future__ import annotations

import json
import os
import sys

import click

from ..text import clean_text


JSON_KEY = "pdftui.json"


#: Error kinds that are bad input (exit code 2); the others are runtime failures (1).
BAD_INPUT = {"usage", "folder", "cache", "not_found", "ambiguous", "query"}


def asks_json(args: list[str]) -> bool:
    """True when the command line ``args`` (the command's name first) asks for JSON on
    stdout: ``--json``, or ``export --format json`` (before a ``--`` that ends options)."""
    opts = args[:args.index("--")] if "--" in args else args
    if "--json" in opts:
        return True
    return bool(opts) and opts[0] == "export" and any(
        a in ("--format=json",) or (a == "--format" and nxt == "json")
        for a, nxt in zip(opts, [*opts[1:], ""]))


def json_error(kind: str, message: str) -> None:
    """Print ``{"error": {"kind": kind, "message": message}}`` on stdout when the command
    was asked for JSON (:func:`asks_json`); else nothing."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.meta.get(JSON_KEY):
        click.echo(dumps({"error": {"kind": kind, "message": clean_text(message)}}))


def utf8_stream(stream) -> bool:
    """True when ``stream`` encodes UTF-8 (so any text can be written to it)."""
    enc = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    return enc in ("utf8", "utf8sig")


def dumps(obj) -> str:
    """``obj`` as one JSON line: UTF-8 text when stdout takes it, else ASCII escapes
    (``\\u00e9``), so --json is exact and safe on any terminal."""
    return json.dumps(obj, ensure_ascii=not utf8_stream(sys.stdout))


def fail(msg: str, code: int = 2, kind: str = "usage") -> None:
    """Say ``msg`` on stderr (and, when JSON was asked for, as ``{"error": {"kind": kind,
    "message": msg}}`` on stdout) and exit with ``code`` (2 bad input, 1 failure)."""
    click.echo(f"pdftui: {clean_text(msg)}", err=True)
    json_error(kind, msg)
    sys.exit(code)


def shorten(s: str, n: int, pattern=None) -> str:
    """``s`` cut to about ``n`` characters at a word boundary, with an ellipsis. When the
    first match of ``pattern`` (the query's words, :func:`.tui.render.terms_pattern`)
    would fall past the cut, the shown text starts at the sentence holding it ("… We
    adopt batch normalization ..."), so the part of a long excerpt that matched shows."""
    if len(s) <= n:
        return s
    m = pattern.search(s) if pattern is not None else None
    if m is not None and m.end() > n - 40:
        start = max(s.rfind(". ", 0, m.start()) + 2, 0)
        if m.start() - start > n // 2:   # a long sentence: from a few words before it
            start = max(s.rfind(" ", 0, max(m.start() - 60, 0)) + 1, 0)
        return "… " + shorten(s[start:], n - 2)
    cut = s.rfind(" ", 0, n)
    return s[: cut if cut > n // 2 else n] + " …"


def to_terminal() -> bool:
    """Does the command's output go to a terminal: stdout is one, or the background
    service answers for a client whose stdout is one (``PDFTUI_TTY=1``,
    :func:`pdftui.warm.client.request`)?"""
    if os.environ.get("PDFTUI_TTY") == "1":
        return True
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False
