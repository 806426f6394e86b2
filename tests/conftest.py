"""Shared fixtures: real corpus PDFs copied into temporary folders, real SQLite caches.

Tests that read ``../shared`` (the corpus, the hostile files, the graded queries; or the
folder named by ``PDFTUI_SHARED``) skip with the missing path as their reason when it is
not there: :func:`shared_file` and :func:`copy_docs` do that, and modules that need it
whole carry ``pytestmark = needs_shared(...)``. The core suite also runs on PDFs made by
``tests/pdfs.py`` (see ``made_folder``), so it runs anywhere."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = Path(os.environ.get("PDFTUI_SHARED", REPO.parent / "shared"))
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
