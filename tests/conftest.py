"""Shared fixtures: real corpus PDFs copied into temporary folders, real SQLite caches."""

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


def copy_docs(dest: Path, names: list[str]) -> Path:
    """Copy corpus PDFs into ``dest`` (created) and return it."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy2(CORPUS / name, dest / name)
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
    """Never touch the real user cache from tests."""
    monkeypatch.setenv("PDFTUI_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "default-cache"))
    monkeypatch.delenv("PDFTUI_EMBED_MODEL", raising=False)
