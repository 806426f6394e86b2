"""The triage commands: ``docs`` (the documents with their marks), ``mark`` (a mark and a
note), ``clips`` (clipped passages: list, delete) and ``export`` (a reading list as
Markdown, BibTeX, CSV or JSON)."""

from __future__ import annotations

import json
import os
import sys

import click

from ..text import clean_text
from .documents import folder_documents, indexed_documents, triage_store
from .options import cache_opt, data_opt
from .output import dumps, fail, shorten, to_terminal


def _first_author(authors) -> str:
    if not authors:
        return ""
    surname = authors[0].split()[-1]
    return surname + (" et al." if len(authors) > 2 else
                      f" & {authors[1].split()[-1]}" if len(authors) == 2 else "")


@click.command()
@click.argument("folder", type=click.Path(), default=".")
@cache_opt
@data_opt
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--sort", "sort", type=click.Choice(["name", "cited"]), default="name",
              show_default=True, help="cited: the most cited in this folder first.")
def docs(folder, cache_dir, data_dir, as_json, sort):
    """List the documents of FOLDER: mark, year, pages, file name, title, first authors,
    arXiv id or DOI, how many of the folder's papers cite it, note, and the status of
    those not fully indexed."""
    from collections import Counter

    _root, rows = folder_documents(folder, cache_dir, data_dir)
    works, rows = _work_rows(rows)
    cited = _cited_counts(folder, cache_dir)
    if sort == "cited":
        rows = sorted(rows, key=lambda dt: (-cited.get(dt[0].doc, 0), dt[0].doc))
    if as_json:
        out = [{**d.to_json(), "mark": t.mark.value, "note": t.note,
                "versions": [v for v in siblings(works, d.doc) if v != d.doc],
                "cited_by": cited.get(d.doc, 0)}
               for d, t in rows]
        click.echo(dumps({"documents": out}))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(expand=True, show_edge=False, pad_edge=False)
    for col, kw in (("mark", {"width": 7, "no_wrap": True}), ("year", {"width": 4}),
                    ("pages", {"justify": "right", "width": 5}),
                    ("document · title, authors, ids · note · status", {"ratio": 1,
                                                                        "overflow": "fold"})):
        table.add_column(col, **kw)
    from ..triage.works import newest

    seen: set[str] = set()
    by_doc = {d.doc: (d, t) for d, t in rows}
    for d, t in rows:   # one row a work, its other files named under it
        if works[d.doc] in seen:
            continue
        seen.add(works[d.doc])
        # led by its newest file, as mark, clips and export name it (v7, not v5)
        d, t = by_doc.get(newest(siblings(works, d.doc)), (d, t))
        others = [v for v in siblings(works, d.doc) if v != d.doc]
        flagged = [f for f in siblings(works, d.doc)
                   if f in by_doc and getattr(by_doc[f][0], "hidden_instructions", False)]
        table.add_row("" if t.mark.value == "none" else t.mark.value, str(d.year or ""),
                      str(d.pages) if d.pages else "",
                      _doc_cell(d, t.note, cited.get(d.doc, 0), others, flagged))
    console = Console(highlight=False)
    if not to_terminal():   # a pipe: wide enough that no file name is cut in two
        console.width = max(console.width, NAME_COLUMN_AT + max((len(d.doc) for d, _ in rows),
                                                                default=0))
    console.print(table)
    marked = {works[d.doc]: t.mark.value for d, t in rows if t.mark.value != "none"}
    marks = Counter(marked.values())
    problems = sum(1 for d, _t in rows if d.status != "indexed")
    n_works = len(set(works.values()))
    click.echo(f"{len(rows)} documents"
               + (f" ({n_works} works: versions of a paper share their mark)"
                  if n_works != len(rows) else "")
               + "".join(f" · {n} {m}" for m, n in sorted(marks.items()))
               + (f" · {problems} not fully indexed (see status)" if problems else ""))


#: Columns before the document column of ``docs``' table (mark, year, pages, rules).
NAME_COLUMN_AT = 25


def _cited_counts(folder, cache_dir) -> dict[str, int]:
    """``{doc: cited by N in this folder}`` (:meth:`CitationGraph.cited_counts`); {} when
    the cache cannot be read."""
    import sqlite3

    from ..citation_graph import CitationGraph
    from ..errors import CacheError
    from ..library import Library

    try:
        lib = Library(folder, cache_dir)
    except (CacheError, sqlite3.DatabaseError):
        return {}
    try:
        return CitationGraph.read(lib).cited_counts()
    except sqlite3.DatabaseError:
        return {}
    finally:
        lib.close()


def _doc_cell(d, note: str, cited: int = 0, others: list[str] | None = None,
              flagged: list[str] | None = None):
    """The ``docs`` table's document cell: the file name whole (the name ``read`` and
    ``mark`` take; folded, never cut), the files of the work's ``others`` versions, the
    title with the first authors and the arXiv id or DOI, the note, the status when
    the document is not simply indexed, and the hidden-instructions flag when a file of
    the work (``flagged``; None: ``d`` itself) hides text addressed to machines."""
    from rich.text import Text

    cell = Text(clean_text(d.doc), style="bold")
    for other in others or ():
        cell.append("\nother version: " + clean_text(other))
    about = [clean_text(d.title)] if d.title and d.title != d.doc else []
    about += [clean_text(x) for x in (_first_author(d.authors),
                                      f"arXiv {d.arxiv_id}" if d.arxiv_id else "",
                                      f"doi {d.doi}" if d.doi else "",
                                      f"cited by {cited}" if cited else "") if x]
    if about:
        cell.append("\n" + " · ".join(about))
    if note:
        cell.append("\nnote: " + shorten(clean_text(note), 160), style="italic")
    if d.status != "indexed":
        reason = f" ({d.reason})" if d.reason and d.reason != d.status else ""
        cell.append(clean_text(f"\nstatus: {d.status}{reason}"), style="bold")
    flagged = flagged if flagged is not None else \
        [d.doc] if getattr(d, "hidden_instructions", False) else []
    if flagged:
        from ..hidden_text import FLAG

        where = [f for f in flagged if f != d.doc]
        cell.append(f"\n! {FLAG}" + (f" ({', '.join(where)})" if where else ""),
                    style="bold")
    return cell


def siblings(works: dict[str, str], doc: str) -> list[str]:
    """The files of ``doc``'s work (:func:`pdftui.triage.works.siblings`)."""
    from ..triage.works import siblings as of_work

    return of_work(works, doc)


def _work_rows(rows: list) -> tuple[dict[str, str], list]:
    """``(works, rows)``: the work of each document (:mod:`pdftui.triage.works`) and
    the ``(DocumentInfo, DocTriage)`` rows with each file's triage its work's."""
    from ..triage.works import merge_works, works_of

    works = works_of([d for d, _t in rows])
    merged = merge_works({d.doc: t for d, t in rows}, works)
    return works, [(d, merged[d.doc]) for d, _t in rows]


def _work_keys(folder, cache_dir, pattern: str):
    """``(doc, [doc, ...], [DocKey, ...])`` of the work that ``pattern`` names in
    FOLDER (the index brought up to date first, quietly; without a usable cache, the
    files on disk: :func:`.documents.indexed_documents`): the file standing for it (the
    newest version), and every file of it with its key. A pattern naming several files
    of one work only (``attention``: v5 and v7) names that work; exits with the
    resolver's message otherwise."""
    from ..corpus import relative_pattern
    from ..doc_pattern import AmbiguousDocument, match_docs, resolve_doc
    from ..errors import NotFound
    from ..triage.store import DocKey
    from ..triage.works import newest, works_of

    root, found_docs, _summary = indexed_documents(folder, cache_dir)
    infos = {d.doc: d for d in found_docs}
    works = works_of(infos.values())
    if pattern in infos:   # a name as pdftui shows it, even one that is also a real path
        doc = pattern
    else:
        pattern = relative_pattern(folder, pattern)
        try:
            doc = resolve_doc(list(infos), pattern)
        except AmbiguousDocument as exc:
            found = match_docs(list(infos), pattern)
            if len({works[d] for d in found}) != 1:
                fail(str(exc), 2, exc.kind)
            doc = found[0]
        except NotFound as exc:
            fail(str(exc), 2, exc.kind)
    docs = siblings(works, doc)
    return newest(docs), docs, [DocKey.of(root, d, infos[d].sha256) for d in docs]


def _work_triage(store, keys: list):
    """The merged triage (:func:`pdftui.triage.works.merge`) of one work's files."""
    from ..triage.works import merge

    return merge([(k.doc, store.get(k)) for k in keys])


def _named(doc: str, docs: list[str]) -> str:
    """``doc``, with the other files of its work: "a.pdf (with b.pdf)"."""
    others = [d for d in docs if d != doc]
    return doc + (f" (with {', '.join(others)})" if others else "")


@click.command()
@click.argument("folder", type=click.Path())
@click.argument("doc")
@click.argument("mark", type=click.Choice(["keep", "to-read", "skip", "none"]))
@click.option("--note", default=None, help="Replace the document's note ('' clears it;"
              " the note replaced is printed on stderr).")
@click.option("--add-note", default=None, help="Add a paragraph to the end of the note.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the document's triage as one JSON object.")
@cache_opt
@data_opt
def mark(folder, doc, mark, note, add_note, as_json, cache_dir, data_dir):
    """Mark DOC of FOLDER keep, to-read, skip or none (and set or add to its note)."""
    from ..triage.store import Mark, TriageStoreError

    if note is not None and add_note is not None:
        fail("give --note (replace the note) or --add-note (add to it), not both", 2,
             "usage")
    doc, docs, keys = _work_keys(folder, cache_dir, doc)
    store = triage_store(data_dir)
    try:
        before = _work_triage(store, keys).note
        if add_note is not None:
            note = f"{before}\n\n{add_note}" if before.strip() else add_note
        store.mark_work(keys, Mark(mark), note)   # one transaction: all or nothing
        t = _work_triage(store, keys)
        if note is not None and add_note is None and before and before != t.note:
            # never lost without a word: the replaced text is there to copy back
            click.echo(clean_text(f"pdftui: replaced the note, which was: {before}"),
                       err=True)
    except TriageStoreError as exc:
        fail(str(exc), 1, exc.kind)
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps({"doc": doc, "docs": docs, "mark": t.mark.value,
                               "note": t.note, "clips": len(t.clips)}, ensure_ascii=False))
        return
    click.echo(clean_text(f"{_named(doc, docs)}: {t.mark.value}"
                          + (f" · note: {shorten(t.note, 60)}" if t.note else "")))


@click.command()
@click.argument("folder", type=click.Path())
@click.argument("doc", required=False)
@click.option("--delete", "numbers", type=click.IntRange(min=1), multiple=True,
              help="Delete clip N of DOC (its number in the list; repeatable); asks first.")
@click.option("--yes", is_flag=True, help="With --delete: delete without asking.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the clips (and those deleted) as one JSON object.")
@cache_opt
@data_opt
def clips(folder, doc, numbers, yes, as_json, cache_dir, data_dir):
    """List the passages clipped from DOC of FOLDER (numbered 1, 2, ...), or delete some
    with --delete N (asked first, shown with their text; --yes skips the question).
    Without DOC: the clips of every document of FOLDER, under its name."""
    from ..triage.store import TriageStoreError

    if doc is None:
        if numbers:
            fail("--delete needs DOC, the document whose clips to delete "
                 "(`pdftui clips FOLDER` lists them under each document's name)")
        _all_clips(folder, cache_dir, data_dir, as_json)
        return
    doc, docs, keys = _work_keys(folder, cache_dir, doc)
    store = triage_store(data_dir)
    try:
        have = list(_work_triage(store, keys).clips)
        chosen = _clips_to_delete(have, numbers, yes, as_json)
        for clip in chosen:
            store.delete_work_clip(keys, clip.id)
        left = list(_work_triage(store, keys).clips) if chosen else have
    except TriageStoreError as exc:
        fail(str(exc), 1, exc.kind)
    finally:
        store.close()
    if as_json:
        click.echo(dumps({"doc": doc, "clips": [_clip_json(n, c) for n, c in
                                                enumerate(left, 1)],
                          "deleted": [_clip_json(None, c) for c in chosen]}))
        return
    for clip in chosen:
        click.echo(clean_text(f"deleted {clip.page_ref}: {shorten(clip.text, 60)}"), err=True)
    if not left:
        click.echo(clean_text(f"{_named(doc, docs)}: no clips"))
    _print_clips(left, len(docs) > 1)


def _print_clips(clips: list, files: bool = False, shown: str = "") -> None:
    """The clips numbered 1, 2, ... (the numbers ``--delete`` takes): "  1  p. 2 ·
    section", then the text on one line (about 300 characters); ``files``: each clip's
    file too (a work of several versions, whose pages differ), as for a clip of another
    file than ``shown``, the one named above the list (a clip of v5 listed under v7
    gave v5's page as v7's)."""
    for n, clip in enumerate(clips, 1):
        where = clip.page_ref + (f" · {clip.section}" if clip.section else "")
        if clip.doc and (files or clip.doc != (shown or clip.doc)):
            where += f" · {clip.doc}"
        click.echo(clean_text(f"{n:>3}  {where}"))
        click.echo("     " + clean_text(shorten(" ".join(clip.text.split()), 300)))


def _all_clips(folder, cache_dir, data_dir, as_json: bool) -> None:
    """``clips FOLDER``: each document with clips, in the folder's order, its name then
    its clips as ``clips FOLDER DOC`` numbers them; a last line counts them. ``--json``:
    ``{"documents": [{"doc", "clips": [...]}]}`` (documents without clips left out)."""
    _root, rows = folder_documents(folder, cache_dir, data_dir)
    works, rows = _work_rows(rows)
    have, seen = [], set()
    for d, t in rows:   # one entry per work, under its newest file's name
        if t.clips and works[d.doc] not in seen:
            seen.add(works[d.doc])
            have.append((_newest(siblings(works, d.doc)), list(t.clips)))
    if as_json:
        click.echo(dumps({"documents": [
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
        _print_clips(cs, len({c.doc for c in cs}) > 1, doc)
    total = sum(len(cs) for _doc, cs in have)
    click.echo(f"\n{total} clip{'s' if total != 1 else ''} in {len(have)} "
               f"document{'s' if len(have) != 1 else ''}")


def _newest(docs: list[str]) -> str:
    from ..triage.works import newest

    return newest(docs)


def _clip_json(number, clip) -> dict:
    """One clip for ``clips --json`` (``number`` 1-based in the list; None once deleted;
    ``doc`` the file it was clipped from)."""
    out = {"text": clip.text, "page": clip.page, "page_label": clip.page_label,
           "section": clip.section, "doc": clip.doc}
    return {"number": number, **out} if number is not None else out


def _clips_to_delete(have: list, numbers, yes: bool, as_json: bool) -> list:
    """The clips ``--delete`` names (numbers 1-based in ``have``), once the user agreed:
    asked on a terminal unless ``yes``; elsewhere (a script, ``--json``) only with
    ``--yes``. Exits with a message on a number out of range or a no."""
    if not numbers:
        return []
    bad = [n for n in numbers if n > len(have)]
    if bad:
        fail(f"no clip {bad[0]}: the document has {len(have)} (list them without --delete)",
             2, "not_found")
    chosen = [have[n - 1] for n in sorted(set(numbers))]
    if yes:
        return chosen
    if as_json or not sys.stdin.isatty():
        fail("--delete asks before deleting: add --yes to delete without asking", 2, "usage")
    for clip in chosen:
        click.echo(clean_text(f"  {clip.page_ref}: {shorten(clip.text, 70)}"), err=True)
    if not click.confirm(f"Delete {len(chosen)} clip{'s' if len(chosen) != 1 else ''}?",
                         default=False, err=True):
        fail("nothing deleted", 1, "cancelled")
    return chosen


def _with_cites(folder, cache_dir, items: list) -> list:
    """The export items each with the other exported papers it cites
    (:func:`pdftui.triage.export.with_cites`); as they are when the cache cannot be
    used."""
    import sqlite3

    from ..citation_graph import CitationGraph
    from ..errors import CacheError
    from ..library import Library
    from ..triage.export import with_cites

    if not items:
        return items
    try:
        lib = Library(folder, cache_dir)
    except (CacheError, sqlite3.DatabaseError):
        return items
    try:
        return with_cites(items, CitationGraph.read(lib).cites)
    finally:
        lib.close()


def _with_first_pages(folder, cache_dir, items: list) -> list:
    """The export items with their first pages' text (BibTeX: venue, arXiv category,
    title case; every format: the citekeys' years), read from the cache; as they are
    when the cache cannot be used."""
    import sqlite3

    from ..errors import CacheError
    from ..library import Library
    from ..triage.export import with_first_pages

    try:
        lib = Library(folder, cache_dir)
    except (CacheError, sqlite3.DatabaseError):
        return items   # said on stderr when the documents were listed
    try:
        return with_first_pages(items, lambda doc, n: lib.page(doc, n).text)
    finally:
        lib.close()


@click.command()
@click.argument("folder", type=click.Path(), default=".")
@click.option("--marked", type=click.Choice(["keep", "to-read", "skip", "any", "all"]),
              default="any", show_default=True,
              help="Which documents: one mark, any mark, note or clip (skipped ones left "
                   "out), or all of them.")
@click.option("--format", "fmt", type=click.Choice(["markdown", "bibtex", "csv", "json"]),
              default="markdown", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to FILE (default: standard output).")
@cache_opt
@data_opt
def export(folder, marked, fmt, output, cache_dir, data_dir):
    """Export FOLDER's marked documents: a Markdown reading list (notes and clipped
    passages with their pages), BibTeX, CSV or JSON."""
    from ..triage.bibtex import citekeys
    from ..triage.export import ExportFormat, items_for, render, select

    root, rows = folder_documents(folder, cache_dir, data_dir)
    every = items_for(root, [d for d, _t in rows], {d.doc: t for d, t in rows})
    every = _with_first_pages(folder, cache_dir, every)   # the keys' years: entry_year
    items = select(every, marked)
    if not items:
        click.echo(f"pdftui: no documents marked {marked} in {folder}"
                   + (" (mark some with `pdftui mark`, or use --marked all)"
                      if marked == "any" else ""), err=True)
    items = _with_cites(folder, cache_dir, items)
    text = render(items, ExportFormat(fmt), f"Reading list: {os.path.basename(root) or root}",
                  citekeys(every))
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}", 1, "io")
    click.echo(f"pdftui: wrote {len(items)} document{'s' if len(items) != 1 else ''} "
               f"as {fmt} to {clean_text(output)}", err=True)
