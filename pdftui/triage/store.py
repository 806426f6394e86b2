"""The user-data store: marks, notes, clipped passages, the last session and the query
history of each folder.

This is the user's own work, so it never lives in the index cache (which is derived data
and may be deleted at any time): it is one SQLite file, ``triage.sqlite3``, in the user
data dir (platformdirs, app ``pdftui``: ``~/.local/share/pdftui`` on Linux), or in the
folder given by ``--data-dir`` / ``$PDFTUI_DATA_DIR``.

A document's record is found by its content hash (SHA-256 of the PDF's bytes, as the cache
computes it) *and* by its path (root folder + ``doc``, the path relative to the root):

- by hash first, so a renamed or moved file (same bytes) keeps its record, and so does a
  folder indexed afresh after the cache was deleted (the hash is recomputed from the file);
- else by path, so an edited file (new bytes, same place) keeps its record;
- every write, and every :meth:`TriageStore.lookup` that found a record one way only,
  brings the record's hash and path up to date, so a rename followed later by an edit
  still finds it.

Concurrency (the file's SQL is :mod:`pdftui.store.user_data`): WAL journal, a 60 s busy
timeout, every write one short ``BEGIN IMMEDIATE`` transaction that changes only the field
it is about (a mark never overwrites a note, a
clip is an insert), so two processes marking at once lose nothing. The schema version is
``PRAGMA user_version``; a file that cannot be read (damaged, not a database, made by a
newer pdftui, unreadable) raises :class:`TriageStoreError` with a one-line message and is
never written, moved or replaced.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from ..errors import TriageStoreError
from ..store.user_data import UserDataFile

DB_NAME = "triage.sqlite3"
#: Queries kept per folder in the history (the oldest are dropped).
HISTORY_LIMIT = 200

class Mark(StrEnum):
    """A document's triage state. The value is what the CLI and ``--json`` use."""

    NONE = "none"
    TO_READ = "to-read"
    KEEP = "keep"
    SKIP = "skip"

    @classmethod
    def parse(cls, text: str) -> "Mark":
        """``Mark`` from its value, case-insensitive, ``_`` or space for ``-``
        ("to_read", "To read"). Raises ``ValueError`` naming the choices."""
        key = "-".join(text.strip().lower().replace("_", " ").split())
        try:
            return cls(key)
        except ValueError:
            raise ValueError(f"unknown mark {text!r} (one of: "
                             f"{', '.join(m.value for m in cls)})") from None


@dataclass(frozen=True, slots=True)
class DocKey:
    """How a document is found: its root folder (made real with ``os.path.realpath``),
    ``doc`` (path relative to the root, as the cache names it) and ``sha256`` (hex digest
    of its bytes; '' when not known yet, e.g. a document still queued for indexing)."""

    root: str
    doc: str
    sha256: str = ""

    @classmethod
    def of(cls, root: str | os.PathLike, doc: str, sha256: str | None = "") -> "DocKey":
        """A key with ``root`` made real (so every caller names a folder the same way)."""
        return cls(os.path.realpath(os.fspath(root)), doc, sha256 or "")


@dataclass(frozen=True, slots=True)
class Clip:
    """A passage clipped from a document into its notes.

    ``page`` is 1-based; ``page_label`` the printed label ('' when the PDF has none);
    ``section`` the section title or path ('' when none); ``id`` is set once stored;
    ``created_at`` in seconds since the epoch; ``doc`` the file it was clipped from, set
    when the clips of a work's files are read together (:mod:`pdftui.triage.works`),
    else ''.
    """

    text: str
    page: int
    page_label: str = ""
    section: str = ""
    id: int | None = None
    created_at: float = 0.0
    doc: str = ""

    @property
    def page_ref(self) -> str:
        """The page as a reader cites it: ``"p. 7"`` (the printed label when there is one)."""
        return f"p. {self.page_label or self.page}"


@dataclass(slots=True)
class DocTriage:
    """What the user decided about one document: mark, note and clips (oldest first).
    ``updated_at`` is 0.0 for a document never touched."""

    mark: Mark = Mark.NONE
    note: str = ""
    clips: list[Clip] = field(default_factory=list)
    updated_at: float = 0.0

    @property
    def empty(self) -> bool:
        """True when there is nothing to keep (no mark, note or clip)."""
        return self.mark is Mark.NONE and not self.note and not self.clips


@dataclass(frozen=True, slots=True)
class ReaderPosition:
    """Where the reader was: ``doc``, 1-based ``page``, the section id when a whole section
    was shown (``view`` "section") else None (``view`` "page"), and ``scroll`` (lines
    scrolled from the top of that view)."""

    doc: str
    page: int = 1
    section_id: int | None = None
    view: str = "page"
    scroll: int = 0


@dataclass(frozen=True, slots=True)
class Session:
    """The last session on a folder, restored when it is opened again.

    ``mode`` is "keyword" / "semantic" / "hybrid"; ``granularity`` "page" / "section";
    ``scope`` the ``doc`` names searched (empty = the whole folder) or a mark scope
    ``mark:keep`` / ``mark:to-read`` as its one element; ``reader`` None when the reader
    was not open; ``export_path`` the file the folder was last exported to ('' if none),
    where the next export is offered.
    """

    query: str = ""
    mode: str = "hybrid"
    granularity: str = "page"
    scope: tuple[str, ...] = ()
    reader: ReaderPosition | None = None
    export_path: str = ""

    def to_json(self) -> dict:
        """A JSON-ready dict (``reader`` a dict or None)."""
        r = self.reader
        return {"query": self.query, "mode": self.mode, "granularity": self.granularity,
                "scope": list(self.scope), "export_path": self.export_path,
                "reader": None if r is None else {
                    "doc": r.doc, "page": r.page, "section_id": r.section_id,
                    "view": r.view, "scroll": r.scroll}}

    @classmethod
    def from_json(cls, data: dict) -> "Session":
        """The inverse of :meth:`to_json`; unknown or malformed fields take defaults."""
        r = data.get("reader")
        reader = None
        if isinstance(r, dict) and isinstance(r.get("doc"), str):
            sid = r.get("section_id")
            reader = ReaderPosition(r["doc"], _int(r.get("page"), 1),
                                    sid if isinstance(sid, int) else None,
                                    str(r.get("view") or "page"), _int(r.get("scroll"), 0))
        scope = data.get("scope")
        return cls(str(data.get("query") or ""), str(data.get("mode") or "hybrid"),
                   str(data.get("granularity") or "page"),
                   tuple(str(s) for s in scope) if isinstance(scope, list) else (), reader,
                   data["export_path"] if isinstance(data.get("export_path"), str) else "")


def _distinct(keys: Iterable[DocKey]) -> list[DocKey]:
    """``keys`` without a second key of the same content (two copies of one file share
    one record, found by its hash)."""
    seen: set[str] = set()
    out = []
    for k in keys:
        if not k.sha256 or k.sha256 not in seen:
            seen.add(k.sha256)
            out.append(k)
    return out


def _int(v, default: int) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def default_data_dir() -> Path:
    """The user-data folder: ``$PDFTUI_DATA_DIR`` if set, else the platform user data dir
    (platformdirs; ``~/.local/share/pdftui`` on Linux, honouring ``XDG_DATA_HOME``)."""
    env = os.environ.get("PDFTUI_DATA_DIR")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("pdftui", appauthor=False))


class TriageStore:
    """A connection to the user-data file.

    ``TriageStore(data_dir)`` (None: :func:`default_data_dir`) creates the folder (0700) and
    the file when missing. One object is one SQLite connection, guarded by a lock, so it may
    be shared by threads (the TUI's workers); never call it on a UI thread. Raises
    :class:`TriageStoreError` when the file cannot be read (damaged: named as the user
    data file's problem, never the cache's) or the folder cannot be made, and for any
    SQLite error of a read or write later. ``read_only``: for commands that only read
    (nothing created, no side files: reading needs no free space; see
    :class:`pdftui.store.user_data.UserDataFile`).
    """

    def __init__(self, data_dir: str | os.PathLike | None = None, *, read_only: bool = False):
        self.dir = Path(data_dir).expanduser() if data_dir else default_data_dir()
        self.path = self.dir / DB_NAME
        self._file = UserDataFile(self.dir, self.path, read_only=read_only)
        self._lock = self._file.lock

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._file.close()

    def __enter__(self) -> "TriageStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- finding a record ----------------------------------------------------------------
    def _by_hash(self, key: DocKey, exclude: set[int] = frozenset()) -> tuple | None:
        """The record with this content hash: the one at this path first, then one with
        this file name, then the most recently changed."""
        if not key.sha256:
            return None
        for row in self._file.records_by_hash(key.sha256, key.root, key.doc):
            if row[0] not in exclude:
                return row
        return None

    def _known(self) -> tuple[set[str], set[tuple[str, str]]]:
        """The content hashes and the ``(root, doc)`` paths of every record."""
        hashes: set[str] = set()
        paths: set[tuple[str, str]] = set()
        for sha, root, doc in self._file.record_keys():
            hashes.add(sha)
            paths.add((root, doc))
        return hashes, paths

    def _by_path(self, key: DocKey, exclude: set[int] = frozenset()) -> tuple | None:
        """The most recently changed record at this path."""
        for row in self._file.records_at(key.root, key.doc):
            if row[0] not in exclude:
                return row
        return None

    def _find(self, key: DocKey) -> tuple | None:
        return self._by_hash(key) or self._by_path(key)

    def _record_for_write(self, key: DocKey) -> int:
        """The record id for ``key`` (inside a write transaction), created when missing,
        its hash and path brought up to date."""
        now = time.time()
        row = self._find(key)
        if row is None:
            return self._file.insert_record(key.sha256, key.root, key.doc, now)
        self._file.touch_record(row[0], key.sha256 or row[1], key.root, key.doc, now)
        return row[0]

    def _load(self, record_id: int) -> DocTriage:
        mark, note, updated = self._file.record(record_id)
        clips = [Clip(t, p, lab, sec, cid, at)
                 for cid, p, lab, sec, t, at in self._file.clips(record_id)]
        try:
            m = Mark(mark)
        except ValueError:
            m = Mark.NONE
        return DocTriage(m, note, clips, updated)

    # -- reading -------------------------------------------------------------------------
    def get(self, key: DocKey) -> DocTriage:
        """The triage of one document (an empty :class:`DocTriage` when none). Read-only."""
        with self._lock:
            row = self._find(key)
            return self._load(row[0]) if row else DocTriage()

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version`` on this connection: it changes when another
        connection (another pdftui process, a CLI ``mark``) commits to the file, and not
        for this connection's own writes. Cheap: no table is read."""
        return self._file.data_version()

    def lookup(self, root: str | os.PathLike, docs: Iterable[tuple[str, str]]
               ) -> dict[str, DocTriage]:
        """The triage of many documents of one folder at once: ``docs`` are
        ``(doc, sha256)`` pairs (the folder's current files); returns ``{doc: DocTriage}``
        for every doc given (empty ones included).

        Hash matches are assigned first, so a record found by path whose content is now
        another file of the folder (two files swapped, a copy) goes to that file. A record
        found one way only is brought up to date (its hash or path), when the file can be
        written; a read-only store still answers.
        """
        real = DocKey.of(root, "").root   # made real once, not once per document
        keys = [DocKey(real, d, s or "") for d, s in docs]
        with self._lock:
            # one read of what the store holds, so a document it has no record of (most
            # of a large folder) costs no query of its own (two per document before:
            # ~0.5 s at 10,000 documents)
            hashes, paths = self._known()
            found: dict[str, tuple] = {}
            claimed: set[int] = set()
            for k in keys:
                row = self._by_hash(k, claimed) if k.sha256 in hashes else None
                if row is not None:
                    found[k.doc] = row
                    claimed.add(row[0])
            for k in keys:
                if k.doc not in found and (k.root, k.doc) in paths:
                    row = self._by_path(k, claimed)
                    if row is not None:
                        found[k.doc] = row
                        claimed.add(row[0])
            self._adopt([(k, found[k.doc]) for k in keys if k.doc in found])
            return {k.doc: self._load(found[k.doc][0]) if k.doc in found else DocTriage()
                    for k in keys}

    def _adopt(self, pairs: list[tuple[DocKey, tuple]]) -> None:
        """Record the current hash and path of records found one way only (best effort)."""
        stale = [(k, row) for k, row in pairs
                 if (k.sha256 and row[1] != k.sha256) or row[2] != k.root or row[3] != k.doc]
        if not stale:
            return
        try:
            with self._file.write():
                self._file.move_records([(k.sha256 or row[1], k.root, k.doc, row[0])
                                         for k, row in stale])
        except TriageStoreError:
            pass

    def marked(self, mark: Mark | None = None) -> list[tuple[DocKey, DocTriage]]:
        """Every record with something in it (``mark`` given: only that mark), as the key
        it was last seen under, most recently changed first."""
        with self._lock:
            rows = self._file.records(None if mark is None else mark.value)
            out = [(DocKey(r, d, s), self._load(i)) for i, r, d, s in rows]
        return [(k, t) for k, t in out if not t.empty]

    # -- writing -------------------------------------------------------------------------
    def set_mark(self, key: DocKey, mark: Mark, note: str | None = None) -> DocTriage:
        """Set the document's mark (``Mark.NONE`` clears it) and, when ``note`` is given,
        its note, in one transaction: all of it or nothing; returns its triage.
        Raises :class:`TriageStoreError` when the file cannot be written."""
        with self._file.write():
            rid = self._record_for_write(key)
            self._file.set_mark(rid, Mark(mark).value)
            if note is not None:
                self._file.set_note(rid, note)
            return self._load(rid)

    def mark_work(self, keys: Iterable[DocKey], mark: Mark, note: str | None = None) -> None:
        """Set the mark of every file of one work (:mod:`pdftui.triage.works`) and, when
        ``note`` is given, its note, in one transaction: all of it or, on an error,
        nothing. Raises :class:`TriageStoreError` when the file cannot be written."""
        with self._file.write():
            for key in _distinct(keys):
                rid = self._record_for_write(key)
                self._file.set_mark(rid, Mark(mark).value)
                if note is not None:
                    self._file.set_note(rid, note)

    def note_work(self, keys: Iterable[DocKey], note: str) -> None:
        """Replace the note of every file of one work ('' clears it), in one
        transaction."""
        with self._file.write():
            for key in _distinct(keys):
                self._file.set_note(self._record_for_write(key), note)

    def delete_work_clip(self, keys: Iterable[DocKey], clip_id: int) -> bool:
        """Delete the clip ``clip_id`` of whichever file of one work holds it; False
        when none does."""
        with self._file.write():
            for key in keys:
                row = self._find(key)
                if row is not None and self._file.delete_clip(row[0], clip_id):
                    return True
        return False

    def set_note(self, key: DocKey, note: str) -> DocTriage:
        """Replace the document's note ('' clears it); returns its triage."""
        with self._file.write():
            rid = self._record_for_write(key)
            self._file.set_note(rid, note)
            return self._load(rid)

    def add_clip(self, key: DocKey, clip: Clip) -> Clip:
        """Add a clipped passage to the document's notes; returns it with ``id`` and
        ``created_at`` set. ``clip.page`` must be >= 1 (``ValueError`` otherwise)."""
        if clip.page < 1:
            raise ValueError(f"a clip's page is 1-based, got {clip.page}")
        now = time.time()
        with self._file.write():
            rid = self._record_for_write(key)
            cid = self._file.insert_clip(rid, clip.page, clip.page_label, clip.section,
                                         clip.text, now)
        return Clip(clip.text, clip.page, clip.page_label, clip.section, cid, now)

    def delete_clip(self, key: DocKey, clip_id: int) -> bool:
        """Delete one clip of the document; False when it has no clip ``clip_id``."""
        with self._file.write():
            row = self._find(key)
            if row is None:
                return False
            return self._file.delete_clip(row[0], clip_id)

    # -- sessions and history ------------------------------------------------------------
    def session(self, root: str | os.PathLike) -> Session | None:
        """The last session saved for the folder, or None."""
        state = self._file.session_state(os.path.realpath(os.fspath(root)))
        if state is None:
            return None
        try:
            data = json.loads(state)
        except ValueError:
            return None
        return Session.from_json(data) if isinstance(data, dict) else None

    def save_session(self, root: str | os.PathLike, session: Session) -> None:
        """Save the folder's session (replacing the previous one)."""
        self._file.save_session(os.path.realpath(os.fspath(root)),
                                json.dumps(session.to_json()))

    def add_history(self, root: str | os.PathLike, query: str) -> None:
        """Append a query to the folder's history (a repeat moves to the end; blank queries
        are ignored; only the newest :data:`HISTORY_LIMIT` are kept)."""
        query = query.strip()
        if not query:
            return
        self._file.add_history(os.path.realpath(os.fspath(root)), query, HISTORY_LIMIT)

    def history(self, root: str | os.PathLike, limit: int = 50) -> list[str]:
        """The folder's queries, newest first, at most ``limit``."""
        return self._file.history(os.path.realpath(os.fspath(root)), limit)
