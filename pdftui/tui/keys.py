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
"""

from __future__ import annotations

from typing import Iterable

from textual import events
from textual._xterm_parser import XTermParser

ESC = "\x1b"


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
        yield from super()._sequence_to_key_events(sequence, alt)


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
