"""Command line: ``pdftui [FOLDER]`` opens the TUI; ``index``, ``search``, ``read``, ``docs``,
``mark``, ``clips`` and ``export`` serve scripts and benchmarks (``--json``).

Exit codes: 0 success, 1 runtime failure, 2 bad input (missing folder, unknown document,
unusable cache), 130 interrupted. The message of an error goes to stderr; a command asked
for JSON (``--json``, ``export --format json``) also prints it on stdout as one object,
``{"error": {"kind": "not_found", "message": "..."}}`` (kinds: usage, folder, cache,
not_found, ambiguous, query, indexing, user_data, io, interrupted, internal, ...).
"""

from __future__ import annotations

import dataclasses

import json
import os
import shutil
import sqlite3
import sys
import threading
import time

import click

from .text import clean_text

_COMMANDS = {"index", "search", "read", "docs", "mark", "clips", "export", "tui"}


class _DefaultToTui(click.Group):
    """``pdftui FOLDER`` and bare ``pdftui`` mean ``pdftui tui ...``; a command asked for
    JSON (:func:`_asks_json`) answers every error with one JSON object on stdout too."""

    def parse_args(self, ctx, args):
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h",
                                                                          "--version")):
            args = ["tui", *args]
        ctx.meta[_JSON_KEY] = _asks_json(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        """Run the command; a usage error, a :class:`PdftuiError` or a damaged SQLite file
        it lets out ends as :func:`_fail` does (one line on stderr, the JSON error object
        on stdout when asked); any other exception still prints its JSON object before its
        traceback."""
        from .errors import PdftuiError

        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.Abort):
            raise   # --help, --version, a prompt given up: no error to report
        except click.ClickException as exc:
            _json_error("usage", exc.format_message())
            raise
        except PdftuiError as exc:
            _fail(str(exc), 2 if exc.kind in _BAD_INPUT else 1, exc.kind)
        except sqlite3.Error as exc:
            _fail(f"cannot use the cache: {exc}", 2, "cache")
        except KeyboardInterrupt:
            _json_error("interrupted", "interrupted")
            raise
        except Exception as exc:   # a bug: the script still gets its object
            from .errors import user_message

            _json_error("internal", user_message(exc))
            raise


_JSON_KEY = "pdftui.json"
#: Error kinds that are bad input (exit code 2); the others are runtime failures (1).
_BAD_INPUT = {"usage", "folder", "cache", "not_found", "ambiguous", "query"}


def _asks_json(args: list[str]) -> bool:
    """True when the command line ``args`` (the command's name first) asks for JSON on
    stdout: ``--json``, or ``export --format json`` (before a ``--`` that ends options)."""
    opts = args[:args.index("--")] if "--" in args else args
    if "--json" in opts:
        return True
    return bool(opts) and opts[0] == "export" and any(
        a in ("--format=json",) or (a == "--format" and nxt == "json")
        for a, nxt in zip(opts, [*opts[1:], ""]))


def _json_error(kind: str, message: str) -> None:
    """Print ``{"error": {"kind": kind, "message": message}}`` on stdout when the command
    was asked for JSON (:func:`_asks_json`); else nothing."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.meta.get(_JSON_KEY):
        click.echo(_dumps({"error": {"kind": kind, "message": clean_text(message)}}))


_cache_opt = click.option(
    "--cache-dir", type=click.Path(), envvar="PDFTUI_CACHE_DIR",
    help="Cache folder (default: $PDFTUI_CACHE_DIR or the user cache dir).")
_data_opt = click.option(
    "--data-dir", type=click.Path(), envvar="PDFTUI_DATA_DIR",
    help="User data folder: marks, notes, sessions (default: $PDFTUI_DATA_DIR or the "
         "user data dir).")


_model_opt = click.option(
    "--model", default=None, envvar="PDFTUI_EMBED_MODEL",
    help="fastembed model name (default: offline all-MiniLM-L6-v2).")


@click.group(cls=_DefaultToTui, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pdftui")
def main() -> None:
    """Search and read a folder of PDFs from the terminal.

    pdftui [FOLDER] opens the TUI on FOLDER (default: the current folder).
    """
    _safe_streams()


def _safe_streams() -> None:
    """Make stdout and stderr replace what their encoding cannot show (a Latin-1 or
    ASCII terminal) instead of raising UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="replace")
        except (AttributeError, ValueError, OSError):
            pass


def utf8_stream(stream) -> bool:
    """True when ``stream`` encodes UTF-8 (so any text can be written to it)."""
    enc = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    return enc in ("utf8", "utf8sig")


def terminal_problem(env, stream) -> str:
    """Why the TUI cannot draw on this terminal ('' when it can): ``TERM=dumb`` (no
    cursor control), a locale that is not UTF-8 (the first of LC_ALL, LC_CTYPE, LANG that
    is set, e.g. ``C`` or ``en_US.ISO-8859-1``), or an output encoding that is not UTF-8."""
    if env.get("TERM", "") == "dumb":
        return "TERM=dumb"
    def utf8(value: str) -> bool:
        return "utf8" in value.lower().replace("-", "").replace("_", "")

    for var in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(var, "")
        if var == "LC_CTYPE" and value == "C.UTF-8" and env.get("LANG") \
                and not utf8(env["LANG"]):
            continue   # set by Python itself for a locale it could not load (PEP 538)
        if value:
            if not utf8(value):
                return f"{var}={value}"
            break
    if not utf8_stream(stream):
        return f"output encoding {getattr(stream, 'encoding', None) or 'unknown'}"
    return ""


def has_terminal() -> bool:
    """True when standard input and output are a terminal; redirected or piped, the TUI
    would draw into a file and wait for keys forever."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _dumps(obj) -> str:
    """``obj`` as one JSON line: UTF-8 text when stdout takes it, else ASCII escapes
    (``\\u00e9``), so --json is exact and safe on any terminal."""
    return json.dumps(obj, ensure_ascii=not utf8_stream(sys.stdout))


def _fail(msg: str, code: int = 2, kind: str = "usage") -> None:
    """Say ``msg`` on stderr (and, when JSON was asked for, as ``{"error": {"kind": kind,
    "message": msg}}`` on stdout) and exit with ``code`` (2 bad input, 1 failure)."""
    click.echo(f"pdftui: {clean_text(msg)}", err=True)
    _json_error(kind, msg)
    sys.exit(code)


PLAIN_PROGRESS_S = 15.0
"""Seconds between progress lines when stderr is not a terminal."""


class _IndexProgress:
    """Indexing progress on stderr, called with each :class:`pdftui.index.Progress`: a rich
    progress bar on a terminal; on a log or a pipe one line per phase every
    ``PLAIN_PROGRESS_S`` seconds (and when a phase completes); nothing when ``quiet``."""

    #: Columns of a bar line besides the bar and the current document's name.
    FIXED_COLUMNS = 60

    def __init__(self, quiet: bool, console=None) -> None:
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
        self.tasks: dict[str, int] = {}
        self.last_at: dict[str, float] = {}   # phase -> when its last line was logged
        self.done: set[str] = set()            # phases whose last line was logged

    def __call__(self, p) -> None:
        if self.plain:
            self._log_line(p)
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


def _run_index(folder, cache_dir, model, embed, quiet=False, reading=False):
    """Index with progress on stderr (:class:`_IndexProgress`); returns the summary.

    ``reading``: the caller only reads (search, read, docs, export): when the cache cannot
    be written (read-only location, full disk) but holds an index, print a one-line
    warning and return None, so the caller answers from the index as it is."""
    from .errors import CacheError
    from .corpus import FolderError
    from .index import index_folder

    cancel = threading.Event()
    report = _IndexProgress(quiet)
    try:
        with report.bar:
            return index_folder(folder, cache_dir, model, embed=embed, progress=report,
                                cancel=cancel)
    except FolderError as exc:
        _fail(str(exc), 2, exc.kind)
    except CacheError as exc:
        if reading and _index_readable(cache_dir):
            click.echo(f"pdftui: warning: the index cannot be updated ({clean_text(str(exc))});"
                       " answering from it as it is", err=True)
            return None
        _fail(str(exc), 2, exc.kind)
    except sqlite3.Error as exc:  # a damaged or unusable cache file: one line, no traceback
        _fail(f"cannot use the cache: {exc}", 2, "cache")
    except KeyboardInterrupt:
        cancel.set()
        click.echo("pdftui: interrupted; what was indexed is kept and the next run resumes",
                   err=True)
        _json_error("interrupted", "interrupted while indexing")
        sys.stdout.flush()
        sys.stderr.flush()
        # Every write is already committed; skip interpreter teardown, where onnxruntime's
        # thread pool aborts ("terminate called without an active exception").
        os._exit(130)


def _index_readable(cache_dir) -> bool:
    """True when the cache location holds an index that can be read (if not written)."""
    from .errors import CacheError
    from .store.database import Cache

    try:
        Cache(cache_dir, read_only_ok=True).close()
    except CacheError:
        return False
    return True


@main.command()
@click.argument("folder", type=click.Path(), default=".")
@_cache_opt
@_data_opt
@_model_opt
@click.option("--no-embed", is_flag=True, help="Skip embeddings (keyword search only).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
def index(folder, cache_dir, data_dir, model, no_embed, as_json):
    """Index FOLDER (recursively) into the shared cache and print a summary.

    Indexing needs no user data (marks, notes stay where they are); --data-dir is
    accepted as by the other commands."""
    del data_dir   # accepted so one set of options serves every command
    s = _run_index(folder, cache_dir, model, not no_embed)
    if as_json:
        click.echo(_dumps(s.to_json()))
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


class _QueryCommand(click.Command):
    """A command whose QUERY may start with '-' (``-transformer attention`` excludes a
    word): click reads such a QUERY as options ("No such option '-t'"), so that error
    says to put the query after ``--``, the end of options (click's documented way to
    pass an argument that looks like an option). A mistyped option keeps click's error."""

    def parse_args(self, ctx, args):
        given = list(args)   # the parser consumes ``args``
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            query = _dash_query(self.get_params(ctx), given)
            if query is None:
                raise
            raise click.UsageError(
                f"{exc.format_message()} A query starting with '-' goes after --, the end "
                f"of options: {ctx.command_path} FOLDER [OPTIONS] -- {_shell_quote(query)}",
                ctx) from exc


def _dash_query(params: list[click.Parameter], args: list[str]) -> str | None:
    """The argument of ``args`` (before a ``--``) that is a query starting with '-' rather
    than an option or its value: one dash then more (``-attention``), or words with a
    space (``--a b``); None when there is none (``--top-kk``: a mistyped option)."""
    options = [p for p in params if isinstance(p, click.Option)]
    known = {o for p in options for o in (*p.opts, *p.secondary_opts)}
    takes_value = {o for p in options if not p.is_flag and not p.count for o in p.opts}
    opts = args[:args.index("--")] if "--" in args else args
    skip = False
    for arg in opts:
        if skip or arg in known or arg == "-" or not arg.startswith("-"):
            skip = not skip and arg in takes_value
            continue
        if not arg.startswith("--") or any(c.isspace() for c in arg):
            return arg
    return None


def _shell_quote(text: str) -> str:
    """``text`` quoted for a POSIX shell, in double quotes when that needs no escape
    (``"-foo bar"``, as people type it), else as :func:`shlex.quote` does."""
    import shlex

    if not any(c in text for c in '"$`\\!'):
        return f'"{text}"'
    return shlex.quote(text)


@main.command(cls=_QueryCommand)
@click.argument("folder", type=click.Path())
@click.argument("query")
@click.option("--mode", type=click.Choice(["keyword", "semantic", "hybrid"]), default="hybrid",
              show_default=True)
@click.option("--granularity", type=click.Choice(["page", "section"]), default="page",
              show_default=True)
@click.option("--top-k", type=click.IntRange(1, 1000), default=10, show_default=True)
@click.option("--doc", "doc_globs", multiple=True,
              help="Only the documents this names: a part of their path from the start "
                   "of a word ('raft', not 'draft') or a glob ('*raft*'), as the query's "
                   "doc: field (repeatable).")
@_cache_opt
@_data_opt
@_model_opt
@click.option("--json", "as_json", is_flag=True, help="Print JSON (JSON Lines with QUERY -).")
@click.option("--wait-embed", is_flag=True,
              help="Embed every document before searching (default: search at once with "
                   "what is embedded and say how much that covers).")
@click.option("--width", type=click.IntRange(min=40), default=None,
              help="Width of the results table in columns (default: the terminal's "
                   "width; 80 when the output is not a terminal).")
def search(folder, query, mode, granularity, top_k, doc_globs, cache_dir, data_dir, model,
           as_json, wait_embed, width):
    """Search FOLDER for QUERY (use - to read one query per line from stdin).

    The text index is brought up to date first; embedding the rest of a large folder
    takes minutes, so by default the semantic arm searches what is embedded already and
    the coverage says how much that is (run `pdftui index` or pass --wait-embed).
    """
    from .corpus import relative_pattern
    from .library import Library
    from .search.service import SearchService
    from .versions import version_groups

    doc_globs = tuple(relative_pattern(folder, g) for g in doc_globs)

    if query != "-" and not query.strip():
        _fail("QUERY is empty: give the words to search for, or - to read queries from stdin")
    busy = None if wait_embed else _index_elsewhere(folder, cache_dir, model)
    summary = None if busy is not None else _run_index(
        folder, cache_dir, model, wait_embed and mode != "keyword", quiet=False, reading=True)
    lib = Library(folder, cache_dir)
    try:
        infos = lib.documents()
    finally:
        lib.close()
    known = [d.doc for d in infos]
    groups = version_groups(infos)   # arXiv v5 / v7 of one paper: their hits fold
    if busy is not None and not known:
        _fail(f"{_index_progress(busy)}: nothing is indexed yet; search again in a moment",
              1, "indexing")
    if (summary.documents if summary is not None else len(known)) == 0:
        _fail(f"no PDF files in {folder} (pdftui looks for *.pdf below it)", 2, "folder")
    scope = _doc_scope(doc_globs, known)
    pending = summary.embedding_pending if summary is not None and mode != "keyword" else 0
    elsewhere = busy or (_index_elsewhere(folder, cache_dir, model) if pending else None)
    note = _pending_note(pending, elsewhere) if pending and not as_json else ""
    if busy is not None and not as_json:
        # the other run extracts and embeds; extracting the same PDFs again here would
        # double its work: search what it has indexed so far
        ready = sum(d.status in ("indexed", "embedding") for d in infos)
        note = f"{_index_progress(busy)}: searching the {ready} documents it has " \
               "indexed so far; search again when it is done for the rest"
    service = SearchService(folder, cache_dir=cache_dir, model=model)
    queries = (line.rstrip("\r\n") for line in sys.stdin) if query == "-" else [query]
    marks = _marks(folder, cache_dir, data_dir) if as_json else {}
    try:
        for q in queries:
            how = {"mode": mode, "granularity": granularity, "docs": sorted(scope) or None}
            if as_json:
                result = service.search_sync(q, top_k=top_k, **how)
                _nothing_embedded_yet(result, elsewhere)
                click.echo(_dumps(_result_json(result, marks, groups, elsewhere)))
                continue
            if query == "-":   # many tables: say which query each answers
                click.echo(clean_text(f"query: {q}"))
            result, folds = _search_folded(service, q, top_k, groups, how)
            _nothing_embedded_yet(result, elsewhere)
            if note:   # once, after an error that would say it again
                click.echo(f"pdftui: {note}", err=True)
                note = ""
            _print_result(result, folds, "--doc " + ", ".join(doc_globs) if doc_globs else "",
                          width)
    finally:
        close = getattr(service, "close", None)
        if close:
            close()


def _doc_scope(patterns: tuple[str, ...], known: list[str]) -> set[str]:
    """The documents of ``known`` the ``--doc`` patterns name, by the rule of the query's
    doc: field (:func:`pdftui.doc_pattern.match_docs`); exits naming a pattern that names
    none."""
    from .doc_pattern import match_docs, no_match_message

    scope = set()
    for pattern in patterns:
        found = match_docs(known, pattern)
        if not found:
            _fail(f"--doc: {no_match_message(pattern, known)}", 2, "not_found")
        scope.update(found)
    return scope


def _index_elsewhere(folder, cache_dir, model) -> dict | None:
    """Another live process indexing ``folder`` into this cache (``pdftui index``, a TUI),
    seen through the run's index lease and, when that process embeds too, its embedding
    lease (:mod:`pdftui.lease`): ``{"pid", "host", "documents_extracted",
    "documents_to_extract", "units_embedded", "units_to_embed"}`` (a count is None while
    unknown), or None when no other process indexes it."""
    from .corpus import check_folder
    from .embed import resolve_model_name
    from .lease import embed_lease_name, index_lease_name, live_holder

    run = live_holder(cache_dir, index_lease_name(check_folder(folder)))
    if run is None or run.pid == os.getpid():
        return None
    embed = live_holder(cache_dir, embed_lease_name(resolve_model_name(model)))
    embed = embed if embed is not None and embed.pid == run.pid else None
    docs = run.units_total or None   # an index lease counts documents
    return {"pid": run.pid, "host": run.host,
            "documents_extracted": run.units_done if docs else None,
            "documents_to_extract": docs,
            "units_embedded": embed.units_done if embed else None,
            "units_to_embed": embed.units_total if embed else None}


def _index_progress(run: dict) -> str:
    """``an index of this folder is in progress (pid 1234: 5 of 5 documents extracted,
    192 of 1429 units embedded)`` for :func:`_index_elsewhere`'s ``run`` (the host named
    when it is another machine's)."""
    import socket

    who = f"pid {run['pid']}"
    if run["host"] != socket.gethostname():
        who += f" on {run['host']}"
    done = [f"{run[a]} of {run[b]} {what}" for a, b, what in (
        ("documents_extracted", "documents_to_extract", "documents extracted"),
        ("units_embedded", "units_to_embed", "units embedded")) if run[b]]
    how_far = f"{who}: {', '.join(done)}" if done else who
    return f"an index of this folder is in progress ({clean_text(how_far)})"


def _pending_note(pending: int, elsewhere: dict | None) -> str:
    """Why the semantic arm skips ``pending`` documents, and what to do: run `pdftui
    index`, or, while another process indexes the folder (``elsewhere``,
    :func:`_index_elsewhere`), wait for it."""
    if elsewhere is None:
        return (f"{pending} documents are not embedded yet, so the semantic arm skips them "
                "(run `pdftui index` to embed them)")
    return (f"{_index_progress(elsewhere)}: the semantic arm skips the {pending} documents "
            "not embedded yet; search again when it is done, or pass --wait-embed to wait "
            "for it")


def _nothing_embedded_yet(result, elsewhere: dict | None) -> None:
    """Exit with the error kind ``indexing`` when a semantic search had no document to
    search because the index in progress elsewhere (``elsewhere``) has not embedded any
    of them yet; an empty list would read as "nothing matches"."""
    if elsewhere is None or result.mode != "semantic" \
            or result.coverage.get("semantic_searched"):
        return
    _fail(f"{_index_progress(elsewhere)} and no document searched is embedded yet, so a "
          "semantic search has nothing to search: search again when it is done, pass "
          "--wait-embed to wait for it, or use --mode hybrid or keyword", 1, "indexing")


#: The most hits the table asks the service for to fill its rows after folding versions.
FOLD_ASK_MAX = 1000


def _search_folded(service, query: str, top_k: int, groups: dict, how: dict):
    """``(result, folds)`` for the table: the versions of one paper found at one place
    share a row (:func:`pdftui.versions.fold_versions`), so ``top_k`` rows may need more
    hits than ``top_k``; asks the service for more (with ``how``: mode, granularity,
    docs) until the folds fill ``top_k`` rows or it has no more (a longer list keeps the
    first hits and their ranks). ``folds``: the first ``top_k``, indices into
    ``result.hits``."""
    from .versions import fold_versions

    asked = top_k
    while True:
        result = service.search_sync(query, top_k=asked, **how)
        folds = fold_versions(result.hits, groups)
        if len(folds) >= top_k or len(result.hits) < asked or asked >= FOLD_ASK_MAX:
            return result, folds[:top_k]
        asked = min(FOLD_ASK_MAX, asked + 2 * (top_k - len(folds)))


def _result_json(result, marks: dict, groups: dict, elsewhere: dict | None = None) -> dict:
    """``search --json``'s object: :meth:`SearchResult.to_json` with, on every hit, its
    document's ``mark`` and ``note`` (:func:`_marks`) and ``other_versions``: the hits of
    other versions of its paper found at its place (:func:`pdftui.versions.other_versions`,
    ``[{"rank", "doc", "version"}]``; [] for most hits). Every hit is kept: the table folds
    them, a script decides. ``index_in_progress``: null, or another process indexing the
    folder while the semantic arm skipped documents not embedded yet (``elsewhere``,
    :func:`_index_elsewhere`)."""
    from .versions import other_versions

    data = result.to_json()
    data["index_in_progress"] = elsewhere
    for hit, others in zip(data.get("hits", ()), other_versions(result.hits, groups)):
        hit["mark"], hit["note"] = marks.get(hit.get("doc"), ("none", ""))
        hit["other_versions"] = others
    return data


def _shorten(s: str, n: int, pattern=None) -> str:
    """``s`` cut to about ``n`` characters at a word boundary, with an ellipsis. When the
    first match of ``pattern`` (the query's words, :func:`.tui.render.terms_pattern`)
    would fall past the cut, the shown text starts at the sentence holding it ("… We
    adopt batch normalization ..."), so the part of a long excerpt that matched shows."""
    if len(s) <= n:
        return s
    m = pattern.search(s) if pattern is not None else None
    if m is not None and m.end() > n - 40:
        start = max(s.rfind(". ", 0, m.start()) + 2, 0)
        if m.start() - start > n // 2:   # a long sentence: from a few words before it
            start = max(s.rfind(" ", 0, max(m.start() - 60, 0)) + 1, 0)
        return "… " + _shorten(s[start:], n - 2)
    cut = s.rfind(" ", 0, n)
    return s[: cut if cut > n // 2 else n] + " …"


def _print_result(result, folds: list, scope: str = "", width: int | None = None) -> None:
    """The text answer: the coverage head (``scope``: the ``--doc`` options, named after
    the count they narrowed), notes and suggestions, then a table of one row per fold of
    ``folds`` (:func:`_search_folded`), in rank order: the hits of versions of one paper
    found at one place share a row that names the versions ("versions v7 v5"), rows
    numbered as the TUI numbers them. ``width``: columns (None: the terminal's)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False, width=width)
    data = result.to_json()
    from .tui.render import field_note_removed, fit_parts, searched_parts   # rich only

    cov = data["coverage"]
    # a doc: / year: field narrows and is named; lines break between parts, never in one
    head = [*searched_parts(cov, data["mode"], clean_text(scope)), data["mode"],
            f"{data['elapsed_ms']:.0f} ms"]
    for line in fit_parts(head, console.width):
        console.print(Text(line, style="dim"))
    weak = bool(data.get("weak") and data["hits"])
    note = field_note_removed(str(cov.get("note") or ""), cov)
    if note:   # a weak answer's note starts "no strong match: nearest pages"
        for line in fit_parts(clean_text(note).split("; "), console.width, "; "):
            console.print(Text(line, style="bold" if weak else "dim"))
    elif weak:
        console.print(Text("no strong match: nearest pages", style="bold"))
    for word, alts in (data.get("suggestions") or {}).items():
        console.print(Text(clean_text(f"did you mean: {word} -> {', '.join(alts)}"),
                           style="bold"))
    if not data["hits"]:
        console.print("no hits")
        return
    from .tui.render import terms_pattern   # rich only, no Textual

    pattern = terms_pattern(data.get("query") or "")
    table = Table(show_lines=True, expand=True)
    for col, kw in (("#", {"justify": "right", "width": 3}), ("kw", {"justify": "right", "width": 4}),
                    ("sem", {"justify": "right", "width": 4}),
                    # a file name longer than the column folds onto the next line, never cut
                    ("document / excerpt", {"ratio": 1, "overflow": "fold"})):
        table.add_column(col, **kw)
    for shown, fold in enumerate(folds, 1):
        h = data["hits"][fold.hit]
        where = f"{h['doc']}  p.{h['page']}"
        if h.get("page_label") and h["page_label"] != str(h["page"]):
            where += f" ({h['page_label']})"
        if h.get("section_path"):
            where += f"  · {h['section_path']}"
        if h.get("ocr"):
            where += "  · OCR"
        body = Text(clean_text(where), style="bold")
        if fold.versions:
            body.append(clean_text(f"  · versions {' '.join(fold.versions)}"))
        body.append("\n" + _shorten(clean_text(h.get("excerpt") or ""), 320, pattern),
                    style="")
        table.add_row(str(shown), str(h.get("keyword_rank") or "-"),
                      str(h.get("semantic_rank") or "-"), body)
    console.print(table)


@main.command()
@click.argument("folder", type=click.Path())
@click.argument("doc")
@click.option("--page", type=click.IntRange(min=1), default=None,
              help="Page number (1-based; the default is page 1).")
@click.option("--section", default=None,
              help="Section to print whole: its title, or its number in --sections.")
@click.option("--sections", "list_sections", is_flag=True,
              help="List the sections (number, pages, title).")
@click.option("--width", type=click.IntRange(min=0), default=None,
              help="Wrap paragraphs to this many columns (0: one line each; the default "
                   "is the terminal's width, and no wrapping when the output is not a "
                   "terminal).")
@_cache_opt
@_data_opt
@click.option("--json", "as_json", is_flag=True)
def read(folder, doc, page, section, list_sections, width, cache_dir, data_dir, as_json):
    """Print a page or a whole section of DOC (its path relative to FOLDER, or a part of
    it from the start of a word or a glob naming one document, as the query's doc:
    field) as plain text.

    Sections are numbered 1, 2, ... in each document (--sections lists them). Code
    listings, syntax summaries and tables keep their printed lines (in the text and in
    --json's "text"; other paragraphs are one line each). Reading needs no user data;
    --data-dir is accepted as by the other commands."""
    from .library import Library, NotFound

    if sum(x is not None and x is not False for x in (page, section, list_sections)) > 1:
        _fail("use one of --page, --section and --sections")

    _run_index(folder, cache_dir, None, False, quiet=True, reading=True)
    from .preformat import kept_text

    lib = Library(folder, cache_dir)
    doc = _resolve_doc(folder, [d.doc for d in lib.documents()], doc)
    try:
        if list_sections:
            _print_sections(lib.sections(doc), as_json)
            return
        out = _read_section(lib, doc, section) if section is not None \
            else lib.page(doc, page or 1)
        # code listings, syntax summaries and tables keep their printed lines
        out = dataclasses.replace(out, text=kept_text(lib, out))
    except NotFound as exc:
        _fail(f"{exc}" + (" (list them with --sections)" if section else ""), 2, "not_found")
    finally:
        lib.close()
    if as_json:
        click.echo(_dumps(out.to_json()))
        return
    click.echo(clean_text(f"{out.doc} · {out.path or out.title} · p. {out.start_page}"
                          + (f"-{out.end_page}" if out.end_page != out.start_page else "")
                          + (" · OCR (recognised from a scan)" if out.ocr else "")))
    click.echo()
    text = clean_text(_heading_apart(out.text, out.title if section is not None else ""),
                      keep_newlines=True)
    if width is None and sys.stdout.isatty():
        width = shutil.get_terminal_size().columns
    click.echo(_wrapped(text, width) if width else text)


def _wrapped(text: str, width: int) -> str:
    """``text`` (paragraphs apart by blank lines) with each paragraph of one line wrapped
    to ``width`` columns at spaces (a word longer than that, a URL, stays whole); the
    paragraphs that keep their printed lines (code, tables) are left as they are."""
    import textwrap

    return "\n\n".join(p if "\n" in p else textwrap.fill(
        p, width, break_long_words=False, break_on_hyphens=False)
        for p in text.split("\n\n"))


def _print_sections(rows, as_json: bool) -> None:
    """``read --sections``: number (1-based, per document), pages, indented title."""
    if as_json:
        click.echo(_dumps([{"number": n, **r.to_json()} for n, r in enumerate(rows, 1)]))
        return
    for n, r in enumerate(rows, 1):
        pages = f"p. {r.start_page}" + (f"-{r.last_page}" if r.last_page > r.start_page else "")
        click.echo(f"{n:>4}  {pages:<11} {'  ' * (r.level - 1)}{clean_text(r.title)}")


def _read_section(lib, doc: str, section: str):
    """The section named by ``section``: digits are its number in ``--sections`` (this
    document's order, 1-based), else a title (see :meth:`Library.section`; an ambiguous
    title is said on stderr). Raises NotFound."""
    from .library import NotFound

    rows = lib.sections(doc)
    if section.strip().isdigit():
        n = int(section)
        if not 1 <= n <= len(rows):
            raise NotFound(f"no section {n} in {doc} (it has {len(rows)})")
        numbered = next((r for r in rows if r.title.split()[:1] in ([f"{n}"], [f"{n}."])),
                        None)
        if numbered is not None and numbered.id != rows[n - 1].id:
            # "5" is the 5th section listed; the reader may mean the heading numbered 5
            click.echo(f"pdftui: --section {n} is number {n} in --sections, "
                       f"{clean_text(rows[n - 1].title)!r}; the heading numbered {n} is "
                       f"--section {clean_text(numbered.title)!r}", err=True)
        return lib.section(doc, rows[n - 1].id)
    out = lib.section(doc, section)
    key = " ".join(section.split()).casefold()
    titles = [r.title.casefold() for r in rows]
    same = [t for t in titles if key in t] if titles.count(key) != 1 else []
    if len(same) > 1:
        click.echo(f"pdftui: {section!r} is in {len(same)} section titles; "
                   f"showing {clean_text(out.title)!r} (see --sections)", err=True)
    return out


def _heading_apart(text: str, title: str) -> str:
    """``text`` with the section title ``title`` that opens it on a line of its own
    ("2.5 Chunk Size Chunk size is ..." -> "2.5 Chunk Size" / "Chunk size is ...")."""
    from .headings import split_heading

    first, sep, rest = text.partition("\n\n")
    split = split_heading(first, title) if title else None
    if split is None:
        return text
    return split[0] + "\n\n" + split[1] + sep + rest


def _resolve_doc(folder: str, known: list[str], doc: str) -> str:
    """DOC as the shell gives it (absolute, ./) or a pattern naming one document
    (:func:`pdftui.doc_pattern.resolve_doc`: the rule of the query's ``doc:`` field), as
    the folder's ``doc`` name; exits with a message naming the near miss or the
    ambiguity."""
    from .corpus import relative_pattern
    from .doc_pattern import resolve_doc
    from .errors import NotFound

    try:
        return resolve_doc(known, relative_pattern(folder, doc))
    except NotFound as exc:
        _fail(str(exc), 2, exc.kind)
    raise AssertionError("unreachable")


def _triage_store(data_dir):
    """The user-data store, or exit with its one-line error."""
    from .triage.store import TriageStore, TriageStoreError

    try:
        return TriageStore(data_dir)
    except TriageStoreError as exc:
        _fail(str(exc), 1, exc.kind)


def _folder_documents(folder, cache_dir, data_dir):
    """Index FOLDER (text only, quietly) and return ``(root, [(DocumentInfo, DocTriage)])``."""
    from .library import Library

    summary = _run_index(folder, cache_dir, None, False, quiet=True, reading=True)
    lib = Library(folder, cache_dir)
    try:
        docs = lib.documents()
        root = lib.root
    finally:
        lib.close()
    if (summary.documents if summary is not None else len(docs)) == 0:
        _fail(f"no PDF files in {folder} (pdftui looks for *.pdf below it)", 2, "folder")
    store = _triage_store(data_dir)
    try:
        triage = store.lookup(root, [(d.doc, d.sha256) for d in docs])
    finally:
        store.close()
    return root, [(d, triage[d.doc]) for d in docs]


def _marks(folder, cache_dir, data_dir) -> dict[str, tuple[str, str]]:
    """``{doc: (mark, note)}`` of the folder's marked documents, for search hits; {} with
    a one-line warning when the user data cannot be read (search still answers)."""
    from .library import Library
    from .triage.store import TriageStore, TriageStoreError

    lib = Library(folder, cache_dir)
    try:
        docs, root = lib.documents(), lib.root
    finally:
        lib.close()
    try:
        with TriageStore(data_dir) as store:
            triage = store.lookup(root, [(d.doc, d.sha256) for d in docs])
    except TriageStoreError as exc:
        click.echo(f"pdftui: {clean_text(str(exc))}; hits carry no marks", err=True)
        return {}
    return {doc: (t.mark.value, t.note) for doc, t in triage.items() if not t.empty}


def _first_author(authors) -> str:
    if not authors:
        return ""
    surname = authors[0].split()[-1]
    return surname + (" et al." if len(authors) > 2 else
                      f" & {authors[1].split()[-1]}" if len(authors) == 2 else "")


@main.command()
@click.argument("folder", type=click.Path(), default=".")
@_cache_opt
@_data_opt
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def docs(folder, cache_dir, data_dir, as_json):
    """List the documents of FOLDER: mark, year, pages, file name, title, first authors,
    arXiv id or DOI, note, and the status of those not fully indexed."""
    from collections import Counter

    from rich.console import Console
    from rich.table import Table

    _root, rows = _folder_documents(folder, cache_dir, data_dir)
    if as_json:
        out = [{**d.to_json(), "mark": t.mark.value, "note": t.note} for d, t in rows]
        click.echo(_dumps({"documents": out}))
        return
    table = Table(expand=True, show_edge=False, pad_edge=False)
    for col, kw in (("mark", {"width": 7, "no_wrap": True}), ("year", {"width": 4}),
                    ("pages", {"justify": "right", "width": 5}),
                    ("document · title, authors, ids · note · status", {"ratio": 1,
                                                                        "overflow": "fold"})):
        table.add_column(col, **kw)
    for d, t in rows:
        table.add_row("" if t.mark.value == "none" else t.mark.value, str(d.year or ""),
                      str(d.pages) if d.pages else "", _doc_cell(d, t.note))
    Console(highlight=False).print(table)
    marks = Counter(t.mark.value for _d, t in rows if t.mark.value != "none")
    problems = sum(1 for d, _t in rows if d.status != "indexed")
    click.echo(f"{len(rows)} documents"
               + "".join(f" · {n} {m}" for m, n in sorted(marks.items()))
               + (f" · {problems} not fully indexed (see status)" if problems else ""))


def _doc_cell(d, note: str):
    """The ``docs`` table's document cell: the file name whole (the name ``read`` and
    ``mark`` take; folded, never cut), the title with the first authors and the arXiv id
    or DOI, the note, and the status when the document is not simply indexed."""
    from rich.text import Text

    cell = Text(clean_text(d.doc), style="bold")
    about = [clean_text(d.title)] if d.title and d.title != d.doc else []
    about += [clean_text(x) for x in (_first_author(d.authors),
                                      f"arXiv {d.arxiv_id}" if d.arxiv_id else "",
                                      f"doi {d.doi}" if d.doi else "") if x]
    if about:
        cell.append("\n" + " · ".join(about))
    if note:
        cell.append("\nnote: " + _shorten(clean_text(note), 160), style="italic")
    if d.status != "indexed":
        reason = f" ({d.reason})" if d.reason and d.reason != d.status else ""
        cell.append(clean_text(f"\nstatus: {d.status}{reason}"), style="bold")
    return cell


def _doc_key(folder, cache_dir, pattern: str):
    """``(doc, DocKey)`` of the one document of FOLDER that ``pattern`` names (the index
    brought up to date first, quietly); exits with the resolver's message otherwise."""
    from .library import Library
    from .triage.store import DocKey

    _run_index(folder, cache_dir, None, False, quiet=True, reading=True)
    lib = Library(folder, cache_dir)
    try:
        infos = {d.doc: d for d in lib.documents()}
        root = lib.root
    finally:
        lib.close()
    doc = _resolve_doc(folder, list(infos), pattern)
    return doc, DocKey(root, doc, infos[doc].sha256)


@main.command()
@click.argument("folder", type=click.Path())
@click.argument("doc")
@click.argument("mark", type=click.Choice(["keep", "to-read", "skip", "none"]))
@click.option("--note", default=None, help="Replace the document's note ('' clears it).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the document's triage as one JSON object.")
@_cache_opt
@_data_opt
def mark(folder, doc, mark, note, as_json, cache_dir, data_dir):
    """Mark DOC of FOLDER keep, to-read, skip or none (and set its note)."""
    from .triage.store import Mark, TriageStoreError

    doc, key = _doc_key(folder, cache_dir, doc)
    store = _triage_store(data_dir)
    try:
        t = store.set_mark(key, Mark(mark))
        if note is not None:
            t = store.set_note(key, note)
    except TriageStoreError as exc:
        _fail(str(exc), 1, exc.kind)
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps({"doc": doc, "mark": t.mark.value, "note": t.note,
                               "clips": len(t.clips)}, ensure_ascii=False))
        return
    click.echo(clean_text(f"{doc}: {t.mark.value}" + (f" · note: {_shorten(t.note, 60)}"
                                                         if t.note else "")))


@main.command()
@click.argument("folder", type=click.Path())
@click.argument("doc", required=False)
@click.option("--delete", "numbers", type=click.IntRange(min=1), multiple=True,
              help="Delete clip N of DOC (its number in the list; repeatable); asks first.")
@click.option("--yes", is_flag=True, help="With --delete: delete without asking.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the clips (and those deleted) as one JSON object.")
@_cache_opt
@_data_opt
def clips(folder, doc, numbers, yes, as_json, cache_dir, data_dir):
    """List the passages clipped from DOC of FOLDER (numbered 1, 2, ...), or delete some
    with --delete N (asked first, shown with their text; --yes skips the question).
    Without DOC: the clips of every document of FOLDER, under its name."""
    from .triage.store import TriageStoreError

    if doc is None:
        if numbers:
            _fail("--delete needs DOC, the document whose clips to delete "
                  "(`pdftui clips FOLDER` lists them under each document's name)")
        _all_clips(folder, cache_dir, data_dir, as_json)
        return
    doc, key = _doc_key(folder, cache_dir, doc)
    store = _triage_store(data_dir)
    try:
        have = list(store.get(key).clips)
        chosen = _clips_to_delete(have, numbers, yes, as_json)
        for clip in chosen:
            store.delete_clip(key, clip.id)
        left = list(store.get(key).clips) if chosen else have
    except TriageStoreError as exc:
        _fail(str(exc), 1, exc.kind)
    finally:
        store.close()
    if as_json:
        click.echo(_dumps({"doc": doc, "clips": [_clip_json(n, c) for n, c in
                                                 enumerate(left, 1)],
                           "deleted": [_clip_json(None, c) for c in chosen]}))
        return
    for clip in chosen:
        click.echo(clean_text(f"deleted {clip.page_ref}: {_shorten(clip.text, 60)}"), err=True)
    if not left:
        click.echo(clean_text(f"{doc}: no clips"))
    _print_clips(left)


def _print_clips(clips: list) -> None:
    """The clips numbered 1, 2, ... (the numbers ``--delete`` takes): "  1  p. 2 ·
    section", then the text on one line (about 300 characters)."""
    for n, clip in enumerate(clips, 1):
        where = clip.page_ref + (f" · {clip.section}" if clip.section else "")
        click.echo(clean_text(f"{n:>3}  {where}"))
        click.echo("     " + clean_text(_shorten(" ".join(clip.text.split()), 300)))


def _all_clips(folder, cache_dir, data_dir, as_json: bool) -> None:
    """``clips FOLDER``: each document with clips, in the folder's order, its name then
    its clips as ``clips FOLDER DOC`` numbers them; a last line counts them. ``--json``:
    ``{"documents": [{"doc", "clips": [...]}]}`` (documents without clips left out)."""
    _root, rows = _folder_documents(folder, cache_dir, data_dir)
    have = [(d.doc, list(t.clips)) for d, t in rows if t.clips]
    if as_json:
        click.echo(_dumps({"documents": [
            {"doc": doc, "clips": [_clip_json(n, c) for n, c in enumerate(cs, 1)]}
            for doc, cs in have]}))
        return
    if not have:
        click.echo(clean_text(f"no clips in {folder}"))
        return
    for k, (doc, cs) in enumerate(have):
        if k:
            click.echo()
        click.echo(clean_text(f"{doc} · {len(cs)} clip{'s' if len(cs) != 1 else ''}"))
        _print_clips(cs)
    total = sum(len(cs) for _doc, cs in have)
    click.echo(f"\n{total} clip{'s' if total != 1 else ''} in {len(have)} "
               f"document{'s' if len(have) != 1 else ''}")


def _clip_json(number, clip) -> dict:
    """One clip for ``clips --json`` (``number`` 1-based in the list; None once deleted)."""
    out = {"text": clip.text, "page": clip.page, "page_label": clip.page_label,
           "section": clip.section}
    return {"number": number, **out} if number is not None else out


def _clips_to_delete(have: list, numbers, yes: bool, as_json: bool) -> list:
    """The clips ``--delete`` names (numbers 1-based in ``have``), once the user agreed:
    asked on a terminal unless ``yes``; elsewhere (a script, ``--json``) only with
    ``--yes``. Exits with a message on a number out of range or a no."""
    if not numbers:
        return []
    bad = [n for n in numbers if n > len(have)]
    if bad:
        _fail(f"no clip {bad[0]}: the document has {len(have)} (list them without --delete)",
              2, "not_found")
    chosen = [have[n - 1] for n in sorted(set(numbers))]
    if yes:
        return chosen
    if as_json or not sys.stdin.isatty():
        _fail("--delete asks before deleting: add --yes to delete without asking", 2, "usage")
    for clip in chosen:
        click.echo(clean_text(f"  {clip.page_ref}: {_shorten(clip.text, 70)}"), err=True)
    if not click.confirm(f"Delete {len(chosen)} clip{'s' if len(chosen) != 1 else ''}?",
                         default=False, err=True):
        _fail("nothing deleted", 1, "cancelled")
    return chosen


@main.command()
@click.argument("folder", type=click.Path(), default=".")
@click.option("--marked", type=click.Choice(["keep", "to-read", "skip", "any", "all"]),
              default="any", show_default=True,
              help="Which documents: one mark, any mark, note or clip, or all of them.")
@click.option("--format", "fmt", type=click.Choice(["markdown", "bibtex", "csv", "json"]),
              default="markdown", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to FILE (default: standard output).")
@_cache_opt
@_data_opt
def export(folder, marked, fmt, output, cache_dir, data_dir):
    """Export FOLDER's marked documents: a Markdown reading list (notes and clipped
    passages with their pages), BibTeX, CSV or JSON."""
    from .triage.export import ExportFormat, citekeys, items_for, render, select

    root, rows = _folder_documents(folder, cache_dir, data_dir)
    every = items_for(root, [d for d, _t in rows], {d.doc: t for d, t in rows})
    items = select(every, marked)
    if not items:
        click.echo(f"pdftui: no documents marked {marked} in {folder}"
                   + (" (mark some with `pdftui mark`, or use --marked all)"
                      if marked == "any" else ""), err=True)
    text = render(items, ExportFormat(fmt), f"Reading list: {os.path.basename(root) or root}",
                  citekeys(every))
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    except OSError as exc:
        _fail(f"cannot write {output}: {exc.strerror or exc}", 1, "io")
    click.echo(f"pdftui: wrote {len(items)} document{'s' if len(items) != 1 else ''} "
               f"as {fmt} to {clean_text(output)}", err=True)


@main.command()
@click.argument("folder", type=click.Path(), default=".")
@_cache_opt
@_data_opt
@_model_opt
def tui(folder, cache_dir, data_dir, model):
    """Open the TUI on FOLDER (default: the current folder); marks, notes and the last
    session are kept in the user data folder (--data-dir)."""
    from .corpus import FolderError, check_folder

    try:
        check_folder(folder)
    except FolderError as exc:
        _fail(str(exc), 2, exc.kind)
    problem = terminal_problem(os.environ, sys.stdout)
    if problem:
        _fail(f"the TUI needs a UTF-8 terminal ({problem}); use `pdftui search FOLDER QUERY`"
              " and `pdftui read FOLDER DOC` instead", 2, "terminal")
    if not has_terminal():
        _fail("the TUI needs a terminal on standard input and output (over SSH: `ssh -t`);"
              " use `pdftui search FOLDER QUERY` and `pdftui read FOLDER DOC` in scripts",
              2, "terminal")
    from .tui.app import PdftuiApp

    PdftuiApp(folder, cache_dir=cache_dir, model=model, data_dir=data_dir).run()


if __name__ == "__main__":  # pragma: no cover
    main()
