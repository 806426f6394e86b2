"""Run-in headings (a bold or italic lead-in opening a paragraph) are headings whose
sections run to the next heading of any kind; table header rows, theorem and step
labels, repeated labels and a phrase the sentence goes on from are not. On PDFs made with
PyMuPDF and on corpus PDFs (real extraction, real detector)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdftui.extract import extract_document
from pdftui.headings import detect_headings
from pdftui.sections import RUN_IN_SECTIONS, build_sections, sections_for
from tests.conftest import corpus_pdf
from tests.test_headings_styles import Paper

pymupdf = pytest.importorskip("pymupdf")


def _lead(p: Paper, lead: str, rest: str, font: str = "hebo", lines: int = 3) -> Paper:
    """A paragraph opening with ``lead`` set in ``font`` and ``rest`` plain on the same
    line, then ``lines`` lines of body text."""
    p.y += 8
    p.line(lead, font=font)
    width = pymupdf.get_text_length(lead + " ", fontname=font, fontsize=10)
    p.line(rest, x=72 + width)
    p.y += 14
    return p.text(lines)


def _headings(path: Path) -> list[tuple[int, str]]:
    """(level, title) of the detector's headings."""
    return [(h.level, h.title) for h in detect_headings(extract_document(str(path)).pages)]


def test_bold_run_in_leads_are_headings_and_their_sections_end_at_the_next_heading(tmp_path):
    """As sections (``sections.RUN_IN_SECTIONS`` off: sections_for leaves them out), a
    run-in heading's section nests under its own-line heading and ends at the next
    heading of any kind."""
    p = Paper().new_page().heading("1 Introduction").text(6)
    p.heading("2 Training").text(3)
    _lead(p, "Residual Dropout.", "We apply dropout to the output of each of the layers.")
    _lead(p, "Label Smoothing", "During training we employed label smoothing in all runs.")
    p.heading("3 Results").text(6)
    path = p.save(tmp_path / "run_in.pdf")
    assert _headings(path) == [(1, "1 Introduction"), (1, "2 Training"),
                               (2, "Residual Dropout"), (2, "Label Smoothing"),
                               (1, "3 Results")]
    pages = extract_document(str(path)).pages
    secs = {s.title: s for s in build_sections(pages, detect_headings(pages), "detected")}
    dropout = secs["Residual Dropout"]
    assert dropout.path == "2 Training > Residual Dropout"
    assert dropout.text.startswith("Residual Dropout. We apply dropout")
    assert "label smoothing" not in dropout.text.lower()
    assert "Results" not in secs["Label Smoothing"].text
    assert "Residual Dropout. We apply" in secs["2 Training"].text
    made = [s.title for s in sections_for(extract_document(str(path)))]
    assert ("Residual Dropout" in made) == RUN_IN_SECTIONS


def test_table_headers_labels_references_and_emphasis_are_not_run_in_headings(tmp_path):
    p = Paper().new_page().heading("1 Method").text(4)
    for k in range(2):   # two tables whose header row opens with a bold "Model"
        _lead(p, "Model", "Params MNLI-m SQuAD v1.1 RACE", lines=0)
        p.line(f"BERT-{k} 110M 84.3 88.5 65.0").text(2)
    _lead(p, "Theorem 1.", "For any matrix there exists a low rank one that is close.")
    _lead(p, "Phase 1.", "The proposer selects a number and sends a request to them.")
    _lead(p, "Map", ", written by the user, takes an input pair and produces a set.",
          font="heit")
    for k in range(3):
        _lead(p, f"MODEL ANSWER ({k}):", "The answer must be something that is in a box.")
    p.new_page()
    for author in ("Blackburne BP, Whelan S. 2013.", "Loytynoja A, Goldman N. 2005."):
        _lead(p, author, "An algorithm for the progressive alignment of the sequences.")
    p.heading("2 Results").text(4)
    assert _headings(p.save(tmp_path / "labels.pdf")) == [(1, "1 Method"), (1, "2 Results")]


def test_corpus_run_in_headings_in_one_line_after_a_citation_and_in_bold_lines():
    """E5's leads share their line with the text (a narrow column: the sentence goes on
    in the next row); Linformer's close with a citation; DeBERTa's and MapReduce's are
    lines of their own on the paragraph's first row; DeBERTa's table header "Model" is
    none."""
    cases = {
        "arxiv-2402.05672-multilingual-e5-embeddings.pdf":
            ["Supervised Fine-tuning", "Multilingual Retrieval", "Training Hyperparameters"],
        "arxiv-2006.04768-linformer.pdf":
            ["Mixed Precision (Micikevicius et al., 2017)", "Improving Optimizer Efficiency"],
        "arxiv-2006.03654-deberta.pdf": ["Disentangled attention", "Enhanced mask decoder"],
        "google-2004-mapreduce.pdf": ["Distributed Grep", "Count of URL Access Frequency"],
    }
    for name, want in cases.items():
        titles = [h.title for h in detect_headings(extract_document(str(corpus_pdf(name))).pages)]
        assert set(want) <= set(titles), (name, titles)
        assert "Model" not in titles


def test_roman_sections_scored_low_fill_their_gap_and_hold_their_lettered_subsections():
    """An IEEE paper: "III." and "IV." in 8 pt small capitals over two lines score under
    the style rescue, between the kept "II." and "V."; the letters under each roman
    heading start again at "A" and nest under it; a lettered heading over two lines is
    one heading in the style of its siblings. (The paper has an outline; the detector
    runs without it.)"""
    ex = extract_document(str(corpus_pdf("arxiv-1706.03791-sz-lossy-compression-scientific-data.pdf")))
    got = [(h.level, h.title) for h in detect_headings(ex.pages, run_in=False)]
    assert got[:6] == [
        (1, "I. INTRODUCTION"), (1, "II. PROBLEM AND METRICS DESCRIPTION"),
        (1, "III. PREDICTION MODEL BASED ON MUTIDIMENSIONAL SCIENTIFIC DATA SETS"),
        (2, "A. Prediction Model for Multidimensional Scientific Data Sets"),
        (2, "B. In-Depth Analysis of the Best Layer for Multilayer Prediction Model"),
        (1, "IV. AEQVE: ADAPTIVE ERROR-CONTROLLED QUANTIZATION AND VARIABLE-LENGTH ENCODING"),
    ]
    assert (1, "V. EMPIRICAL PERFORMANCE EVALUATION") in got and (2, "D. Speed") in got
    paths = [s.path for s in build_sections(ex.pages, detect_headings(ex.pages), "detected")]
    assert "IV. AEQVE: ADAPTIVE ERROR-CONTROLLED QUANTIZATION AND VARIABLE-LENGTH ENCODING > " \
        "A. Error-Controlled Quantization" in paths


def test_a_bulleted_line_under_a_numbered_heading_is_not_its_second_line():
    ex = extract_document(str(corpus_pdf("bmc-healthcare-quality-malawi.pdf")))
    titles = [h.title for h in detect_headings(ex.pages)]
    assert "4.3 Treatment protocols" in titles and "4.5 Management-related issues" in titles


def test_unnumbered_subheadings_between_two_numbers_stand_under_the_first():
    """MapReduce's bold body-size subheadings, each opening a paragraph, between "3.3"
    and "3.4" are headings one level below "3.3" (they were dropped as labels between
    two consecutive numbers); DeBERTa's table header "Model" between its numbers is
    not."""
    ex = extract_document(str(corpus_pdf("google-2004-mapreduce.pdf")))
    got = [(h.level, h.title) for h in detect_headings(ex.pages, run_in=False)]
    at = got.index((2, "3.3 Fault Tolerance"))
    assert got[at:at + 5] == [(2, "3.3 Fault Tolerance"), (3, "Worker Failure"),
                              (3, "Master Failure"),
                              (3, "Semantics in the Presence of Failures"), (2, "3.4 Locality")]
    ex = extract_document(str(corpus_pdf("arxiv-2006.03654-deberta.pdf")))
    assert "Model" not in [h.title for h in detect_headings(ex.pages)]


def test_all_caps_numbered_headings_in_small_print_rise_in_sequence_under_their_parts():
    """Shannon 1948: "1. THE DISCRETE NOISELESS CHANNEL" ... in small capitals of 8 pt
    score .2 to .5 (smaller than the text, not bold); rising one by one in one style they
    are the sections, under "PART I: ..." set larger; a formula's digits and letters
    ("2 2 dx", "N C W log") and a numbered line of text ("4. We have") are not."""
    ex = extract_document(str(corpus_pdf("shannon-1948-mathematical-theory-of-communication.pdf")))
    got = [(s.level, s.title) for s in sections_for(ex)]
    titles = [t for _l, t in got]
    numbered = [t for t in titles if t[:1].isdigit()]
    assert len(numbered) >= 27 and numbered[0] == "1. THE DISCRETE NOISELESS CHANNEL"
    assert "13. THE FUNDAMENTAL THEOREM FOR A DISCRETE CHANNEL WITH NOISE" in titles
    assert (1, "PART II: THE DISCRETE CHANNEL WITH NOISE") in got
    assert (2, "12. EQUIVOCATION AND CHANNEL CAPACITY") in got
    assert not [t for t in titles if t in ("4. We have", "2 2 dx", "N C W log", "N W log")]


def test_body_size_headings_opening_their_paragraphs_block_are_headings():
    """A BMJ meta-analysis sets its headings in the face of "RESULTS" at body size, each
    in one block with the paragraph below it: "METHODS", "Inclusion criteria", "Data
    extraction" are headings, the mixed case ones under the capitals, and "RESULTS" is not
    joined to "Search results" under it; the structured abstract's labels ("Background
    Recent guidelines ...") stay run-in leads, not headings."""
    ex = extract_document(str(corpus_pdf("helicobacter-pylori-iron-deficiency-anaemia.pdf")))
    got = [(h.level, h.title) for h in detect_headings(ex.pages, run_in=False)]
    at = got.index((1, "RESULTS"))
    assert got[at + 1] == (2, "Search results")
    assert (2, "Inclusion criteria") in got and (2, "Data extraction") in got
    assert (1, "DISCUSSION") in got
    assert not [t for _l, t in got if t.startswith(("Background", "Conclusions"))]


def test_a_bold_paragraph_heading_in_the_numbered_headings_bold_is_a_heading():
    """Synthesizer: "Comparing Synthesizers with Dynamic Convolutions", bold at body size
    over its paragraph between "4.1" and "4.2", is a heading; its run-in paragraph heads
    ("Dense Synthesizer Let us consider ...") are not, nor is a table's header row in the
    same bold ("Parser Training WSJ 23 F1", Attention Is All You Need)."""
    ex = extract_document(str(corpus_pdf("arxiv-2005.00743-synthesizer.pdf")))
    titles = [h.title for h in detect_headings(ex.pages, run_in=False)]
    at = titles.index("Comparing Synthesizers with Dynamic Convolutions")
    assert titles[at - 1].startswith("4.1.") and titles[at + 1].startswith("4.2.")
    assert not [t for t in titles if t.startswith("Dense Synthesizer")]
    ex = extract_document(str(corpus_pdf("arxiv-1706.03762v7-attention-is-all-you-need.pdf")))
    assert not [h for h in detect_headings(ex.pages) if h.title.startswith("Parser")]


def test_a_contents_entry_whose_title_ends_in_a_number_is_not_a_heading():
    """gnuplot's contents page: "Differences between versions 4 and 5  29" (the page
    number printed apart after a title ending in "5") is an entry, not a heading."""
    ex = extract_document(str(corpus_pdf("debian-gnuplot-manual.pdf")))
    assert not [h for h in detect_headings(ex.pages) if h.page == 2
                and h.title.startswith("Differences between versions")]


def test_structured_abstract_labels_in_the_headings_face_are_run_in_headings():
    """A BMJ paper sets its structured abstract's labels in the face of its headings
    ("METHODS"), neither bold nor italic, and its paragraphs run on in one block under
    "ABSTRACT": "Background", "Methods", "Results", "Conclusions" open paragraphs (after
    a heading, after a paragraph's short last line) and are run-in headings, and so are
    the back matter's "Acknowledgements", "Funding". PeerJ's bold "Methods." opens a
    paragraph after one that fills the column; "How to cite this article" labels a
    field."""
    ex = extract_document(str(corpus_pdf("helicobacter-pylori-iron-deficiency-anaemia.pdf")))
    got = [(h.page, h.title) for h in detect_headings(ex.pages, run_in=True)]
    for title in ("Background", "Methods", "Results", "Conclusions"):
        assert (1, title) in got
    assert (6, "Acknowledgements") in got and (6, "Funding") in got
    assert not [t for _p, t in got if t.startswith(("Background Recent", "Iron deficiency"))]
    ex = extract_document(str(corpus_pdf("peerjcs-2017-118.pdf")))
    got = [(h.page, h.title) for h in detect_headings(ex.pages, run_in=True)]
    for title in ("Background", "Methods", "Results", "Discussion"):
        assert (1, title) in got
    assert not [t for _p, t in got if t.startswith("How to cite")]


def test_run_in_leads_with_an_italic_word_citations_or_a_number_first_are_run_in_headings():
    """ResNet's bold "Identity *vs.* Projection Shortcuts." holds an italic word, its
    "50-layer ResNet:" opens with a number fused with a word; Group Normalization's
    "Group-wise computation." is followed by an italic term, its "Implementation
    details." by a paragraph citing "[20, 17]" (no author list), and four leads opening
    "Results of" are headings that share their first words, not a repeated label."""
    ex = extract_document(str(corpus_pdf("arxiv-1512.03385-resnet.pdf")))
    titles = [h.title for h in detect_headings(ex.pages, run_in=True)]
    assert "Identity vs. Projection Shortcuts" in titles
    assert "50-layer ResNet" in titles and "101-layer and 152-layer ResNets" in titles
    assert "Right" not in titles   # a caption's panel label
    ex = extract_document(str(corpus_pdf("arxiv-1803.08494-group-normalization.pdf")))
    titles = [h.title for h in detect_headings(ex.pages, run_in=True)]
    for title in ("Group-wise computation", "Implementation details", "Results of C4 backbone",
                  "Results of FPN backbone", "Results of 32-frame inputs",
                  "Results of 64-frame inputs"):
        assert title in titles


def test_subheadings_before_a_next_sibling_a_recurring_title_and_a_one_word_answer():
    """ResNet's appendices A and B each hold "PASCAL VOC" and "MS COCO" (the two "MS
    COCO" on one page, one over its paragraph's block): bold subheadings before the next
    lettered appendix, found once in their section, are headings; Synthesizer's bold
    subheadings after "5.2" and before "6. Conclusion" too. A BMJ paper's "Competing
    interests None." heads a paragraph of one short sentence. GPT-2's table of
    translations ("English reference" | "GPT-2 French translation", recurring side by
    side) holds no heading."""
    ex = extract_document(str(corpus_pdf("arxiv-1512.03385-resnet.pdf")))
    got = [(h.page, h.title) for h in detect_headings(ex.pages, run_in=False)]
    assert got.count((10, "MS COCO")) == 2 and (10, "PASCAL VOC") in got
    assert (11, "PASCAL VOC") in got and (11, "ImageNet Detection") in got
    ex = extract_document(str(corpus_pdf("arxiv-2005.00743-synthesizer.pdf")))
    titles = [h.title for h in detect_headings(ex.pages, run_in=False)]
    at = titles.index("Synthetic Attention is competitive even without Dot Product Attention")
    assert titles[at - 1].startswith("5.2.") and titles[-1] != titles[at]
    ex = extract_document(str(corpus_pdf("helicobacter-pylori-iron-deficiency-anaemia.pdf")))
    titles = [h.title for h in detect_headings(ex.pages, run_in=True)]
    assert "Competing interests" in titles and "Patient consent" in titles
    ex = extract_document(str(corpus_pdf(
        "openai-2019-gpt2-language-models-unsupervised-multitask.pdf")))
    assert not [h for h in detect_headings(ex.pages) if h.title.endswith(("reference",
                                                                          "translation"))]


def test_a_description_lists_terms_are_not_run_in_headings():
    """The LPPL's definitions ("Modification Any procedure that produces ..." over
    "cable law - for example ...", its next line hanging indented; "Work Any work being
    distributed under this License." one line above "Derived Work ...") are a
    description list's terms, not headings; its run-in "Defining What Constitutes the
    Work" is one."""
    ex = extract_document(str(corpus_pdf("texlive-lppl-license.pdf")))
    titles = [h.title for h in detect_headings(ex.pages, run_in=True)]
    for term in ("Work", "Derived Work", "Modification", "Modify", "Distribution",
                 "Compiled Work", "Current Maintainer", "Base Interpreter"):
        assert term not in titles
    assert "Defining What Constitutes the Work" in titles
