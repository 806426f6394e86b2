"""``python -m pdftui.cli ARGS``: the ``pdftui`` command (as the console script runs it;
a command the background search service can answer is answered by it)."""

import sys

from ..warm.client import answered

code = answered(sys.argv[1:], prog_name="pdftui")
if code is not None:
    sys.exit(code)

from . import main  # noqa: E402

main()
