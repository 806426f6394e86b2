"""Page furniture (pdftui/furniture.py): running headers and page numbers of real corpus
papers, left out of a section read whole and of excerpts, a cut paragraph joined."""

import pytest

from pdftui.furniture import Furniture, blanked, detect, page_number, tidy
from pdftui.index import index_folder
from pdftui.library import Library
from pdftui.preformat import kept_text
from pdftui.search.engine import Engine

from .conftest import copy_docs

PAXOS = "lamport-2001-paxos-made-simple.pdf"
MIXUP = "arxiv-1710.09412-mixup.pdf"
HEADER = "Published as a conference paper at ICLR 2018"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    base = tmp_path_factory.mktemp("furniture")
    folder = copy_docs(base / "papers", [PAXOS, MIXUP])
    index_folder(folder, base / "cache", embed=False)
    lib = Library(folder, base / "cache")
    yield folder, base / "cache", lib
    lib.close()


def test_running_headers_and_page_numbers_of_real_papers(indexed):
    _folder, _cache, lib = indexed
    mix = lib.furniture(MIXUP)
    assert mix.lines == frozenset({"published as a conference paper at iclr #"})
    headers = [(p, o) for p, o in mix.blocks if lib.blocks(MIXUP, p)[o][4].strip() == HEADER]
    assert len(headers) >= 10
    pax = lib.furniture(PAXOS)
    texts = [lib.blocks(PAXOS, p)[o][4].strip() for p, o in sorted(pax.blocks)]
    assert pax.lines == frozenset() and texts == [str(n) for n in range(1, len(texts) + 1)]
    assert len(texts) >= lib.page_count(PAXOS) - 3   # its printed numbers, 1 to 11
    # prose is never furniture: no block longer than a line was taken
    assert all(len(lib.blocks(PAXOS, p)[o][4]) <= 160 for p, o in pax.blocks)


def test_a_section_read_whole_has_no_page_number_cutting_its_sentence(indexed):
    """Paxos Made Simple 2.2: "How this is" ends page 2 (its page number "2" after it),
    "achieved depends on the implementation" opens page 3."""
    _folder, _cache, lib = indexed
    sec = lib.section(PAXOS, "2.2 Choosing a Value")
    assert "How this is\n\n2\n\nachieved" in sec.text   # as stored
    text = kept_text(lib, sec)
    assert "How this is achieved depends on the implementation" in text
    assert "\n\n2\n\n" not in text
    mix = kept_text(lib, lib.section(MIXUP, "3.8"))
    assert HEADER not in mix and "label smoothing" in mix


def test_tidy_drops_furniture_and_joins_only_across_a_page_break():
    f = Furniture(frozenset({(1, 3), (2, 0)}))
    paras = ["A sentence that runs", "on here.", "Same page, no end", "1", "Header",
             "carried on. Next", "Upper starts anew."]
    pos = [(1, 0), (1, 1), (1, 2), (1, 3), (2, 0), (2, 1), (3, 0)]
    got, at = tidy(paras, pos, f)
    assert got == ["A sentence that runs", "on here.", "Same page, no end carried on. Next",
                   "Upper starts anew."]
    assert at == [(1, 0), (1, 1), (1, 2), (3, 0)]
    got, _ = tidy(["a hyphen-", "ated word"], [(1, 0), (2, 0)], Furniture())
    assert got == ["a hyphenated word"]


def test_page_numbers_and_blanking():
    assert all(page_number(t) for t in ("12", "- 3 -", "Page 4 of 9", "xii", "8/16"))
    assert not any(page_number(t) for t in ("2.2 Choosing", "civil", "12 cats", "Figure 3"))
    assert blanked(["Head", "text", "7"], 5, Furniture(frozenset({(5, 0), (5, 2)}))) == \
        ["", "text", ""]
    rows = [(p, 0, f"Journal of Tests {p}") for p in range(1, 6)] + \
        [(p, 1, f"What page {w} says, in words of its own.") for p, w in
         zip(range(1, 6), ("one", "two", "three", "four", "five"))]
    got = detect(sorted(rows))
    assert got.lines == frozenset({"journal of tests #"})
    assert got.blocks == frozenset((p, 0) for p in range(1, 6))


def test_an_excerpt_does_not_open_with_the_running_header(indexed):
    folder, cache, _lib = indexed
    e = Engine(folder, cache)
    try:
        res = e.search("label smoothing mixing inputs only", mode="keyword", top_k=20)
    finally:
        e.close()
    hit = next(h for h in res.hits if h.doc == MIXUP and h.page == 10)
    assert "label smoothing" in hit.excerpt.lower()
    assert HEADER not in hit.excerpt


def test_a_head_naming_its_chapter_is_furniture_by_its_changing_page_number():
    """Fresh-user finding: the Debian Developer's Reference heads each page with its
    chapter or section and the page number ("12 Chapter 3. Debian Developer's Duties",
    "3.2. Administrative Duties 13"): such a head recurs on its chapter's pages only, far
    under 30 % of the book, so a section read whole ended with three of them. A line at a
    page edge with a number at one end that changes from page to page is one, and so is
    the same head where the number stood apart; an example repeated with the same number
    is not."""
    rows = []
    for p in range(1, 41):
        rows.append((p, 0, f"Body of page {p}: " + "words " * p))
        rows.append((p, 1, "More prose that goes on " * (p % 7 + 1)))
    rows += [(10, 2, "12 Chapter 3. Duties"), (12, 2, "14 Chapter 3. Duties"),
             (14, 2, "Chapter 3. Duties"), (14, 3, "16"),
             (11, 2, "3.2. Administrative Duties 13"), (13, 2, "3.2. Administrative Duties 15"),
             (20, 2, "4 Thus q + 1 is prime."), (22, 2, "4 Thus q + 1 is prime."),
             (24, 2, "4 Thus q + 1 is prime."), (30, 2, "Table 3"), (31, 2, "Table 4"),
             (32, 2, "Table 5")]
    got = detect(sorted(rows))
    assert {(10, 2), (12, 2), (14, 2), (14, 3), (11, 2), (13, 2)} <= got.blocks
    assert not {(20, 2), (22, 2), (24, 2), (30, 2), (31, 2), (32, 2)} & got.blocks


def test_a_page_holding_only_furniture_gets_no_passage_and_no_crash(indexed):
    """A page whose every block is furniture (a chapter's blank verso: its running head
    and number) is all blanks to the excerpt chooser: ``(-1, "")``, so the hit shows the
    page text; before, choosing among no passages raised ValueError mid-search."""
    from pdftui.search import keyword
    from pdftui.search.excerpt import choose

    terms = keyword.parse_query("chapter duties")
    assert choose(blanked(["Running head 12", "12"], 3, Furniture(frozenset({(3, 0), (3, 1)}))),
                  terms) == (-1, "")
    assert choose(["", "  "], terms) == (-1, "")
