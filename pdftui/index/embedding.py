"""Embedding the units of an index run: a background thread (:class:`EmbedThread`) that
plans each extracted content's embedding units and embeds them in batches, each committed
in its own transaction, so an interrupted run resumes where it stopped; and how it works
(:class:`EmbedPipeline`: int8 or fp32, single-unit runs, streams, the openings first).

While another process holds the cache's embedding lease this thread follows it (reports
its progress) instead of embedding the same units. Counts are embedding units; times are
seconds.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from ..cache import HEAD_UNITS, SECTION_HEAD_CHARS, SECTION_HEAD_PAGE
from ..store.database import Cache
from ..embed import DEFAULT_PLAN, PLAN_1, UnitPlan
from ..embed.pairs import head_tiles, pair_spans, pair_vector
from ..lease import Lease, embed_lease_name
from .report import Progress, ProgressFn

#: Units per embedding batch (and per committed transaction).
EMBED_BATCH = 16
#: What joins a page's blocks in its text (pdftui.extract), so block k starts after k of them.
BLOCK_SEPARATOR = "\n\n"
#: Seconds between looks at the embedding lease while another process holds it.
FOLLOW_POLL_S = 1.0


def section_head_text(embedder, title: str, text: str, own_chars: int,
                      plan: UnitPlan = PLAN_1) -> str:
    """The text of a section's head unit: the first embedding unit (up to
    ``plan.head_tokens`` tokens) of the section's own text, from its heading; the title
    when that is empty. ``own_chars`` as in ``sections.own_chars`` (-1 = the whole text).
    A plan cutting at paragraphs reads up to 4x ``SECTION_HEAD_CHARS`` characters, so its
    first unit ends where the page's unit from the same heading ends."""
    own = text if own_chars < 0 else text[:own_chars]
    chars = SECTION_HEAD_CHARS * (4 if plan.paragraphs else 1)
    first = embedder.units(own[:chars], plan, max_tokens=plan.head_tokens)
    return next(iter(first), "") or title


def _head_end(parts: list, own_text: str) -> int:
    """Where in a section's own text its head unit of tiles ``parts`` (``(key, text)``)
    ends: after the last tile's text, found from the first's (the length of the own text
    when not found)."""
    pos = own_text.find(parts[0][1])
    for _key, text in parts[1:]:
        pos = own_text.find(text, max(pos, 0))
    return len(own_text) if pos < 0 else min(len(own_text), pos + len(parts[-1][1]))


#: Characters of a page unit's start that key it for :func:`page_unit_head`.
_HEAD_KEY = 24


def page_unit_head(first: str, starts: dict[str, list[str]], embedder, least: int) -> str:
    """A section head unit's text under a plan with ``head_min``: ``first`` (the head as
    :func:`section_head_text` gives it), or, when ``first`` runs on past the page unit
    that starts at its heading (the section crosses a page end), that page unit's text
    if it holds at least ``least`` model tokens, so its vector is copied rather than
    ``first`` embedded. ``starts``: page unit texts by their first ``_HEAD_KEY``
    characters."""
    got = [u for u in starts.get(first[:_HEAD_KEY], ())
           if len(u) < len(first) and first.startswith(u)]
    if not got:
        return first
    unit = max(got, key=len)
    return unit if embedder.model_tokens([unit])[0] >= least else first


@dataclass(frozen=True, slots=True)
class EmbedPipeline:
    """How the embedding thread works. The default is the product's way; :data:`EARLIER`
    (fp32, texts in their order, small batches, no openings first) is kept so
    bench/index.py compares the two in one run (and the default with other unit plans).

    ``int8``: run the default model as its int8 copy (None: env ``PDFTUI_EMBED_INT8``,
    else on); ``sort``: onnxruntime runs of similar token length; ``single``: each unit its
    own onnxruntime run, so its vector depends on its text alone (the int8 copy quantizes
    activations per run, and which units share a batch depends on the order the
    extraction workers finish in: two fresh indexes differed); ``batch_units``: units
    per embed call and committed transaction; ``heads_first``: every document's first
    ``HEAD_UNITS`` page units (its opening) before any document's other units, so
    documents become semantically searchable early; ``plan``:
    the unit plan (:class:`pdftui.embed.units.UnitPlan`, part of the embeddings' identity);
    ``threads``: onnxruntime's intra-op threads (None: its default, one per core);
    ``streams``: single-unit runs at once, each on one thread (None: one per core the
    process may use, :func:`embed_streams`); ``nice``: how much the embedding thread (and
    the stream threads it starts, which inherit it) lowers its own scheduling priority
    (Linux: a nice value per thread), so that extraction, whose text keyword search needs
    first, and the TUI or a searching process win the cores when they compete; alone on
    the machine the embedding runs as fast (0: unchanged).
    """

    int8: bool | None = None
    sort: bool = True
    single: bool = True
    batch_units: int = 64
    heads_first: bool = True
    plan: UnitPlan = DEFAULT_PLAN
    threads: int | None = 1
    streams: int | None = None
    nice: int = 10


EARLIER = EmbedPipeline(int8=False, sort=False, single=False, batch_units=EMBED_BATCH,
                        heads_first=False, plan=PLAN_1, threads=None, streams=1, nice=0)


def lower_thread_priority(amount: int) -> bool:
    """Add ``amount`` to the calling thread's nice value (Linux, where it is per thread;
    threads it starts afterwards inherit it). Returns False where that is not possible
    (other systems, where it would apply to the whole process, or when refused)."""
    if amount <= 0 or not sys.platform.startswith("linux"):
        return False
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid)
                                                  + amount))
    except (AttributeError, OSError):
        return False
    return True


def embed_streams(pipeline: EmbedPipeline) -> int:
    """How many runs ``pipeline`` embeds at once: its ``streams``, else the cores this
    process may run on (``os.sched_getaffinity``, else ``os.cpu_count()``), at most 8."""
    if pipeline.streams is not None:
        return max(1, pipeline.streams)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(8, cores))


class _EmbedQueue:
    """Units waiting to be embedded, as ``(content_id, stamp, unit)`` items: with
    ``heads_first``, every content's opening units before any content's other units."""

    def __init__(self, heads_first: bool):
        self.heads_first = heads_first
        self.heads: deque = deque()
        self.rest: deque = deque()
        self.dead: set[tuple[int, float]] = set()   # contents changed since planned

    def __len__(self) -> int:
        return len(self.heads) + len(self.rest)

    def add(self, cid: int, stamp: float, todo: list) -> None:
        items = [(cid, stamp, t) for t in todo]
        if self.heads_first:
            opening = [it for it in items if it[2][0] != SECTION_HEAD_PAGE][:HEAD_UNITS]
            self.heads.extend(opening)
            keep = set(map(id, opening))
            items = [it for it in items if id(it) not in keep]
        self.rest.extend(items)

    def take(self, n: int) -> list:
        out: list = []
        for q in (self.heads, self.rest):
            while q and len(out) < n:
                it = q.popleft()
                if (it[0], it[1]) not in self.dead:
                    out.append(it)
        return out


class EmbedRate:
    """Embedding speed and time left, in model tokens (special tokens included, as
    :meth:`pdftui.embed.Embedder.model_tokens` counts them): a unit's cost grows with its
    length, so units of a few tokens (short pages, headings) and full 256-token windows
    are not counted alike. The ETA (seconds) divides the tokens left, plus the tokens the
    contents not planned yet will bring (at the mean tokens per planned content), by the
    tokens per second since the first batch ended (that batch includes the model's load
    and is not counted). ``clock`` gives seconds (``time.monotonic``)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.t0: float | None = None
        self.done = 0   # tokens embedded since t0

    def update(self, tokens: int) -> None:
        """``tokens`` more were embedded (one batch)."""
        if self.t0 is None:
            self.t0 = self.clock()
            return
        self.done += tokens

    def eta(self, left: int, planned: int, expected: int, tokens_planned: int
            ) -> float | None:
        """Seconds left for ``left`` tokens still to embed of ``planned`` contents holding
        ``tokens_planned`` tokens, of ``expected`` contents in all; None until a batch
        after the first has been timed."""
        if self.t0 is None or self.done <= 0:
            return None
        rate = self.done / max(self.clock() - self.t0, 1e-6)
        unplanned = max(0, expected - planned)
        if planned:
            left += unplanned * tokens_planned / planned
        return left / rate


class EmbedThread(threading.Thread):
    """Embeds contents' units in length-sorted batches, each batch its own transaction."""

    def __init__(self, cache_dir, embedder, report: ProgressFn, cancel: threading.Event,
                 pipeline: EmbedPipeline = EmbedPipeline()):
        super().__init__(name="pdftui-embed", daemon=True)
        self.cache_dir = cache_dir
        self.embedder = embedder
        self.report = report
        self.cancel = cancel
        self.pipeline = pipeline
        self.q: queue.Queue[int | None] = queue.Queue()
        self.units_done = 0      # embedded by this run
        self.units_total = 0     # to embed in this run
        self.units_before = 0    # already embedded (by an earlier run or another process)
        self.tokens_done = 0     # model tokens of the units embedded by this run
        self.tokens_total = 0    # model tokens of the units to embed in this run
        self.error: str | None = None
        self.expected = 0        # contents this run may embed (queued or being extracted)
        self.planned = 0         # contents planned so far
        self.all_planned = False  # the end-of-queue mark was seen: the unit total is final
        self.docs_ready = 0      # planned contents whose units are all embedded
        self._queued: set[int] = set()
        self._left: dict[int, int] = {}   # units still to embed per planned content
        self._rate = EmbedRate()
        self._copied: set[tuple[int, int, int]] = set()   # page units a head unit copies
        self._copies: dict = {}                            # their vectors, once embedded
        self._tiles: dict = {}   # (content id, tile key): a tile's vector (plans with tiles)
        self.followed_s = 0.0    # seconds spent following another process's lease
        self.followed: str = ""  # whom ("pid 1234 on host")
        self.lease = Lease(cache_dir, embed_lease_name(embedder.model_id),
                           progress=lambda: (self.units_before + self.units_done,
                                             self.units_before + self.units_total))

    def put(self, content_id: int) -> None:
        """Queue a content (its id in the cache) to embed; once while it waits."""
        if content_id not in self._queued:
            self._queued.add(content_id)
            self.q.put(content_id)

    def expect(self, n: int) -> None:
        """``n`` more contents may come (documents still to extract), for the ETA."""
        self.expected += n

    def finish(self) -> None:
        """No more contents will come: the thread ends once the queued ones are embedded."""
        self.q.put(None)

    def run(self) -> None:
        """Plan and embed the queued contents until :meth:`finish` and all are embedded,
        or until cancelled; an error ends the run and is kept in ``error``."""
        lower_thread_priority(self.pipeline.nice)
        cache = Cache(self.cache_dir)
        work = _EmbedQueue(self.pipeline.heads_first)
        finished = False
        try:
            while not self.cancel.is_set():
                finished = self._plan_queued(cache, work, block=not work and not finished) \
                    or finished
                if not work:
                    if finished:
                        break
                    continue
                if not self._hold_lease(cache):
                    break
                batch = self._still_missing(cache, work.take(self.pipeline.batch_units))
                if batch:
                    self._embed_batch(cache, work, batch)
        except Exception as exc:  # noqa: BLE001 - reported in the summary, never a crash
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            try:
                self.lease.release(cache)
            except Exception:  # noqa: BLE001 - an expired lease is taken over anyway
                pass
            cache.close()

    def _plan_queued(self, cache: Cache, work: _EmbedQueue, block: bool) -> bool:
        """Plan every content queued so far (tokenising is cheap), so the unit total is
        known early; block for one only when there is nothing to embed. True once the
        end-of-queue mark was seen."""
        finished = False
        while True:
            try:
                cid = self.q.get() if block and not finished else self.q.get_nowait()
            except queue.Empty:
                break
            block = False
            if cid is None:
                finished = self.all_planned = True
                continue
            self._queued.discard(cid)   # a replaced content may reuse the id
            stamp = cache.content_stamp(cid)
            todo = self._plan(cache, cid) if stamp is not None else []
            self.planned += 1
            if todo:
                work.add(cid, stamp, todo)
                self._left[cid] = len(todo)
            else:
                self.docs_ready += 1
            self._report()
        return finished

    def _hold_lease(self, cache: Cache) -> bool:
        """Hold the cache's embedding lease; while another live process holds it, report
        its progress (``Progress.following``) and wait. False when cancelled meanwhile."""
        if self.lease.held and self.lease.still_held(cache):
            return True
        t0 = time.monotonic()
        waited = False
        try:
            while not self.cancel.is_set():
                other = self.lease.take(cache)
                if other is None:
                    return True
                waited = True
                self.followed = f"pid {other.pid} on {other.host}"
                self.report(Progress("embed", units_total=other.units_total,
                                     units_done=other.units_done, following=self.followed))
                self.cancel.wait(FOLLOW_POLL_S)
            return False
        finally:
            if waited:
                self.followed_s += time.monotonic() - t0

    def _still_missing(self, cache: Cache, batch: list) -> list:
        """``batch`` ((content id, stamp, unit) items) without the units stored meanwhile
        (by the process we followed); the counts move them to "already embedded"."""
        if not batch or not self.followed:
            return batch
        have = set()
        for cid in {it[0] for it in batch}:
            have |= {(cid, p, o) for p, o in cache.unit_keys(cid, self.embedder.model_id)}
        left = [it for it in batch if (it[0], it[2][0], it[2][1]) not in have]
        gone = len(batch) - len(left)
        self.units_total -= gone
        self.tokens_total -= sum(it[2][5] for it in batch) - sum(it[2][5] for it in left)
        self.units_before += gone
        return left

    def _report(self) -> None:
        left = self.tokens_total - self.tokens_done
        eta = self._rate.eta(left, self.planned, self.expected, self.tokens_total)
        self.report(Progress("embed", units_total=self.units_before + self.units_total,
                             units_done=self.units_before + self.units_done,
                             tokens_total=self.tokens_total, tokens_done=self.tokens_done,
                             docs_total=max(self.expected, self.planned),
                             docs_done=self.docs_ready, eta_s=eta,
                             docs_planned=max(self.expected, self.planned)
                             if self.all_planned else self.planned))

    def _embed_batch(self, cache: Cache, work: _EmbedQueue, batch: list) -> None:
        """Embed one batch of ``(content_id, stamp, unit)`` items and commit it in one
        transaction; the units of a content that changed or went away since it was planned
        (``stamp`` = its ``indexed_at``: a re-extracted content may get the same id) are
        dropped, and so are its remaining items."""
        import numpy as np   # not imported by a run with nothing to embed

        emb = self.embedder
        model_id = emb.model_id
        vecs = self._vectors(batch).astype(np.float32, copy=False)
        dead = cache.store_units(
            model_id, [(it[0], it[1], it[2], v.tobytes()) for it, v in zip(batch, vecs)],
            keep=lambda: self.lease.still_held(cache))
        if dead is None:
            return  # taken over (we were suspended or too slow to beat): it embeds them
        work.dead |= dead
        for it in batch:
            left = self._left.get(it[0])
            if left is not None:
                self._left[it[0]] = left - 1
                if left == 1:
                    self.docs_ready += 1
                    self._forget_copies(it[0])
        tokens = sum(it[2][5] for it in batch)
        self.units_done += len(batch)
        self.tokens_done += tokens
        self._rate.update(tokens)
        self._report()

    def _vectors(self, batch: list):
        """The vectors of a batch's units, in order: each embedded, except a unit naming a
        page unit of the same text (``same``), which takes that unit's vector (embedded
        earlier in this run or in this batch: a content's page units are queued before its
        section heads), or is embedded when that vector is not at hand."""
        import numpy as np

        emb, pipe = self.embedder, self.pipeline
        if pipe.plan.tiles:
            return self._pair_vectors(batch)
        own = {(it[0], it[2][0], it[2][1]) for it in batch if it[2][6] is None}
        fresh = [k for k, it in enumerate(batch) if it[2][6] is None
                 or ((it[0], *it[2][6]) not in self._copies
                     and (it[0], *it[2][6]) not in own)]
        got = emb.embed([batch[k][2][4] for k in fresh], sort=pipe.sort, single=pipe.single)
        out = np.zeros((len(batch), got.shape[1]), dtype=np.float32)
        for k, v in zip(fresh, got):
            out[k] = v
            key = (batch[k][0], batch[k][2][0], batch[k][2][1])
            if key in self._copied:
                self._copies[key] = v
        fresh_set = set(fresh)
        for k, it in enumerate(batch):
            if k not in fresh_set:
                out[k] = self._copies[(it[0], *it[2][6])]
        return out

    def _pair_vectors(self, batch: list):
        """The vectors of a batch's units under a plan with tiles: each the normalised sum
        of its tiles' vectors (:func:`pdftui.embed.pairs.pair_vector`); a tile is run
        through the model once per content and run (its vector kept until the content's
        units are all embedded), so neighbouring pairs and section heads share it."""
        import numpy as np

        emb, pipe = self.embedder, self.pipeline
        fresh: dict = {}
        for cid, _stamp, unit in batch:
            for key, text, _n in unit[7]:
                if (cid, key) not in self._tiles:
                    fresh.setdefault((cid, key), text)
        got = emb.embed(list(fresh.values()), sort=pipe.sort, single=pipe.single)
        self._tiles.update(zip(fresh, got))
        return np.stack([pair_vector(np.stack([self._tiles[(cid, t[0])] for t in unit[7]]),
                                     [t[2] for t in unit[7]] if pipe.plan.weigh else None)
                         for cid, _stamp, unit in batch])

    def _forget_copies(self, cid: int) -> None:
        """Drop the kept vectors of a content whose units are all embedded."""
        for key in [k for k in self._copied if k[0] == cid]:
            self._copied.discard(key)
            self._copies.pop(key, None)
        for key in [k for k in self._tiles if k[0] == cid]:
            del self._tiles[key]

    def _plan(self, cache: Cache, cid: int) -> list[tuple]:
        """The units of one content still to embed: ``(page, ordinal, start, end, text,
        model tokens, same, tiles)``, ``same`` the ``(page, ordinal)`` of a page unit of the
        same text whose vector it takes (a section head; 0 tokens), else None; ``tiles``
        (a plan with tiles, else None) the ``(key, text, model tokens)`` of the tiles whose
        vectors make the unit's, its tokens those of the tiles no unit before it holds."""
        emb = self.embedder
        plan = self.pipeline.plan
        model_id, whash = emb.model_id, plan.identity(emb.weights_hash)
        state = cache.embedding_state(cid, model_id)
        if state and state[0] != whash:
            cache.drop_embeddings(cid, model_id)
            state = None
        if state and state[2] >= state[1] and not cache.heads_missing(cid, model_id):
            return []
        todo: list = []
        if plan.tiles:
            todo = self._tiled_units(cache, cid)
        else:
            cuts = self._heading_offsets(cache, cid) if plan.paragraphs else {}
            for number, text in cache.page_texts(cid):
                for i, (start, end) in enumerate(emb.unit_spans(text, plan,
                                                                cuts=cuts.get(number, ()))):
                    todo.append((number, i, start, end, text[start:end], None))
            todo += self._head_units(cache, cid, todo)
        have = cache.unit_keys(cid, model_id)
        if not cache.plan_embeddings(cid, model_id, whash, len(todo), len(have)):
            return []
        todo = [t for t in todo if (t[0], t[1]) not in have]
        if plan.tiles:
            todo = self._tile_costs(todo)
        else:
            todo = [t if t[5] is None or t[5] not in have else (*t[:5], None) for t in todo]
            counts = iter(emb.model_tokens([t[4] for t in todo if t[5] is None]))
            todo = [(*t[:5], 0 if t[5] else next(counts), t[5], None) for t in todo]
        self._copied.update((cid, *t[6]) for t in todo if t[6])
        self.units_before += len(have)
        self.units_total += len(todo)
        self.tokens_total += sum(t[5] for t in todo)
        return todo

    def _head_units(self, cache: Cache, cid: int, pages: list[tuple]) -> list[tuple]:
        """One head unit per section of content ``cid``, as :meth:`_plan` lists units
        (``pages``: its page units): the first unit of the section's own text, from its
        heading (page 0 marks them; the semantic section arm ranks sections by it); where
        a page unit holds the same text (with the plan's ``head_min``: where the page unit
        from its heading is long enough, :func:`page_unit_head`), the last field names it
        and its vector is copied."""
        emb, plan = self.embedder, self.pipeline.plan
        same = {t[4]: (t[0], t[1]) for t in pages} if plan.paragraphs else {}
        starts: dict[str, list[str]] = {}
        for t in pages if plan.paragraphs and plan.head_min else ():
            starts.setdefault(t[4][:_HEAD_KEY], []).append(t[4])
        out = []
        for ordinal, title, text, own in cache.section_texts(cid):
            first = section_head_text(emb, title, text, own, plan)
            if starts and first not in same:
                first = page_unit_head(first, starts, emb, plan.head_min)
            if first.strip():
                out.append((SECTION_HEAD_PAGE, ordinal, 0, len(first), first,
                            same.get(first)))
        return out

    def _tiled_units(self, cache: Cache, cid: int) -> list[tuple]:
        """The units of content ``cid`` under a plan with tiles, as :meth:`_plan` lists
        them before their tokens are counted (``same`` None, then ``tiles``): each page cut
        into tiles starting at its section headings, its units the pairs of neighbouring
        tiles (:func:`pdftui.embed.pairs.pair_spans`), then one head unit per section."""
        emb, plan = self.embedder, self.pipeline.plan
        starts = self._section_offsets(cache, cid)
        cuts: dict[int, list[int]] = {}
        for start in starts if plan.tile_heads else ():
            if start is not None:
                cuts.setdefault(start[0], []).append(start[1])
        pages: dict[int, tuple[str, list]] = {}
        out = []
        for number, text in cache.page_texts(cid):
            tiles = emb.tile_spans(text, plan, cuts.get(number, ()))
            pages[number] = (text, tiles)
            for i, (start, end, parts) in enumerate(pair_spans(tiles)):
                out.append((number, i, start, end, text[start:end], None,
                            tuple(((number, k), text[slice(*tiles[k])]) for k in parts)))
        return out + self._tiled_heads(cache, cid, pages, starts)

    def _tiled_heads(self, cache: Cache, cid: int, pages: dict[int, tuple[str, list]],
                     starts: list[tuple[int, int] | None]) -> list[tuple]:
        """One head unit per section, as :meth:`_tiled_units` lists units: the pair of the
        section's first two tiles (:func:`pdftui.embed.pairs.head_tiles`), page tiles
        where its start is found (their vectors shared with the page units), else the
        first two tiles of its own text, embedded apart."""
        emb, plan = self.embedder, self.pipeline.plan
        numbers = list(pages)
        out = []
        for (ordinal, title, text, own), start in zip(cache.section_texts(cid), starts):
            own_text = (text if own < 0 else text[:own]) or title
            parts: list = []
            if start is not None and start[0] in pages:
                page, offset = start
                ptext, ptiles = pages[page]
                k = numbers.index(page)
                nxt = numbers[k + 1] if k + 1 < len(numbers) else None
                ntext, ntiles = pages.get(nxt, ("", []))
                for which, i in head_tiles(ptiles, offset, len(own_text), len(ptext), ntiles,
                                           holding=not plan.tile_heads):
                    num, src, tiles = (page, ptext, ptiles) if which == 0 else \
                        (nxt, ntext, ntiles)
                    parts.append(((num, i), src[slice(*tiles[i])]))
            if not parts:
                tiles = emb.tile_spans(own_text[:SECTION_HEAD_CHARS * 2], plan)[:2]
                parts = [((SECTION_HEAD_PAGE, ordinal, i), own_text[slice(*span)])
                         for i, span in enumerate(tiles)]
            if parts:
                first = own_text[:_head_end(parts, own_text)]
                out.append((SECTION_HEAD_PAGE, ordinal, 0, len(first), first, None,
                            tuple(parts)))
        return out

    def _tile_costs(self, todo: list) -> list[tuple]:
        """``todo`` (:meth:`_tiled_units`'s units still to embed) with their model tokens
        in place: a unit's are those of its tiles no unit before it holds (the tiles run
        through the model once); each tile becomes ``(key, text, model tokens)``."""
        texts = {key: text for t in todo for key, text in t[6]}
        counts = dict(zip(texts, self.embedder.model_tokens(list(texts.values()))))
        seen: set = set()
        out = []
        for t in todo:
            new = [key for key, _text in t[6] if key not in seen]
            seen.update(new)
            out.append((*t[:5], sum(counts[k] for k in new), None,
                        tuple((key, text, counts[key]) for key, text in t[6])))
        return out

    @staticmethod
    def _section_offsets(cache: Cache, cid: int) -> list[tuple[int, int] | None]:
        """Per section of content ``cid`` (in order), ``(page number, character offset)``
        of its heading in that page's text (a page's text is its blocks joined by a blank
        line), or None when its start block is not on a page of the content."""
        texts = dict(cache.page_texts(cid))
        out: list[tuple[int, int] | None] = []
        for page, block in cache.section_starts(cid):
            blocks = texts.get(page, "").split(BLOCK_SEPARATOR) if page in texts else []
            if block < len(blocks):
                out.append((page, sum(len(b) + len(BLOCK_SEPARATOR) for b in blocks[:block])))
            else:
                out.append(None)
        return out

    @staticmethod
    def _heading_offsets(cache: Cache, cid: int) -> dict[int, list[int]]:
        """Per page number, the character offsets where the content's sections start
        (their heading block's first character: a page's text is its blocks joined by a
        blank line)."""
        starts: dict[int, set[int]] = {}
        for page, block in cache.section_starts(cid):
            starts.setdefault(page, set()).add(block)
        out: dict[int, list[int]] = {}
        for number, text in cache.page_texts(cid):
            if number in starts:
                offsets, pos = [], 0
                for k, block in enumerate(text.split(BLOCK_SEPARATOR)):
                    if k in starts[number]:
                        offsets.append(pos)
                    pos += len(block) + len(BLOCK_SEPARATOR)
                out[number] = offsets
        return out
