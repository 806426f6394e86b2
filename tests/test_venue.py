"""Venue, arXiv category and year as the first pages print them (pdftui.venue,
pdftui.metadata), on real corpus papers."""

from __future__ import annotations

import pymupdf
import pytest

from pdftui.metadata import file_name_year, find_year, metadata_of_file
from pdftui.venue import VenueKind, arxiv_class, find_venue

from .conftest import CORPUS, shared_file


def _pages(name: str) -> list[str]:
    with pymupdf.open(shared_file(CORPUS / name)) as doc:
        return [doc[i].get_text() for i in range(min(2, doc.page_count))]


@pytest.mark.parametrize("name, kind, venue", [
    ("arxiv-1706.03762v5-attention-is-all-you-need.pdf", VenueKind.INPROCEEDINGS,
     "Advances in Neural Information Processing Systems"),
    ("arxiv-1710.09412-mixup.pdf", VenueKind.INPROCEEDINGS,
     "International Conference on Learning Representations"),
    ("arxiv-2005.00743-synthesizer.pdf", VenueKind.INPROCEEDINGS,
     "Proceedings of the 37th International Conference on Machine Learning"),
    # a symposium printed by its acronym alone: its proceedings' name (issue 34)
    ("google-2003-file-system.pdf", VenueKind.INPROCEEDINGS,
     "Proceedings of the ACM Symposium on Operating Systems Principles (SOSP '03)"),
    ("google-2012-spanner.pdf", VenueKind.INPROCEEDINGS, "Proceedings of the USENIX "
     "Symposium on Operating Systems Design and Implementation (OSDI 2012)"),
    ("google-2004-mapreduce.pdf", VenueKind.INPROCEEDINGS, "Proceedings of the USENIX "
     "Symposium on Operating Systems Design and Implementation (OSDI 2004)"),
    ("arxiv-2101.03961-switch-transformers.pdf", VenueKind.ARTICLE,
     "Journal of Machine Learning Research"),
    ("arxiv-2402.05120-more-agents-is-all-you-need.pdf", VenueKind.ARTICLE,
     "Transactions on Machine Learning Research"),
    ("arxiv-math-9404236-thurston-proof-and-progress.pdf", VenueKind.ARTICLE,
     "Bulletin of the American Mathematical Society"),
    ("shannon-1948-mathematical-theory-of-communication.pdf", VenueKind.ARTICLE,
     "The Bell System Technical Journal"),
    ("bmc-healthcare-quality-malawi.pdf", VenueKind.ARTICLE, "BMC Health Services Research"),
    ("peerjcs-2017-118.pdf", VenueKind.ARTICLE, "PeerJ Computer Science"),
    ("jcap-2008-0807.3577-apparent-average-acceleration-universe.pdf", VenueKind.ARTICLE,
     "Journal of Cosmology and Astroparticle Physics"),
])
def test_the_venue_printed_on_the_first_pages(name, kind, venue):
    got = find_venue(_pages(name))
    assert got is not None and (got.kind, got.name) == (kind, venue)


def test_no_venue_where_none_is_printed():
    """A preprint, a white paper, a paper whose only proceedings line is a preliminary
    version's: no venue (``@misc``), never a guess."""
    for name in ("arxiv-2006.04768-linformer.pdf", "nakamoto-2008-bitcoin.pdf",
                 "arxiv-quant-ph-9508027-shor-factoring.pdf", "lamport-2001-paxos-made-simple.pdf"):
        assert find_venue(_pages(name)) is None, name


def test_the_arxiv_category_of_the_stamp():
    assert arxiv_class(_pages("arxiv-1706.03762v7-attention-is-all-you-need.pdf")) == "cs.CL"
    assert arxiv_class(_pages("arxiv-math-0501170-tilings.pdf")) == "math.CO"
    assert arxiv_class(_pages("arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf")) \
        == "astro-ph.CO"
    assert arxiv_class(["no stamp here"]) == ""


def test_the_publication_year_before_the_pdf_files_date():
    """Trial: the Bitcoin paper was dated 2009, its PDF's creation date; the year it
    was published, 2008, is the one its file name keeps. A year printed on page 1 still
    comes first, the creation date last."""
    md = metadata_of_file(shared_file(CORPUS / "nakamoto-2008-bitcoin.pdf"),
                          "Bitcoin: A Peer-to-Peer Electronic Cash System")
    assert md.year == 2008
    assert file_name_year("google-2003-file-system.pdf") == 2003
    assert file_name_year("arxiv-2005.07143-ecapa.pdf") is None     # an arXiv id
    assert file_name_year("papermage-2023-08-draft.pdf") == 2023
    assert file_name_year("a-2001-b-2003.pdf") is None             # two years: unknown
    info = {"creationDate": "D:20090324113315-06'00'"}
    assert find_year("", ["no year"], info, file_name="x-2008-y.pdf") == 2008
    assert find_year("", ["Published 5 June 2017"], info, file_name="x-2008-y.pdf") == 2017
    assert find_year("", ["no year"], info, file_name="paper.pdf") == 2009
