"""Shared fixtures: real corpus PDFs copied into temporary folders, real SQLite caches.

Tests that read ``../shared`` (the corpus, the hostile files, the graded queries; or the
folder named by ``PDFTUI_SHARED``) skip with the missing path as their reason when it is
not there: :func:`shared_file` and :func:`copy_docs` do that, and modules that need it
whole carry ``pytestmark = needs_shared(...)``. The core suite also runs on PDFs made by
``tests/pdfs.py`` (see ``made_folder``), so it runs anywhere.

Tiers (markers registered in pyproject.toml): ``slow`` tests run only when asked for
(``-m slow``); ``corpus`` tests index real corpus PDFs, load the embedding model or drive
the TUI (:data:`CORPUS_MODULES`, :data:`CORPUS_FIXTURES`, :data:`CORPUS_TESTS`; a test may
also carry ``@pytest.mark.corpus`` itself). The inner loop runs the rest::

    pytest -m "not corpus" -n 2

A ``-m`` expression that does not name ``slow`` leaves the slow tests out, so ``-m "not
corpus"`` means ``-m "not slow and not corpus"`` (see :func:`pytest_collection_modifyitems`).

Indexes that several tests read are built once per session and shared by the xdist workers
(:func:`shared_dir`, :func:`shared_index`); a test that writes to one works on a copy
(``small_indexed``: a copied cache, far cheaper than indexing again)."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = Path(os.environ.get("PDFTUI_SHARED", REPO.parent / "shared"))

# `pdftui search` run by a test answers in-process: no background search service
# (pdftui.warm) outlives the test; tests/test_warm_service.py turns it on where it tests it
os.environ.setdefault("PDFTUI_SERVICE", "0")
CORPUS = SHARED / "corpus"
TRICKY = SHARED / "tricky"

#: Small real documents used across tests (pages): an outlined 4-page paper, an
#: outline-free 3-page reference card, a 5-page paper with an outline.
SMALL_DOCS = [
    "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf",
    "debian-octave-refcard-a4.pdf",
    "arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf",
]


def missing_reason(path: Path) -> str:
    """The skip reason for a test whose shared input ``path`` is not here."""
    try:
        where = path.relative_to(SHARED)
    except ValueError:
        where = path
    return (f"needs {where} from the shared test files ({SHARED} is not here or lacks it;"
            " set PDFTUI_SHARED)")


def needs_shared(*paths: Path):
    """A ``skipif`` mark for a test (or, as ``pytestmark``, a module) that reads ``paths``."""
    missing = [p for p in paths if not p.exists()]
    return pytest.mark.skipif(bool(missing), reason=missing_reason(missing[0]) if missing
                              else "")


def shared_file(path: Path) -> Path:
    """``path`` (under :data:`SHARED`) when it exists; otherwise skip the calling test
    with :func:`missing_reason`."""
    if not path.exists():
        pytest.skip(missing_reason(path))
    return path


def corpus_pdf(name: str) -> Path:
    """The corpus PDF ``name`` (the test is skipped when the corpus is not here)."""
    return shared_file(CORPUS / name)


def copy_docs(dest: Path, names: list[str]) -> Path:
    """Copy corpus PDFs into ``dest`` (created) and return it (skips the test when one is
    not here)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy2(corpus_pdf(name), dest / name)
    return dest


#: Test modules (paths under tests/) whose tests index real corpus PDFs, load the embedding
#: model, run the CLI on indexed folders or drive the TUI: every test in them is ``corpus``.
CORPUS_MODULES = frozenset({
    "test_cli.py", "test_index.py", "test_lease.py", "test_ocr.py", "test_tricky.py",
    "test_search.py", "test_robust.py", "test_robust_second.py", "test_triage_cli.py",
    "test_triage_store.py", "test_library.py", "test_scale.py", "test_scope_cache.py",
    "test_quantize.py", "test_quantized.py", "test_made.py", "test_embed.py", "test_cjk.py",
    "test_furniture.py", "test_postings.py", "test_citations.py",
    "test_citations_corpus.py", "tui",
})

#: Fixtures that index real PDFs or load the model: a test using one (itself or through
#: another fixture) is ``corpus``; the last ones are module fixtures of mixed modules.
CORPUS_FIXTURES = frozenset({"small_folder", "small_index", "small_indexed", "made_folder",
                             "tui_index", "service", "make_app", "tricky_cache",
                             "attention"})

#: Tests of the other modules that index real PDFs themselves ("module::test").
CORPUS_TESTS = frozenset({
    "test_doc_pattern.py::test_search_doc_raft_leaves_the_draft_out_and_every_command_agrees",
    "test_excerpt.py::test_the_search_service_passes_the_page_s_section_titles",
    "test_metadata.py::test_index_stores_metadata_and_docs_json_reads_it",
    "test_tables.py::test_a_row_is_found_and_its_excerpt_is_the_row",
    "test_title.py::test_an_older_cache_reads_titles_again_without_re_extracting",
})


@pytest.hookimpl(tryfirst=True)   # before ``-m`` selects by the marks
def pytest_collection_modifyitems(config, items):
    """Mark the ``corpus`` tests (:data:`CORPUS_MODULES`, :data:`CORPUS_FIXTURES`,
    :data:`CORPUS_TESTS`), and leave the ``slow`` ones out unless the ``-m`` expression
    names ``slow``."""
    wants_slow = "slow" in (config.getoption("markexpr") or "")
    keep, slow = [], []
    for item in items:
        rel = Path(str(item.path)).relative_to(HERE).parts
        name = f"{rel[-1]}::{getattr(item, 'originalname', item.name)}"
        if (rel[0] in CORPUS_MODULES or name in CORPUS_TESTS
                or CORPUS_FIXTURES & set(item.fixturenames)):
            item.add_marker(pytest.mark.corpus)
        (keep if wants_slow or not item.get_closest_marker("slow") else slow).append(item)
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = keep


def session_root(tmp_path_factory) -> Path:
    """The temporary folder of this test session, the same for every xdist worker."""
    root = tmp_path_factory.getbasetemp()
    return root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root


def shared_dir(tmp_path_factory, name: str, build: Callable[[Path], None]) -> Path:
    """``<session root>/name``, filled by ``build(path)`` once per test session: the first
    xdist worker to ask builds it under a file lock, the others wait and reuse it.
    Read-only for the tests (copy it before changing anything)."""
    root = session_root(tmp_path_factory)
    path, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.exists():
                if path.exists():
                    shutil.rmtree(path)   # a build that failed half way
                path.mkdir(parents=True)
                build(path)
                done.write_text("ok")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return path


def shared_index(tmp_path_factory, name: str, docs: list[str], *, embed: bool = True,
                 prepare: Callable[[Path], None] | None = None) -> tuple[Path, Path]:
    """``(folder, cache)`` of the corpus PDFs ``docs`` copied into a folder and indexed
    (with embeddings unless ``embed`` is false) once per test session, shared by the xdist
    workers; ``prepare(folder)`` adds to the folder before indexing. Skips the test when a
    PDF is not here. Read-only: a test that changes the folder or re-indexes works on a
    copy."""
    from pdftui.index import index_folder

    for doc in docs:
        corpus_pdf(doc)

    def build(base: Path) -> None:
        folder = copy_docs(base / "papers", docs)
        if prepare is not None:
            prepare(folder)
        index_folder(folder, cache_dir=base / "cache", embed=embed)

    base = shared_dir(tmp_path_factory, name, build)
    return base / "papers", base / "cache"


@pytest.fixture(scope="session")
def small_index(tmp_path_factory) -> tuple[Path, Path]:
    """``(folder, cache)``: :data:`SMALL_DOCS` indexed without embeddings, as a first
    ``pdftui search`` leaves them; shared by the session (read-only)."""
    return shared_index(tmp_path_factory, "small-index", SMALL_DOCS, embed=False)


@pytest.fixture
def small_indexed(tmp_path: Path, small_index) -> tuple[Path, Path]:
    """``(folder, cache)``: the session's :data:`SMALL_DOCS` folder (do not change it) and
    this test's own copy of its keyword index (a copy of the cache keeps the folder's path,
    so the cache is the one a fresh index of that folder gives)."""
    folder, cache = small_index
    mine = tmp_path / "cache"
    shutil.copytree(cache, mine)
    return folder, mine


@pytest.fixture(scope="session")
def made_pdfs(tmp_path_factory) -> Path:
    """A folder of the PDFs :mod:`tests.pdfs` makes (read-only: copy before changing)."""
    from .pdfs import make_pdfs

    return make_pdfs(tmp_path_factory.mktemp("made-pdfs"))


@pytest.fixture
def made_folder(tmp_path: Path, made_pdfs: Path) -> Path:
    """A fresh folder with copies of the made PDFs (runs anywhere)."""
    dest = tmp_path / "made"
    shutil.copytree(made_pdfs, dest)
    return dest


@pytest.fixture
def small_folder(tmp_path: Path) -> Path:
    """A fresh folder with copies of :data:`SMALL_DOCS`."""
    return copy_docs(tmp_path / "papers", SMALL_DOCS)


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    """An empty cache folder."""
    return tmp_path / "cache"


@pytest.fixture(autouse=True)
def _no_user_cache(tmp_path_factory, monkeypatch):
    """Never touch the real user cache or the real user data (marks, notes) from tests."""
    monkeypatch.setenv("PDFTUI_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "default-cache"))
    monkeypatch.setenv("PDFTUI_DATA_DIR", str(tmp_path_factory.getbasetemp() / "default-data"))
    monkeypatch.delenv("PDFTUI_EMBED_MODEL", raising=False)
