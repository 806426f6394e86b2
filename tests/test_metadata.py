"""Document metadata (authors, year, arXiv id, DOI) from real corpus papers, and the rules
behind it: nothing found means empty, never a guess."""

from __future__ import annotations

import sqlite3

import pymupdf
import pytest

from pdftui.index import index_folder
from pdftui.library import Library
from pdftui.metadata import (METADATA_VERSION, arxiv_year, authors_from_info, clean_doi,
                             find_arxiv_id, find_doi, find_year, fix_accents, metadata_of_file,
                             names_in)

from .conftest import CORPUS, copy_docs, shared_file

# doc -> (first author, year, arxiv id, doi) as printed in the paper (read by hand)
PAPERS = {
    "arxiv-1706.03762v7-attention-is-all-you-need.pdf":
        ("Ashish Vaswani", 2017, "1706.03762", ""),
    "arxiv-quant-ph-9508027-shor-factoring.pdf": ("Peter W. Shor", 1995, "quant-ph/9508027", ""),
    "jcap-2008-0807.3577-apparent-average-acceleration-universe.pdf":
        ("Krzysztof Bolejko", 2008, "0807.3577", "10.1088/1475-7516/2008/10/003"),
    "amazon-2007-dynamo.pdf": ("Giuseppe DeCandia", 2007, "", ""),
    "bmc-healthcare-quality-malawi.pdf":
        ("Josephine Nana Afrakoma Agyeman-Duah", 2014, "", "10.1186/1472-6963-14-1"),
    "shannon-1948-mathematical-theory-of-communication.pdf": ("C. E. Shannon", 1948, "", ""),
    # the subtitle "An Interactive Plotting Program" is not an author; the copyright run
    # "1986 - 1993, 1998, 2004 ... 2004 - 2022" dates the manual 2022, not 1993
    "debian-gnuplot-manual.pdf": ("Thomas Williams", 2022, "", ""),
    "texlive-lppl-license.pdf": ("", 2008, "", ""),   # "Copyright 1999, 2002–2008"
}
#: the whole author list where it is known (the contributors' list below is not)
ALL_AUTHORS = {"debian-gnuplot-manual.pdf": ("Thomas Williams", "Colin Kelley"),
               "texlive-lppl-license.pdf": ()}


@pytest.mark.parametrize("doc", sorted(PAPERS))
def test_corpus_papers(doc):
    first, year, arxiv, doi = PAPERS[doc]
    with pymupdf.open(shared_file(CORPUS / doc)) as pdf:
        title = _page_title(doc) or pdf.metadata.get("title") or ""   # the title extraction picks
    md = metadata_of_file(CORPUS / doc, title)
    assert (md.authors[0] if md.authors else "") == first
    if doc in ALL_AUTHORS:
        assert md.authors == ALL_AUTHORS[doc]
    assert (md.year, md.arxiv_id, md.doi) == (year, arxiv, doi)
    assert md.version == METADATA_VERSION
    for name in md.authors:   # never an e-mail, an affiliation or a footnote mark
        assert "@" not in name and "University" not in name and not set(name) & set("∗*†‡0123456789")


def _page_title(doc: str) -> str:
    return {"arxiv-1706.03762v7-attention-is-all-you-need.pdf": "Attention Is All You Need",
            "arxiv-quant-ph-9508027-shor-factoring.pdf":
                "Polynomial-Time Algorithms for Prime Factorization and Discrete Logarithms "
                "on a Quantum Computer",
            "amazon-2007-dynamo.pdf": "Dynamo: Amazon’s Highly Available Key-value Store",
            "shannon-1948-mathematical-theory-of-communication.pdf":
                "A Mathematical Theory of Communication",
            "bmc-healthcare-quality-malawi.pdf":
                "Understanding the barriers to setting up a healthcare quality improvement "
                "process in resource-limited settings: a situational analysis at the Medical "
                "Department of Kamuzu Central Hospital in Lilongwe, Malawi",
            "debian-gnuplot-manual.pdf": "gnuplot 5.4"}.get(doc, "")


def test_index_stores_metadata_and_docs_json_reads_it(tmp_path):
    folder = copy_docs(tmp_path / "papers", ["arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf"])
    cache = tmp_path / "cache"
    index_folder(folder, cache, embed=False)
    lib = Library(folder, cache)
    try:
        [d] = lib.documents()
        assert d.authors == ("Brecht Desplanques", "Jenthe Thienpondt", "Kris Demuynck")
        assert (d.year, d.arxiv_id, d.doi) == (2020, "2005.07143", "")
        assert d.to_json()["authors"][0] == "Brecht Desplanques"
        assert lib.metadata(d.doc).year == 2020
        from pdftui.store.reader import stored_metadata

        assert stored_metadata(lib.db, [d.content_id])[d.content_id].arxiv_id == "2005.07143"
    finally:
        lib.close()
    # an older cache without metadata rows is filled by the next run, without re-extraction
    con = sqlite3.connect(cache / "index.sqlite3")
    con.execute("DELETE FROM metadata")
    con.commit()
    con.close()
    s = index_folder(folder, cache, embed=False)
    assert s.indexed == 0 and s.unchanged == 1
    lib = Library(folder, cache)
    try:
        assert lib.documents()[0].arxiv_id == "2005.07143"
    finally:
        lib.close()


def test_arxiv_ids():
    stamp = "arXiv:1004.4240v1  [cs.DS]  23 Apr 2010\nA Sparse Johnson–Lindenstrauss Transform"
    assert find_arxiv_id("paper.pdf", [stamp]) == "1004.4240"
    assert find_arxiv_id("x.pdf", ["arXiv:quant-ph/9508027v2  25 Jan 1996"]) == "quant-ph/9508027"
    assert find_arxiv_id("arxiv-hep-ph-9412269-cebaf.pdf", [""]) == "hep-ph/9412269"
    assert find_arxiv_id("2010.11929v2.pdf", [""]) == "2010.11929"
    # not an arXiv id: month 13, 4 digits after 2015, a version or page number
    assert find_arxiv_id("report-1913.12345.pdf", [""]) == ""
    assert find_arxiv_id("notes-2101.1234.pdf", [""]) == ""
    # two different ids cited on page 1 and no stamp: none is the paper's
    assert find_arxiv_id("p.pdf", ["see arXiv:1706.03762 and arXiv:1810.04805"]) == ""
    assert arxiv_year("1706.03762") == 2017 and arxiv_year("quant-ph/9508027") == 1995
    assert arxiv_year("") is None


def test_doi_shapes():
    assert clean_doi("10.1145/3600006.3613165.") == "10.1145/3600006.3613165"
    assert clean_doi("10.1016/S0140-6736(20)30183-5).") == "10.1016/S0140-6736(20)30183-5"
    assert clean_doi("10.12/x") == "" and clean_doi("10.1234/.,") == ""
    assert find_doi({"subject": "AI Open, 1 (2020). doi:10.1016/j.aiopen.2021.01.001"}, []) \
        == "10.1016/j.aiopen.2021.01.001"
    assert find_doi({}, ["no doi here"], "References ... 10.1109/CVPR.2016.90.") == ""


def test_years_come_from_the_paper_not_the_file():
    info = {"creationDate": "D:20240503101612", "producer": "PDFium"}
    assert find_year("", ["no year at all"], info) is None          # a re-saved file
    assert find_year("", ["Submitted 25 March 2016 Accepted 9 May 2017 Published 5 June 2017"],
                     {}) == 2017
    assert find_year("", ["Copyright 2007 ACM"], {"creationDate": "D:2009"}) == 2007
    assert find_year("", ["nothing"], {"creationDate": "D:20011106164816"}) == 2001
    assert find_year("1706.03762", ["© 2023 Google"], {}) == 2017
    # a Chinese article number carries the publication year: ISSN (2004); received 2003
    assert find_year("", ["收稿日期：2003-07-06 文章编号：1001-3695（2004）07-0004-07"], {}) == 2004


def test_author_lines():
    assert names_in("Qiang Wang1, Bei Li1, Tong Xiao1,2∗, Jingbo Zhu1,2") == [
        "Qiang Wang", "Bei Li", "Tong Xiao", "Jingbo Zhu"]
    assert names_in("Jie Zhou a,1, Ganqu Cui a,1, Zhiyuan Liu a,*,") == [
        "Jie Zhou", "Ganqu Cui", "Zhiyuan Liu"]
    assert names_in("Sanjay Ghemawat, Howard Gobioff, and Shun-Tak Leung") == [
        "Sanjay Ghemawat", "Howard Gobioff", "Shun-Tak Leung"]
    assert names_in("{anirban, ravikumar}@yahoo-inc.com") == []
    assert names_in("Department of Computer Science, Stanford University") == []
    assert names_in("In this work we report the cosmological effects of a species") == []
    assert names_in("By A. EINSTEIN") == ["A. Einstein"]
    assert fix_accents("J¨urgen Schmidhuber, F´ısica") == "Jürgen Schmidhuber, Física"
    assert authors_from_info("Administrator") == []
    assert authors_from_info("Diego Ongaro, John Ousterhout; Stanford University") == [
        "Diego Ongaro", "John Ousterhout"]
    assert authors_from_info("Copyright © 1995–2006 The LaTeX Project") == []


#: SMALL.txt doc -> (title as the extractor picks it, the whole author list): the
#: reference card's section headings ("Starting Octave", "Sparse Matrices", ... each set
#: over its commands) are not its authors, and the papers keep every author they had
#: (Attention's Łukasz Kaiser too: a name may start with a non-ASCII capital).
SMALL_AUTHORS = {
    "debian-octave-refcard-a4.pdf": ("Octave Quick Reference", ()),
    "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf":
        ("Ultra light bosonic dark matter and CMB", ("Ivan Rodriguez Montoya", "Tonatiuh Matos Chassin")),
    "arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf":
        ("ECAPA-TDNN: Emphasized Channel Attention, Propagation and Aggregation in TDNN Based "
         "Speaker Verification", ("Brecht Desplanques", "Jenthe Thienpondt", "Kris Demuynck")),
    "arxiv-2402.05672-multilingual-e5-embeddings.pdf":
        ("Multilingual E5 Text Embeddings: A Technical Report",
         ("Liang Wang", "Nan Yang", "Xiaolong Huang", "Linjun Yang", "Rangan Majumder", "Furu Wei")),
    "arxiv-1512.03385-resnet.pdf": ("Deep Residual Learning for Image Recognition",
                                    ("Kaiming He", "Xiangyu Zhang", "Shaoqing Ren", "Jian Sun")),
    "arxiv-1706.03762v5-attention-is-all-you-need.pdf":
        ("Attention Is All You Need", ("Ashish Vaswani", "Noam Shazeer", "Niki Parmar", "Jakob Uszkoreit",
                                       "Llion Jones", "Aidan N. Gomez", "Łukasz Kaiser",
                                       "Illia Polosukhin")),
    "arxiv-1706.03762v7-attention-is-all-you-need.pdf":
        ("Attention Is All You Need", ("Ashish Vaswani", "Noam Shazeer", "Niki Parmar", "Jakob Uszkoreit",
                                       "Llion Jones", "Aidan N. Gomez", "Łukasz Kaiser",
                                       "Illia Polosukhin")),
    "texlive-euler.pdf": ("The euler package", ("Frank Jensen",)),
}


@pytest.mark.parametrize("doc", sorted(SMALL_AUTHORS))
def test_small_authors_refcard_headings_are_not_names(doc):
    title, authors = SMALL_AUTHORS[doc]
    md = metadata_of_file(shared_file(CORPUS / doc), title)
    assert md.authors == authors
    assert md.version == METADATA_VERSION == 6
