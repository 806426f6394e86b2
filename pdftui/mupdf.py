"""PyMuPDF without the packages it loads on import and pdftui never uses:
``from .mupdf import pymupdf``.

PyMuPDF 2 imports ``pymupdf.layout`` and ``pymupdf4llm`` when they are installed (its
dependencies pull them in). ``pymupdf.layout`` builds three onnxruntime sessions for its
layout model on import, ``pymupdf4llm`` imports numpy and its helpers: together 1 to 1.5 s
of CPU and 100 MB in every process that opens a PDF. pdftui uses neither (its tables come
from :mod:`pdftui.tables`; ``find_tables`` runs with ``use_layout=False``). So the first
import here hides the two from PyMuPDF's import (then unhides them: a later explicit import
still works) and sets the three global options ``pymupdf4llm`` sets on import
(:data:`_AS_PYMUPDF4LLM`), on which the boxes of text lines depend, so that text, blocks
and their boxes come out as they do with the packages loaded. When PyMuPDF is already
imported, that module is returned as it is."""

from __future__ import annotations

import sys

_NOT_USED = ("pymupdf.layout", "pymupdf4llm")

#: The ``pymupdf.TOOLS`` calls ``pymupdf4llm`` makes on import (its helpers and
#: batch_converter modules, version 2.0): quads without corrections (tighter line boxes),
#: MuPDF errors and warnings not printed.
_AS_PYMUPDF4LLM = (("unset_quad_corrections", True), ("mupdf_display_errors", False),
                   ("mupdf_display_warnings", False))


def _import_pymupdf():
    """The ``pymupdf`` module, imported without :data:`_NOT_USED` when not yet imported."""
    if "pymupdf" in sys.modules:
        return sys.modules["pymupdf"]
    hidden = [name for name in _NOT_USED if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None   # makes `import name` raise ImportError, which PyMuPDF skips
    try:
        import pymupdf
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    for option, value in _AS_PYMUPDF4LLM:
        getattr(pymupdf.TOOLS, option)(value)
    return pymupdf


pymupdf = _import_pymupdf()
