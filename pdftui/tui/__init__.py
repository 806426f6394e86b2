"""The Textual TUI of pdftui (``pdftui FOLDER``); see :mod:`pdftui.tui.app`."""
