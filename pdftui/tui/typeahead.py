"""Keys typed while pdftui starts, kept for the search box.

The image view's library asks the terminal about its graphics when it is imported, before
the app runs, and reads the answer from the terminal's input: the letters a user had
already typed ("rotary position" typed as the app opened showed "ry position") were read
and lost with it. :func:`save` reads them first; the main screen types them into the
search box once it is up (:func:`take`); an Enter typed after it and the keys after that
are replayed as keys (the query searched, then "Down Down Enter" acting on its answer).
Escape sequences and control characters typed before the first Enter are dropped.
"""

from __future__ import annotations

import os
import re
import select
import sys

#: An escape sequence: CSI (``ESC [`` ... final byte), SS3 (``ESC O`` x) or ``ESC`` x.
_ESCAPE_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|.)?", re.S)

_pending = ""
_tail = ""


def save() -> None:
    """Read what the terminal holds typed but unread (without waiting, without echo)
    and keep its text for :func:`take`: the text up to the first Enter, and from that
    Enter on, the keys as typed (the query entered and the keys after it, "Down Down
    Enter", replayed once the app is up). Nothing happens when stdin is not a terminal."""
    global _pending, _tail
    # a terminal in its line mode turns Enter (CR) into LF as it is read (ICRNL); the
    # parser would read LF as Ctrl+J, and the Enter ending "query Enter Down Down Enter"
    # typed at launch was lost
    data = _read_pending().decode("utf-8", "replace").replace("\n", "\r")
    cut = data.find("\r")
    if _tail:
        _tail += data
    elif cut < 0:
        _pending += clean(data.encode())
    else:
        _pending += clean(data[:cut].encode())
        _tail = "\r" + data[cut + 1:]


def take() -> tuple[str, str]:
    """``(text, keys)`` that :func:`save` kept: the text typed before any Enter, then
    the keys from that Enter on as the terminal sent them (:func:`keys_of` reads them);
    ``("", "")`` when none, and on a second call."""
    global _pending, _tail
    out, _pending, _tail = (_pending, _tail), "", ""
    return out


def keys_of(sent: str) -> list:
    """The key events (Textual's) of what a terminal sent, as the app's driver would
    read them."""
    from textual import events
    from textual._xterm_parser import XTermParser

    return [e for e in XTermParser(debug=False).feed(sent) if isinstance(e, events.Key)]


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
