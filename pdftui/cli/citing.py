"""The citation commands: ``refs`` (a paper's reference list, the folder's documents it
cites marked; as JSON or BibTeX), ``cited-by`` (the folder's papers citing one, with the
page of the citing entry) and ``similar`` (the closest papers, each with why)."""

from __future__ import annotations

import click

from ..text import clean_text
from .documents import indexed_documents, named_doc
from .options import cache_opt
from .output import dumps, shorten


def _graph(folder, cache_dir, doc: str):
    """``(CitationGraph, doc name)`` of FOLDER (indexed first, quietly, text only) and
    the document DOC names (exits with a message when none or several)."""
    from ..citation_graph import CitationGraph
    from ..library import Library

    _root, documents, _summary = indexed_documents(folder, cache_dir)
    name = named_doc(folder, documents, doc)
    return CitationGraph.read(Library(folder, cache_dir)), name


@click.command()
@click.argument("folder", type=click.Path())
@click.argument("doc")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--format", "fmt", type=click.Choice(["text", "bibtex"]), default="text",
              show_default=True, help="bibtex: the whole reference list as BibTeX.")
@cache_opt
def refs(folder, doc, as_json, fmt, cache_dir):
    """List DOC's references: label, page, authors, year, title, and the document of
    FOLDER each one is (versions included), folder documents first."""
    graph, name = _graph(folder, cache_dir, doc)
    try:
        rows = graph.references(name)
    finally:
        graph.lib.close()
    if fmt == "bibtex":
        from ..triage.bibtex import references_bibtex

        click.echo(references_bibtex([r.reference for r in rows]), nl=False)
        return
    if as_json:
        click.echo(dumps({"doc": name, "references": [r.to_json() for r in rows]}))
        return
    linked = sum(1 for r in rows if r.match)
    click.echo(clean_text(f"{name}: {len(rows)} references, {linked} in this folder"))
    for r in sorted(rows, key=lambda r: (r.match is None, r.reference.ordinal)):
        ref = r.reference
        head = f"p. {ref.page} {ref.label}".strip()
        what = ref.title or shorten(ref.raw, 90)
        line = f"{head}: {what}" + (f" ({ref.year})" if ref.year and ref.title else "")
        click.echo(clean_text(f"  {line}"))
        if r.match:
            click.echo(clean_text(f"      = {r.match}"))


@click.command("cited-by")
@click.argument("folder", type=click.Path())
@click.argument("doc")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@cache_opt
def cited_by(folder, doc, as_json, cache_dir):
    """List FOLDER's papers citing DOC (any version of it), with the page of the citing
    entry."""
    graph, name = _graph(folder, cache_dir, doc)
    try:
        rows = graph.cited_by(name)
    finally:
        graph.lib.close()
    if as_json:
        click.echo(dumps({"doc": name, "cited_by": [c.to_json() for c in rows]}))
        return
    click.echo(clean_text(f"{name}: cited by {len({c.doc for c in rows})} in this folder"))
    for c in rows:
        click.echo(clean_text(f"  {c.doc} p. {c.page} {c.label}".rstrip()))


@click.command()
@click.argument("folder", type=click.Path())
@click.argument("doc")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@cache_opt
def similar(folder, doc, as_json, cache_dir):
    """List FOLDER's papers closest to DOC: by document vectors and by shared references
    (bibliographic coupling), each with why."""
    graph, name = _graph(folder, cache_dir, doc)
    try:
        rows = graph.similar(name)
    finally:
        graph.lib.close()
    if as_json:
        click.echo(dumps({"doc": name, "similar": [s.to_json() for s in rows]}))
        return
    click.echo(clean_text(f"{name}: more like this"))
    for s in rows:
        click.echo(clean_text(f"  {s.score:.2f} {s.doc} ({'; '.join(s.why)})"))
