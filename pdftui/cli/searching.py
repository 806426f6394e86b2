"""``pdftui search``: a query (or one per line of stdin) over a folder, answered as a table
of hits or as JSON, with what the semantic arm covered and another process's index run
in progress."""

from __future__ import annotations

import dataclasses
import os
import sys

import click

from ..text import clean_text
from .documents import folder_marks
from .indexing import run_index
from .options import cache_opt, data_opt, model_opt
from .output import dumps, fail, shorten


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


@click.command(cls=_QueryCommand)
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
@cache_opt
@data_opt
@model_opt
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
    from ..corpus import relative_pattern

    doc_globs = tuple(relative_pattern(folder, g) for g in doc_globs)

    if query != "-" and not query.strip():
        fail("QUERY is empty: give the words to search for, or - to read queries from stdin")
    ready = _ready(folder, cache_dir, model, mode, wait_embed, as_json, doc_globs)
    service = _open_service(folder, cache_dir, model)
    queries = (line.rstrip("\r\n") for line in sys.stdin) if query == "-" else [query]
    marks = folder_marks(folder, cache_dir, data_dir) if as_json else {}
    try:
        for q in queries:
            how = {"mode": mode, "granularity": granularity,
                   "docs": sorted(ready.scope) or None}
            if as_json:
                result = service.search_sync(q, top_k=top_k, **how)
                _nothing_embedded_yet(result, ready.elsewhere)
                click.echo(dumps(_result_json(result, marks, ready.groups, ready.elsewhere)))
                continue
            if query == "-":   # many tables: say which query each answers
                click.echo(clean_text(f"query: {q}"))
            _answer_table(service, q, top_k, how, ready, doc_globs, width)
    finally:
        if _KEPT is None:
            service.close()


#: The search services kept loaded between commands (model, matrix), by folder, cache,
#: model and ``PDFTUI_*`` settings, when this process is the background search service
#: (:mod:`pdftui.warm`); None: each command opens its own and closes it.
_KEPT: dict | None = None


def keep_services(keep: bool) -> None:
    """Keep the search services loaded between ``search`` commands run in this process
    (``True``: the background search service) or close them and stop keeping them."""
    global _KEPT
    if not keep and _KEPT:
        for service in _KEPT.values():
            service.close()
    _KEPT = {} if keep else None


def _open_service(folder, cache_dir, model):
    """The :class:`pdftui.search.SearchService` for a command: a new one, or the one kept
    for the same folder, cache, model and settings (:func:`keep_services`)."""
    from ..search.service import SearchService

    if _KEPT is None:
        return SearchService(folder, cache_dir=cache_dir, model=model)
    key = (os.path.realpath(folder), os.path.realpath(cache_dir) if cache_dir else None,
           model, tuple(sorted((k, v) for k, v in os.environ.items()
                               if k.startswith("PDFTUI_"))))
    if key not in _KEPT:
        _KEPT[key] = SearchService(folder, cache_dir=cache_dir, model=model)
    return _KEPT[key]


@dataclasses.dataclass
class _Ready:
    """What ``search`` knows once the index is up to date: the version groups of the
    folder's documents (:func:`pdftui.versions.version_groups`), the documents ``--doc``
    names (``scope``, empty: all), another process indexing the folder (``elsewhere``,
    :func:`_index_elsewhere`, or None) and the note on what the semantic arm skips
    (printed once, before the first table; '' for none)."""

    groups: dict
    scope: set[str]
    elsewhere: dict | None
    note: str


def _ready(folder, cache_dir, model, mode: str, wait_embed: bool, as_json: bool,
           doc_globs: tuple[str, ...]) -> _Ready:
    """Bring the index of ``folder`` up to date for a search (unless another process
    indexes it: then search what that one has indexed so far) and check there is
    something to search; exits with the error when there is not."""
    from ..library import Library
    from ..versions import version_groups

    busy = None if wait_embed else _index_elsewhere(folder, cache_dir, model)
    summary = None if busy is not None else run_index(
        folder, cache_dir, model, wait_embed and mode != "keyword", quiet=False, reading=True)
    lib = Library(folder, cache_dir)
    try:
        infos = lib.documents()
    finally:
        lib.close()
    known = [d.doc for d in infos]
    groups = version_groups(infos)   # arXiv v5 / v7 of one paper: their hits fold
    if busy is not None and not any(d.status in ("indexed", "embedding") for d in infos):
        # documents only queued (by this run or a second indexer) are not searchable
        fail(f"{_index_progress(busy)}: nothing is indexed yet; search again in a moment",
             1, "indexing")
    if (summary.documents if summary is not None else len(known)) == 0:
        fail(f"no PDF files in {folder} (pdftui looks for *.pdf below it)", 2, "folder")
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
    return _Ready(groups, scope, elsewhere, note)


def _answer_table(service, query: str, top_k: int, how: dict, ready: _Ready,
                  doc_globs: tuple[str, ...], width: int | None) -> None:
    """Search ``query`` (``how``: mode, granularity, docs) and print the results table
    (:func:`_print_result`), after the note of ``ready`` the first time (then cleared)."""
    result, folds = _search_folded(service, query, top_k, ready.groups, how)
    _nothing_embedded_yet(result, ready.elsewhere)
    if ready.note:   # once, after an error that would say it again
        click.echo(f"pdftui: {ready.note}", err=True)
        ready.note = ""
    _print_result(result, folds, "--doc " + ", ".join(doc_globs) if doc_globs else "",
                  width)


def _doc_scope(patterns: tuple[str, ...], known: list[str]) -> set[str]:
    """The documents of ``known`` the ``--doc`` patterns name, by the rule of the query's
    doc: field (:func:`pdftui.doc_pattern.match_docs`); exits naming a pattern that names
    none."""
    from ..doc_pattern import match_docs, no_match_message

    scope = set()
    for pattern in patterns:
        found = match_docs(known, pattern)
        if not found:
            fail(f"--doc: {no_match_message(pattern, known)}", 2, "not_found")
        scope.update(found)
    return scope


def _index_elsewhere(folder, cache_dir, model) -> dict | None:
    """Another live process indexing ``folder`` into this cache (``pdftui index``, a TUI),
    seen through the run's index lease and, when that process embeds too, its embedding
    lease (:mod:`pdftui.lease`): ``{"pid", "host", "documents_extracted",
    "documents_to_extract", "units_embedded", "units_to_embed"}`` (a count is None while
    unknown), or None when no other process indexes it."""
    from ..corpus import check_folder
    from ..embed import resolve_model_name
    from ..lease import embed_lease_name, index_lease_name, live_holder

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
            or result.coverage.semantic_searched:
        return
    fail(f"{_index_progress(elsewhere)} and no document searched is embedded yet, so a "
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
    from ..versions import fold_versions

    asked = top_k
    while True:
        result = service.search_sync(query, top_k=asked, **how)
        folds = fold_versions(result.hits, groups)
        if len(folds) >= top_k or len(result.hits) < asked or asked >= FOLD_ASK_MAX:
            return result, folds[:top_k]
        asked = min(FOLD_ASK_MAX, asked + 2 * (top_k - len(folds)))


def _result_json(result, marks: dict, groups: dict, elsewhere: dict | None = None) -> dict:
    """``search --json``'s object: :meth:`SearchResult.to_json` with, on every hit, its
    document's ``mark`` and ``note`` (:func:`folder_marks`) and ``other_versions``: the hits of
    other versions of its paper found at its place (:func:`pdftui.versions.other_versions`,
    ``[{"rank", "doc", "version"}]``; [] for most hits). Every hit is kept: the table folds
    them, a script decides. ``index_in_progress``: null, or another process indexing the
    folder while the semantic arm skipped documents not embedded yet (``elsewhere``,
    :func:`_index_elsewhere`)."""
    from ..versions import other_versions

    data = result.to_json()
    data["index_in_progress"] = elsewhere
    for hit, others in zip(data.get("hits", ()), other_versions(result.hits, groups)):
        hit["mark"], hit["note"] = marks.get(hit.get("doc"), ("none", ""))
        hit["other_versions"] = others
    return data


def _print_result(result, folds: list, scope: str = "", width: int | None = None) -> None:
    """The text answer: the coverage head (``scope``: the ``--doc`` options, named after
    the count they narrowed), notes and suggestions, then a table of one row per fold of
    ``folds`` (:func:`_search_folded`), in rank order: the hits of versions of one paper
    found at one place share a row that names the versions ("versions v7 v5"), rows
    numbered as the TUI numbers them. ``width``: columns (None: the terminal's)."""
    from rich.console import Console

    console = Console(highlight=False, width=width)
    data = result.to_json()
    _print_head(console, data, scope)
    if not data["hits"]:
        console.print("no hits")
        return
    console.print(_hits_table(data, folds))


def _print_head(console, data: dict, scope: str) -> None:
    """The text answer's head on ``console`` (a rich ``Console``), from ``data`` (a
    :meth:`SearchResult.to_json`): what was searched (``scope`` named), the mode and the
    time, dim; the coverage note (bold when the answer is weak; "no strong match: nearest
    pages" when a weak answer has none); a "did you mean" line per suggestion. Lines break
    between parts, never inside one, at the console's width."""
    from rich.text import Text

    from ..tui.render import field_note_removed, fit_parts, searched_parts   # rich only

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


def _hits_table(data: dict, folds: list):
    """The results table (a rich ``Table``) of ``data`` (a :meth:`SearchResult.to_json`
    with hits): one row per fold of ``folds``, numbered from 1, with the hit's keyword and
    semantic ranks ("-" where an arm did not find it) and its document and excerpt
    (:func:`_hit_cell`)."""
    from rich.table import Table

    from ..tui.render import terms_pattern   # rich only, no Textual

    pattern = terms_pattern(data.get("query") or "")
    table = Table(show_lines=True, expand=True)
    # a rank that added nothing shows in parentheses: "(1657)" takes 6 columns
    for col, kw in (("#", {"justify": "right", "width": 3}), ("kw", {"justify": "right", "width": 6}),
                    ("sem", {"justify": "right", "width": 6}),
                    # a file name longer than the column folds onto the next line, never cut
                    ("document / excerpt", {"ratio": 1, "overflow": "fold"})):
        table.add_column(col, **kw)
    hybrid = data.get("mode") == "hybrid"
    for shown, fold in enumerate(folds, 1):
        h = data["hits"][fold.hit]
        table.add_row(str(shown), _rank_cell(h, "keyword", hybrid),
                      _rank_cell(h, "semantic", hybrid), _hit_cell(h, fold.versions, pattern))
    return table


def _rank_cell(h: dict, arm: str, hybrid: bool):
    """A hit's rank in ``arm`` ("-" where the arm did not find it); in hybrid mode a rank
    that added nothing to the fused score (:func:`~pdftui.search.hits.counted_in`: beyond
    the lists fused, or a term lookup's semantic rank) in parentheses and dim, so piped
    output tells it apart too."""
    from rich.text import Text

    from ..search.hits import counted_in

    rank = h.get(f"{arm}_rank")
    if not rank:
        return "-"
    if hybrid and not counted_in(h, arm):
        return Text(f"({rank})", style="dim")
    return str(rank)


def _hit_cell(h: dict, versions, pattern):
    """The document / excerpt cell (a rich ``Text``) of hit ``h`` (a :meth:`Hit.to_json`):
    where it is, bold (:func:`_hit_place`), the other ``versions`` sharing its row, its
    excerpt (at most 320 characters, the terms ``pattern`` matches marked) and up to three
    of its page's hidden texts, each after its label, dim (at most 160 characters)."""
    from rich.text import Text

    body = Text(clean_text(_hit_place(h)), style="bold")
    if versions:
        body.append(clean_text(f"  · versions {' '.join(versions)}"))
    body.append("\n" + shorten(clean_text(h.get("excerpt") or ""), 320, pattern),
                style="")
    for x in (h.get("hidden_text") or [])[:3]:   # never in the excerpt: apart, labelled
        body.append(f"\n{x['label']} ", style="bold dim")
        body.append(shorten(clean_text(x["text"]), 160, pattern), style="dim")
    return body


def _hit_place(h: dict) -> str:
    """Where hit ``h`` is, as its row names it: ``doc  p.12 (xii)  · section path  · OCR``
    (the printed page label only where it differs from the page number)."""
    where = f"{h['doc']}  p.{h['page']}"
    if h.get("page_label") and h["page_label"] != str(h["page"]):
        where += f" ({h['page_label']})"
    if h.get("section_path"):
        where += f"  · {h['section_path']}"
    if h.get("ocr"):
        where += "  · OCR"
    return where
