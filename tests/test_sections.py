"""Sections from outlines and from the heading detector, on real corpus PDFs."""

from __future__ import annotations

import dataclasses
import time
from functools import lru_cache
from pathlib import Path

import pytest

from pdftui.document import Extraction, OutlineEntry, Section, innermost
from pdftui.extract import extract_document
from pdftui.heading_sequence import follows
from pdftui.headings import detect_headings, numbering, titles_match
from pdftui.sections import build_sections, section_path_at, sections_for

from .conftest import CORPUS, SMALL_DOCS, TRICKY, needs_shared, shared_file  # noqa: E402
from .invariants import assert_outline_well_formed, assert_sections_well_formed

ATTENTION = CORPUS / "arxiv-1706.03762v5-attention-is-all-you-need.pdf"
TRACEMONKEY = TRICKY / "real" / "two-column-tracemonkey-pldi09.pdf"
#: Nested sections with empty ones among them (outline entries that share a block).
ASAP = CORPUS / "arxiv-1703.00983-asap-time-series-smoothing.pdf"
#: An outline whose entries mostly point at the top of a page: most sections are empty.
DVT = CORPUS / "bmc-2010-dvt-prophylaxis-trauma-review.pdf"

pytestmark = needs_shared(ATTENTION)


@lru_cache(maxsize=None)
def load(path: Path) -> Extraction:
    return extract_document(str(shared_file(path)))


def by_title(sections, title):
    return next(s for s in sections if s.title == title)


def test_attention_outline_sections_paths_and_bounds():
    ex = load(ATTENTION)
    secs = sections_for(ex)
    assert secs and all(s.source == "outline" for s in secs)
    att = by_title(secs, "3.2 Attention")
    assert att.path == "3 Model Architecture > 3.2 Attention"
    assert att.level == 2
    assert att.text.startswith("3.2 Attention")
    # stops before the next same-level heading (3.3), but includes its subsections
    assert "3.3 Position-wise Feed-Forward Networks" not in att.text
    assert "3.2.1 Scaled Dot-Product Attention" in att.text
    ffn = by_title(secs, "3.3 Position-wise Feed-Forward Networks")
    assert ffn.text.startswith("3.3 Position-wise Feed-Forward Networks")
    assert (att.end_page, att.end_block) == (ffn.start_page, ffn.start_block)
    # 3.2 starts on page 3 and runs to page 5 (3.3 is on page 5)
    assert att.start_page == 3 and att.end_page == 5
    sub = by_title(secs, "3.2.1 Scaled Dot-Product Attention")
    assert sub.start_page == 4 and sub.text.startswith("3.2.1 Scaled Dot-Product Attention")
    assert sub.path.endswith("3.2 Attention > 3.2.1 Scaled Dot-Product Attention")
    # the leading section holds the title/abstract, before "1 Introduction"
    assert secs[0].ordinal == 0 and secs[0].start_page == 1 and secs[0].start_block == 0
    assert "Abstract" in secs[0].text
    intro = by_title(secs, "1 Introduction")
    assert intro.text.startswith("1 Introduction") and "Abstract" not in intro.text
    assert [s.ordinal for s in secs] == list(range(len(secs)))


def test_section_path_at():
    ex = load(ATTENTION)
    secs = sections_for(ex)
    att = by_title(secs, "3.2 Attention")
    assert section_path_at(secs, att.start_page, att.start_block) == att.path
    sub = by_title(secs, "3.2.2 Multi-Head Attention")
    assert section_path_at(secs, sub.start_page, sub.start_block) == sub.path
    assert section_path_at(secs, 1, 0) == secs[0].path
    assert section_path_at(secs, 999, 0) == ""
    assert section_path_at([], 1, 0) == ""


@needs_shared(ASAP)
def test_section_contains_is_half_open_and_an_empty_section_holds_its_page():
    secs = sections_for(load(ASAP))
    parent = by_title(secs, "C Sample Visualizations")
    child = by_title(secs, "3.1 Roughness Measure")
    assert parent.start < child.start < child.end < parent.end
    # from the start block (inclusive) to the end block (exclusive), subsections included
    assert parent.contains(*parent.start) and not parent.contains(*parent.end)
    assert not parent.contains(parent.start_page, parent.start_block - 1)
    assert parent.contains(*child.start) and parent.contains(*child.end)
    assert child.contains(*child.start) and not child.contains(*child.end)
    # an empty section (its heading shares a block with the next heading of its level)
    # holds the rest of its start page, nothing before its start nor on a later page
    intro = by_title(secs, "1 Introduction")
    assert intro.empty and intro.start == (1, 7)
    assert intro.contains(1, 7) and intro.contains(1, 30)
    assert not intro.contains(1, 6) and not intro.contains(2, 0)
    # the innermost section: the later heading starting on the same block wins
    assert innermost(secs, 1, 7).title == "A Case Study"
    assert innermost(secs, *child.start) is child
    assert innermost(secs, child.end_page, child.end_block - 1) is child
    assert innermost(secs, *parent.start) is parent
    assert innermost(secs, 999, 0) is None and innermost([], 1, 0) is None


@pytest.mark.parametrize("path", [ASAP, DVT], ids=lambda p: p.name[:14])
def test_the_innermost_section_of_every_block_holds_it_and_is_on_its_page(path):
    """Regression: the reader named a page after any empty section that started on an
    earlier page (it took an empty section to hold everything after its start)."""
    ex = load(path)
    secs = sections_for(ex)
    assert sum(s.empty for s in secs) >= 5
    named = 0
    for page in ex.pages:
        for b in range(len(page.blocks)):
            s = innermost(secs, page.number, b)
            if s is None:
                continue
            named += 1
            assert s.contains(page.number, b)
            assert not s.empty or s.start_page == page.number, (page.number, b, s.title)
            # no section starting later holds the block (else it would be the innermost)
            assert not any(t.start > s.start and t.contains(page.number, b) for t in secs)
            assert section_path_at(secs, page.number, b) == s.path
    assert named > 0.9 * sum(len(p.blocks) for p in ex.pages)


def test_own_span_ends_at_the_first_subsection_and_holds_the_own_text():
    ex = load(ATTENTION)
    secs = sections_for(ex)
    k = next(i for i, s in enumerate(secs) if s.title == "3.2 Attention")
    att, first_sub = secs[k], secs[k + 1]
    own = att.own_span(first_sub)
    assert own.start == att.start and own.end == first_sub.start < att.end
    held = [blk.text for p in ex.pages for b, blk in enumerate(p.blocks)
            if own.contains(p.number, b) and blk.text]
    assert "\n\n".join(held) == att.own_text != att.text
    # a leaf: the next section starts where it ends, so its own span is all of it
    leaf = secs[k + 2]
    assert leaf.own_span(secs[k + 3]) == leaf and leaf.own_span(None) == leaf


def test_last_page_of_a_section_ending_at_the_top_of_a_page():
    s = Section(3, 1, "Method", "Method", 2, 4, 5, 0)
    assert s.last_page == 4 and s.contains(4, 99) and not s.contains(5, 0)
    assert Section(3, 1, "M", "M", 2, 4, 5, 3).last_page == 5
    assert Section(3, 1, "M", "M", 2, 4, 2, 0).last_page == 2  # empty: its start page
    assert Section(3, 1, "M", "M", 2, 4, 2, 0, id=9).to_json()["last_page"] == 2


def test_detector_with_outline_hidden_finds_numbered_headings():
    ex = load(ATTENTION)
    hidden = dataclasses.replace(ex, outline=[])
    found = detect_headings(hidden.pages)
    titles = [h.title for h in found]
    hit = [h for h in found if titles_match(h.title, "3.2 Attention")]
    assert hit and hit[0].page == 3 and hit[0].level == 2
    assert any(titles_match(t, "3.2.1 Scaled Dot-Product Attention") for t in titles)
    assert any(titles_match(t, "3 Model Architecture") for t in titles)
    # no captions, running headers, page numbers or run-in paragraph labels
    assert not any(t.lower().startswith(("figure", "table")) for t in titles)
    assert not any(t.strip().isdigit() for t in titles)
    assert "Encoder:" not in titles
    secs = sections_for(hidden)
    assert secs and secs[-1].source == "detected"
    att = next(s for s in secs if titles_match(s.title, "3.2 Attention"))
    assert att.path.endswith("3.2 Attention") and " > " in att.path


def test_detector_rejects_running_headers():
    # ICLR-style running header "Published as a conference paper at ..." on every page
    path = CORPUS / "arxiv-2010.11929-vit-image-is-worth-16x16-words.pdf"
    found = detect_headings(load(path).pages)
    assert found
    assert not any("conference paper" in h.title.lower() for h in found)
    assert any(titles_match(h.title, "1 Introduction") for h in found)


def test_two_column_paper_without_outline():
    ex = load(TRACEMONKEY)
    assert not ex.outline
    secs = sections_for(ex)
    assert secs and secs[-1].source == "detected"
    intro = [s for s in secs if s.title == "1. Introduction"]
    assert intro and intro[0].start_page == 1
    assert intro[0].text.startswith("1. Introduction")


@pytest.mark.parametrize(
    "path",
    [
        TRICKY / "made" / "17_toc_edge_cases.pdf",
        TRICKY / "made" / "18_toc_cycle.pdf",
        TRICKY / "real" / "outline-circular.pdf",
    ],
)
def test_odd_outlines_never_hang(path):
    ex = load(path)
    t0 = time.perf_counter()
    secs = sections_for(ex)
    assert time.perf_counter() - t0 < 5
    for s in secs:
        assert (s.start_page, s.start_block) <= (s.end_page, s.end_block)
    # and with garbage headings: out of range, duplicates, unsorted, empty
    bad = [
        OutlineEntry(2, "B", 1, 10_000.0),
        OutlineEntry(1, "A", 1, None),
        OutlineEntry(1, "A", 1, None),
        OutlineEntry(3, "", 1, None),
        OutlineEntry(1, "gone", 10_000, None),
        OutlineEntry(-4, "neg", 1, -50.0),
    ]
    out = build_sections(ex.pages, bad, "outline")
    assert all(s.title != "gone" for s in out)
    assert build_sections([], bad, "outline") == []


def test_build_sections_is_fast_on_a_big_outline():
    ex = load(ATTENTION)
    pages = ex.pages * 90  # ~1,350 pages
    for i, p in enumerate(pages):
        pages[i] = dataclasses.replace(p, number=i + 1)
    heads = [
        OutlineEntry(1 + (i % 3), f"Heading {i}", 1 + (i * 1350) // 1900, None)
        for i in range(1900)
    ]
    # CPU seconds, not wall-clock: a quadratic walk costs minutes, the linear one ~2 s, and
    # a loaded machine (8 engineers on 2 cores) stretched the wall clock past 30 s
    t0 = time.process_time()
    secs = build_sections(pages, heads, "outline")
    assert time.process_time() - t0 < 10
    assert len(secs) >= 1900


def test_numbering():
    assert numbering("3.2 Attention") == ("3.2", 2)
    assert numbering("A.1 Proofs") == ("A.1", 2)
    assert numbering("IV. Results") == ("IV", 1)
    assert numbering("Chapter 4 Sets") == ("4", 1)
    assert numbering("A model of everything") == ("", 0)


def test_own_text_stops_at_the_first_subsection():
    """A parent's own text (what the keyword index ranks) ends where its first
    subsection starts; a leaf's own text is its whole text (own_chars -1)."""
    secs = sections_for(load(ATTENTION))
    att = by_title(secs, "3.2 Attention")
    assert 0 <= att.own_chars < len(att.text)
    assert att.own_text.startswith("3.2 Attention")
    assert "3.2.1 Scaled Dot-Product Attention" not in att.own_text
    assert att.text.startswith(att.own_text)
    sub = by_title(secs, "3.2.1 Scaled Dot-Product Attention")
    nxt = by_title(secs, "3.2.2 Multi-Head Attention")
    assert sub.own_chars == -1 and sub.own_text == sub.text   # next heading: a sibling
    assert nxt.own_text == nxt.text


def test_an_outline_anchor_at_the_foot_of_a_page_points_at_the_next_pages_heading():
    """vLLM's outline puts "7.3 Comparing Recomputation and Swapping" at the foot of
    p. 12 (LaTeX set the anchor before the page break); the heading is printed on p. 13.
    The section started on p. 12's last paragraph, which belongs to 7.2 and answers
    "which block size is best" (fresh-user trial 15: 7.2 was 63rd for that question)."""
    ex = extract_document(str(CORPUS / "arxiv-2309.06180-pagedattention-vllm.pdf"))
    secs = sections_for(ex)
    swap = by_title(secs, "7.3 Comparing Recomputation and Swapping")
    assert swap.start_page == 13 and swap.text.startswith("7.3")
    block = by_title(secs, "7.2 Impact of Block Size")
    assert "default block size as 16" in block.text
    for title, page in (("2.1 Transformer-Based Large Language Models", 3),
                        ("3 Memory Challenges in LLM Serving", 4),
                        ("6.1 Experimental Setup", 10)):
        assert by_title(secs, title).start_page == page, title


@pytest.mark.parametrize("name, title", [
    ("arxiv-2108.12409-alibi-train-short-test-long.pdf",
     "TRAIN SHORT, TEST LONG: ATTENTION WITH LINEAR BIASES ENABLES INPUT LENGTH "
     "EXTRAPOLATION"),
    ("arxiv-2006.03654-deberta.pdf",
     "DEBERTA: DECODING-ENHANCED BERT WITH DIS-ENTANGLED ATTENTION"),
    ("arxiv-1512.03385-resnet.pdf", "Deep Residual Learning for Image Recognition"),
    ("aiopen-2020-gnn-review-of-methods-and-applications.pdf",
     "Graph neural networks: A review of methods and applications"),
    ("jcap-2008-0807.3577-apparent-average-acceleration-universe.pdf",
     "Apparent and average accelerations of the Universe"),
])
def test_the_front_matter_is_named_by_the_documents_title(name, title):
    """Fresh-user trial 15: the section list named ALiBi's front matter by the first line
    of its two-line title, "TRAIN SHORT, TEST LONG: ATTENTION WITH LINEAR", the GNN
    review's by its journal ("AI Open") and the JCAP paper's by its page stamp: the
    document's title (:mod:`pdftui.title`) names it when one was read from the document."""
    assert sections_for(extract_document(str(CORPUS / name)))[0].title == title


def test_heading_grouped_with_the_paragraph_above_starts_its_section():
    """GFS has no outline; MuPDF puts "2.5" | "Chunk Size" in the block that ends 2.4.
    The block is split at the heading, so 2.5 starts at its heading and 2.4 ends before."""
    ex = extract_document(str(CORPUS / "google-2003-file-system.pdf"))
    secs = sections_for(ex)
    chunk = by_title(secs, "2.5 Chunk Size")
    assert chunk.text.startswith("2.5 Chunk Size Chunk size is one of the key design")
    master = by_title(secs, "2.4 Single Master")
    assert master.text.rstrip().endswith("at practically no extra cost.")
    page = ex.pages[chunk.start_page - 1]
    assert page.blocks[chunk.start_block].text.startswith("2.5 Chunk Size")
    assert page.text == "\n\n".join(b.text for b in page.blocks)
    assert all(0 <= ln.block < len(page.blocks) for ln in page.lines)


def test_follows_section_numbering():
    assert follows((3, 1), (3, 2)) and follows((3, 1), (3, 1, 1)) and follows((3, 1), (4,))
    assert not follows((3, 1), (3, 3)) and not follows((4,), (3, 2))
    assert follows((2, 2), (2, 2, 4), gap=4) and not follows((2, 2), (2, 2, 4))
    assert not follows((1,), (1,)) and not follows((2,), (1,))


def test_figure_label_out_of_numbering_is_not_a_heading():
    """GFS (no outline) prints a figure label "4 Master" between 3.1 and 3.2: it breaks
    the numbering 3.1 -> 3.2, so it is dropped; 3.1 and 3.2 stay adjacent."""
    titles = [e.title for e in detect_headings(load(CORPUS / "google-2003-file-system.pdf").pages)]
    assert not any(t.startswith("4 Master") for t in titles)
    i = titles.index("3.1 Leases and Mutation Order")
    assert titles[i + 1] == "3.2 Data Flow"
    assert "4. MASTER OPERATION" in titles


def test_figure_letters_arxiv_stamps_and_a_stray_first_number_are_not_headings():
    """Fresh-user trial: Decision Transformer (no outline) listed Figure 1's labels "R s a"
    and "21 return state action" as sections of page 1, and "21 return state action" came
    2nd for a question about its method; Big Bird listed "G T A A C A G"; LLaMA's first
    section was titled by the arXiv stamp in its margin. Letters without a word of three,
    the stamp, a first number that does not lead into the next two, and lowercase rows
    before the first number ("causal transformer") are not headings; a manual's one-word
    "cd" or a numbered "5 To do's" still are."""
    dt = [e.title for e in detect_headings(
        load(CORPUS / "arxiv-2106.01345-decision-transformer.pdf").pages)]
    assert "R s a" not in dt and "21 return state action" not in dt
    assert "causal transformer" not in dt and "linear decoder" not in dt
    assert "1 Introduction" in dt and "3 Method" in dt
    bird = [e.title for e in
            detect_headings(load(CORPUS / "arxiv-2007.14062-big-bird.pdf").pages)]
    assert "G T A A C A G" not in bird and "2 BIGBIRD Architecture" in bird
    llama = load(CORPUS / "arxiv-2302.13971-llama.pdf")
    titles = [e.title for e in detect_headings(llama.pages)]
    assert not any(t.lower().startswith("arxiv:") for t in titles)
    assert "2.1 Pre-training Data" in titles
    # the front matter is titled by the paper's title, not by the stamp set larger
    first = sections_for(llama)[0]
    assert first.title == "LLaMA: Open and Efficient Foundation Language Models"


def test_a_numbered_heading_named_like_a_figure_label_on_its_page_is_a_heading():
    """Fresh-user trial: BERT (no outline) listed "2 Related Work > 3.1 Pre-training BERT":
    "3 BERT" was dropped as repeated on its page, where Figure 1 labels a box "BERT"
    (Fastformer's "3 Fastformer" alike). A numbered row is compared with its number."""
    for name, parent, child in (
            ("arxiv-1810.04805-bert.pdf", "3 BERT", "3.1 Pre-training BERT"),
            ("arxiv-2108.09084-fastformer.pdf", "3 Fastformer", "3.1 Architecture")):
        secs = sections_for(load(CORPUS / name))
        assert by_title(secs, child).path == f"{parent} > {child}"


def test_run_in_heads_between_consecutive_appendix_numbers_are_not_sections():
    """Fresh-user trial: Big Bird's appendix filed "B.2.1 Layer 1 ..." under "Induction
    Setup", a bold run-in head of B.2 (with "Encoder" and "Decoder"), and "A.2.2" under a
    maths symbol "GE"; DeBERTa's table cell "SuperGLUE" sat between "A.1" and "A.2".
    Between two consecutive appendix numbers an unnumbered row is no heading."""
    secs = sections_for(load(CORPUS / "arxiv-2007.14062-big-bird.pdf"))
    titles = {s.title for s in secs}
    assert not {"Encoder", "Decoder", "Induction Setup", "GE"} & titles
    assert by_title(secs, "B.2.1 Layer 1: Simulate Transition Function").path == (
        "B Turing Completeness > B.2 Details of the Simulation > "
        "B.2.1 Layer 1: Simulate Transition Function")
    deberta = {s.title for s in sections_for(load(CORPUS / "arxiv-2006.03654-deberta.pdf"))}
    assert "SuperGLUE" not in deberta and "A.2 PRE-TRAINING DATASET" in deberta


def test_a_subsection_whose_parent_was_missed_is_not_filed_under_another():
    """"3.1" after "2 Related Work" with "3" missed is a top-level section, not a part of
    Related Work; "3.1.1" under it is one level down; a found parent nests as before."""
    from types import SimpleNamespace

    from pdftui.heading_sequence import assign_levels
    row = SimpleNamespace(font="F", size=10.0, bold_frac=1.0)
    found = [(row, "2", 1), (row, "2.1", 2), (row, "3.1", 2), (row, "3.1.1", 3),
             (row, "4", 1), (row, "4.1", 2)]
    assert assign_levels(found) == [1, 2, 1, 2, 1, 2]


def test_figure_box_labels_between_numbered_headings_are_not_sections():
    """Raft (no outline) prints Figure 2's boxes "State", "RequestVote RPC" and "Rules
    for Servers" in bold between "5 The Raft consensus algorithm" and "5.1 Raft basics";
    in a numbered document they are not headings."""
    secs = sections_for(load(CORPUS / "raft-2014-understandable-consensus-algorithm.pdf"))
    titles = [s.title for s in secs]
    assert not {"State", "RequestVote RPC", "Rules for Servers"} & set(titles)
    i = titles.index("5 The Raft consensus algorithm")
    assert titles[i + 1] == "5.1 Raft basics"
    assert "Abstract" in titles and "References" in titles


def test_a_near_miss_whose_number_fills_the_gap_is_a_heading():
    """ALiBi (no outline): "2 CURRENT APPROACHES…" and "3 ATTENTION WITH LINEAR BIASES"
    score just under the threshold; their numbers are exactly the ones missing between
    the kept "1" / "2.1" and "2.2" / "4", so they are kept (and 2.x nest under 2)."""
    secs = sections_for(load(CORPUS / "arxiv-2108.12409-alibi-train-short-test-long.pdf"))
    titles = [s.title for s in secs]
    assert "3 ATTENTION WITH LINEAR BIASES (ALIBI)" in titles
    two = next(s for s in secs if s.title.startswith("2.2 "))
    assert two.path.startswith("2 CURRENT APPROACHES")


def test_a_detected_heading_starts_its_section_in_its_own_column():
    """Raft p. 8: "5.4.2 Restriction on commitment" is mid-block in the right column at
    the height of a left-column paragraph; it was placed at that paragraph, so 5.4.2
    came before 5.4.1 and held 5.4's opening. Detected headings carry their x."""
    secs = sections_for(load(CORPUS / "raft-2014-understandable-consensus-algorithm.pdf"))
    titles = [s.title for s in secs]
    assert titles.index("5.4.1 Election restriction") < titles.index(
        "5.4.2 Restriction on commitment")
    s542 = by_title(secs, "5.4.2 Restriction on commitment")
    assert s542.text.startswith("5.4.2 Restriction on commitment We now explore")


def test_an_outline_destination_in_the_right_column_starts_its_section_there():
    """Spanner's outline points "Paxos Leader Leases" at the right column of p. 6, at the
    height of a left-column paragraph; the section started at that paragraph (the
    "Concurrency Control" opening). Outline entries carry the destination's x."""
    secs = sections_for(load(CORPUS / "google-2012-spanner.pdf"))
    flat = {s.title: " ".join(s.text.split()) for s in secs}
    assert flat["Paxos Leader Leases"].startswith(
        "4.1.1 Paxos Leader Leases Spanner’s Paxos implementation")
    assert flat["Concurrency Control"].startswith(
        "4 Concurrency Control This section describes how TrueTime")


def test_a_heading_number_printed_apart_opens_its_section():
    """Spanner prints "4.1.1" as a block of its own before "Paxos Leader Leases": it
    opens that section instead of ending the previous one."""
    secs = sections_for(load(CORPUS / "google-2012-spanner.pdf"))
    flat = {s.title: " ".join(s.text.split()) for s in secs}
    assert flat["Paxos Leader Leases"].startswith("4.1.1 Paxos Leader Leases")
    assert not flat["Timestamp Management"].endswith("4.1.1")


@pytest.mark.parametrize("name", SMALL_DOCS)
def test_outline_sections_and_detected_sections_hold_their_invariants(name):
    ex = extract_document(str(shared_file(CORPUS / name)))  # not the cached copy: changed below
    assert_outline_well_formed(ex.outline, ex.page_count)
    secs = sections_for(ex)
    assert secs and {s.source for s in secs} == {"outline" if ex.outline else "detected"}
    assert_sections_well_formed(secs)
    detected = build_sections(ex.pages, detect_headings(ex.pages), "detected")
    assert detected
    assert_sections_well_formed(detected)


R_INTRO = CORPUS / "debian-r-intro.pdf"
DEV_REF = CORPUS / "debian-developers-reference.pdf"


@needs_shared(R_INTRO)
def test_bookmarks_sharing_the_page_top_are_placed_by_their_titles():
    """R's manual points the bookmarks "C The command-line editor", "Preliminaries" and
    "Editing actions" all at the top of p. 106. "Editing actions" started at "Appendix
    C" (and held "C.1 Preliminaries" and its text), "Preliminaries" was empty. Entries
    sharing a point are placed by the block starting with their title, its number
    ("C.2") aside; a bookmark at the page's top pointing at no block, too ("4.1 A
    specific example", p. 23)."""
    flat = {s.title: " ".join(s.text.split()) for s in sections_for(load(R_INTRO))}
    assert flat["Editing actions"].startswith(
        "C.2 Editing actions The R program keeps a history of the command lines")
    assert flat["Preliminaries"].startswith("C.1 Preliminaries When the GNU readline")
    assert flat["C The command-line editor"].startswith("Appendix C The command-line")
    assert flat["A specific example"].startswith("4.1 A specific example Suppose")


@needs_shared(DEV_REF)
def test_a_numbered_heading_wins_over_a_paragraph_opening_with_its_title():
    """The Developer's Reference's "fakeroot" bookmark points at "9.1.3 fakeroot"; the
    paragraph under it opens "fakeroot simulates root privileges", which started the
    section, leaving its heading at the end of the previous one."""
    secs = sections_for(load(DEV_REF))
    flat = {s.title: " ".join(s.text.split()) for s in secs}
    assert flat["fakeroot"].startswith("9.1.3 fakeroot fakeroot simulates")
    before = secs[[s.title for s in secs].index("fakeroot") - 1]
    assert "9.1.3 fakeroot" not in " ".join(before.text.split())
    assert flat["Security Advisories"].startswith("5.8.5.3 Security Advisories")


@needs_shared(CORPUS / "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf")
def test_a_bookmark_on_a_paragraphs_last_line_points_at_what_follows():
    """The ULBDM paper's "References" bookmark (its heading is not printed) points at the
    last line of the conclusions' second paragraph: the reference list started with that
    paragraph. A destination on a block's last line, with a block (not a page number)
    just below, starts the section at that next block."""
    secs = sections_for(load(CORPUS / "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf"))
    flat = {s.title: " ".join(s.text.split()) for s in secs}
    assert flat["References"].startswith("[1] Hu W., Barkana, R.")
    assert "We have shown that the effect of Reionzation" in flat["Conclusions"]


def test_an_unlisted_reference_list_gets_its_own_section():
    """Shor's factoring paper: the heading detector finds "Acknowledgements" but not the
    small-caps "REFERENCES" under it, so the acknowledgements ran on over four pages of
    entries (a fresh-user trial); the Attention paper's outline lists no References, so
    its "Conclusion" ran to the end. A block that is only "References" (or Bibliography)
    over text with a year now starts a section at the body's top level. A "Reference"
    column header over a table of studies does not."""
    shor = sections_for(load(CORPUS / "arxiv-quant-ph-9508027-shor-factoring.pdf"))
    ack, refs = by_title(shor, "Acknowledgements"), by_title(shor, "REFERENCES")
    assert (ack.start_page, ack.end_page) == (25, 25) and len(ack.text) < 600
    assert (refs.level, refs.start_page, refs.end_page) == (1, 25, 28)
    assert refs.text.startswith("REFERENCES")
    attention = sections_for(load(ATTENTION))
    conclusion = by_title(attention, "7 Conclusion")
    assert conclusion.end_page == 10 and "[1]" not in conclusion.text
    assert by_title(attention, "References").path == "References"
    table = sections_for(load(CORPUS / "helicobacter-pylori-iron-deficiency-anaemia.pdf"))
    assert [s.title for s in table].count("Reference") == 0


def test_a_numbered_list_inside_a_section_stays_in_that_section():
    """R Data Import/Export (outline hidden) lists the points of "1.2 Export to text
    files" as "1. Precision", "2. Header line", ... in bold: they were sections of their
    own, a chapter "2. Header line" among them. They are list items of the section."""
    ex = load(CORPUS / "debian-r-data-import-export.pdf")
    hidden = dataclasses.replace(ex, outline=[])
    secs = sections_for(hidden)
    titles = [s.title for s in secs]
    assert not {"1. Precision", "2. Header line", "3. Separator", "1. Encoding"} & set(titles)
    export = next(s for s in secs if s.title.startswith("1.2 Export"))
    assert "Header line" in export.text and export.level == 2
    assert titles[titles.index(export.title) + 1].startswith("1.3 XML")


def test_a_hyphenated_two_line_heading_is_one_section():
    """The Developer's Reference breaks "5.9 Moving, removing, renaming, orphaning,
    adopting, and reintro-" / "ducing packages" over two lines: one section, titled in
    full; "ducing packages" is no section of its own."""
    ex = load(CORPUS / "debian-developers-reference.pdf")
    titles = [s.title for s in sections_for(dataclasses.replace(ex, outline=[]))]
    assert "5.9 Moving, removing, renaming, orphaning, adopting, and reintroducing " \
           "packages" in titles
    assert "ducing packages" not in titles


def test_a_journals_bold_body_size_subsections_nest_under_their_section():
    """PLOS (outline hidden): "Ethics statement", "Surgical preparation" in bold body size
    under "Methods" scored just under the threshold, none kept, so Methods held them all
    as text; now they are level-2 sections under Methods."""
    ex = load(CORPUS / "ploscompbiol-2026-whisker-stimulation-resting-state.pdf")
    paths = [s.path for s in sections_for(dataclasses.replace(ex, outline=[]))]
    assert "Methods > Ethics statement" in paths
    assert "Methods > Surgical preparation" in paths
    assert "Results > Resting state neural activity in the barrel cortex and thalamus" \
        in paths


def test_an_appendix_of_bold_prompts_is_not_a_style_of_headings():
    """LLaMA's appendix D prints its prompts in bold at one left edge ("write a
    conversation between the sun and pluto", "The same thing, using fetch", "head -n 5
    /proc/meminfo"): questions and lowercase lines, not a style of headings."""
    titles = [e.title for e in detect_headings(
        load(CORPUS / "arxiv-2302.13971-llama.pdf").pages)]
    assert "D Generations from LLaMA-I" in titles
    assert not {"The same thing, using fetch",
                "Write a theory to explain why cat never existed",
                "head -n 5 /proc/meminfo"} & set(titles)
