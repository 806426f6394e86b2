"""The errors pdftui raises on purpose, in one family.

Every kind derives from :class:`PdftuiError`, whose ``str()`` is one plain sentence written
for the user (no traceback, no type name), so the CLI and the TUI show it as it is. Each
kind also keeps the builtin base it had before the family existed (``CacheError`` is a
``RuntimeError``, ``NotFound`` a ``LookupError``...), so code catching the builtin still
catches it. :func:`user_message` words any exception for a notification: a
``PdftuiError`` by its message, anything else (a bug, an OS error nobody foresaw) with its
type name in front.

Bad input of the documents themselves (a broken or encrypted PDF, a page without text) is
not an error here: the index skips such a file and stores its reason as text.
"""

from __future__ import annotations


class PdftuiError(Exception):
    """Base of the family; ``str(exc)`` is a message for the user; ``kind`` names the
    family member in a word for scripts (the CLI's ``--json`` error object)."""

    kind = "error"


class CacheError(PdftuiError, RuntimeError):
    """The cache location cannot be used (read-only, full, not a directory, corrupt)."""

    kind = "cache"


class CacheDamaged(CacheError):
    """The cache file is damaged (random bytes, truncated, replaced by another file): it
    cannot be trusted; ``pdftui index`` moves it aside and rebuilds the index. ``kind``
    stays "cache"; ``cache_dir`` and ``why`` (SQLite's words) are kept so a command can
    word what to run for its folder."""

    def __init__(self, message: str, cache_dir=None, why: str = ""):
        super().__init__(message)
        self.cache_dir, self.why = cache_dir, why


class FolderError(PdftuiError, RuntimeError):
    """The folder to index does not exist or cannot be read."""

    kind = "folder"


class NotFound(PdftuiError, LookupError):
    """A document, page or section that the folder's index does not hold."""

    kind = "not_found"


class QueryError(PdftuiError, ValueError):
    """A search request the service cannot run (an unknown mode or granularity). A query's
    text never raises: hostile text is searched as words."""

    kind = "query"


class EmbedderUnavailable(PdftuiError, RuntimeError):
    """The embedding model cannot be loaded (files missing, onnxruntime absent)."""

    kind = "model"


class QuantizeError(PdftuiError, RuntimeError):
    """The int8 copy of the embedding model could not be built."""

    kind = "model"


class TriageStoreError(PdftuiError, RuntimeError):
    """The user-data file (marks, notes, clips, sessions) cannot be used; the file is left
    exactly as it was."""

    kind = "user_data"


class ViewerError(PdftuiError, ValueError):
    """``$PDFTUI_VIEWER`` cannot be used (e.g. unbalanced quotes)."""

    kind = "viewer"


class PageImageError(PdftuiError):
    """A page cannot be rendered (file missing or unreadable, page out of range)."""

    kind = "page_image"


def user_message(exc: BaseException) -> str:
    """One line for a notification: ``str(exc)`` for a :class:`PdftuiError` (written for
    the user), else ``"TypeName: message"`` (the type says what kind of failure it was)."""
    if isinstance(exc, PdftuiError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"
