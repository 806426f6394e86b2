"""``python -m pdftui ...``: the same as the ``pdftui`` command (:mod:`pdftui.cli`)."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    main(prog_name="pdftui")
