"""The documents of a folder as the commands name and list them: a DOC argument resolved to
one document, the documents with their triage (mark, note, clips), the marks search hits
carry, and the user-data store."""

from __future__ import annotations

import click

from ..text import clean_text
from .indexing import run_index
from .output import fail


def named_doc(folder: str, known: list[str], doc: str) -> str:
    """DOC as the shell gives it (absolute, ./) or a pattern naming one document
    (:func:`pdftui.doc_pattern.resolve_doc`: the rule of the query's ``doc:`` field), as
    the folder's ``doc`` name; exits with a message naming the near miss or the
    ambiguity."""
    from ..corpus import relative_pattern
    from ..doc_pattern import resolve_doc
    from ..errors import NotFound

    if doc in known:   # a name as pdftui shows it, even one that is also a real path
        return doc
    try:
        return resolve_doc(known, relative_pattern(folder, doc))
    except NotFound as exc:
        fail(str(exc), 2, exc.kind)
    raise AssertionError("unreachable")


def triage_store(data_dir):
    """The user-data store, or exit with its one-line error."""
    from ..triage.store import TriageStore, TriageStoreError

    try:
        return TriageStore(data_dir)
    except TriageStoreError as exc:
        fail(str(exc), 1, exc.kind)


def folder_documents(folder, cache_dir, data_dir):
    """Index FOLDER (text only, quietly) and return ``(root, [(DocumentInfo, DocTriage)])``."""
    from ..library import Library

    summary = run_index(folder, cache_dir, None, False, quiet=True, reading=True)
    lib = Library(folder, cache_dir)
    try:
        docs = lib.documents()
        root = lib.root
    finally:
        lib.close()
    if (summary.documents if summary is not None else len(docs)) == 0:
        fail(f"no PDF files in {folder} (pdftui looks for *.pdf below it)", 2, "folder")
    store = triage_store(data_dir)
    try:
        triage = store.lookup(root, [(d.doc, d.sha256) for d in docs])
    finally:
        store.close()
    return root, [(d, triage[d.doc]) for d in docs]


def folder_marks(folder, cache_dir, data_dir) -> dict[str, tuple[str, str]]:
    """``{doc: (mark, note)}`` of the folder's marked documents, for search hits; {} with
    a one-line warning when the user data cannot be read (search still answers)."""
    from ..library import Library
    from ..triage.store import TriageStore, TriageStoreError

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
