"""Terminal input: Esc followed quickly by a key is Esc and that key, not Alt+key.

A terminal sends Alt+X as ESC X, so Textual's input parser reads Esc then "/" typed within
``ESCDELAY`` (100 ms) as one Alt+/ and drops the Esc ("Esc then / quickly" left the focus
in the search box and typed a "/" into the query). pdftui binds no Alt key, so
:class:`EscapeParser` reads ESC + one printable character as the two keys the user pressed.

Textual gives up on a sequence after an Esc that matches no key once it is 32 characters
long (a ``tmux send-keys`` burst, a paste without bracketed paste, a fast typist), or when
another Esc arrives first ("Esc x Esc" quickly), and reissues its characters one by one,
writing the Esc among them as the text "^" (``circumflex_accent``): "^" was typed into the
query and the Esc was lost. :class:`EscapeParser` reissues that Esc as the Esc key.

A complete escape sequence that names no key (a CSI such as ``ESC [ 2 J``, "erase the
screen", or an OSC ended by BEL, arriving inside typed text from ``tmux send-keys`` or a
program writing to the terminal) was reissued the same way, character by character: the
Esc left the search box and the "2" inside it switched the mode to semantic.
:class:`EscapeParser` drops such a sequence whole, as soon as its final byte is read
(ECMA-48 section 5.4: CSI = ESC "[", parameter bytes 0x30-0x3F, intermediate bytes
0x20-0x2F, one final byte 0x40-0x7E; OSC = ESC "]" ... BEL).
"""

from __future__ import annotations

import re
from typing import Iterable

from textual import events
from textual._xterm_parser import XTermParser, _re_mouse_event, _re_terminal_mode_response
from textual.keys import Keys

ESC = "\x1b"

#: a complete control sequence (ECMA-48 5.4): CSI, or the Linux console's ESC [ [ letter
_CONTROL_SEQUENCE = re.compile(r"\x1b\[(?:(?!\[)[\x30-\x3f]*[\x20-\x2f]*|\[)[\x40-\x7e]\Z")
#: a complete operating system command ended by BEL (a window title, a colour query)
_OS_COMMAND = re.compile(r"\x1b\][\x20-\x7e]*\x07\Z")
_X10_MOUSE_START = "\x1b[M"   # three bytes of mouse report follow: not yet complete


class EscapeParser(XTermParser):
    """Textual's xterm parser, with ESC + a printable character read as Esc, character,
    and an Esc reissued from an unknown sequence kept as Esc (not "^")."""

    _reissued_esc = False   # the last key made was a lone Esc, about to be reissued

    def parse(self, token_callback):
        """Textual's parser, whose "^" for an Esc it reissued becomes the Esc key again
        (a "^" typed by the user is not made from an Esc and stays a "^")."""
        def callback(token) -> None:
            if self._reissued_esc and isinstance(token, events.Key) \
                    and token.key == "circumflex_accent":
                token = events.Key("escape", ESC)
            self._reissued_esc = False
            token_callback(token)

        return super().parse(callback)

    def _sequence_to_key_events(self, sequence: str,
                                alt: bool = False) -> Iterable[events.Key]:
        # Textual turns a lone Esc into "^" only when it reissues a sequence, right after
        # asking for its keys here
        self._reissued_esc = sequence == ESC and not alt
        if alt and len(sequence) == 1 and sequence.isprintable():
            yield events.Key("escape", ESC)
            alt = False
        keys = list(super()._sequence_to_key_events(sequence, alt))
        if not keys and is_unknown_sequence(sequence):
            # Textual's parser skips a key named "ignore" and reads on after the sequence
            keys = [events.Key(Keys.Ignore, sequence)]
        yield from keys


def is_unknown_sequence(sequence: str) -> bool:
    """True when ``sequence`` (the characters read since an Esc) is a complete control
    sequence or operating system command that Textual's parser will not read as a key,
    a mouse report or a mode report: it is to be dropped whole, never reissued as keys."""
    if sequence == _X10_MOUSE_START or _re_mouse_event.match(sequence) \
            or _re_terminal_mode_response.match(sequence):
        return False
    return bool(_CONTROL_SEQUENCE.match(sequence) or _OS_COMMAND.match(sequence))


def driver_class(default: type) -> type:
    """The driver class to run with: ``default`` where it is Textual's Linux driver, made
    to read keys with :class:`EscapeParser`; ``default`` itself otherwise."""
    from textual.drivers import linux_driver

    if default is not linux_driver.LinuxDriver:
        return default

    class PdftuiDriver(linux_driver.LinuxDriver):
        def run_input_thread(self) -> None:
            # the Linux driver builds its parser from this module name, once per run
            linux_driver.XTermParser = EscapeParser
            super().run_input_thread()

    return PdftuiDriver
