"""Discovering the PDFs of a folder and naming them.

A document is identified by its path relative to the folder (the ``doc`` string used
everywhere). Discovery is recursive, skips hidden folders and files (names starting with
``.``), follows symbolic links with loop detection, and lists each real file once (the first
path in sorted order wins). Anything whose name ends in ``.pdf`` in any case counts; FIFOs
and devices with such names are reported, never opened; a folder with such a name is walked
like any folder.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from .errors import FolderError


@dataclass(slots=True)
class FoundFile:
    """One discovered ``.pdf`` name.

    ``doc`` is the display-safe path relative to the root ('/'-separated; bytes that are
    not UTF-8 appear as ``\\xNN`` escapes); ``path`` is the real path to open. ``size`` is in
    bytes and ``mtime_ns`` in nanoseconds (both 0 when ``skip_reason`` is set).
    ``skip_reason`` is None, "permission denied", "not a regular file" or "broken link"
    (a symbolic link to nothing, or a link loop).
    """

    doc: str
    path: str
    size: int
    mtime_ns: int
    skip_reason: str | None = None


#: Characters a document name escapes besides undecodable bytes: C0 controls (tab and
#: newline too), DEL, C1 controls, bidi overrides and isolates, and the emoji variation
#: selectors: what :func:`pdftui.text.clean_text` would strip from the shown name.
_NAME_ESCAPED = frozenset([*map(chr, range(0x20)), "\x7f", *map(chr, range(0x80, 0xA0)),
                           *"\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufe0e\ufe0f"])
#: Combining marks: a stack longer than 3 is cut when shown, so the rest are escaped.
_MARK_RANGES = ((0x300, 0x36F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF),
                (0xFE20, 0xFE2F))


def safe_name(name: str) -> str:
    """A file name (or '/'-joined path) as a document name: text SQLite and terminals
    accept, shown as it is stored, and one name per real name.

    The backslash is the escape marker: a real ``\\`` becomes ``\\\\``; an undecodable
    byte (a lone surrogate of ``os.fsdecode``) becomes ``\\xNN`` (NN 80-ff); a C0 control
    character or DEL ``\\xNN`` (NN < 80); a C1 control, bidi override, variation selector
    or the 4th+ combining mark of a stack ``\\uNNNN``. Since a real backslash is always
    doubled, no real name can produce an escape, and two different names never give the
    same document name. A printable ASCII name without a backslash is returned as is."""
    if name.isascii() and name.isprintable() and "\\" not in name:
        return name
    out: list[str] = []
    marks = 0
    for c in name:
        o = ord(c)
        is_mark = any(lo <= o <= hi for lo, hi in _MARK_RANGES)
        marks = marks + 1 if is_mark else 0
        if c == "\\":
            out.append("\\\\")
        elif 0xDC80 <= o <= 0xDCFF:
            out.append(f"\\x{o - 0xDC00:02x}")
        elif o < 0x80 and c in _NAME_ESCAPED:
            out.append(f"\\x{o:02x}")
        elif c in _NAME_ESCAPED or 0xD800 <= o <= 0xDFFF or marks > 3:
            out.append(f"\\u{o:04x}")
        else:
            out.append(c)
    return "".join(out)


def check_folder(folder: str | os.PathLike) -> str:
    """The folder's real path, or :class:`FolderError` if it is missing or unreadable."""
    path = os.path.realpath(os.fspath(folder))
    if not os.path.exists(path):
        raise FolderError(f"folder not found: {os.fspath(folder)}")
    if not os.path.isdir(path):
        raise FolderError(f"not a folder: {os.fspath(folder)}")
    if not os.access(path, os.R_OK | os.X_OK):
        raise FolderError(f"folder not readable (permission denied): {os.fspath(folder)}")
    return path


class _Walk:
    """One walk of a folder tree: the PDFs found, the folders that could not be read, and
    the folders and files already seen (by device and inode: symlink loops and second
    links count once)."""

    def __init__(self) -> None:
        self.files: list[FoundFile] = []
        self.problems: list[FoundFile] = []
        self.seen_dirs: set[tuple[int, int]] = set()
        self.seen_files: set[tuple[int, int]] = set()

    def folder(self, dirpath: str, rel: str) -> None:
        """Walk the folder ``dirpath`` (``rel``: its path from the root) and below it."""
        try:
            st = os.stat(dirpath)
        except OSError:
            return
        key = (st.st_dev, st.st_ino)
        if key in self.seen_dirs:
            return  # a symlink loop or a second link to a folder already walked
        self.seen_dirs.add(key)
        entries = self._entries(dirpath, rel)
        for entry in entries or ():
            name = entry.name
            if name.startswith("."):
                continue
            child_rel = f"{rel}/{name}" if rel else name
            try:
                is_dir = entry.is_dir(follow_symlinks=True)
            except OSError:
                is_dir = False
            if is_dir:  # a folder named "x.pdf" is still a folder: its PDFs count
                self.folder(entry.path, child_rel)
            elif name.lower().endswith(".pdf"):
                self._pdf(entry.path, safe_name(child_rel))

    def _entries(self, dirpath: str, rel: str) -> list[os.DirEntry] | None:
        """The folder's entries sorted by name; None (and a problem listed) when it
        cannot be read."""
        try:
            with os.scandir(dirpath) as it:
                return sorted(it, key=lambda e: e.name)
        except PermissionError:
            self.problems.append(FoundFile(safe_name(rel) + "/", dirpath, 0, 0,
                                           "permission denied"))
        except OSError as exc:
            self.problems.append(FoundFile(safe_name(rel) + "/", dirpath, 0, 0,
                                           f"unreadable folder ({exc.strerror or exc})"))
        return None

    def _pdf(self, path: str, doc: str) -> None:
        """List the file ``path`` named ``doc``: with its size and mtime, or with the
        reason it cannot be indexed; a file already listed under another name is not."""
        try:
            fst = os.stat(path)
        except PermissionError:
            self.files.append(FoundFile(doc, path, 0, 0, "permission denied"))
            return
        except OSError:
            self.files.append(FoundFile(doc, path, 0, 0, "broken link"))
            return
        if not stat.S_ISREG(fst.st_mode):
            self.files.append(FoundFile(doc, path, 0, 0, "not a regular file"))
            return
        fkey = (fst.st_dev, fst.st_ino)
        if fkey in self.seen_files:
            return
        self.seen_files.add(fkey)
        if not os.access(path, os.R_OK):
            self.files.append(FoundFile(doc, path, 0, 0, "permission denied"))
            return
        self.files.append(FoundFile(doc, path, fst.st_size, fst.st_mtime_ns))


def discover(root: str) -> tuple[list[FoundFile], list[FoundFile]]:
    """Every ``.pdf`` under ``root`` (a real path), in sorted ``doc`` order.

    Returns ``(files, problems)``: ``problems`` lists folders that could not be read
    (``doc`` ends with '/', reason "permission denied"). Never raises for what it finds.
    """
    walk = _Walk()
    walk.folder(root, "")
    walk.files.sort(key=lambda f: f.doc)
    return walk.files, walk.problems


def sniff(path: str) -> str | None:
    """A skip reason decided from the first bytes alone, or None when it may be a PDF.

    "empty file" for 0 bytes, "not a PDF" when ``%PDF-`` is not within the first 1,024
    bytes (HTML or gzip renamed to .pdf), "permission denied" when it cannot be read.
    Reads at most 1 KiB, so a sparse multi-GB file of zeros costs nothing.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(1024)
    except PermissionError:
        return "permission denied"
    except OSError as exc:
        if exc.errno == errno.EACCES:
            return "permission denied"
        return f"unreadable ({exc.strerror or exc})"
    if not head:
        return "empty file"
    if b"%PDF-" not in head:
        return "not a PDF"
    return None


def sha256_file(path: str, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes (streamed in 1 MiB chunks). Raises OSError."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            b = fh.read(chunk)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def doc_matches(doc: str, pattern: str) -> bool:
    """True when ``doc`` equals ``pattern`` or matches it as a glob (``*``, ``?``, ``[]``),
    ignoring case and a leading ``./``; a pattern without '/' also matches the file name
    alone."""
    from fnmatch import fnmatchcase

    if doc == pattern:
        return True
    while pattern.startswith("./"):
        pattern = pattern[2:]
    doc_f, pat_f = doc.casefold(), pattern.casefold()
    if doc_f == pat_f or fnmatchcase(doc_f, pat_f):
        return True
    return "/" not in pat_f and fnmatchcase(Path(doc_f).name, pat_f)


def relative_pattern(root: str | os.PathLike, pattern: str) -> str:
    """``pattern`` relative to the folder ``root`` when it is a path inside it (absolute,
    or relative to the working directory, as a shell completes it), as its document name
    (:func:`safe_name`: a real name with undecodable bytes or a backslash becomes the name
    pdftui shows); else unchanged."""
    p = Path(pattern).expanduser()
    if not p.is_absolute():
        if not pattern.startswith("./") and not Path(root, pattern).exists() \
                and Path.cwd().joinpath(p).exists():
            p = Path.cwd() / p
        elif Path(root, pattern).is_file():
            return safe_name(pattern)
        else:
            return pattern
    try:
        return safe_name(p.resolve().relative_to(Path(root).resolve()).as_posix())
    except (ValueError, OSError):
        return pattern


#: Files up to this many bytes are read whole by the extracting worker, hashed, and
#: extracted from those very bytes; a larger one is hashed in chunks and re-checked.
READ_WHOLE_MAX = 256 << 20


class FileChanging(OSError):
    """The file kept changing while it was being read (written to, or replaced)."""


@dataclass(frozen=True, slots=True)
class ReadFile:
    """What one read of a file saw: ``sha256`` (hex) of the bytes read, their ``size``
    (bytes), the file's ``mtime_ns`` then, and the bytes themselves (``data``; None for a
    file larger than :data:`READ_WHOLE_MAX`, which the extractor opens by path).
    ``stamp`` is (device, inode, size, mtime_ns, ctime_ns) as read."""

    sha256: str
    size: int
    mtime_ns: int
    data: bytes | None
    stamp: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)


def _stamp(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def read_file(path: str, tries: int = 3, pause_s: float = 0.2) -> ReadFile:
    """Read ``path`` once, consistently: the file's identity (device, inode, size, mtime,
    ctime) must be the same before and after the read, else it is read again (up to
    ``tries`` times, ``pause_s`` seconds apart). Opening never blocks (a FIFO put in the
    file's place is refused). Raises :class:`FileChanging` when it never held still,
    ``OSError`` (``FileNotFoundError``, ``PermissionError`` ...) when it cannot be read.
    """
    for attempt in range(tries):
        if attempt:
            time.sleep(pause_s)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            st0 = os.fstat(fd)
            if not stat.S_ISREG(st0.st_mode):
                raise OSError(errno.EINVAL, "not a regular file", path)
            with os.fdopen(fd, "rb", closefd=False) as fh:
                if st0.st_size <= READ_WHOLE_MAX:
                    data = fh.read(READ_WHOLE_MAX + 1)
                    sha, size = hashlib.sha256(data).hexdigest(), len(data)
                else:
                    data, h, size = None, hashlib.sha256(), 0
                    while b := fh.read(1 << 20):
                        h.update(b)
                        size += len(b)
                    sha = h.hexdigest()
            st1 = os.fstat(fd)
        finally:
            os.close(fd)
        if _stamp(st0) == _stamp(st1) and size == st1.st_size and \
                (data is not None or _stamp(os.stat(path)) == _stamp(st1)):
            return ReadFile(sha, size, st1.st_mtime_ns, data, _stamp(st1))
    raise FileChanging(errno.EAGAIN, "the file kept changing while it was read", path)


def still_same(path: str, read: ReadFile) -> bool:
    """True when ``path`` is still the very file of ``read`` (same device, inode, size,
    mtime and ctime: for a file opened by path after hashing, nothing replaced or wrote
    it meanwhile)."""
    try:
        return _stamp(os.stat(path)) == read.stamp
    except OSError:
        return False
