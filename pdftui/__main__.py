"""``python -m pdftui ...`` and the ``pdftui`` command: a command the background search
service can answer (``search``, ``read``, ``docs``, ``mark``...) is answered by it (:mod:`pdftui.warm`, imported before anything
heavy), anything else runs the click command (:mod:`pdftui.cli`)."""

from __future__ import annotations

import sys


def run() -> None:
    """The ``pdftui`` command: the service's answer when there is one (its exit code),
    else :func:`pdftui.cli.main`."""
    from .warm.client import answered

    code = answered(sys.argv[1:], prog_name="pdftui")
    if code is not None:
        sys.exit(code)
    from .cli import main

    main(prog_name="pdftui")


if __name__ == "__main__":
    run()
