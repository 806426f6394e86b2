"""Keys typed while pdftui starts, kept for the search box.

The image view's library asks the terminal about its graphics when it is imported, before
the app runs, and reads the answer from the terminal's input: the letters a user had
already typed ("rotary position" typed as the app opened showed "ry position") were read
and lost with it. :func:`save` reads them first; the main screen types them into the
search box once it is up (:func:`take`), and an Enter typed after it searches. Only text
and that Enter are kept: escape sequences (arrows) and control characters typed that early
are dropped.
"""

from __future__ import annotations

import os
import re
import select
import sys

#: An escape sequence: CSI (``ESC [`` ... final byte), SS3 (``ESC O`` x) or ``ESC`` x.
_ESCAPE_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|.)?", re.S)

_pending = ""
_enter = False


def save() -> None:
    """Read what the terminal holds typed but unread (without waiting, without echo)
    and keep its text for :func:`take`, up to an Enter (kept as such: the query typed
    and entered while the app started is searched). Nothing happens when stdin is not a
    terminal."""
    global _pending, _enter
    data = _read_pending()
    line, enter, _rest = data.replace(b"\n", b"\r").partition(b"\r")
    if not _enter:
        _pending += clean(line)
        _enter = bool(enter)


def take() -> tuple[str, bool]:
    """``(text, entered)`` that :func:`save` kept (``("", False)`` when none), once: a
    second call returns ``("", False)``."""
    global _pending, _enter
    out, _pending, _enter = (_pending, _enter), "", False
    return out


def clean(data: bytes) -> str:
    """``data`` (bytes typed at a terminal) as text: UTF-8, escape sequences and control
    characters dropped."""
    text = _ESCAPE_RE.sub("", data.decode("utf-8", "replace"))
    return "".join(ch for ch in text if ch.isprintable())


def _read_pending() -> bytes:
    stream = sys.stdin
    try:
        if stream is None or not stream.isatty():
            return b""
        fd = stream.fileno()
        import termios

        old = termios.tcgetattr(fd)
    except (OSError, ValueError, ImportError, AttributeError):
        return b""
    new = list(old)
    new[3] &= ~(termios.ICANON | termios.ECHO)   # what is typed, line or not, no echo
    new[6] = list(old[6])
    new[6][termios.VMIN], new[6][termios.VTIME] = 0, 0
    data = b""
    try:
        termios.tcsetattr(fd, termios.TCSANOW, new)   # TCSANOW: nothing flushed
        while len(data) < 4096 and select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 1024)
            if not chunk:
                break
            data += chunk
    except (OSError, termios.error):
        pass
    finally:
        try:
            termios.tcsetattr(fd, termios.TCSANOW, old)
        except (OSError, termios.error):
            pass
    return data
