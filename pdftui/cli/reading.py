"""``pdftui read``: a page, a whole section or the list of sections of one document, as
plain text (paragraphs wrapped to a width) or JSON."""

from __future__ import annotations

import dataclasses
import shutil
import sys

import click

from ..text import clean_text
from .documents import named_doc
from .indexing import run_index
from .options import cache_opt, data_opt
from .output import dumps, fail, to_terminal


@click.command()
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
@cache_opt
@data_opt
@click.option("--json", "as_json", is_flag=True)
def read(folder, doc, page, section, list_sections, width, cache_dir, data_dir, as_json):
    """Print a page or a whole section of DOC (its path relative to FOLDER, or a part of
    it from the start of a word or a glob naming one document, as the query's doc:
    field) as plain text.

    Sections are numbered 1, 2, ... in each document (--sections lists them). Code
    listings, syntax summaries and tables keep their printed lines (in the text and in
    --json's "text"; other paragraphs are one line each). Reading needs no user data;
    --data-dir is accepted as by the other commands."""
    from ..hidden_text import label, labelled
    from ..library import Library, NotFound

    if sum(x is not None and x is not False for x in (page, section, list_sections)) > 1:
        fail("use one of --page, --section and --sections")

    run_index(folder, cache_dir, None, False, quiet=True, reading=True)
    from ..preformat import kept_text

    lib = Library(folder, cache_dir)
    doc = named_doc(folder, lib.documents(), doc)
    try:
        if list_sections:
            _print_sections(lib.sections(doc), as_json)
            return
        out = _read_section(lib, doc, section) if section is not None \
            else lib.page(doc, page or 1)
        # code listings, syntax summaries and tables keep their printed lines
        out = dataclasses.replace(out, text=kept_text(lib, out))
    except NotFound as exc:
        fail(f"{exc}" + (" (list them with --sections)" if section else ""), 2, "not_found")
    finally:
        lib.close()
    if as_json:
        click.echo(dumps(out.to_json()))
        return
    click.echo(clean_text(f"{out.doc} · {out.path or out.title} · p. {out.start_page}"
                          + (f"-{out.end_page}" if out.end_page != out.start_page else "")
                          + (" · OCR (recognised from a scan)" if out.ocr else "")))
    click.echo()
    spans = out.hidden_spans()
    text = clean_text(_heading_apart(labelled(out.text, spans),
                                     out.title if section is not None else ""),
                      keep_newlines=True)
    apart = [s for s in spans if s.start is None]   # hidden text left out of the index
    if apart:
        text += "\n\n" + "\n\n".join(clean_text(f"{label(s.kind)} {s.text}") for s in apart)
    if width is None and to_terminal():
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
        click.echo(dumps([{"number": n, **r.to_json()} for n, r in enumerate(rows, 1)]))
        return
    for n, r in enumerate(rows, 1):
        pages = f"p. {r.start_page}" + (f"-{r.last_page}" if r.last_page > r.start_page else "")
        click.echo(f"{n:>4}  {pages:<11} {'  ' * (r.level - 1)}{clean_text(r.title)}")


def _read_section(lib, doc: str, section: str):
    """The section named by ``section``: digits are its number in ``--sections`` (this
    document's order, 1-based), else a title (see :meth:`Library.section`; an ambiguous
    title is said on stderr). Raises NotFound."""
    from ..library import NotFound

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
    from ..headings import split_heading

    first, sep, rest = text.partition("\n\n")
    split = split_heading(first, title) if title else None
    if split is None:
        return text
    return split[0] + "\n\n" + split[1] + sep + rest
