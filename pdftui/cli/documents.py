"""The documents of a folder as the commands name and list them: a DOC argument resolved to
one document, the documents with their triage (mark, note, clips), the marks search hits
carry, and the user-data store."""

from __future__ import annotations

import click

from ..errors import TriageStoreError
from ..text import clean_text
from .indexing import run_index
from .output import fail


def named_doc(folder: str, known: list, doc: str) -> str:
    """DOC as the shell gives it (absolute, ./) or a pattern naming one document
    (:func:`pdftui.doc_pattern.resolve_doc`: the rule of the query's ``doc:`` field), as
    the folder's ``doc`` name; exits with a message naming the near miss or the
    ambiguity. ``known``: the folder's names, or its documents (objects with ``doc`` and
    ``title``, e.g. ``DocumentInfo``): then a pattern naming only versions of one work
    (``attention``: v5 and v7) names its newest version (:func:`.works.newest`), and a
    note on stderr says which and names the others."""
    from ..corpus import relative_pattern
    from ..doc_pattern import AmbiguousDocument, match_docs, resolve_doc
    from ..errors import NotFound

    names = [d if isinstance(d, str) else d.doc for d in known]
    if doc in names:   # a name as pdftui shows it, even one that is also a real path
        return doc
    pattern = relative_pattern(folder, doc)
    try:
        return resolve_doc(names, pattern)
    except AmbiguousDocument as exc:
        one = _one_work([d for d in known if not isinstance(d, str)],
                        match_docs(names, pattern))
        if one is None:
            fail(str(exc), 2, exc.kind)
        others = [d for d in match_docs(names, pattern) if d != one]
        click.echo(f"pdftui: {pattern!r} names versions of one paper: using the newest, "
                   f"{clean_text(one)} (also {', '.join(map(clean_text, others))})", err=True)
        return one
    except NotFound as exc:
        fail(str(exc), 2, exc.kind)
    raise AssertionError("unreachable")


def _one_work(documents: list, found: list[str]) -> str | None:
    """The newest of ``found`` when they are all versions of one work of ``documents``,
    else None (also when ``documents`` is empty: names only)."""
    from ..triage.works import newest, works_of

    if not documents:
        return None
    works = works_of(documents)
    return newest(found) if len({works.get(d) for d in found}) == 1 else None


def triage_store(data_dir, read_only: bool = False):
    """The user-data store (``read_only``: opened for reading, creating nothing), or exit
    with its one-line error."""
    from ..triage.store import TriageStore

    try:
        return TriageStore(data_dir, read_only=read_only)
    except TriageStoreError as exc:
        fail(str(exc), 1, exc.kind)


def indexed_documents(folder, cache_dir):
    """Index FOLDER (text only, quietly) and return ``(root, [DocumentInfo], summary)``.

    A cache that cannot be used (damaged, unreadable: :class:`pdftui.errors.CacheError`)
    does not stop a command that needs only user data: one line on stderr says what to
    run, and the folder's files are listed as they are on disk (status "not indexed", no
    title or pages; each hashed, so its marks are found by content too); ``summary`` is
    then None."""
    import sqlite3

    from ..errors import CacheError
    from ..library import Library
    from ..store.integrity import is_damage

    try:
        summary = run_index(folder, cache_dir, None, False, quiet=True, reading=True,
                            no_cache_ok=True)
        lib = Library(folder, cache_dir)
        try:
            return lib.root, lib.documents(), summary
        finally:
            lib.close()
    except (CacheError, sqlite3.DatabaseError) as exc:
        if isinstance(exc, sqlite3.DatabaseError) and not is_damage(exc):
            raise
        return _documents_without_cache(folder, cache_dir, exc)


def _documents_without_cache(folder, cache_dir, exc):
    """``(root, [DocumentInfo], None)`` from the folder itself, after saying on stderr why
    the cache was not used and what to run."""
    import shlex

    from ..corpus import check_folder, discover, sha256_file
    from ..errors import FolderError
    from ..library import DocumentInfo
    from .indexing import damaged_error, is_cache_damage

    try:
        root = check_folder(folder)
    except FolderError as err:
        fail(str(err), 2, err.kind)
    damaged = is_cache_damage(exc)
    why = str(damaged_error(cache_dir, exc, folder)) if damaged else str(exc)
    if not damaged:
        why = f"{why}; once it can be used, `pdftui index {shlex.quote(str(folder))}` indexes the folder"
    click.echo(f"pdftui: {clean_text(why)}; listing the files with their marks, without the"
               " index", err=True)
    files, _problems = discover(root)
    out = []
    for f in files:
        try:
            sha = "" if f.skip_reason else sha256_file(f.path)
        except OSError:
            sha = ""
        out.append(DocumentInfo(f.doc, f.doc.rsplit("/", 1)[-1], 0, "not indexed",
                                f.skip_reason or "the cache cannot be used", 0.0, None, sha))
    return root, out, None


def folder_documents(folder, cache_dir, data_dir):
    """Index FOLDER (text only, quietly) and return ``(root, [(DocumentInfo, DocTriage)])``
    (:func:`indexed_documents`: without a usable cache, the files on disk)."""
    root, docs, summary = indexed_documents(folder, cache_dir)
    if (summary.documents if summary is not None else len(docs)) == 0:
        fail(f"no PDF files in {folder} (pdftui looks for *.pdf below it)", 2, "folder")
    store = triage_store(data_dir, read_only=True)
    try:
        triage = store.lookup(root, [(d.doc, d.sha256) for d in docs])
    except TriageStoreError as exc:
        fail(str(exc), 1, exc.kind)
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
        with TriageStore(data_dir, read_only=True) as store:
            triage = store.lookup(root, [(d.doc, d.sha256) for d in docs])
    except TriageStoreError as exc:
        click.echo(f"pdftui: {clean_text(str(exc))}; hits carry no marks", err=True)
        return {}
    from ..triage.works import merge_works, works_of

    triage = merge_works(triage, works_of(docs))   # versions of a paper share their mark
    return {doc: (t.mark.value, t.note) for doc, t in triage.items() if not t.empty}
