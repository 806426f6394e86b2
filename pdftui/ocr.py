"""OCR of scanned pages: Tesseract through PyMuPDF's OCR text page.

A page is OCR'd only when it has no text layer at all and images cover at least
:data:`MIN_IMAGE_COVER` of it (a scan, not a blank page or a page with a small figure). The
page is rendered as displayed, so its ``/Rotate`` is honoured (Tesseract sees it upright), at
:data:`OCR_DPI` (less for a large page: at most :data:`MAX_PIXELS`), and recognised as a whole
(``Page.get_textpage_ocr(full=True)``); PyMuPDF maps the words back into the page's unrotated
coordinates, like every other block. The language data are found by ``pymupdf.get_tessdata``
(``TESSDATA_PREFIX``, else the installed ``tesseract``'s own folder).

Limits are counted in CPU seconds, which the machine's load does not move: MuPDF calls
cannot be interrupted, so each page is recognised in a forked child whose ``RLIMIT_CPU`` is
:data:`PAGE_CPU_S` (a wall-clock backstop, :data:`PAGE_WALL_S`, catches a child that hangs
or starves), and one extraction of a document spends at most :data:`DOC_CPU_S` CPU seconds
on OCR. Up to :data:`PARALLEL` pages are recognised at once (:meth:`Budget.prefetch`).

Nothing is lost to a limit: each recognised page is returned with the extraction
(``Extraction.ocr_results``, kept in the cache by document hash, page and
:data:`SETTINGS`), and a page left without text because the budget ran out, the backstop hit
or Tesseract was missing is counted as pending (``Extraction.ocr_missing``): the next index
extracts the document again, reusing every page already recognised and OCR'ing only the
pending ones. A page whose recognition fails, or needs more than :data:`PAGE_CPU_S` CPU
seconds, is a property of the page and is not retried (its note says so). After each page
the worker touches its heartbeat file (``Budget.beat``), which tells the indexer that a long
OCR run is making progress (its document timeout counts from the last beat).

Runs inside the extraction workers only (POSIX ``fork``; where there is no ``fork`` a page is
recognised in the worker itself, bounded by the document budget only). The workers are
spawned, so nothing but their parent-watch thread runs beside the fork: forking from a process
whose other threads are inside native code (a test process after TUI or embedder tests) can
leave the child blocked on a lock held at that instant, until the wall-clock backstop.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import resource
import select
import signal
import time
import zlib
from dataclasses import dataclass, field

#: Rendering resolution for OCR, dots per inch. The CPU time goes to Tesseract's analysis
#: more than to the pixels, so 200 keeps small print legible for little (bench/ocr.py
#: compares resolutions; figures in bench/README.md).
OCR_DPI = 200
#: Largest rendering in pixels: a large page is rendered at a lower resolution.
MAX_PIXELS = 8_000_000
#: CPU-second limit for one page (a letter-size scan takes 2-3 CPU seconds at 200 dpi).
PAGE_CPU_S = 60.0
#: Wall-clock backstop for one page, seconds: far above what a page takes even at a load
#: of 25 (a page that hits it is pending, and retried by the next index), and below the
#: indexer's document timeout (:data:`pdftui.index.DOC_TIMEOUT_S`).
PAGE_WALL_S = 240.0
#: CPU-second OCR budget for one extraction of a document (~400 scanned pages;
#: ``PDFTUI_OCR_BUDGET_S`` overrides it); the pages past it are pending and OCR'd by the next
#: index, which reuses the ones already done.
DOC_CPU_S = 1200.0
#: Pages recognised at once in one document (forked children).
PARALLEL = 2
#: Share of the page area images must cover for a page without text to count as a scan.
MIN_IMAGE_COVER = 0.3
#: Tesseract language(s).
LANGUAGE = "eng"
#: What a cached OCR result depends on besides the document's bytes and the page.
SETTINGS = f"{OCR_DPI}dpi:{MAX_PIXELS}px:{LANGUAGE}"
#: The note left on a document whose scanned pages could not be OCR'd for want of Tesseract.
MISSING_NOTE = "no text layer (OCR: install tesseract-ocr)"


def doc_budget_s() -> float:
    """The CPU-second OCR budget of one extraction: ``PDFTUI_OCR_BUDGET_S`` when it holds a
    number >= 0, else :data:`DOC_CPU_S`."""
    try:
        value = float(os.environ.get("PDFTUI_OCR_BUDGET_S", ""))
    except ValueError:
        return DOC_CPU_S
    return value if value >= 0 else DOC_CPU_S


def pending_note(pages: int) -> str:
    """The status of a document with ``pages`` scanned pages still waiting for OCR:
    :data:`MISSING_NOTE` where Tesseract is not installed, else when they will be done."""
    if not available():
        return MISSING_NOTE
    return f"OCR pending for {pages} page(s): the next index recognises them"


_TESSDATA: list[str | None] = []


def tessdata() -> str | None:
    """The Tesseract language-data folder holding :data:`LANGUAGE`, or None when OCR is not
    available here (no Tesseract installed). Looked up once per process."""
    if not _TESSDATA:
        found = None
        try:
            from .mupdf import pymupdf

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


def _dpi(page, dpi: int = OCR_DPI) -> int:
    """``dpi``, lowered so the rendering stays within :data:`MAX_PIXELS`."""
    w, h = page.rect.width / 72.0, page.rect.height / 72.0
    if w <= 0 or h <= 0:
        return dpi
    cap = int((MAX_PIXELS / (w * h)) ** 0.5)
    return max(36, min(dpi, cap))


def _recognise(page, flags: int, dpi: int) -> dict:
    """The OCR text page of ``page`` as a compact ``extractDICT`` dict (in this process)."""
    tp = page.get_textpage_ocr(flags=flags, language=LANGUAGE, dpi=_dpi(page, dpi),
                               full=True, tessdata=tessdata())
    return compact(tp.extractDICT())


def compact(d: dict) -> dict:
    """The text of an ``extractDICT`` dict, without images or per-character data: blocks of
    type 0 with their bbox, lines with their bbox, spans with text, font, size and flags."""
    blocks = []
    for b in d.get("blocks", ()):
        if b.get("type", 0) != 0:
            continue
        lines = [{"bbox": list(ln["bbox"]),
                  "spans": [{"text": s["text"], "font": s.get("font", ""),
                             "size": s.get("size", 0.0), "flags": s.get("flags", 0)}
                            for s in ln.get("spans", ())]}
                 for ln in b.get("lines", ())]
        blocks.append({"type": 0, "bbox": list(b["bbox"]), "lines": lines})
    return {"blocks": blocks}


def has_words(d: dict) -> bool:
    """Does a compact OCR dict (:func:`compact`) hold a letter or digit?"""
    return any(ch.isalnum() for b in d.get("blocks", ()) for ln in b.get("lines", ())
               for s in ln.get("spans", ()) for ch in s.get("text", ""))


def encode(d: dict) -> bytes:
    """A compact dict (:func:`compact`) as the bytes the cache keeps (zlib'd JSON)."""
    return zlib.compress(json.dumps(d, ensure_ascii=False).encode("utf-8"), 6)


def decode(data: bytes) -> dict | None:
    """The dict :func:`encode` made, or None when ``data`` is not one."""
    try:
        d = json.loads(zlib.decompress(data).decode("utf-8"))
    except (zlib.error, UnicodeDecodeError, ValueError, TypeError):
        return None
    return d if isinstance(d, dict) and isinstance(d.get("blocks"), list) else None


class OcrTimeout(Exception):
    """One page's OCR ran past a limit and was killed: ``kind`` is "cpu" (the page's CPU
    seconds: the page itself is too costly) or "wall" (the wall-clock backstop: the machine
    was too busy, or the recognition hung)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Recognised:
    """One page's OCR: its compact ``extractDICT`` dict and the CPU seconds it took."""

    page: dict
    cpu_s: float


class _Child:
    """One page being recognised in a forked child that sends its pickled result down a
    pipe; ``RLIMIT_CPU`` bounds its CPU seconds."""

    def __init__(self, page, flags: int, dpi: int, cpu_s: float, wall_s: float):
        self.cpu_limit = cpu_s
        self.wall_s = wall_s
        self.deadline = time.monotonic() + wall_s
        self.chunks: list[bytes] = []
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: recognise, send the pickled dict, leave without cleanup
            code = 0
            try:
                os.close(rfd)
                limit = max(1, math.ceil(cpu_s))
                resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 2))
                data = pickle.dumps(("ok", _recognise(page, flags, dpi)), protocol=5)
            except BaseException as exc:  # noqa: BLE001
                data = pickle.dumps(("error", f"{type(exc).__name__}: {str(exc)[:200]}"))
                code = 1
            try:
                with os.fdopen(wfd, "wb") as out:
                    out.write(data)
            finally:
                os._exit(code)
        os.close(wfd)
        self.pid, self.fd = pid, rfd

    def read(self) -> bool:
        """Read what the child has written; True at end of file."""
        chunk = os.read(self.fd, 1 << 20)
        if chunk:
            self.chunks.append(chunk)
        return not chunk

    def finish(self, complete: bool) -> Recognised:
        """Close the pipe, kill and reap the child; its result (``complete``: the pipe was
        read to its end, else the wall-clock backstop was hit). Raises :class:`OcrTimeout`
        or ``RuntimeError``."""
        os.close(self.fd)
        status, used = _reap(self.pid, kill=True)
        if not complete:
            raise OcrTimeout("wall", f"OCR took longer than {self.wall_s:g} s of wall clock")
        data = b"".join(self.chunks)
        if not data and os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU,
                                                                             signal.SIGKILL):
            raise OcrTimeout("cpu", f"OCR took more than {self.cpu_limit:g} CPU seconds")
        try:
            kind, value = pickle.loads(data)
        except Exception as exc:  # noqa: BLE001 - the child died mid-write
            raise RuntimeError("OCR process died") from exc
        if kind != "ok":
            raise RuntimeError(value)
        return Recognised(value, used)


def recognise(page, flags: int, *, dpi: int = OCR_DPI, cpu_s: float = PAGE_CPU_S,
              wall_s: float = PAGE_WALL_S) -> Recognised:
    """OCR one PyMuPDF page at ``dpi`` (lowered for a large page) in a forked child.

    The child may use ``cpu_s`` CPU seconds (``RLIMIT_CPU``: a limit the machine's load does
    not move) and ``wall_s`` seconds of wall clock (a backstop for a child that hangs or
    starves). Returns a :class:`Recognised` (coordinates in points in the page's unrotated
    space; ``cpu_s`` the child's user + system seconds). Raises :class:`OcrTimeout` when a
    limit is hit and ``RuntimeError`` when recognition fails.
    """
    (out,) = recognise_many([page], flags, dpi=dpi, cpu_s=cpu_s, wall_s=wall_s).values()
    if isinstance(out, Exception):
        raise out
    return out


def recognise_many(pages: list, flags: int, *, dpi: int = OCR_DPI,
                   cpu_s: float = PAGE_CPU_S, wall_s: float = PAGE_WALL_S,
                   parallel: int = 1, done=None) -> dict[int, Recognised | Exception]:
    """OCR PyMuPDF ``pages``, up to ``parallel`` at once, each as :func:`recognise` does.

    Returns ``{index in pages: Recognised or the exception it raised}``. ``done`` (when
    given) is called with each index as its page finishes. Without ``fork`` the pages are
    recognised one by one in this process, without the limits."""
    out: dict[int, Recognised | Exception] = {}
    if not hasattr(os, "fork"):
        for k, page in enumerate(pages):
            t0 = time.process_time()
            try:
                out[k] = Recognised(_recognise(page, flags, dpi), time.process_time() - t0)
            except Exception as exc:  # noqa: BLE001
                out[k] = RuntimeError(f"{type(exc).__name__}: {str(exc)[:200]}")
            if done:
                done(k)
        return out
    queue = list(enumerate(pages))
    running: dict[int, tuple[int, _Child]] = {}
    try:
        while queue or running:
            while queue and len(running) < max(1, parallel):
                k, page = queue.pop(0)
                child = _Child(page, flags, dpi, cpu_s, wall_s)
                running[child.fd] = (k, child)
            now = time.monotonic()
            wait = max(0.0, min(c.deadline for _k, c in running.values()) - now)
            ready, _, _ = select.select(list(running), [], [], wait)
            for fd in ready:
                k, child = running[fd]
                if child.read():
                    del running[fd]
                    out[k] = _finish(child, True)
                    if done:
                        done(k)
            now = time.monotonic()
            for fd in [fd for fd, (_k, c) in running.items() if c.deadline <= now]:
                k, child = running.pop(fd)
                out[k] = _finish(child, False)
                if done:
                    done(k)
    finally:
        for _k, child in running.values():   # interrupted: leave no child behind
            _finish(child, False)
    return out


def _finish(child: _Child, complete: bool) -> Recognised | Exception:
    try:
        return child.finish(complete)
    except (OcrTimeout, RuntimeError) as exc:
        return exc


def _reap(pid: int, kill: bool) -> tuple[int, float]:
    """Kill (when asked and still running) and wait for child ``pid``; returns its wait
    status and the CPU seconds (user + system) it used."""
    try:
        if kill:
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        _pid, status, usage = os.wait4(pid, 0)
    except ChildProcessError:
        return 0, 0.0
    return status, usage.ru_utime + usage.ru_stime


#: Pages looked at ahead of a scanned page for more scans to recognise alongside it.
LOOKAHEAD = 2 * PARALLEL


@dataclass
class Budget:
    """OCR bookkeeping for one extraction of a document: what was recognised, reused,
    left pending or failed.

    ``known``: ``{page: encoded result}`` recognised by an earlier extraction of the same
    bytes with the same :data:`SETTINGS` (reused, not recognised again, unless it holds no
    word). ``results``: every
    page's encoded result (known and new), for the cache. ``done``: pages whose text came
    from OCR (``reused`` of them from ``known``); pending, retried by the next index:
    ``missing`` (Tesseract not installed), ``over`` (the budget ran out), ``late`` (the
    wall-clock backstop hit); not retried: ``failed`` (recognition failed or the page
    needed more than :data:`PAGE_CPU_S` CPU seconds). ``retried``: pages recognised twice
    because the first result held no word; ``blank`` those of them without a word the
    second time too (kept as they are). ``cpu_s``: CPU seconds of the pages recognised
    now, ``wall_s`` the wall seconds they took.
    """

    limit_s: float = DOC_CPU_S
    heartbeat: str | None = None
    known: dict[int, bytes] = field(default_factory=dict)
    parallel: int = PARALLEL
    cpu_s: float = 0.0
    wall_s: float = 0.0
    results: dict[int, bytes] = field(default_factory=dict)
    done: list[int] = field(default_factory=list)
    reused: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)
    over: list[int] = field(default_factory=list)
    late: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    retried: list[int] = field(default_factory=list)
    blank: list[int] = field(default_factory=list)
    _ready: dict[int, dict | None] = field(default_factory=dict)
    _ocred: int = 0

    @property
    def pending(self) -> int:
        """Scanned pages left without text that a later index will OCR."""
        return len(self.missing) + len(self.over) + len(self.late)

    def page(self, doc, index: int, flags: int) -> dict | None:
        """The OCR dict of page ``index`` (0-based) of PyMuPDF ``doc``, a page without a text
        layer, when it is a scan and OCR is possible (else None). Scans among the next
        :data:`LOOKAHEAD` pages are recognised alongside it. Never raises."""
        number = index + 1
        if number in self._ready:
            return self._ready.pop(number)
        page = doc[index]
        if not looks_scanned(page):
            return None
        if number in self.known:
            got = decode(self.known[number])
            if got is not None and has_words(got):   # an empty one is tried again
                self.results[number] = self.known[number]
                self.reused.append(number)
                return got
        if not available():
            self.missing.append(number)
            return None
        if self.cpu_s >= self.limit_s:
            self.over.append(number)
            return None
        todo = [(number, page)] + self._scans_after(doc, index, flags)
        self._run(todo, flags)
        return self._ready.pop(number, None)

    def _scans_after(self, doc, index: int, flags: int) -> list[tuple[int, object]]:
        """Scanned pages without text among the next :data:`LOOKAHEAD` pages, not known."""
        out = []
        for j in range(index + 1, min(doc.page_count, index + 1 + LOOKAHEAD)):
            try:
                page = doc[j]
                if (j + 1 in self.known or page.get_text("text", flags=flags).strip()
                        or not looks_scanned(page)):
                    continue
            except Exception:  # noqa: BLE001 - the page loop meets it again
                continue
            out.append((j + 1, page))
        return out

    def _recognise(self, todo: list[tuple[int, object]], flags: int, cap: float) -> dict:
        """:func:`recognise_many` of ``todo`` [(number, page)] with a CPU cap of ``cap``
        seconds a page, keyed by index into ``todo``. A page that came back without a word
        is recognised once more: its result is cached for good, so a transient empty
        result must not become the page's text."""
        t0 = time.monotonic()
        self.beat()   # OCR under way: the indexer's limit now counts from the beats
        pages = [p for _n, p in todo]
        got = recognise_many(pages, flags, cpu_s=cap, parallel=self.parallel,
                             done=lambda _k: self.beat())
        empty = [k for k, res in got.items()
                 if isinstance(res, Recognised) and not has_words(res.page)]
        if empty:
            self.retried.extend(todo[k][0] for k in empty)
            again = recognise_many([pages[k] for k in empty], flags, cpu_s=cap,
                                   parallel=self.parallel, done=lambda _k: self.beat())
            for j, k in enumerate(empty):
                first, res = got[k], again.get(j)
                if isinstance(res, Recognised):
                    got[k] = Recognised(res.page, first.cpu_s + res.cpu_s)
                if not has_words(got[k].page):
                    self.blank.append(todo[k][0])
        self.wall_s += time.monotonic() - t0
        return got

    def _run(self, todo: list[tuple[int, object]], flags: int) -> None:
        """Recognise ``todo`` [(number, page)] in parallel; results go to ``_ready``."""
        left = max(1.0, self.limit_s - self.cpu_s + 1)
        cap = min(PAGE_CPU_S, left)
        got = self._recognise(todo, flags, cap)
        for k, (number, _page) in enumerate(todo):
            res = got.get(k)
            self._ready[number] = None
            if isinstance(res, Recognised):
                self.cpu_s += res.cpu_s
                self._ocred += 1
                self._ready[number] = res.page
                self.results[number] = encode(res.page)
            elif isinstance(res, OcrTimeout) and res.kind == "wall":
                self.late.append(number)
            elif isinstance(res, OcrTimeout) and cap < PAGE_CPU_S:
                self.cpu_s += cap
                self.over.append(number)
            else:
                self.cpu_s += cap if isinstance(res, OcrTimeout) else 0.0
                self.failed.append(number)

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
            new = len(self.done) - len(self.reused)
            per = f" ({self.cpu_s / self._ocred:.1f} CPU s a page)" if self._ocred else ""
            again = f", {len(self.reused)} recognised by an earlier index" if self.reused else ""
            out.append(f"OCR: text of {len(self.done)} scanned page(s) recognised by Tesseract"
                       f"{per if new else ''}{again}: {pagelist(self.done)}")
        if self.missing and not available():
            out.append(f"{MISSING_NOTE}: {len(self.missing)} scanned page(s) without text")
        if self.over:
            out.append(f"OCR stopped after {self.limit_s:g} CPU s: {len(self.over)} page(s)"
                       f" pending for the next index: {pagelist(self.over)}")
        if self.late:
            out.append(f"OCR ran past {PAGE_WALL_S:g} s on a busy machine: {len(self.late)}"
                       f" page(s) pending for the next index: {pagelist(self.late)}")
        if self.blank:
            out.append(f"OCR found no text on {len(self.blank)} scanned page(s), twice:"
                       f" {pagelist(self.blank)}")
        if self.failed:
            out.append(f"OCR failed on {len(self.failed)} page(s) (recognition error or more"
                       f" than {PAGE_CPU_S:g} CPU s): {pagelist(self.failed)}")
        return out
