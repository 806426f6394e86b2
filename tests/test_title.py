"""Document titles from real corpus PDFs (fresh-user trial findings), as the extractor
picks them and as an existing cache picks them up on the next index without
re-extraction (the metadata pass reads titles again)."""

from __future__ import annotations

import sqlite3

import pytest

from pdftui.extract import extract_document
from pdftui.index import index_folder
from pdftui.library import Library
from pdftui.metadata import METADATA_VERSION, names_in

from .conftest import copy_docs, corpus_pdf

#: doc -> its title as printed on page 1 (read by hand); None: the file name stands in.
TITLES = {
    # one word over its byline ("Tilings" over "Federico Ardila"); the metadata has none
    "arxiv-math-0501170-tilings.pdf": "Tilings",
    # one CJK "word": ten ideographs are a phrase
    "cn-2003-machine-learning-strategies-survey-zh.pdf": "机器学习的主要策略综述",
    # AMS style: bold capitals at the body size, nothing larger on the page
    "arxiv-math-9404236-thurston-proof-and-progress.pdf": "ON PROOF AND PROGRESS IN MATHEMATICS",
    # a title wrapped over five lines (it was cut after three)
    "bmc-healthcare-quality-malawi.pdf":
        "Understanding the barriers to setting up a healthcare quality improvement process "
        "in resource-limited settings: a situational analysis at the Medical Department of "
        "Kamuzu Central Hospital in Lilongwe, Malawi",
    # the names set at the bold title's size below it are a byline, not more title
    "arxiv-2309.08804-stack-and-delay-music-generation.pdf":
        "STACK-AND-DELAY: A NEW CODEBOOK PATTERN FOR MUSIC GENERATION",
    # every line of page 1 is one (degenerate, 0.24 pt Type3) size: nothing stands out, so
    # the cover sheet's "The Continuous Electron Beam Accelerator Facility" is no title
    "arxiv-hep-ph-9412269-cebaf-preprint.pdf": None,
    # unchanged: a subtitle of the title's size in another weight stays in the title
    "texlive-natbib.pdf": "Natural Sciences Citations and References (Author–Year and "
                          "Numerical Schemes)",
}


@pytest.mark.parametrize("doc", sorted(TITLES))
def test_first_page_titles(doc):
    ex = extract_document(corpus_pdf(doc))
    assert ex.title == (TITLES[doc] or doc.removesuffix(".pdf"))


def test_names_with_a_non_ascii_capital_are_authors():
    """Attention's eighth author, Łukasz Kaiser, was dropped: names had to start with
    A-Z."""
    assert names_in("Łukasz Kaiser∗") == ["Łukasz Kaiser"]
    assert names_in("Ørjan Øvrebø, Émile Zola") == ["Ørjan Øvrebø", "Émile Zola"]
    ex = extract_document(corpus_pdf("arxiv-1706.03762v7-attention-is-all-you-need.pdf"))
    assert ex.metadata is not None and ex.metadata.authors[5:] == ("Aidan N. Gomez", "Łukasz Kaiser", "Illia Polosukhin")


def test_an_older_cache_reads_titles_again_without_re_extracting(tmp_path):
    """A cache whose metadata is of an older METADATA_VERSION gets the current title and
    authors on the next index run, from the first pages only (nothing re-extracted)."""
    docs = ["arxiv-math-0501170-tilings.pdf", "arxiv-1706.03762v5-attention-is-all-you-need.pdf"]
    folder = copy_docs(tmp_path / "papers", docs)
    cache = tmp_path / "cache"
    index_folder(folder, cache, embed=False)
    con = sqlite3.connect(cache / "index.sqlite3")   # what an older pdftui left behind
    con.execute("UPDATE contents SET title = 'arxiv-math-0501170-tilings'"
                " WHERE title = 'Tilings'")
    con.execute("UPDATE metadata SET version = ?, authors = '[]'", (METADATA_VERSION - 1,))
    con.commit()
    con.close()
    s = index_folder(folder, cache, embed=False)
    assert s.indexed == 0 and s.unchanged == 2
    lib = Library(folder, cache)
    try:
        got = {d.doc: d for d in lib.documents()}
    finally:
        lib.close()
    assert got[docs[0]].title == "Tilings"
    assert tuple(got[docs[0]].authors) == ("Federico Ardila", "Richard P. Stanley")
    assert "Łukasz Kaiser" in tuple(got[docs[1]].authors)
