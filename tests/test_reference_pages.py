"""Which pages are reference lists (demoted in hybrid page search): a layout whose printed
lines are blocks of their own is recognised through the parsed entries."""

from __future__ import annotations

import pytest

from pdftui.index import index_folder
from pdftui.search import references
from pdftui.search.service import SearchService

from .conftest import copy_docs

FASTFORMER = "arxiv-2108.09084-fastformer.pdf"

#: Lines of Fastformer's p. 10 as its blocks come: an entry runs over two or three blocks,
#: and few of them read as an entry alone.
LINES = ["Karl Moritz Hermann, Tomas Kocisky, Edward Grefen-",
         "stette, Lasse Espeholt, Will Kay, Mustafa Suleyman, and Phil Blunsom. 2015.",
         "Nikita Kitaev, Lukasz Kaiser, and Anselm Levskaya.",
         "2020. Reformer: The efficient transformer. In ICLR.",
         "Zhenzhong Lan, Mingda Chen, Sebastian Goodman,",
         "Kevin Gimpel, Piyush Sharma, and Radu Soricut. 2020.",
         "Yi Tay, Mostafa Dehghani, Dara Bahri, and Donald",
         "Metzler. 2020. Efficient transformers: A survey. arXiv preprint arXiv:2009.06732."]


def test_parsed_entries_make_a_page_of_split_lines_a_reference_page():
    """Fresh-user finding: 'transformers for long documents' listed Fastformer's reference
    page first and four reference pages in the first nine: its entries are split into
    one block per line, so under a third of its text was in blocks that read as an entry
    and the page was not demoted. The characters of the entries the reference parser
    found on the page count too."""
    chars = sum(map(len, LINES))
    assert not references.is_reference_page(LINES, True)           # blocks alone: no
    assert references.is_reference_page(LINES, True, chars)        # with the parsed entries
    assert not references.is_reference_page(LINES, False, chars)   # outside a References section


@pytest.mark.corpus
def test_fastformer_s_reference_pages_are_known(tmp_path):
    folder = copy_docs(tmp_path / "papers", [FASTFORMER])
    index_folder(folder, tmp_path / "cache", embed=False)
    service = SearchService(folder, cache_dir=tmp_path / "cache")
    try:
        service.search_sync("efficient transformer", mode="keyword", top_k=1)
        view = service._get_engine().view
        assert {9, 10} <= set(view.reference_pages(view.cid_of(FASTFORMER)))
    finally:
        service.close()
