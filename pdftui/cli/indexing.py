"""``pdftui index``, and the index run every command starts with: progress on stderr (a
bar on a terminal, a line per phase now and then on a log), a summary at the end."""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
import time

import click

from ..text import clean_text
from .options import cache_opt, data_opt, model_opt
from .output import dumps, fail, json_error


PLAIN_PROGRESS_S = 15.0
"""Seconds between progress lines when stderr is not a terminal."""


class IndexProgress:
    """Indexing progress on stderr, called with each :class:`pdftui.index.Progress`: a rich
    progress bar on a terminal; on a log or a pipe one line per phase every
    ``PLAIN_PROGRESS_S`` seconds (and when a phase completes); nothing when ``quiet``."""

    #: Columns of a bar line besides the bar and the current document's name.
    FIXED_COLUMNS = 60

    def __init__(self, quiet: bool, console=None) -> None:
        self.bar = None   # a rich Progress when a bar shows (then also a context manager)
        self.room = 0
        self.plain = False
        if console is None and (quiet or not _may_be_terminal(os.environ, sys.stderr)):
            self.plain = not quiet   # rich would find no terminal: no need to import it
        else:
            self._bar(quiet, console)
        self.tasks: dict[str, int] = {}
        self.last_at: dict[str, float] = {}   # phase -> when its last line was logged
        self.done: set[str] = set()            # phases whose last line was logged

    def _bar(self, quiet: bool, console) -> None:
        """The rich progress bar on ``console`` (default: stderr), or the plain log when
        rich finds no terminal there."""
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn)

        console = console or Console(stderr=True)
        show = console.is_terminal and not quiet
        # an 80-column terminal holds the whole line: a short bar, the name cut to fit
        self.room = max(0, console.width - self.FIXED_COLUMNS)
        self.bar = Progress(TextColumn("{task.description}"),
                            BarColumn(bar_width=max(6, min(40, console.width - 66))),
                            MofNCompleteColumn(), TextColumn("{task.fields[extra]}"),
                            TimeElapsedColumn(), console=console, transient=False,
                            disable=not show)
        self.plain = not show and not quiet

    def shown(self):
        """A context manager showing the bar while indexing runs (none without a bar)."""
        import contextlib

        return self.bar if self.bar is not None else contextlib.nullcontext()

    def __call__(self, p) -> None:
        if self.plain:
            self._log_line(p)
        elif self.bar is None:
            return
        elif p.phase == "postings":
            if "postings" not in self.tasks:
                self.tasks["postings"] = self.bar.add_task("postings", total=p.docs_total,
                                                           extra="")
            self.bar.update(self.tasks["postings"], completed=p.docs_done,
                            extra="keyword index of documents indexed before")
        elif p.phase == "extract":
            if "extract" not in self.tasks:
                self.tasks["extract"] = self.bar.add_task("documents", total=p.docs_total,
                                                          extra="")
            name = clean_text(p.current)[-self.room:] if self.room else ""
            self.bar.update(self.tasks["extract"], completed=p.docs_done,
                            extra=f"{p.pages_done} pages  {name}")
        elif p.phase == "embed":
            if "embed" not in self.tasks:
                self.tasks["embed"] = self.bar.add_task("units", total=p.units_total,
                                                        completed=p.units_done, extra="")
            note = p.embed_note().lstrip(" ,").replace(" documents done", " docs")
            self.bar.update(self.tasks["embed"], completed=p.units_done, total=p.units_total,
                            extra=note)

    def _log_line(self, p) -> None:
        if p.phase == "extract" and p.docs_total:
            done = p.docs_done >= p.docs_total
            line = (f"pdftui: extracted {p.docs_done}/{p.docs_total} documents, "
                    f"{p.pages_done} pages")
        elif p.phase == "embed" and p.units_total:   # done once the total is final too
            done = p.units_done >= p.units_total and not p.units_text().endswith("+")
            line = f"pdftui: embedded {p.units_text()} units{p.embed_note()}"
        elif p.phase == "postings" and p.docs_total:
            done = p.docs_done >= p.docs_total
            line = (f"pdftui: keyword postings of {p.docs_done}/{p.docs_total} documents"
                    " indexed before")
        else:
            return
        # each phase on its own clock: the embedder plans documents while they are being
        # extracted, and alternating reports must not reset each other's interval
        now = time.monotonic()
        last = self.last_at.get(p.phase)
        if p.phase in self.done or (last is not None and not done
                                    and now - last < PLAIN_PROGRESS_S):
            return
        self.last_at[p.phase] = now
        if done:
            self.done.add(p.phase)
        click.echo(line, err=True)


def _may_be_terminal(env, stream) -> bool:
    """False when rich's ``Console(stderr=True).is_terminal`` is surely False (no
    ``TTY_COMPATIBLE=1``, no non-empty ``FORCE_COLOR``, ``stream`` not a tty), so quiet
    and logged runs need not import rich."""
    if env.get("TTY_COMPATIBLE", "") in ("0", "1"):
        return env["TTY_COMPATIBLE"] == "1"
    if env.get("FORCE_COLOR") is not None:
        return env["FORCE_COLOR"] != ""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def run_index(folder, cache_dir, model, embed, quiet=False, reading=False,
              no_cache_ok=False):
    """Index with progress on stderr (:class:`IndexProgress`); returns the summary.

    ``reading``: the caller only reads (search, read, docs, export): when the cache cannot
    be written (read-only location, full disk) but holds an index, print a one-line
    warning and return None, so the caller answers from the index as it is. Not
    ``reading`` (``pdftui index``): the cache is checked first and a damaged one moved
    aside and rebuilt, with one line saying so (:mod:`pdftui.store.integrity`); a
    reading run checks it only after an unclean state and says what to run.
    ``no_cache_ok``: a damaged cache raises :class:`pdftui.errors.CacheDamaged` for the
    caller to do without it (``docs``, ``mark``: the marks live in the user data)."""
    from ..errors import CacheDamaged, CacheError
    from ..corpus import FolderError
    from ..index import index_folder

    cancel = threading.Event()
    report = IndexProgress(quiet)
    terminated = _raise_on_sigterm()
    try:
        _check_cache(folder, cache_dir, reading)
        try:
            with report.shown():
                return index_folder(folder, cache_dir, model, embed=embed, progress=report,
                                    cancel=cancel)
        except (CacheDamaged, sqlite3.DatabaseError) as exc:
            if reading or not is_cache_damage(exc):
                raise
            _check_cache(folder, cache_dir, reading, moved_anyway=True)
            with report.shown():
                return index_folder(folder, cache_dir, model, embed=embed, progress=report,
                                    cancel=cancel)
    except FolderError as exc:
        fail(str(exc), 2, exc.kind)
    except (CacheDamaged, sqlite3.DatabaseError) as exc:
        if not is_cache_damage(exc):
            fail(f"cannot use the cache: {exc}", 2, "cache")
        if no_cache_ok:
            raise damaged_error(cache_dir, exc, folder) from exc
        fail(str(damaged_error(cache_dir, exc, folder)), 2, "cache")
    except CacheError as exc:
        if no_cache_ok and not (reading and _index_readable(cache_dir)):
            raise
        if reading and _index_readable(cache_dir):
            click.echo(f"pdftui: warning: the index cannot be updated ({clean_text(str(exc))});"
                       " answering from it as it is", err=True)
            return None
        fail(str(exc), 2, exc.kind)
    except sqlite3.Error as exc:  # an unusable cache file: one line, no traceback
        fail(f"cannot use the cache: {exc}", 2, "cache")
    except KeyboardInterrupt:
        cancel.set()
        click.echo("pdftui: interrupted; what was indexed is kept and the next run resumes",
                   err=True)
        json_error("interrupted", "interrupted while indexing")
        _release_semaphores()
        sys.stdout.flush()
        sys.stderr.flush()
        # Every write is already committed; skip interpreter teardown, where onnxruntime's
        # thread pool aborts ("terminate called without an active exception").
        os._exit(143 if terminated else 130)


def _release_semaphores() -> None:
    """Run multiprocessing's finalizers (the worker pool's semaphores are unlinked), which
    ``os._exit`` would skip: else its resource tracker warns of "leaked semaphore objects"."""
    from multiprocessing import util

    try:
        util._run_finalizers()   # noqa: SLF001 - what multiprocessing runs at exit
    except Exception:  # noqa: BLE001 - a warning at worst
        pass


def _raise_on_sigterm() -> list:
    """Make SIGTERM stop the index as Ctrl-C does (the extraction workers are killed, what
    was stored is kept); returns a list that gets an item when SIGTERM came. Only in the
    main thread (elsewhere signals cannot be set)."""
    import signal

    came: list = []

    def handler(_signum, _frame) -> None:
        came.append(True)
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, handler)
    return came


def is_cache_damage(exc) -> bool:
    """True for a damaged cache: :class:`pdftui.errors.CacheDamaged` or SQLite's words."""
    from ..errors import CacheDamaged
    from ..store.integrity import is_damage

    return isinstance(exc, CacheDamaged) or is_damage(exc)


def damaged_error(cache_dir, exc, folder):
    """A damaged-cache error (:class:`pdftui.errors.CacheDamaged`) naming what to run."""
    from pathlib import Path

    from ..cache import default_cache_dir
    from ..errors import CacheDamaged
    from ..store.integrity import damaged

    where = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    if isinstance(exc, CacheDamaged):
        return damaged(exc.cache_dir or where, exc.why, folder) if exc.why else exc
    return damaged(where, str(exc), folder)


def _check_cache(folder, cache_dir, reading: bool, moved_anyway: bool = False) -> None:
    """Before a run: a damaged cache found (:func:`pdftui.store.integrity.check_cache`) is
    moved aside with one line on stderr (``pdftui index``) or raised (a reading run).
    ``moved_anyway``: the run itself met the damage: move the file aside now."""
    from pathlib import Path

    from ..cache import DB_NAME, default_cache_dir
    from ..errors import CacheDamaged
    from ..store.integrity import check_cache, move_aside

    where = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    if moved_anyway:
        try:
            dest = move_aside(where / DB_NAME)
        except OSError as exc:
            raise CacheDamaged(f"the cache at {where} is damaged and cannot be moved aside"
                               f" ({exc.strerror or exc})") from exc
        note = (f"the cache at {where} was damaged: moved it to {dest.name} and rebuilding"
                " the index")
    else:
        note = check_cache(where, DB_NAME, full=not reading, rebuild=not reading,
                           folder=folder)
    if note:
        click.echo(f"pdftui: {clean_text(note)}", err=True)


def _index_readable(cache_dir) -> bool:
    """True when the cache location holds an index that can be read (if not written)."""
    from ..errors import CacheError
    from ..store.database import Cache

    try:
        Cache(cache_dir, read_only_ok=True).close()
    except CacheError:
        return False
    return True


@click.command()
@click.argument("folder", type=click.Path(), default=".")
@cache_opt
@data_opt
@model_opt
@click.option("--no-embed", is_flag=True, help="Skip embeddings (keyword search only).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
def index(folder, cache_dir, data_dir, model, no_embed, as_json):
    """Index FOLDER (recursively) into the shared cache and print a summary.

    Indexing needs no user data (marks, notes stay where they are); --data-dir is
    accepted as by the other commands."""
    del data_dir   # accepted so one set of options serves every command
    s = run_index(folder, cache_dir, model, not no_embed)
    if as_json:
        click.echo(dumps(s.to_json()))
        return
    kept = f" ({s.units_kept} kept from before)" if s.units_kept else ""
    click.echo(f"{s.documents} documents: {s.indexed} indexed, {s.unchanged} unchanged, "
               f"{len(s.skipped)} skipped, {s.removed} removed · {s.pages} pages extracted · "
               f"{s.units} units embedded{kept} · {s.elapsed_s:.1f} s")
    for sk in s.skipped:
        click.echo(f"  skipped {clean_text(sk['doc'])}: {sk['reason']}")
    for note in s.notes:
        click.echo(f"  note {clean_text(note['doc'])}: {clean_text(note['note'])}")
    if s.embedding_pending:
        click.echo(f"  {s.embedding_pending} documents still need embeddings "
                   "(run again to finish)")
