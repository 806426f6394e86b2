"""The index's citation step: read reference lists from the stored blocks, then bring the
folder's citation links up to date, incrementally.

Both steps read the cache only (no PDF is opened), so an existing cache gains its
references on the next index without re-extraction. :func:`fill_references` reads each
content whose list was not read by the current :data:`pdftui.references.REFERENCES_VERSION`;
:func:`update_links` compares each document's fingerprint (:meth:`Target.fingerprint`)
with the state the links were computed with, then re-matches only the changed documents'
entries against every document, and every other entry against the changed documents.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor

from ..citations import Target, TargetIndex, link
from ..references import (REFERENCES_VERSION, RefBlock, Reference, is_reference_heading,
                          read_references)
from ..store.citations import reference_blocks, references_of
from ..store.database import Cache
from ..store.reader import parse_authors, read_documents, read_sections
from .extraction import _ensure_resource_tracker, _init_worker, _kill_workers

#: From this many contents to read on, their lists are parsed in worker processes (one a
#: core); fewer are parsed in this process. Starting the workers costs ~0.6 s of CPU:
#: on two busy cores, 105 contents take 0.38 s of wall time either way.
PARALLEL_MIN_CONTENTS = 128
#: Contents whose lists one worker job parses.
CHUNK_CONTENTS = 32


def fill_references(cache: Cache, root: str, cancel: threading.Event | None = None,
                    read: dict[int, list[Reference]] | None = None) -> int:
    """Read and store the reference entries of ``root``'s contents that lack current ones
    (also into ``read``, ``{content id: entries}``, when given, so that
    :func:`update_links` need not read them back); returns how many contents were
    read. Many contents (:data:`PARALLEL_MIN_CONTENTS`) are parsed in worker processes
    (:func:`_fill_in_pool`), with the same entries."""
    todo = cache.references_missing(root, REFERENCES_VERSION)
    workers = os.cpu_count() or 1
    if len(todo) >= PARALLEL_MIN_CONTENTS and workers > 1:
        _fill_in_pool(cache, todo, workers, cancel, read)
        return len(todo)
    for cid in todo:
        if cancel is not None and cancel.is_set():
            break
        refs = read_references(content_blocks(cache, cid))
        cache.set_references(cid, refs, REFERENCES_VERSION)
        if read is not None:
            read[cid] = refs
    return len(todo)


def parse_lists(lists: list[list[RefBlock]]) -> list[list[Reference]]:
    """The entries of each reference list, given as its blocks (:func:`read_references`):
    the job of a worker process."""
    return [read_references(blocks) for blocks in lists]


def _fill_in_pool(cache: Cache, todo: list[int], workers: int,
                  cancel: threading.Event | None, read: dict[int, list[Reference]] | None
                  ) -> None:
    """Store the entries of the contents ``todo`` as :func:`fill_references` does, their
    lists parsed by ``workers`` processes in chunks of :data:`CHUNK_CONTENTS` contents:
    this process reads the blocks (a few chunks ahead) and stores each chunk's entries in
    order, checking ``cancel`` between chunks. From the first failure of the pool on, the
    lists are parsed in this process."""
    chunks = [todo[i:i + CHUNK_CONTENTS] for i in range(0, len(todo), CHUNK_CONTENTS)]
    pool = _ParsePool(workers)
    ahead: deque[tuple[list[int], list[list[RefBlock]], Future | None]] = deque()
    done = False
    try:
        for i, cids in enumerate(chunks):
            if cancel is not None and cancel.is_set():
                break
            while len(ahead) < 2 * workers and i + len(ahead) < len(chunks):
                more = chunks[i + len(ahead)]
                blocks = [content_blocks(cache, cid) for cid in more]
                ahead.append((more, blocks, pool.submit(blocks)))
            _, blocks, job = ahead.popleft()
            refs = pool.result(job, blocks)
            cache.set_references_many(zip(cids, refs), REFERENCES_VERSION)
            if read is not None:
                read.update(zip(cids, refs))
        done = True
    finally:
        pool.close(done)


class _ParsePool:
    """Worker processes that parse reference lists (:func:`parse_lists`), started as the
    extraction's are (spawned, ignoring SIGINT, no SQLite connection); once the pool
    fails (cannot start, a worker dies, a job fails), lists are parsed in this process."""

    def __init__(self, workers: int) -> None:
        try:
            _ensure_resource_tracker()
            self.pool: ProcessPoolExecutor | None = ProcessPoolExecutor(
                max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker, initargs=(os.getpid(),))
        except Exception:  # noqa: BLE001 - no workers: parse here
            self.pool = None

    def submit(self, blocks: list[list[RefBlock]]) -> Future | None:
        """The job parsing ``blocks`` (lists of blocks), or None when there is no pool."""
        if self.pool is None:
            return None
        try:
            return self.pool.submit(parse_lists, blocks)
        except Exception:  # noqa: BLE001 - a broken pool
            self._fail()
            return None

    def result(self, job: Future | None, blocks: list[list[RefBlock]]
               ) -> list[list[Reference]]:
        """The entries of each list of ``blocks``: ``job``'s result, or parsed here when
        there is no job or it failed."""
        if job is not None:
            try:
                return job.result()
            except Exception:  # noqa: BLE001 - a dead worker, a job that failed
                self._fail()
        return parse_lists(blocks)

    def _fail(self) -> None:
        if self.pool is not None:
            self.close(False)

    def close(self, done: bool) -> None:
        """End the workers: wait for them when ``done``, else kill them at once."""
        pool, self.pool = self.pool, None
        if pool is None:
            return
        if not done:
            _kill_workers(pool)
        pool.shutdown(wait=done, cancel_futures=True)


def content_blocks(cache: Cache, cid: int) -> list[RefBlock]:
    """The stored blocks of content ``cid``'s reference sections (titled References,
    Bibliography, ...), in reading order; [] when it has none."""
    spans = sorted({(s.start_page, s.start_block, s.end_page, s.end_block)
                    for s in read_sections(cache.db, cid) if is_reference_heading(s.title)})
    kept: list[tuple[int, int, int, int]] = []
    for span in spans:   # a nested reference section is inside its parent's span
        if not any(k[:2] <= span[:2] and span[2:] <= k[2:] for k in kept):
            kept.append(span)
    return [RefBlock(p, x0, text) for p, x0, text in reference_blocks(cache.db, cid, kept)]


def folder_targets(cache: Cache, root: str) -> dict[int, Target]:
    """``{content id: Target}`` of the indexed documents of ``root`` (one per content)."""
    out: dict[int, Target] = {}
    for row in read_documents(cache.db, root):
        cid = row.content_id
        if cid is None or row.content_reason or row.text_quality != "ok" or cid in out:
            continue
        out[cid] = Target(cid, row.title or "", parse_authors(row.authors), row.year,
                             row.arxiv_id or "", row.doi or "")
    return out


def _entries(cache: Cache, cids: set[int], read: dict[int, list[Reference]]
             ) -> dict[int, list[Reference]]:
    """``{content id: entries}`` of ``cids`` (those without entries absent), from ``read``
    where it has them, else from the cache."""
    out = {c: read[c] for c in cids if read.get(c)}
    out.update(references_of(cache.db, cids - set(read)))
    return out


def update_links(cache: Cache, root: str, read: dict[int, list[Reference]] | None = None
                 ) -> int:
    """Bring ``root``'s citation links up to date with its documents (see the module doc);
    ``read``: entries :func:`fill_references` just stored (the others are read from the
    cache). Returns how many documents were (re-)matched."""
    targets = folder_targets(cache, root)
    now = {cid: t.fingerprint(REFERENCES_VERSION) for cid, t in targets.items()}
    before = cache.citation_state(root)
    changed = {cid for cid, fp in now.items() if before.get(cid) != fp}
    dropped = changed | (set(before) - set(now))
    if not dropped:
        return 0
    all_index = TargetIndex.of(targets.values())
    changed_index = TargetIndex.of(targets[c] for c in changed)
    links = link(_entries(cache, changed, read or {}), all_index)
    links += link(_entries(cache, set(now) - changed, read or {}), changed_index)
    cache.update_links(root, dropped, links, now)
    return len(changed)
