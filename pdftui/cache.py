"""Where the index cache lives, what its contents are versioned by, and why a location
cannot take writes.

The cache is one SQLite file, ``index.sqlite3``, in :func:`default_cache_dir`; its schema,
reads and writes are :mod:`pdftui.store` (the connection: :class:`pdftui.store.database.Cache`).
Everything here is plain Python: no SQL.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .errors import CacheError

#: Bump when extraction output changes: contents extracted by an older version are redone.
EXTRACTOR_VERSION = 33  # 7, 9, 10: numbering; 8: floats; 11, 12: heading column; 13: number block;
#   14: page labels built by pdftui (bounded), hashes of the bytes extracted; 15: annotations;
#   16: OCR of scanned pages; 17: ruled table rows as records, numbered OCR headings;
#   18: bookmarks sharing a point or pointing at no block placed by their titles;
#   19: an unlisted "References" heading over a reference list starts a section;
#   20: arXiv stamps, figure letters and a stray first number are not headings;
#   21: a numbered heading repeated on its page as a label fills its numbering gap;
#   22: no lowercase unnumbered heading before a numbered document's first number;
#   23: no unnumbered heading between consecutive appendix numbers (A.1 -> A.2);
#   24: detector: "§ 1." and roman parts, headings ending in a number, contents pages,
#       numbered/unnumbered headings in the style of kept ones, no title block
#   25: detector: no numbered list items, lone letters, formulas, code rows, theorem
#       labels or running heads with a page number; hyphenated two-line headings joined
#   26: hidden text (invisible, under 1 pt, background-coloured, off-page) taken out of
#       the blocks and kept as labelled runs after the page's visible blocks
#   27: detector: run-in headings (a bold or italic lead-in opening a paragraph) make
#       sections, one level below the other headings; roman numbers filling a gap,
#       IEEE letters under roman sections, near-miss headings over two lines joined,
#       unnumbered subheadings between sibling numbers ("3.3" -> "3.4") kept under them
#   28: detector: numbered capitals headings in a sequence at any size, appendices in
#       capitals ("APPENDIX 6" bare after them), formula lines never headings, no number
#       merged over a numbered row or a paragraph (corpus: Shannon 1948 23 -> 44 sections)
#   29: detector: headings at body size opening their paragraph's block in the style of a
#       heading found ("Inclusion criteria" under "METHODS"), a capitals heading never
#       joined to a mixed case row below it, mixed case headings one level under the
#       capitals of their style, contents entries ending in a number on contents pages
#   30: detector: CJK numbering ("1∙1", "2·3"), repeats keyed by letters of any script,
#       run-in leads in the headings' face or opening mid-block, subheadings before an
#       ancestor's next sibling or appendix, description-list terms never run-in heads
#   31: sections: an outline anchor at a page's foot points at its heading on the next
#       page; the front matter named by a title set over up to three lines
#   32: sections: the front matter named by the document's title when it was read from
#       the document (its info dictionary or first page), not by the first page's
#       largest line (a journal's name, "AI Open"; a page stamp)
#   33: the front matter's fallback title joined as a paragraph's lines are (a word
#       broken at a line's end mended)
#: ``units.page`` of a section's head unit (``units.ordinal`` = ``sections.ordinal``): the
#: first embedding unit of the section's own text, from its heading. Page units are >= 1.
SECTION_HEAD_PAGE = 0
#: Page units of a document's opening (title and abstract for a paper), averaged into its
#: head vector; embedded first (index.py); a section starting in them is its opening.
HEAD_UNITS = 4
#: Characters of a section's own text offered to its head unit (cut to the model's tokens).
SECTION_HEAD_CHARS = 1200
DB_NAME = "index.sqlite3"
BUSY_TIMEOUT_MS = 60_000


def default_cache_dir() -> Path:
    """The cache folder: ``$PDFTUI_CACHE_DIR`` if set, else the platform user cache dir.

    Uses platformdirs (``~/.cache/pdftui`` on Linux, honouring ``XDG_CACHE_HOME``).
    """
    env = os.environ.get("PDFTUI_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("pdftui", appauthor=False))


#: Free space below which the disk holding the cache counts as full, bytes.
FULL_DISK_BYTES = 1 << 20


def unwritable_reason(folder: str | os.PathLike, exc: BaseException | None = None) -> str:
    """Why ``folder`` cannot take writes, in words: "the disk is full (N KiB free)",
    "the file system is read-only", "the file size limit (ulimit -f) is reached",
    "the folder is not writable", else the error itself. Never raises."""
    import errno

    err = getattr(exc, "errno", None)
    try:
        st = os.statvfs(folder)
        if err == errno.ENOSPC or st.f_bavail * st.f_frsize < FULL_DISK_BYTES or (
                "disk is full" in str(exc or "") and err is None):   # SQLITE_FULL
            return f"the disk is full ({st.f_bavail * st.f_frsize // 1024} KiB free)"
        if err == errno.EROFS or st.f_flag & os.ST_RDONLY:
            return "the file system is read-only"
    except OSError:
        pass
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        if soft != resource.RLIM_INFINITY and (exc is None or err == errno.EFBIG
                                               or "disk I/O" in str(exc)):
            return f"the file size limit (ulimit -f, {soft // 1024} KiB) is reached"
    except (ImportError, OSError, ValueError):
        pass
    if not os.access(folder, os.W_OK | os.X_OK):
        return "the folder is not writable"
    return f"{exc} (disk full or read-only?)" if exc is not None else "it cannot be written"


#: sqlite3 errors that mean the cache location cannot take writes (not a bug of ours).
STORAGE_RE = re.compile(r"full|disk I/O|readonly|read-only|unable to open|out of memory", re.I)



def storage_error(verb: str, folder: Path, exc: BaseException) -> CacheError:
    """The :class:`CacheError` for a cache at ``folder`` that could not be ``verb``
    ("use", "write") for want of room or rights: "cannot write the cache at DIR: the disk
    is full (N KiB free)" (:func:`unwritable_reason`)."""
    return CacheError(f"cannot {verb} the cache at {folder}: {unwritable_reason(folder, exc)}")
