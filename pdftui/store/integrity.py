"""Whether the index cache file is sound, and moving a damaged one aside.

A cache is checked with SQLite's ``PRAGMA quick_check`` (the b-trees and their pages, not
the indexes' contents: 0.45 s on the 116 MB cache of the 105-document corpus, warm) by
``pdftui index`` and when a process first opens it after an unclean state (a
write-ahead log left behind by a process that did not close it, or one still writing):
once per process and file, so a warm search service or TUI pays it once, not per
search. A
damaged file is renamed ``index.sqlite3.damaged-YYYYmmdd-HHMMSS`` (its ``-wal`` and
``-shm`` with it), never deleted, so the next run starts a new cache.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from pathlib import Path
from urllib.parse import quote

#: sqlite3 error texts that mean the file itself is damaged (not locked, not full).
DAMAGE_RE = re.compile(r"malformed|not a database|corrupt|disk image", re.I)

#: The cache files (device, inode) this process has checked and found sound: a
#: long-lived process (the search service, the TUI) checks its cache once, not on every
#: command, since its own open connection keeps the write-ahead log non-empty.
_SOUND: set[tuple[int, int]] = set()


def is_damage(exc: BaseException) -> bool:
    """True when ``exc`` is a SQLite error saying the database file is damaged."""
    return isinstance(exc, sqlite3.DatabaseError) and bool(DAMAGE_RE.search(str(exc)))


def unclean(path: Path) -> bool:
    """True when the database at ``path`` has a non-empty write-ahead log beside it: the
    last process did not close it (killed, crashed) or one is writing now."""
    try:
        return os.path.getsize(f"{path}-wal") > 0
    except OSError:
        return False


def problem(path: Path, timeout_s: float = 60.0) -> str | None:
    """What is wrong with the database at ``path`` in a few words, from a read-only
    ``PRAGMA quick_check``; None when it is sound, missing, or cannot be judged (locked,
    unreadable: those are not damage). Never writes, never raises."""
    if not path.is_file():
        return None
    try:
        if path.stat().st_size and path.stat().st_size < 512:
            return "the file is too short to be a database"
        db = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True,
                             timeout=timeout_s)
    except (OSError, sqlite3.Error):
        return None
    try:
        rows = db.execute("PRAGMA quick_check(3)").fetchall()
    except sqlite3.Error as exc:
        return str(exc) if is_damage(exc) else None
    finally:
        db.close()
    found = [r[0] for r in rows if r[0] != "ok"]
    return "; ".join(found)[:200] if found else None


def _file_id(path: Path) -> tuple[int, int] | None:
    """(device, inode) of ``path``, or None when it cannot be read: a cache moved aside
    and rebuilt is another file, checked again."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


def move_aside(path: Path) -> Path:
    """Rename the damaged database ``path`` (and its ``-wal`` / ``-shm``) to
    ``NAME.damaged-YYYYmmdd-HHMMSS`` (``-2``, ``-3``... when taken); returns the new path.
    Raises ``OSError`` when it cannot be renamed."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    dest = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 2
    while dest.exists():
        dest = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
        n += 1
    os.replace(path, dest)
    for side in ("-wal", "-shm"):
        if os.path.exists(f"{path}{side}"):
            try:
                os.replace(f"{path}{side}", f"{dest}{side}")
            except OSError:
                pass
    return dest


def damaged_message(cache_dir: Path, why: str, folder: str | os.PathLike = "FOLDER") -> str:
    """The one line for a damaged cache met by a command that does not rebuild it."""
    import shlex

    where = os.fspath(folder)
    return (f"the cache at {cache_dir} is damaged ({why}): run `pdftui index "
            f"{where if where == 'FOLDER' else shlex.quote(where)}` to move it aside and"
            " rebuild the index")


def damaged(cache_dir: Path, why: str, folder: str | os.PathLike = "FOLDER"):
    """:class:`pdftui.errors.CacheDamaged` with :func:`damaged_message`."""
    from ..errors import CacheDamaged

    return CacheDamaged(damaged_message(cache_dir, why, folder), cache_dir, why)


def check_cache(cache_dir: Path, db_name: str, *, full: bool, rebuild: bool,
                folder: str | os.PathLike = "FOLDER") -> str | None:
    """Check the cache at ``cache_dir`` before a run: always when ``full`` (``pdftui
    index``), else only after an unclean state (:func:`unclean`) and once per process
    and file (a sound file stays sound for a reading process). A damaged file is moved
    aside when ``rebuild`` and the line saying so is returned; without ``rebuild`` it
    raises :class:`pdftui.errors.CacheDamaged` (:func:`damaged_message`). None: nothing
    to say. ``OSError`` when the file cannot be renamed becomes ``CacheDamaged`` too."""
    from ..errors import CacheDamaged

    path = Path(cache_dir) / db_name
    if not (full or unclean(path)) or (not full and _file_id(path) in _SOUND):
        return None
    why = problem(path)
    if why is None:
        if (fid := _file_id(path)) is not None:
            _SOUND.add(fid)
        return None
    if not rebuild:
        raise damaged(Path(cache_dir), why, folder)
    try:
        dest = move_aside(path)
    except OSError as exc:
        raise CacheDamaged(f"the cache at {cache_dir} is damaged ({why}) and cannot be moved"
                           f" aside ({exc.strerror or exc}); move {path} away by hand") from exc
    return (f"the cache at {cache_dir} was damaged ({why}): moved it to {dest.name} and"
            " rebuilding the index")
