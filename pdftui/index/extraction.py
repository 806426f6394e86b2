"""Extracting the documents of an index run: worker processes, one document each.

PyMuPDF is not thread-safe, so each changed file is read, extracted and cut into sections
in a worker *process* (:func:`_extract_job`), several documents at once; each result is
stored whole in one transaction by the indexing process (:func:`_store`), so keyword search
sees it at once, and handed to the embedding thread. A worker that crashes (a MuPDF
segfault) makes the rest run one at a time, so only the document crashing alone is
skipped; a document running over :data:`DOC_TIMEOUT_S` (since its start or its last OCR
heartbeat) is skipped and its worker killed (:func:`run_extraction`).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from ..store.database import Cache
from ..corpus import FileChanging, FoundFile, ReadFile, read_file, still_same
from .. import ocr
from ..document import Extraction
from .report import IndexSummary, Progress, ProgressFn

#: Skip reasons that may say more about the run than the file (a worker that crashed, maybe
#: for want of memory or because workers cannot start here): kept per file and retried on
#: the next run, never cached against the content.
TRANSIENT_SKIPS = ("damaged (crashed the extractor)", "changed while being read",
                   "file not found")
#: Wall-clock budget for extracting one document, seconds (the 1,370-page manual takes ~7 s),
#: counted from the document's start or from its worker's last OCR heartbeat (a scan OCR'd
#: page by page takes seconds a page; see :mod:`pdftui.ocr`).
DOC_TIMEOUT_S = 300.0
#: The time limit of a document without OCR under way grows with its size: this many
#: seconds plus :data:`DOC_TIMEOUT_PER_MB_S` a megabyte (the 3.4 MB, 1,370-page manual takes
#: 7 s alone, 27 s on a loaded machine), never over :data:`DOC_TIMEOUT_S`.
DOC_TIMEOUT_BASE_S = 60.0
DOC_TIMEOUT_PER_MB_S = 30.0
#: Address-space limit of a worker process (``RLIMIT_AS``), bytes: 5x the largest peak seen
#: (760 MB of address space for a page of 8 MB of text operators; a normal document peaks
#: near 600 MB), far below the 15 GB a decompression bomb reached without it.
WORKER_MEMORY_BYTES = 4 << 30


def _extract_job(path: str, heartbeat: str | None = None, sha: str = "",
                 ocr_known: dict[int, bytes] | None = None
                 ) -> tuple[Extraction, ReadFile | None]:
    """Worker-process entry: read one PDF, extract it and cut its sections (never raises).
    ``heartbeat`` is a file touched after each OCR'd page; ``ocr_known`` holds the pages
    already recognised in the bytes whose hash is ``sha`` (used only if the bytes read
    still have that hash).

    Returns the extraction and what was read (hash, size, mtime of the very bytes
    extracted; ``data`` dropped), so the content is stored under the hash of what was
    extracted even when the file was replaced after it was queued. The read is None when
    the file could not be read consistently (the skip reason says why).
    """
    from ..extract import extract_document

    stem = os.path.basename(path)
    try:
        read = read_file(path)
        for _ in range(3):
            known = ocr_known if read.sha256 == sha else None
            ex = extract_document(path, data=read.data, heartbeat=heartbeat,
                                  ocr_known=known)
            if read.data is not None or still_same(path, read):
                break
            read = read_file(path)   # a large file replaced while extracted by path
        else:
            raise FileChanging(0, "the file kept changing while it was read")
    except FileChanging:
        return Extraction(title=stem, page_count=0, skip_reason="changed while being read"), None
    except FileNotFoundError:
        return Extraction(title=stem, page_count=0, skip_reason="file not found"), None
    except PermissionError:
        return Extraction(title=stem, page_count=0, skip_reason="permission denied"), None
    except OSError as exc:
        return Extraction(title=stem, page_count=0,
                          skip_reason=f"unreadable ({exc.strerror or exc})"), None
    except MemoryError:
        return Extraction(title=stem, page_count=0, skip_reason=(
            f"too large (over the {WORKER_MEMORY_BYTES >> 30} GiB worker memory limit)")), \
            _unread(path)
    except Exception as exc:  # extract_document should not raise; be safe anyway
        return Extraction(title=stem, page_count=0,
                          skip_reason=f"damaged ({type(exc).__name__})"), None
    read = ReadFile(read.sha256, read.size, read.mtime_ns, None, read.stamp)
    if ex.skip_reason is None and ex.pages:
        try:
            from ..sections import sections_for

            ex.sections = sections_for(ex)
        except Exception as exc:  # noqa: BLE001 - a section bug must not lose the document
            ex.notes.append(f"sections failed: {type(exc).__name__}: {exc}")
            ex.sections = []
    for p in ex.pages:
        p.lines = []  # not stored; do not ship them back through the pipe
    return ex, read


def doc_time_limit_s(size: int) -> float:
    """Seconds one document of ``size`` bytes may run without an OCR heartbeat:
    :data:`DOC_TIMEOUT_BASE_S` plus :data:`DOC_TIMEOUT_PER_MB_S` a megabyte, at most
    :data:`DOC_TIMEOUT_S`."""
    return min(DOC_TIMEOUT_S, DOC_TIMEOUT_BASE_S + DOC_TIMEOUT_PER_MB_S * size / 1e6)


def _init_worker(parent: int | None = None) -> None:
    """Set a worker process up: ignore SIGINT (the indexer handles Ctrl-C and ends its
    workers), cap its memory (:data:`WORKER_MEMORY_BYTES`), lower its priority, and exit
    when the indexer is gone."""
    import resource
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = WORKER_MEMORY_BYTES if hard == resource.RLIM_INFINITY \
            else min(WORKER_MEMORY_BYTES, hard)
        if soft == resource.RLIM_INFINITY or soft > cap:
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ValueError, OSError):
        pass
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    try:
        os.nice(5)
    except OSError:
        pass
    # A worker holds both ends of the pool's call queue, so it never sees EOF when the
    # indexer dies (kill -9, OOM killer): without this it would wait forever as an orphan.
    # ``parent`` comes from the indexer itself: a worker started just as the indexer died
    # must not take init (pid 1) for its parent.
    parent = parent or os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="pdftui-parent-watch", daemon=True).start()


def run_extraction(jobs, cache: Cache, root: str, summary: IndexSummary, report: ProgressFn,
                    cancel: threading.Event, embed_thread, workers: int) -> None:
    """Extract ``jobs`` in worker processes and store each result as it arrives.

    If a PDF crashes a worker (MuPDF segfault), the remaining documents are retried one at a
    time, and the one that crashes alone is skipped as "damaged (crashed the extractor)". A
    document whose extraction runs longer than :data:`DOC_TIMEOUT_S` (since it started, or
    since its last OCR heartbeat) is skipped as "damaged (extraction timed out)" and its
    worker is killed. Setting ``cancel`` or an exception (Ctrl-C) kills the workers at once.
    """
    if not jobs:
        return
    jobs = sorted(jobs, key=lambda j: j[0].size)
    ctx = multiprocessing.get_context("spawn")
    _ensure_resource_tracker()
    beats = tempfile.TemporaryDirectory(prefix="pdftui-beat-")
    run = _ExtractionRun(jobs, cache, root, summary, report, embed_thread, beats.name)
    solo = False
    while run.pending and not cancel.is_set():
        n = 1 if solo else max(1, min(workers, len(run.pending)))
        pool = ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init_worker,
                                   initargs=(os.getpid(),))
        try:
            outcome = run.round(pool, n, solo, cancel)
        except BaseException:   # Ctrl-C, SIGTERM, an error: end the workers at once
            _kill_workers(pool)
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        if outcome != "done" or cancel.is_set():   # a quit must not wait for a document
            _kill_workers(pool)
        pool.shutdown(wait=outcome == "done" and not cancel.is_set(), cancel_futures=True)
        if outcome == "crashed":
            solo = True
    beats.cleanup()


class _ExtractionRun:
    """The state of one :func:`run_extraction`: the jobs not stored yet (``pending``,
    ``(FoundFile, sha256)`` pairs), the progress reported, and where each job's OCR
    heartbeat file lives (``beats``, a folder)."""

    def __init__(self, jobs, cache: Cache, root: str, summary: IndexSummary,
                 report: ProgressFn, embed_thread, beats: str):
        self.pending = list(jobs)
        self.cache, self.root, self.summary = cache, root, summary
        self.report, self.embed_thread, self.beats = report, embed_thread, beats
        self.prog = Progress("extract", docs_total=len(jobs))

    def finish(self, job, ex: Extraction, read: ReadFile | None = None) -> None:
        """Store one job's extraction and report the progress."""
        f, sha = job
        _store(self.cache, self.root, f, sha, ex, self.summary, self.embed_thread, read)
        self.pending.remove(job)
        self.prog.docs_done += 1
        self.prog.pages_done += len(ex.pages)
        self.prog.current = f.doc
        self.report(self.prog)

    def round(self, pool: ProcessPoolExecutor, n: int, solo: bool,
              cancel: threading.Event) -> str:
        """Run the pending jobs on ``pool`` (``n`` workers, at most 2 jobs per worker in
        flight, so cancel is prompt) until they are done ("done"), a worker crashed
        ("crashed": the caller retries one at a time) or a job ran too long ("restart":
        its workers were killed)."""
        futures: dict[Future, tuple[FoundFile, str]] = {}
        started: dict[Future, float] = {}
        queue_ = list(self.pending)
        while (queue_ or futures) and not cancel.is_set():
            while queue_ and len(futures) < 2 * n:
                job = queue_.pop(0)
                beat = os.path.join(self.beats, job[1])
                known = self.cache.ocr_results(job[1], ocr.SETTINGS)
                futures[pool.submit(_extract_job, job[0].path, beat, job[1], known)] = job
            done, _ = wait(list(futures), timeout=0.5, return_when=FIRST_COMPLETED)
            if self._collect(done, futures, solo):
                return "crashed"
            if self._time_out_late(futures, started):
                _kill_workers(pool)
                return "restart"
        return "done"

    def _collect(self, done, futures: dict, solo: bool) -> bool:
        """Store the finished jobs; True when a worker crashed (outside ``solo`` mode, the
        crashed jobs stay pending; in it, the one crashing alone is skipped as damaged)."""
        crashed = False
        for fut in done:
            job = futures.pop(fut)
            read = None
            try:
                ex, read = fut.result()
            except BrokenProcessPool:
                if not solo:
                    crashed = True
                    continue
                ex = Extraction(title=os.path.basename(job[0].path), page_count=0,
                                skip_reason="damaged (crashed the extractor)")
            self.finish(job, ex, read)
        return crashed

    def _time_out_late(self, futures: dict, started: dict) -> bool:
        """Skip as damaged every job idle for more than :data:`DOC_TIMEOUT_S` seconds
        (since it started running, or since its last OCR heartbeat); True when any was."""
        now = time.monotonic()
        for fut in futures:
            if fut not in started and fut.running():
                started[fut] = now
        late = [fut for fut in futures if self._late(futures[fut], now - started.get(fut, now))]
        for fut in late:
            job = futures.pop(fut)
            self.finish(job, Extraction(title=os.path.basename(job[0].path), page_count=0,
                                        skip_reason="damaged (extraction timed out)"))
        return bool(late)


    def _late(self, job, running_s: float) -> bool:
        """Has ``job`` (running for ``running_s`` seconds) run past its limit? Once OCR has
        begun (its heartbeat file exists), :data:`DOC_TIMEOUT_S` since the last beat (OCR
        has its own limits); before, :func:`doc_time_limit_s` of the file's size."""
        beat = os.path.join(self.beats, job[1])
        if os.path.exists(beat):
            return _idle_s(running_s, beat) > DOC_TIMEOUT_S
        return running_s > doc_time_limit_s(job[0].size)


def _unread(path: str) -> ReadFile | None:
    """What :func:`read_file` gives for ``path`` without the bytes (so a skip is kept by
    content hash), or None when it cannot be read."""
    try:
        r = read_file(path)
    except (OSError, FileChanging):
        return None
    return ReadFile(r.sha256, r.size, r.mtime_ns, None, r.stamp)


def _idle_s(running_s: float, beat: str) -> float:
    """Seconds a job has run without progress: since it started (``running_s`` ago) or
    since its heartbeat file was last touched, whichever is more recent."""
    try:
        return min(running_s, time.time() - os.stat(beat).st_mtime)
    except OSError:
        return running_s


def _ensure_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with a real stderr.

    Inside a TUI ``sys.stderr`` is a capture object whose ``fileno()`` is -1, and starting
    the tracker then fails with "bad value(s) in fds_to_keep"; give it /dev/null instead.
    """
    from multiprocessing import resource_tracker

    try:
        ok = sys.stderr is not None and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        ok = False
    if ok:
        resource_tracker.ensure_running()
        return
    saved = sys.stderr
    with open(os.devnull, "w") as devnull:
        sys.stderr = devnull
        try:
            resource_tracker.ensure_running()
        finally:
            sys.stderr = saved


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """Kill a pool's worker processes (a stuck MuPDF call cannot be interrupted otherwise)."""
    for proc in list(getattr(pool, "_processes", {}).values()):
        try:
            proc.kill()
        except Exception:  # noqa: BLE001 - already gone
            pass


def _store(cache: Cache, root: str, f: FoundFile, sha: str, ex: Extraction,
           summary: IndexSummary, embed_thread, read: ReadFile | None = None) -> None:
    """Store one extraction: under the hash, size and mtime of what the worker read
    (``read``), which differ from the queued ``sha`` and ``f`` when the file was replaced
    or rewritten after it was queued; without a read (a crash, a timeout), under the
    queued ones. A file that could not be read is recorded against the file only."""
    if ex.skip_reason in TRANSIENT_SKIPS or (read is None and ex.skip_reason
                                             and not ex.skip_reason.startswith("damaged")):
        # recorded against the file, not the content, so the next run tries again
        # (size -1: never taken for unchanged)
        transient = ex.skip_reason in ("changed while being read", "file not found")
        cache.set_file(root, f.doc, -1 if transient else f.size,
                       -1 if transient else f.mtime_ns, None, ex.skip_reason)
        summary.skipped.append({"doc": f.doc, "reason": ex.skip_reason})
        return
    if read is not None:
        sha, size, mtime_ns = read.sha256, read.size, read.mtime_ns
    else:
        size, mtime_ns = f.size, f.mtime_ns
    cid = cache.insert_content(sha, size, ex)
    cache.set_file(root, f.doc, size, mtime_ns, cid)
    if ex.skip_reason is None:  # a skipped document is counted in summary.skipped only
        summary.indexed += 1
        summary.indexed_docs.append(f.doc)
    summary.pages += len(ex.pages)
    if ex.skip_reason is None and ex.text_quality == "ok" and embed_thread is not None:
        embed_thread.put(cid)
