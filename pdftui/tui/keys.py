"""Terminal input: Esc followed quickly by a key is Esc and that key, not Alt+key.

A terminal sends Alt+X as ESC X, so Textual's input parser reads Esc then "/" typed within
``ESCDELAY`` (100 ms) as one Alt+/ and drops the Esc ("Esc then / quickly" left the focus
in the search box and typed a "/" into the query). pdftui binds no Alt key, so
:class:`EscapeParser` reads ESC + one printable character as the two keys the user pressed.
Textual still reads 32 characters arriving with no pause of ``ESCDELAY`` after an Esc (a
``tmux send-keys`` burst, not a typist) as an unknown sequence and shows the Esc as "^".
"""

from __future__ import annotations

from typing import Iterable

from textual import events
from textual._xterm_parser import XTermParser


class EscapeParser(XTermParser):
    """Textual's xterm parser, with ESC + a printable character read as Esc, character."""

    def _sequence_to_key_events(self, sequence: str,
                                alt: bool = False) -> Iterable[events.Key]:
        if alt and len(sequence) == 1 and sequence.isprintable():
            yield events.Key("escape", "\x1b")
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
