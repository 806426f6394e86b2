"""``python -m pdftui.cli ARGS``: the ``pdftui`` command (as the console script runs it)."""

from . import main

main()
