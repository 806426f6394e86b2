"""Turn one PDF file into an :class:`~pdftui.document.Extraction`.

Runs inside a worker process (PyMuPDF is not thread-safe). :func:`extract_document`
never raises for a bad file: every failure becomes ``Extraction(skip_reason=...)``.

Skip reasons (exact strings)::

    "empty file"          0 bytes
    "not a PDF"           no ``%PDF-`` in the first 1024 bytes (HTML or gzip renamed .pdf),
                          or PyMuPDF says ``is_pdf`` is false
    "password protected"  needs a user password (owner-only encryption is indexed)
    "damaged"             open raises, or the file opens "repaired" with 0 pages
    "0 pages"             valid structure whose page tree is empty
    "permission denied"   EACCES while opening/reading
    "not a regular file"  FIFO, directory, device, socket (checked with os.stat first;
                          a FIFO is never opened, since opening it would block)
    "file not found"      path vanished between the scan and the extraction
    "read error"          any other OSError while reading the header
    "too large when inflated (...)"  page content past a cap of
                          :mod:`pdftui.extraction_budget` (a decompression bomb)

Text pipeline per page
----------------------
This module runs the stages in order; each stage is a module of its own.

1. One ``TextPage`` is built per page with ``TEXT_PRESERVE_WHITESPACE |
   TEXT_MEDIABOX_CLIP`` over the whole plane (text outside the page box is kept, to be
   told hidden); ligatures are *not* preserved, so MuPDF expands them; NFKC
   catches the rest. Plain text is extracted first (cheap) and feeds the garbage
   statistics (:mod:`pdftui.text_quality`).
2. Slow-page guard: "dict" extraction costs roughly 10 µs per glyph span, plain text
   ~40 ns per char. When the plain text of a page is longer than
   ``page_timeout_s * 10_000`` characters (50 000 at the default), or building the
   TextPage alone took more than half the budget, the page falls back to "blocks"
   extraction: same block texts and bboxes, but no per-line font information
   (``Page.lines`` is empty for that page and a note names the page).
3. Hidden text (render mode 3 with nothing drawn beneath, under 1 pt, the background's
   colour, off the page: :mod:`pdftui.hidden_text`) is taken out of the font-aware pass's
   spans; its runs become the page's last blocks, after annotations (unless
   ``PDFTUI_HIDDEN_TEXT=skip``), and ``Page.hidden`` says which.
   Blocks are put in reading order (:mod:`pdftui.layout`): a page is read column by
   column only when it is clearly two-column; ruled tables become one block per row.
4. Lines are normalised and joined inside a block (:mod:`pdftui.page_text`); a block that
   continues the previous block's paragraph across a column break is glued to it
   (:func:`pdftui.layout.merge_continued_blocks`). Page text = blocks joined by a blank
   line.
5. Soft hyphens that a simple (WinAnsi) font draws as ``-`` are recovered from the
   content stream (:func:`pdftui.page_text.soft_hyphen_fixes`).
6. Form widget values and annotations that are not already in the page text become extra
   blocks (:mod:`pdftui.page_text`).

Then the document's outline (:mod:`pdftui.outline`), title (:mod:`pdftui.title`) and
metadata (:mod:`pdftui.metadata`).
"""

from __future__ import annotations

import errno
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from pdftui import hidden_text, ocr
from pdftui.document import Block, Extraction, HiddenText, Metadata, Page
from pdftui.hidden_text import HiddenRun
from pdftui.corpus import safe_name
from pdftui.layout import (RawBlock, blocks_and_lines, blocks_from_blocks, blocks_from_dict,
                           merge_continued_blocks, reading_order, table_records)
from pdftui.outline import read_outline
from pdftui.page_labels import MAX_LABEL_CHARS, page_labels, rules_from_pymupdf
from pdftui.page_text import add_form_values, annotation_blocks, normalize_text, soft_hyphen_fixes
from pdftui.text_quality import TextStats, font_unmappable, text_quality
from pdftui.text import MAX_NOTE_CHARS, MAX_NOTES, MAX_TITLE_CHARS, clip, strip_control
from pdftui.title import document_title

__all__ = ["extract_document", "count_pages", "bound_strings"]


def _open_pdf(p: Path, data: bytes | None = None):
    """Open a PDF with PyMuPDF: from ``data`` when given (the bytes already read), else
    from the path; a path MuPDF cannot take as UTF-8 (non-UTF-8 bytes held as surrogates)
    is opened from its bytes instead."""
    from .mupdf import pymupdf

    if data is not None:
        return pymupdf.open(stream=data, filetype="pdf")
    name = str(p)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        with open(p, "rb") as fh:
            return pymupdf.open(stream=fh.read(), filetype="pdf")
    return pymupdf.open(name, filetype="pdf")


def count_pages(path: str | os.PathLike) -> int | None:
    """The page count PyMuPDF sees in the file at ``path``, or None when it cannot be
    opened as a PDF (or needs a password). Cheap: no page is parsed."""
    from .mupdf import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    try:
        with _open_pdf(Path(os.fspath(path))) as doc:
            return None if doc.needs_pass or not doc.is_pdf else doc.page_count
    except Exception:  # noqa: BLE001 - damaged, unreadable: no count
        return None


# --------------------------------------------------------------------------- main entry

_FLAGS = None


def _text_flags() -> int:
    global _FLAGS
    if _FLAGS is None:
        from .mupdf import pymupdf

        _FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
    return _FLAGS


def _skip(stem: str, reason: str, note: str | None = None, page_count: int = 0) -> Extraction:
    return Extraction(title=stem, page_count=page_count, skip_reason=reason, notes=[note] if note else [])


def extract_document(path: str | os.PathLike, *, page_timeout_s: float = 5.0,
                     data: bytes | None = None, heartbeat: str | None = None,
                     ocr_known: dict[int, bytes] | None = None,
                     tables: bool | None = None) -> Extraction:
    """Extract text, layout lines, outline and metadata title from one PDF.

    Args:
        path: file to read. Must be a regular file; checked with ``os.stat`` before any
            open so FIFOs/devices never block the worker.
        data: the file's bytes, when the caller has read them (then the path is not
            opened again, so what is extracted is exactly what was hashed).
        page_timeout_s: per-page time budget in seconds. MuPDF calls cannot be
            interrupted, so it is enforced *before* the expensive step: pages whose
            plain text exceeds ``page_timeout_s * 10_000`` characters, or whose TextPage
            took more than half the budget to build, use the cheap "blocks" extraction
            (no font info). A page that still overruns the budget gets a note. Scanned
            pages without text are OCR'd (see :mod:`pdftui.ocr`, which has its own limits).
        heartbeat: a file touched after each OCR'd page (progress for the indexer), or None.
        ocr_known: ``{page: encoded OCR result}`` from an earlier extraction of these bytes
            with the same :data:`pdftui.ocr.SETTINGS` (those pages are not recognised again).
        tables: replace the text of ruled tables by one block per row, "Header: value; ..."
            (see :mod:`pdftui.tables`); None: yes unless ``PDFTUI_TABLES=0`` (the old way,
            for bench/tables.py).

    Returns:
        An :class:`Extraction`. For an indexed file ``skip_reason`` is None, ``pages``
        holds one :class:`Page` per physical page (1-based ``number``; ``label`` '' when
        the PDF defines no page labels; blocks in reading order with bboxes in points,
        origin top-left; ``lines`` with font/size/bold for the heading detector),
        ``outline`` holds validated entries (invalid ones counted in
        ``outline_dropped``), ``text_quality`` is "ok", "no text layer" (no page has
        text: scanned, or blank) or "unreliable" (garbage text layer; pages are still
        returned). ``sections`` is left empty (see ``pdftui.sections``). For a skipped
        file only ``title`` (file stem), ``skip_reason`` and ``notes`` are meaningful.

    Never raises for a bad file (OS errors and MuPDF errors become skip reasons or
    notes); programming errors inside a page are caught per page and noted.
    """
    p = Path(os.fspath(path))
    if tables is None:
        tables = _tables_default()
    stem = _stem(p)
    if data is not None:
        if not data:
            return _skip(stem, "empty file")
        if b"%PDF-" not in data[:1024]:
            return _skip(stem, "not a PDF")
        return _extract_checked(p, stem, page_timeout_s, data, heartbeat, ocr_known, tables)
    refused = _refusal_by_header(p, stem)   # without opening anything that could block
    if refused is not None:
        return refused
    return _extract_checked(p, stem, page_timeout_s, None, heartbeat, ocr_known, tables)


def _stem(p: Path) -> str:
    """The fallback title: a display-safe file stem (non-UTF-8 bytes as \\xNN, no
    controls)."""
    return normalize_text(strip_control(safe_name(p.stem or p.name), keep_newlines=False,
                                        keep_tabs=False)) or "untitled"


def _tables_default() -> bool:
    """Ruled tables as row records unless ``PDFTUI_TABLES=0``."""
    return os.environ.get("PDFTUI_TABLES", "1") != "0"


def _meta_title(doc) -> str:
    """The info dictionary's title ('' when there is none or it cannot be read)."""
    try:
        return (doc.metadata or {}).get("title") or ""
    except Exception:  # noqa: BLE001
        return ""


def title_of_open(doc, stem: str, page_timeout_s: float = 5.0) -> str | None:
    """The title :func:`extract_document` gives the open PDF ``doc`` whose file stem is
    ``stem``, from its info dictionary and page 1 alone (page 1 built as the extractor
    builds it). None when page 1 has no text layer (a title read from OCR is not redone
    here) or cannot be read."""
    try:
        if doc.page_count == 0 or not doc[0].get_text(flags=_text_flags()).strip():
            return None
        run = _PageRun(doc, [""], _text_flags(), page_timeout_s, _tables_default(),
                       ocr.Budget(limit_s=0.0))
        first = _extract_page(run, 0, _Tally(), time.perf_counter())
    except Exception:  # noqa: BLE001 - a bad page 1 keeps the stored title
        return None
    return clip(document_title(_meta_title(doc), stem, first), MAX_TITLE_CHARS)


def head_of_file(path: str | os.PathLike, title: str) -> tuple[str, Metadata]:
    """The title and metadata of the PDF at ``path``, read again from its first pages
    (the metadata pass over cached documents; no re-extraction): the title as
    :func:`extract_document` gives it (``title``, the stored one, when page 1 has no
    text layer), and :func:`pdftui.metadata.read_metadata` with that title. An empty
    :class:`Metadata` (of the current version) when the file cannot be read."""
    from .mupdf import pymupdf

    from .metadata import METADATA_VERSION, read_metadata

    p = Path(os.fspath(path))
    try:
        doc = pymupdf.open(p)
    except Exception:  # noqa: BLE001 - missing, damaged: nothing to read
        return title, Metadata(version=METADATA_VERSION)
    try:
        if doc.needs_pass:
            return title, Metadata(version=METADATA_VERSION)
        title = title_of_open(doc, _stem(p)) or title
        return title, read_metadata(doc, p.name, title)
    except Exception:  # noqa: BLE001
        return title, Metadata(version=METADATA_VERSION)
    finally:
        doc.close()


def _refusal_by_header(p: Path, stem: str) -> Extraction | None:
    """The skip of a path that is missing, unreadable, no regular file, empty or without
    a PDF header (``os.stat`` first, so a FIFO or a device never blocks); None when it may
    be opened."""
    try:
        st = os.stat(p)
    except FileNotFoundError:
        return _skip(stem, "file not found")
    except PermissionError:
        return _skip(stem, "permission denied")
    except OSError as exc:
        return _skip(stem, "read error", exc.strerror or type(exc).__name__)
    if not stat.S_ISREG(st.st_mode):
        return _skip(stem, "not a regular file")
    if st.st_size == 0:
        return _skip(stem, "empty file")
    try:
        with open(p, "rb") as fh:
            head = fh.read(1024)
    except PermissionError:
        return _skip(stem, "permission denied")
    except OSError as exc:
        if exc.errno == errno.EACCES:
            return _skip(stem, "permission denied")
        return _skip(stem, "read error", exc.strerror or type(exc).__name__)
    if not head:
        return _skip(stem, "empty file")
    if b"%PDF-" not in head:
        return _skip(stem, "not a PDF")
    return None


def _extract_checked(p: Path, stem: str, page_timeout_s: float, data: bytes | None,
                     heartbeat: str | None = None,
                     ocr_known: dict[int, bytes] | None = None,
                     tables: bool = True) -> Extraction:
    """:func:`_extract_pdf` with its strings bounded and every error a skip reason."""
    try:
        return bound_strings(_extract_pdf(p, stem, page_timeout_s, data, heartbeat,
                                          ocr_known, tables))
    except PermissionError:
        return _skip(stem, "permission denied")
    except Exception as exc:  # noqa: BLE001 - last line of defence: never raise
        return _skip(stem, "damaged", f"extraction failed: {type(exc).__name__}: {str(exc)[:200]}")


def _extract_pdf(p: Path, stem: str, page_timeout_s: float, data: bytes | None = None,
                 heartbeat: str | None = None,
                 ocr_known: dict[int, bytes] | None = None,
                 find_tables: bool = True) -> Extraction:
    """Open ``p`` (or ``data``) with PyMuPDF and extract it (:func:`extract_document`'s
    contract); a file PyMuPDF cannot open or refuses becomes a skip reason."""
    from .mupdf import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    pymupdf.TOOLS.reset_mupdf_warnings()
    try:
        doc = _open_pdf(p, data)
    except PermissionError:
        return _skip(stem, "permission denied")
    except Exception as exc:  # noqa: BLE001 - FileDataError and friends
        return _skip(stem, "damaged", f"{type(exc).__name__}: {str(exc)[:200]}")
    try:
        refused = _refusal(doc, stem) or _over_budget(doc, stem)
        if refused is not None:
            return refused
        return _extract_open(doc, p, stem, page_timeout_s, heartbeat, ocr_known, find_tables)
    finally:
        try:
            doc.close()
        except Exception:  # noqa: BLE001
            pass


def _refusal(doc, stem: str) -> Extraction | None:
    """The skip of an opened file that is no PDF, needs a password or has no pages; None
    when it can be extracted."""
    if not doc.is_pdf:
        return _skip(stem, "not a PDF")
    if doc.needs_pass:
        return _skip(stem, "password protected")
    if doc.page_count == 0:
        if doc.is_repaired:
            return _skip(stem, "damaged", "no pages could be recovered")
        return _skip(stem, "0 pages")
    return None


def _over_budget(doc, stem: str) -> Extraction | None:
    """The skip of a PDF whose page content inflates past a cap of
    :mod:`pdftui.extraction_budget` (a decompression bomb); None when within them."""
    from .extraction_budget import over_budget

    try:
        reason = over_budget(doc)
    except MemoryError:
        reason = "too large when inflated (over the worker's memory limit)"
    except Exception:  # noqa: BLE001 - a stream MuPDF cannot read: the extraction says more
        return None
    return _skip(stem, reason, page_count=doc.page_count) if reason else None


@dataclass
class _PageRun:
    """What every page of one document's extraction reads and adds to: the open document,
    its page labels, the text flags, the time budget (seconds), the text statistics, the
    font verdicts, the page matrices (for outline targets) and the OCR budget."""

    doc: object
    labels: list[str]
    flags: int
    page_timeout_s: float
    find_tables: bool
    budget: object
    stats: TextStats = field(default_factory=TextStats)
    font_cache: dict[int, bool] = field(default_factory=dict)
    matrices: dict[int, object] = field(default_factory=dict)

    @property
    def max_dict_chars(self) -> int:
        """Plain-text length (characters) above which a page skips the font-aware pass."""
        return int(self.page_timeout_s * 10_000)


@dataclass
class _Tally:
    """What the page loop counts for the document's notes (1-based page numbers)."""

    empty_pages: int = 0
    fallback_pages: list[int] = field(default_factory=list)
    slow_pages: list[int] = field(default_factory=list)
    failed_pages: list[int] = field(default_factory=list)
    widget_values: int = 0
    annotations: int = 0
    table_pages: list[tuple[int, int]] = field(default_factory=list)   # (page, rows)
    hidden_pages: list[int] = field(default_factory=list)


def _extract_open(doc, p: Path, stem: str, page_timeout_s: float, heartbeat: str | None,
                  ocr_known: dict[int, bytes] | None, find_tables: bool) -> Extraction:
    """Pages, notes, text quality, outline, title and metadata of an opened PDF."""
    n = doc.page_count
    notes: list[str] = []
    if doc.is_repaired:
        notes.append("file was damaged and has been repaired; text may be incomplete")
    meta_title = _meta_title(doc)
    try:  # built here, not by Page.get_label: a hostile /St makes that explode
        labels = page_labels(rules_from_pymupdf(doc.get_page_labels()), n)
    except Exception:  # noqa: BLE001
        labels = [""] * n
    run = _PageRun(doc, labels, _text_flags(), page_timeout_s, find_tables,
                   ocr.Budget(limit_s=ocr.doc_budget_s(), heartbeat=heartbeat,
                              known=dict(ocr_known or {})))
    tally = _Tally()
    pages = [_page_or_failure(run, i, tally, notes) for i in range(n)]
    _loop_notes(tally, run.budget, page_timeout_s, notes)
    _xfa_note(doc, notes)
    budget = run.budget
    quality = text_quality(run.stats, n, tally.empty_pages, bool(budget.done),
                           bool(budget.missing), notes)
    outline, dropped = read_outline(doc, n, run.matrices, notes)
    if dropped:
        notes.append(f"{dropped} outline entr{'y' if dropped == 1 else 'ies'} dropped (empty title or invalid target)")
    _mupdf_warning_note(notes)
    title = document_title(meta_title, stem, pages[0] if pages else None)
    try:
        from .metadata import read_metadata

        metadata = read_metadata(doc, p.name, title)
    except Exception:  # noqa: BLE001 - metadata must not lose the document
        metadata = None
    return Extraction(title=title, title_read=title != stem, page_count=n, pages=pages,
                      outline=outline,
                      outline_dropped=dropped, sections=[], skip_reason=None,
                      text_quality=quality, notes=notes, metadata=metadata,
                      ocr_missing=budget.pending, ocr_results=budget.results,
                      hidden_skipped=not hidden_text.indexed())


def _page_or_failure(run: _PageRun, i: int, tally: _Tally, notes: list[str]) -> Page:
    """Page ``i + 1``; an empty page when its extraction raised (one bad page must not
    lose the document; the first three failures get a note). A page over the time budget
    (OCR aside) is counted slow."""
    t0 = time.perf_counter()
    try:
        page = _extract_page(run, i, tally, t0)
    except Exception as exc:  # noqa: BLE001 - one bad page must not lose the document
        tally.failed_pages.append(i + 1)
        page = Page(i + 1, "", "")
        tally.empty_pages += 1
        if len(tally.failed_pages) <= 3:
            notes.append(f"page {i + 1}: text extraction failed ({type(exc).__name__})")
    if time.perf_counter() - t0 > run.page_timeout_s and not page.ocr:
        tally.slow_pages.append(i + 1)
    return page


def _extract_page(run: _PageRun, i: int, tally: _Tally, t0: float) -> Page:
    """One page (0-based index ``i``): its text layer (or OCR of a scan), blocks in reading
    order with their lines, form field values and annotations. ``t0``: when the page's
    work began (``time.perf_counter()``)."""
    doc = run.doc
    page = doc[i]
    prect = page.rect
    run.matrices[i] = (page.transformation_matrix, prect.height)
    label = strip_control(run.labels[i], keep_newlines=False, keep_tabs=False)
    tp = _textpage(page, run.flags)
    t_tp = time.perf_counter() - t0
    raw = tp.extractText()
    unmappable = False
    if raw.strip():
        fonts = page.get_fonts()
        if fonts:
            unmappable = all(
                font_unmappable(doc, f[0], f[2], f[5], run.font_cache) for f in fonts
            )
    run.stats.add(raw, fonts_unmappable=unmappable)
    scan = run.budget.page(doc, i, run.flags) if not raw.strip() else None
    raw_blocks, with_lines, runs = _raw_blocks(run, page, tp, raw, scan, t_tp, i + 1, tally)
    del tp
    raw_blocks = reading_order(raw_blocks, prect.x0, prect.width)
    soft = soft_hyphen_fixes(page, raw) if "-" in raw else {}
    blocks, lines = blocks_and_lines(raw_blocks, soft, with_lines)
    blocks, lines = merge_continued_blocks(blocks, lines)
    tally.widget_values += add_form_values(page, blocks, lines, with_lines)
    for ablock in annotation_blocks(page, "\n".join(b.text for b in blocks)):
        blocks.append(ablock)
        tally.annotations += 1
    hidden = _hidden_blocks(runs, blocks)
    if hidden:
        tally.hidden_pages.append(i + 1)
    text = "\n\n".join(b.text for b in blocks)
    if not text:
        tally.empty_pages += 1
    elif scan is not None:
        run.budget.done.append(i + 1)
    return Page(i + 1, label, text, blocks, lines, round(prect.width, 2),
                round(prect.height, 2), ocr=scan is not None and bool(text), hidden=hidden)


def _textpage(page, flags: int):
    """The page's TextPage over the whole plane (text outside the page box is kept, so
    :func:`pdftui.hidden_text.take_hidden` can name it off-page)."""
    from .mupdf import pymupdf

    return page.get_textpage(flags=flags, clip=pymupdf.INFINITE_RECT())


def _hidden_blocks(runs: list[HiddenRun], blocks: list[Block]) -> list[HiddenText]:
    """The page's hidden runs as :class:`HiddenText`; when hidden text is indexed
    (:func:`pdftui.hidden_text.indexed`) each becomes one more block after ``blocks``
    (appended in place), so the page text holds it after its visible text."""
    out: list[HiddenText] = []
    keep = hidden_text.indexed()
    for r in runs:
        text = r.text
        if not text:
            continue
        at = None
        if keep:
            at = len(blocks)
            blocks.append(Block(text, *r.bbox))
        out.append(HiddenText(r.kind.value, text, at, hidden_text.instruction_like(text)))
    return out


def _raw_blocks(run: _PageRun, page, tp, raw: str, scan, t_tp: float, number: int,
                tally: _Tally) -> tuple[list[RawBlock], bool, list[HiddenRun]]:
    """``(raw blocks, with lines, hidden runs)`` of page ``number`` (1-based): from the
    OCR text page ``scan`` when the page was recognised (no hidden runs); the cheap
    "blocks" pass (no font info, no lines; only off-page blocks are told hidden) for a
    page too dense (``raw`` longer than ``max_dict_chars``) or too slow (its TextPage took
    ``t_tp`` seconds, over half the budget); else the font-aware pass, its hidden spans
    taken out (:func:`pdftui.hidden_text.take_hidden`), with ruled tables as one block
    per row when ``find_tables``."""
    if scan is not None:
        return blocks_from_dict(scan, need_alnum=True), True, []
    if len(raw) > run.max_dict_chars or t_tp > run.page_timeout_s / 2:
        raw_blocks, runs = hidden_text.off_page_blocks(blocks_from_blocks(tp), page)
        tally.fallback_pages.append(number)
        return raw_blocks, False, runs
    page_dict = tp.extractDICT()
    runs = hidden_text.take_hidden(page_dict, page)
    raw_blocks = blocks_from_dict(page_dict)
    if run.find_tables:
        raw_blocks, n_rows = table_records(page, raw_blocks)
        if n_rows:
            tally.table_pages.append((number, n_rows))
    return raw_blocks, True, runs


def _loop_notes(tally: _Tally, budget, page_timeout_s: float, notes: list[str]) -> None:
    """The notes the page loop's counts make (dense, slow, failed pages; annotations and
    form values added; OCR; table rows)."""
    if tally.fallback_pages:
        notes.append(f"{len(tally.fallback_pages)} very dense page(s) extracted without font info: {_pagelist(tally.fallback_pages)}")
    if tally.slow_pages:
        notes.append(f"{len(tally.slow_pages)} page(s) took longer than {page_timeout_s:g} s: {_pagelist(tally.slow_pages)}")
    if len(tally.failed_pages) > 3:
        notes.append(f"{len(tally.failed_pages)} pages failed: {_pagelist(tally.failed_pages)}")
    if tally.annotations:
        notes.append(f"{tally.annotations} annotation(s) (notes, comments) added to the page text")
    if tally.widget_values:
        notes.append(f"{tally.widget_values} form field value(s) added to the page text")
    if tally.hidden_pages:
        notes.append(f"hidden text (a reader cannot see it) on {len(tally.hidden_pages)}"
                     f" page(s): {_pagelist(tally.hidden_pages)}")
    notes.extend(budget.notes(_pagelist))
    table_pages = tally.table_pages
    if table_pages:
        notes.append(f"{sum(n for _p, n in table_pages)} table row(s) as records on"
                     f" {len(table_pages)} page(s): {_pagelist([p for p, _n in table_pages])}")


def _xfa_note(doc, notes: list[str]) -> None:
    """Say so when the PDF is an XFA form (its filled-in content is not page text)."""
    try:
        if doc.xref_get_key(doc.pdf_catalog(), "AcroForm/XFA")[0] != "null":
            notes.append("XFA form: content filled in by the form engine is not in the page text")
    except Exception:  # noqa: BLE001
        pass


def _mupdf_warning_note(notes: list[str]) -> None:
    """The first of MuPDF's warnings for this document, as a note."""
    from .mupdf import pymupdf

    try:
        warns = pymupdf.TOOLS.mupdf_warnings()
        if warns:
            first = strip_control(warns.splitlines()[0], keep_newlines=False)[:160]
            notes.append(f"MuPDF warnings: {first}")
    except Exception:  # noqa: BLE001
        pass


def bound_strings(ex: Extraction) -> Extraction:
    """``ex`` with every string taken from the PDF other than page text bounded (in place):
    the title and outline titles to :data:`~pdftui.text.MAX_TITLE_CHARS`, page labels to
    :data:`~pdftui.page_labels.MAX_LABEL_CHARS` (a longer one becomes the page number),
    notes to :data:`~pdftui.text.MAX_NOTE_CHARS` each and :data:`~pdftui.text.MAX_NOTES`
    in all. Page text is not cut (excerpts and the reader window it)."""
    ex.title = clip(ex.title, MAX_TITLE_CHARS)
    for e in ex.outline:
        e.title = clip(e.title, MAX_TITLE_CHARS)
    for pg in ex.pages:
        if len(pg.label) > MAX_LABEL_CHARS:
            pg.label = str(pg.number)
    notes = [clip(n, MAX_NOTE_CHARS) for n in ex.notes[:MAX_NOTES]]
    if len(ex.notes) > MAX_NOTES:
        notes.append(f"{len(ex.notes) - MAX_NOTES} more notes not kept")
    ex.notes = notes
    return ex


def _pagelist(nums: list[int], limit: int = 10) -> str:
    s = ", ".join(str(x) for x in nums[:limit])
    return s + (", ..." if len(nums) > limit else "")
