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

import codecs
import os
import re
import select
import sys
import time
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Iterator

#: An escape sequence: CSI (``ESC [`` ... final byte), SS3 (``ESC O`` x) or ``ESC`` x.
_ESCAPE_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|.)?", re.S)

_pending = ""
_tail = ""


def save() -> None:
    """Read what the terminal holds typed but unread (without waiting, without echo)
    and keep its text for :func:`take`: the text up to the first Enter, and from that
    Enter on, the keys as typed (the query entered and the keys after it, "Down Down
    Enter", replayed once the app is up). Nothing happens when stdin is not a terminal."""
    keep(_read_pending().decode("utf-8", "replace"))


def keep(data: str) -> None:
    """Keep ``data`` (text a user typed at the terminal) after what is kept already, as
    :func:`save` does."""
    global _pending, _tail
    # a terminal in its line mode turns Enter (CR) into LF as it is read (ICRNL); the
    # parser would read LF as Ctrl+J, and the Enter ending "query Enter Down Down Enter"
    # typed at launch was lost
    data = data.replace("\n", "\r")
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


#: The longest a terminal query waits in all while keys typed meanwhile keep arriving
#: (seconds); each read waits at most the query's own timeout.
ANSWER_WAIT_S = 0.5


@contextmanager
def capture_response(start_marker: str, end_marker: str,
                     timeout: float | None = None) -> Iterator[SimpleNamespace]:
    """Stand-in for textual-image's ``capture_terminal_response``: the terminal's answer
    to the query written inside the ``with`` block, in ``.sequence``, from
    ``start_marker`` to ``end_marker``. What the user typed before, inside or after the
    answer is kept (:func:`keep`), not read as a wrong answer and lost ("spa" typed as the
    app opened lost, "rse attention" searched). Raises TimeoutError when no answer came
    within ``timeout`` seconds of the last byte (ANSWER_WAIT_S in all)."""
    from textual_image._terminal import capture_mode

    response = SimpleNamespace(sequence="")
    fd = sys.__stdin__.buffer.fileno()
    with capture_mode():
        yield response
        response.sequence = _await_answer(fd, start_marker, end_marker, timeout)


def _await_answer(fd: int, start: str, end: str, timeout: float | None) -> str:
    """The answer read from ``fd`` (see :func:`capture_response`); the rest is kept."""
    # a CSI answer holds parameters only: an arrow key typed (ESC [ B) is not its start
    body = "[0-9;?]*" if start.startswith("\x1b[") else "[^\x1b]*"
    answer = re.compile(re.escape(start) + body + re.escape(end))
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    read, deadline = "", time.monotonic() + ANSWER_WAIT_S
    while True:
        found = answer.search(read)
        if found:
            keep(read[:found.start()] + read[found.end():])
            return found.group()
        wait = max(0.0, deadline - time.monotonic())
        if timeout is not None:
            wait = min(wait, timeout)
        if not select.select([fd], [], [], wait)[0]:
            keep(read)
            raise TimeoutError("the terminal did not answer")
        read += decoder.decode(os.read(fd, 1024))
