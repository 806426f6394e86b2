"""A snapshot of the semantic arm's in-memory vectors, kept next to the cache database.

A cold search process would otherwise read every embedding unit row by row from SQLite
and quantize it (:class:`pdftui.search.semantic.VectorMatrix`): 26-34 s at 10,000
documents. The snapshot holds what that load produced, per content: the int8 codes
(stored offset by 128 as uint8, as the matrix holds them) and float32 scales of its
units, their pages and character spans, its head vector and its section head units, plus
the state it was built from (``units_done``, ``units_total`` and a fingerprint per
content, the cache's identity and the model id). A later process memory-maps it and takes
the contents whose state still matches as views into the mapping.

One file per model, ``<cache dir>/vectors/<model>.vsnap``::

    b"PDTVSNP1" | header length (uint64 little-endian) | JSON header | arrays

Each array starts at a multiple of 64 bytes; the header names its dtype, shape and
offset. No pickle: a damaged or foreign file is only ever bytes with a JSON index that is
checked against the file's size. (Not ``.npz``: numpy cannot memory-map a zip member.)
The file is written whole to a temporary name in the same folder and renamed over the
old one (``os.replace``), so a reader sees an old snapshot or a new one, never half of
one; several processes may write it, the last one wins.

Every failure to read (missing, truncated, damaged, another layout) returns None and
every failure to write (read-only folder, full disk) returns False: the caller then
reads SQLite as without a snapshot.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import re
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"PDTVSNP1"
FORMAT = 1
ALIGN = 64
FOLDER = "vectors"
#: each array of a snapshot: its dtype and number of dimensions (anything else: the
#: file is not one this code wrote)
_ARRAYS = {"cids": ("<i8", 1), "done": ("<i8", 1), "total": ("<i8", 1),
           "unit_start": ("<i8", 1), "section_start": ("<i8", 1), "head_row": ("<i8", 1),
           "codes": ("|u1", 2), "scales": ("<f4", 1), "pages": ("<i4", 1),
           "spans": ("<i8", 2), "heads": ("<f4", 2), "section_codes": ("|u1", 2),
           "section_scales": ("<f4", 1), "section_ordinals": ("<i8", 1)}
#: seconds after which a temporary file left by a writer that died is removed
_STALE_TMP_S = 3600


def snapshot_path(cache_dir: str | os.PathLike, model_id: str) -> Path:
    """The snapshot file of ``model_id`` in ``cache_dir`` (its model id made safe for a
    file name, plus a short hash of it so two ids never share a file)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id)[:80]
    tag = hashlib.sha256(model_id.encode()).hexdigest()[:12]
    return Path(cache_dir) / FOLDER / f"{safe}-{tag}.vsnap"


@dataclass(slots=True)
class SnapshotContent:
    """One content's part of a snapshot: ``vectors`` (n, dim) uint8 codes (int8 offset by
    128), ``scales`` (n,) float32, ``pages`` (n,) int32, ``spans`` (n, 2) int64, ``head``
    (dim,) float32 or None, ``section_vectors`` (k, sdim) uint8 / ``section_scales`` (k,)
    float32 / ``section_ordinals`` (k,) int64, or all three None when it has no section
    head units; ``done``/``total`` its units embedded of its total and ``fingerprint`` a
    string that changes when the content behind the id does."""

    cid: int
    done: int
    total: int
    fingerprint: str
    vectors: np.ndarray
    scales: np.ndarray
    pages: np.ndarray
    spans: np.ndarray
    head: np.ndarray | None
    section_vectors: np.ndarray | None
    section_scales: np.ndarray | None
    section_ordinals: np.ndarray | None


@dataclass(slots=True)
class Snapshot:
    """A snapshot as read: its cache identity, model id, and ``{content id:
    SnapshotContent}`` whose arrays are read-only views into the mapped file;
    ``codes``/``scales`` and ``section_codes``/``section_scales`` are the whole unit and
    section head arrays (every content's, in content id order)."""

    cache_id: str
    model_id: str
    contents: dict[int, SnapshotContent]
    codes: np.ndarray
    scales: np.ndarray
    section_codes: np.ndarray
    section_scales: np.ndarray


def _pad(n: int) -> int:
    return -n % ALIGN


def state_digest(contents: list[SnapshotContent]) -> str:
    """A hash of the ids, states and fingerprints of ``contents``: equal digests, equal
    snapshots (of one cache and model)."""
    h = hashlib.sha256()
    for c in contents:
        h.update(f"{c.cid}:{c.done}:{c.total}:{c.fingerprint};".encode())
    return h.hexdigest()


def write_snapshot(path: Path, cache_id: str, model_id: str,
                   contents: list[SnapshotContent], dim: int, sdim: int) -> bool:
    """Write ``contents`` (ascending ids; every unit ``dim`` wide, every section head
    ``sdim``) as the snapshot at ``path``, atomically. Returns False, leaving no
    temporary file, when it cannot be written (read-only folder, full disk...)."""
    arrays = _arrays(contents, dim, sdim)
    header = {"format": FORMAT, "cache_id": cache_id, "model_id": model_id,
              "digest": state_digest(contents), "fingerprints": [c.fingerprint for c in contents], "arrays": {}}
    at = 0
    for name, (dtype, shape, _) in arrays.items():
        header["arrays"][name] = {"dtype": np.dtype(dtype).str, "shape": list(shape),
                                  "offset": at}
        at += int(np.prod(shape)) * np.dtype(dtype).itemsize
        at += _pad(at)
    blob = json.dumps(header).encode()
    start = len(MAGIC) + 8 + len(blob)
    start += _pad(start)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale(path)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + struct.pack("<Q", len(blob)) + blob)
            f.write(b"\0" * (start - f.tell()))
            for _, (_, _, chunks) in arrays.items():
                for chunk in chunks:
                    f.write(memoryview(np.ascontiguousarray(chunk)).cast("B"))
                f.write(b"\0" * _pad(f.tell() - start))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        return True
    except (OSError, ValueError):
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return False


def _remove_stale(path: Path) -> None:
    """Remove the temporary files of ``path`` that writers which died left behind (older
    than :data:`_STALE_TMP_S`: a live writer's is younger)."""
    import time

    for tmp in path.parent.glob(path.name + ".*.tmp"):
        try:
            if time.time() - tmp.stat().st_mtime > _STALE_TMP_S:
                tmp.unlink()
        except OSError:
            pass


def _arrays(contents: list[SnapshotContent], dim: int, sdim: int) -> dict:
    """``{name: (dtype, shape, chunks)}`` of a snapshot's arrays, in file order."""
    n = len(contents)
    units = np.cumsum([0] + [len(c.pages) for c in contents], dtype=np.int64)
    secs = np.cumsum([0] + [0 if c.section_vectors is None else len(c.section_vectors)
                            for c in contents], dtype=np.int64)
    with_head = [c for c in contents if c.head is not None]
    head_row = np.full(n, -1, dtype=np.int64)
    head_row[[i for i, c in enumerate(contents) if c.head is not None]] = \
        np.arange(len(with_head), dtype=np.int64)
    nu, ns = int(units[-1]), int(secs[-1])
    has_secs = [c for c in contents if c.section_vectors is not None]
    return {
        "cids": (np.int64, (n,), [np.array([c.cid for c in contents], dtype=np.int64)]),
        "done": (np.int64, (n,), [np.array([c.done for c in contents], dtype=np.int64)]),
        "total": (np.int64, (n,), [np.array([c.total for c in contents], dtype=np.int64)]),
        "unit_start": (np.int64, (n + 1,), [units]),
        "section_start": (np.int64, (n + 1,), [secs]),
        "head_row": (np.int64, (n,), [head_row]),
        "codes": (np.uint8, (nu, dim), [c.vectors for c in contents if len(c.pages)]),
        "scales": (np.float32, (nu,), [c.scales for c in contents]),
        "pages": (np.int32, (nu,), [c.pages for c in contents]),
        "spans": (np.int64, (nu, 2), [c.spans for c in contents]),
        "heads": (np.float32, (len(with_head), dim), [c.head for c in with_head]),
        "section_codes": (np.uint8, (ns, sdim), [c.section_vectors for c in has_secs]),
        "section_scales": (np.float32, (ns,), [c.section_scales for c in has_secs]),
        "section_ordinals": (np.int64, (ns,), [c.section_ordinals for c in has_secs]),
    }


def read_header(path: Path) -> dict | None:
    """The JSON header of the snapshot at ``path`` (None when missing or not one)."""
    got = _header(path)
    return got[0] if got else None


def _header(path: Path) -> tuple[dict, int] | None:
    """``(JSON header, its length in bytes)`` of the snapshot at ``path``, or None."""
    try:
        with open(path, "rb") as f:
            return _header_of(f)
    except OSError:
        return None


def _header_of(f) -> tuple[dict, int] | None:
    """:func:`_header` of an open file (read from its start)."""
    try:
        head = f.read(len(MAGIC) + 8)
        if len(head) != len(MAGIC) + 8 or head[:len(MAGIC)] != MAGIC:
            return None
        (size,) = struct.unpack("<Q", head[len(MAGIC):])
        if size > os.fstat(f.fileno()).st_size:
            return None
        header = json.loads(f.read(size))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        return None
    return header, size


def read_snapshot(path: Path) -> Snapshot | None:
    """The snapshot at ``path``, memory-mapped (read-only views; nothing is read until
    used), or None when it is missing, truncated, damaged or of another layout."""
    try:
        with open(path, "rb") as f:   # header and mapping of one file, even if replaced
            got = _header_of(f)
            if got is None:
                return None
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return _parse(got[0], mm, len(MAGIC) + 8 + got[1])
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def _parse(header: dict, mm: mmap.mmap, start: int) -> Snapshot | None:
    """The snapshot's arrays as views into ``mm`` after checking every shape, dtype and
    offset against each other and the file's size; None when any disagrees."""
    start += _pad(start)
    a = {}
    if set(header["arrays"]) != set(_ARRAYS):
        return None
    for name, spec in header["arrays"].items():
        dtype, shape, off = spec["dtype"], tuple(int(s) for s in spec["shape"]), int(spec["offset"])
        if (dtype, len(shape)) != _ARRAYS[name] or any(s < 0 for s in shape) or off < 0:
            return None
        count = int(np.prod(shape))
        if start + off + count * np.dtype(dtype).itemsize > len(mm):
            return None
        a[name] = np.frombuffer(mm, dtype=dtype, count=count, offset=start + off).reshape(shape)
    n, nu, ns = len(a["cids"]), len(a["pages"]), len(a["section_ordinals"])
    us, ss, hr = a["unit_start"], a["section_start"], a["head_row"]
    fps = header["fingerprints"]
    ok = (len(fps) == n and a["spans"].shape[1:] == (2,) and all(len(a[k]) == n for k in ("done", "total", "head_row"))
          and len(us) == n + 1 and len(ss) == n + 1 and us[0] == 0 and ss[0] == 0
          and us[-1] == nu and ss[-1] == ns and bool(np.all(np.diff(us) >= 0))
          and bool(np.all(np.diff(ss) >= 0)) and len(a["codes"]) == nu
          and len(a["scales"]) == nu and len(a["spans"]) == nu
          and len(a["section_codes"]) == ns and len(a["section_scales"]) == ns
          and bool(np.all(hr < len(a["heads"]))) and a["heads"].shape[1:] == a["codes"].shape[1:])
    if not ok:
        return None
    contents = {}
    for i, cid in enumerate(a["cids"].tolist()):
        u0, u1, s0, s1, h = int(us[i]), int(us[i + 1]), int(ss[i]), int(ss[i + 1]), int(hr[i])
        empty = u0 == u1
        contents[cid] = SnapshotContent(
            cid, int(a["done"][i]), int(a["total"][i]), str(fps[i]),
            np.zeros((0, 0), dtype=np.int8) if empty else a["codes"][u0:u1],
            a["scales"][u0:u1], a["pages"][u0:u1], a["spans"][u0:u1],
            a["heads"][h] if h >= 0 else None,
            a["section_codes"][s0:s1] if s1 > s0 else None,
            a["section_scales"][s0:s1] if s1 > s0 else None,
            a["section_ordinals"][s0:s1] if s1 > s0 else None)
    return Snapshot(str(header["cache_id"]), str(header["model_id"]), contents,
                    a["codes"], a["scales"], a["section_codes"], a["section_scales"])
