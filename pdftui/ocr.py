"""OCR of scanned pages: Tesseract through PyMuPDF's OCR text page.

A page is OCR'd only when it has no text layer at all and images cover at least
:data:`MIN_IMAGE_COVER` of it (a scan, not a blank page or a page with a small figure). The
page is rendered as displayed, so its ``/Rotate`` is honoured (Tesseract sees it upright), at
:data:`OCR_DPI` (less for a large page: at most :data:`MAX_PIXELS`), and recognised as a whole
(``Page.get_textpage_ocr(full=True)``); PyMuPDF maps the words back into the page's unrotated
coordinates, like every other block. The language data are found by ``pymupdf.get_tessdata``
(``TESSDATA_PREFIX``, else the installed ``tesseract``'s own folder).

MuPDF calls cannot be interrupted, so each page is recognised in a forked child process that
is killed after :data:`PAGE_TIMEOUT_S` seconds; a document stops OCR'ing pages after
:data:`DOC_BUDGET_S` seconds and its notes say which pages are left without text. After each
page the worker touches its heartbeat file (``Budget.heartbeat``), which tells the indexer
that a long OCR run is making progress (its document timeout counts from the last beat).

Runs inside the extraction workers only (POSIX ``fork``; where there is no ``fork`` a page is
recognised in the worker itself, bounded by the document budget only).
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
from dataclasses import dataclass, field

#: Rendering resolution for OCR, dots per inch (Tesseract reads 10 pt text well from ~200).
OCR_DPI = 200
#: Largest rendering in pixels: a large page is rendered at a lower resolution.
MAX_PIXELS = 8_000_000
#: Wall-clock limit for one page, seconds (one page takes 3-5 s of CPU at 200 dpi).
PAGE_TIMEOUT_S = 60.0
#: Wall-clock OCR budget for one document, seconds (a 300-page scan on an idle machine).
DOC_BUDGET_S = 1200.0
#: Share of the page area images must cover for a page without text to count as a scan.
MIN_IMAGE_COVER = 0.3
#: Tesseract language(s).
LANGUAGE = "eng"
#: The note left on a document whose scanned pages could not be OCR'd for want of Tesseract.
MISSING_NOTE = "no text layer (OCR: install tesseract-ocr)"

_TESSDATA: list[str | None] = []


def tessdata() -> str | None:
    """The Tesseract language-data folder holding :data:`LANGUAGE`, or None when OCR is not
    available here (no Tesseract installed). Looked up once per process."""
    if not _TESSDATA:
        found = None
        try:
            import pymupdf

            path = pymupdf.get_tessdata()
            if path and os.path.isfile(os.path.join(path, f"{LANGUAGE}.traineddata")):
                found = path
        except Exception:  # noqa: BLE001 - RuntimeError when not installed, OSError ...
            found = None
        _TESSDATA.append(found)
    return _TESSDATA[0]


def available() -> bool:
    """Can this process OCR (Tesseract and its English data are installed)?"""
    return tessdata() is not None


def looks_scanned(page) -> bool:
    """Do images cover at least :data:`MIN_IMAGE_COVER` of this PyMuPDF page?

    Call it only for a page without text. Never raises (False on any MuPDF error)."""
    try:
        area = abs(page.rect)
        if area <= 0:
            return False
        covered = 0.0
        for info in page.get_image_info():
            x0, y0, x1, y1 = info["bbox"]
            covered += max(0.0, x1 - x0) * max(0.0, y1 - y0)
        return covered >= MIN_IMAGE_COVER * area
    except Exception:  # noqa: BLE001
        return False


def _dpi(page) -> int:
    """:data:`OCR_DPI`, lowered so the rendering stays within :data:`MAX_PIXELS`."""
    w, h = page.rect.width / 72.0, page.rect.height / 72.0
    if w <= 0 or h <= 0:
        return OCR_DPI
    cap = int((MAX_PIXELS / (w * h)) ** 0.5)
    return max(36, min(OCR_DPI, cap))


def _recognise(page, flags: int) -> dict:
    """The OCR text page of ``page`` as PyMuPDF's ``extractDICT`` dict (in this process)."""
    tp = page.get_textpage_ocr(flags=flags, language=LANGUAGE, dpi=_dpi(page), full=True,
                               tessdata=tessdata())
    return tp.extractDICT()


class OcrTimeout(Exception):
    """One page's OCR ran past its time limit and was killed."""


def recognise(page, flags: int, timeout_s: float = PAGE_TIMEOUT_S) -> dict:
    """OCR one PyMuPDF page within ``timeout_s`` seconds (wall clock).

    Returns the OCR text page as an ``extractDICT`` dict (blocks, lines, spans; coordinates
    in points in the page's unrotated space). Raises :class:`OcrTimeout` when the limit is
    hit and ``RuntimeError`` when recognition fails.
    """
    if not hasattr(os, "fork"):
        return _recognise(page, flags)
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: recognise, send the pickled dict, leave without cleanup
        code = 0
        try:
            os.close(rfd)
            data = pickle.dumps(("ok", _recognise(page, flags)), protocol=5)
        except BaseException as exc:  # noqa: BLE001
            data = pickle.dumps(("error", f"{type(exc).__name__}: {str(exc)[:200]}"))
            code = 1
        try:
            with os.fdopen(wfd, "wb") as out:
                out.write(data)
        finally:
            os._exit(code)
    os.close(wfd)
    try:
        data = _read_until(rfd, time.monotonic() + timeout_s)
    finally:
        os.close(rfd)
        _reap(pid, kill=True)
    if data is None:
        raise OcrTimeout(f"OCR took longer than {timeout_s:g} s")
    try:
        kind, value = pickle.loads(data)
    except Exception as exc:  # noqa: BLE001 - the child died mid-write
        raise RuntimeError("OCR process died") from exc
    if kind != "ok":
        raise RuntimeError(value)
    return value


def _read_until(fd: int, deadline: float) -> bytes | None:
    """Everything written to pipe ``fd`` until EOF, or None at ``deadline`` (monotonic)."""
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return None
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _reap(pid: int, kill: bool) -> None:
    """Kill (when asked and still running) and wait for child ``pid``."""
    try:
        if kill:
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


@dataclass
class Budget:
    """OCR bookkeeping for one document: what was recognised, skipped or failed.

    ``done``: pages whose text came from OCR; ``missing``: scanned pages left without text
    because Tesseract is not installed; ``over``: pages left when the document's budget ran
    out; ``failed``: pages whose OCR failed or timed out. ``seconds``: wall time spent.
    """

    limit_s: float = DOC_BUDGET_S
    heartbeat: str | None = None
    seconds: float = 0.0
    done: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)
    over: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)

    def page(self, page, number: int, flags: int) -> dict | None:
        """OCR PyMuPDF ``page`` (1-based ``number``) if it is a scan without text and OCR
        is possible; returns its ``extractDICT`` dict or None. Never raises."""
        if not looks_scanned(page):
            return None
        if not available():
            self.missing.append(number)
            return None
        if self.seconds >= self.limit_s:
            self.over.append(number)
            return None
        t0 = time.monotonic()
        left = self.limit_s - self.seconds + 1
        try:
            return recognise(page, flags, min(PAGE_TIMEOUT_S, left))
        except OcrTimeout:
            (self.over if left < PAGE_TIMEOUT_S else self.failed).append(number)
            return None
        except Exception:  # noqa: BLE001 - a MuPDF/Tesseract error
            self.failed.append(number)
            return None
        finally:
            self.seconds += time.monotonic() - t0
            self.beat()

    def beat(self) -> None:
        """Touch the heartbeat file (when there is one). Never raises."""
        if self.heartbeat:
            try:
                with open(self.heartbeat, "a"):
                    os.utime(self.heartbeat)
            except OSError:
                pass

    def notes(self, pagelist) -> list[str]:
        """Plain notes for the document (``pagelist`` formats a list of page numbers)."""
        out = []
        if self.done:
            per = self.seconds / max(1, len(self.done) + len(self.failed))
            out.append(f"OCR: text of {len(self.done)} scanned page(s) recognised by Tesseract"
                       f" ({per:.1f} s a page): {pagelist(self.done)}")
        if self.missing:
            out.append(f"{MISSING_NOTE}: {len(self.missing)} scanned page(s) without text")
        if self.over:
            out.append(f"OCR stopped after {self.limit_s:g} s: {len(self.over)} page(s) left"
                       f" without text: {pagelist(self.over)}")
        if self.failed:
            out.append(f"OCR failed or timed out on {len(self.failed)} page(s):"
                       f" {pagelist(self.failed)}")
        return out
